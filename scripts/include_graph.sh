#!/bin/sh
# The dependency graph of the .c files of one src/ folder, as DOT, and its
# cycles (strongly connected components of more than one file), so that a
# circle between modules shows up before it sets.
#
#   scripts/include_graph.sh [--calls BUILD] [--summary] DIR
#
# Include graph (the default): A.c -> B.c when A.c includes, directly or
# through other headers of DIR, a header that B.c implements: B.h, or a
# header declaring a function B.c defines (a header shared by many files,
# such as a folder-wide one, points at every file it declares functions
# of). A header that only defines types points at nothing.
#
# --calls BUILD: the link graph instead, from the objects in BUILD/DIR:
# A.c -> B.c when A.o uses a symbol B.o defines (nm). It counts calls
# made through macros and tables too, which no include line shows.
#
# --summary: only the cycles and the size of the largest, no DOT.
#
# Each cycle is printed as a DOT comment after the graph,
#   // cycle (N files): a.c b.c ...
# then `// largest cycle: N files` (0 when there is none); the files of
# a cycle are filled in the drawing. Needs python3 (Debian's); nm for
# --calls.
set -eu
exec /usr/bin/python3 - "$@" <<'EOF'
import os, re, subprocess, sys

args = sys.argv[1:]
build = None
summary = False
while args and args[0].startswith('--'):
    if args[0] == '--calls' and len(args) > 1:
        build = args[1]
        args = args[2:]
    elif args[0] == '--summary':
        summary = True
        args = args[1:]
    else:
        break
if len(args) != 1 or not os.path.isdir(args[0]):
    sys.stderr.write('usage: include_graph.sh [--calls BUILD] [--summary] DIR\n')
    sys.exit(2)
folder = os.path.normpath(args[0])
cfiles = sorted(f for f in os.listdir(folder) if f.endswith('.c'))
headers = sorted(f for f in os.listdir(folder) if f.endswith('.h'))


def read(name):
    with open(os.path.join(folder, name), encoding='utf-8',
              errors='replace') as fh:
        return fh.read()


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


def includes(text):
    """The headers of this folder a file includes (by basename)."""
    out = []
    for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        base = os.path.basename(m.group(1))
        parent = os.path.dirname(m.group(1))
        # "codegen/x.h" from src/codegen, or a plain "x.h"
        if base in headers and (parent == '' or
                                parent == os.path.basename(folder)):
            out.append(base)
    return out


# Functions each .c defines with external linkage: a line that starts a
# declaration (not static, not a statement) with NAME( and whose body
# follows, as this tree's style writes them.
defined = {}
for c in cfiles:
    text = strip_comments(read(c))
    for m in re.finditer(r'^(?!static\b)(?![ \t#])[^;{}()=]*?\b([A-Za-z_]\w*)'
                         r'\s*\(([^;{}]|\n)*?\)\s*(__attribute__\s*\(\(.*?\)\)\s*)?\{',
                         text, re.M):
        defined.setdefault(m.group(1), c)

edges = {c: set() for c in cfiles}

if build is None:
    # the .c files each header stands for
    owners = {}
    hincl = {}
    for h in headers:
        text = read(h)
        hincl[h] = includes(text)
        own = set()
        if h[:-2] + '.c' in cfiles:
            own.add(h[:-2] + '.c')
        for ident in set(re.findall(r'\b[A-Za-z_]\w*\b', strip_comments(text))):
            if ident in defined:
                own.add(defined[ident])
        owners[h] = own

    def reach(start):
        seen, todo = set(), list(start)
        while todo:
            h = todo.pop()
            if h in seen:
                continue
            seen.add(h)
            todo.extend(hincl.get(h, []))
        return seen

    for c in cfiles:
        for h in reach(includes(read(c))):
            edges[c] |= owners[h] - {c}
else:
    objdir = os.path.join(build, folder)
    defs, uses = {}, {}
    for c in cfiles:
        obj = os.path.join(objdir, c[:-2] + '.o')
        if not os.path.exists(obj):
            sys.stderr.write('include_graph.sh: %s is missing (build first)\n'
                             % obj)
            sys.exit(1)
        out = subprocess.run(['nm', obj], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == 'U':
                uses.setdefault(c, set()).add(parts[1])
            elif len(parts) == 3 and parts[1] in 'TDBR':
                defs[parts[2]] = c
    for c in cfiles:
        for sym in uses.get(c, ()):
            if sym in defs and defs[sym] != c:
                edges[c].add(defs[sym])

# Tarjan's strongly connected components
index, low, stack, onstack, sccs = {}, {}, [], set(), []


def strong(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    onstack.add(v)
    for w in sorted(edges[v]):
        if w not in index:
            strong(w)
            low[v] = min(low[v], low[w])
        elif w in onstack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            onstack.discard(w)
            comp.append(w)
            if w == v:
                break
        sccs.append(sorted(comp))


sys.setrecursionlimit(10000)
for c in cfiles:
    if c not in index:
        strong(c)
cycles = sorted((s for s in sccs if len(s) > 1), key=lambda s: (-len(s), s))
incycle = {c for s in cycles for c in s}

if not summary:
    kind = 'calls' if build else 'includes'
    print('digraph "%s %s" {' % (folder, kind))
    print('  rankdir=LR; node [shape=box, fontname="monospace"];')
    for c in cfiles:
        style = ' [style=filled, fillcolor="#f4b6b6"]' if c in incycle else ''
        print('  "%s"%s;' % (c, style))
    for c in cfiles:
        for d in sorted(edges[c]):
            print('  "%s" -> "%s";' % (c, d))
    print('}')
for s in cycles:
    print('// cycle (%d files): %s' % (len(s), ' '.join(s)))
print('// largest cycle: %d files' % (len(cycles[0]) if cycles else 0))
EOF
