#!/bin/sh
# The dependency graph of the .c files of one src/ folder, as DOT, and its
# cycles (strongly connected components of more than one file), so that a
# circle between modules shows up before it sets.
#
#   scripts/include_graph.sh [--calls BUILD] [--summary] DIR
#
# Include graph (the default): A.c -> B.c when A.c names a function
# that B.c defines and that a header A.c includes (directly or through
# other headers) declares: the calls each file's includes let it make. A
# header that only gives types (struct definitions) makes no edge, and
# neither does a function reached through a pointer. A .def file included
# by a .c (a table built from a registry) counts as that file's text;
# it declares nothing (builtins.h includes builtins.def for its ids, and
# the names in its rows are declared by the headers that define them).
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


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


root = os.path.dirname(os.path.abspath(folder))  # src/


def included(text):
    """The files a text includes ("dir/x.h" from src/, or "x.h" here)
    that exist."""
    out = []
    for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        for base in (root, os.path.abspath(folder)):
            path = os.path.join(base, m.group(1))
            if os.path.exists(path):
                out.append(path)
                break
    return out


def text_of(path):
    with open(path, encoding='utf-8', errors='replace') as fh:
        return fh.read()


def idents(text):
    return set(re.findall(r'\b[A-Za-z_]\w*\b', strip_comments(text)))


# Functions each .c defines with external linkage: a line that starts a
# declaration (not static, not a statement) with NAME( and whose body
# follows, as this tree's style writes them.
defined = {}
for c in cfiles:
    text = strip_comments(text_of(os.path.join(folder, c)))
    for m in re.finditer(r'^(?!static\b)(?![ \t#])[^;{}()=\n]*?\b([A-Za-z_]\w*)'
                         r'\s*\(([^;{}]|\n)*?\)\s*(__attribute__\s*\(\(.*?\)\)\s*)?\{',
                         text, re.M):
        defined.setdefault(m.group(1), c)

edges = {c: set() for c in cfiles}

if build is None:
    declared_by = {}  # path -> identifiers of it and what it includes

    def declared(path):
        if path in declared_by:
            return declared_by[path]
        declared_by[path] = set()  # a header included in a circle
        if path.endswith('.def'):
            return set()  # a table's names are uses, declared elsewhere
        text = text_of(path)
        names = idents(text)
        for inc in included(text):
            names |= declared(inc)
        declared_by[path] = names
        return names

    for c in cfiles:
        path = os.path.join(folder, c)
        text = text_of(path)
        uses = idents(text)
        seen = set()
        for inc in included(text):
            if inc.endswith('.def'):
                uses |= idents(text_of(inc))
            seen |= declared(inc)
        for name in uses & seen:
            if name in defined and defined[name] != c:
                edges[c].add(defined[name])
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
