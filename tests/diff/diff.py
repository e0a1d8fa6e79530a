#!/usr/bin/python3
"""Differential driver: runs gen.py's programs under sonde and bpftrace 0.17
and compares stdout and exit status.

Usage: diff.py --sonde PATH --bpftrace PATH --scratch DIR
               [--first N] [--count N] [--batch N] [--jobs N] [--keep]

Several seeds' programs share one BEGIN block (one run of each tool per
batch: bpftrace takes about a second to start), each after a marker line;
their maps are told apart by the seed in their names (@sSEED_...).  When a
batch does not run cleanly under both tools (a refusal, a crash), each of
its seeds is run alone, so that the result line names the program.

bpftrace 0.17's output is first rewritten into 0.26's form where 0.26
prints the same values differently; each rewrite is an entry of KNOWN.md
(N1-N9 there) and nothing else is rewritten.  One line per seed:
ok diff-SEED | not ok diff-SEED: why, then the program and a diff.
"""
import argparse
import concurrent.futures
import difflib
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

MARK = "=== diff-%d ==="
END = "=== end ==="
TIMEOUT = 60

ENTRY = re.compile(r"^(@s(\d+)_\w+)(\[.*\])?: (.*)$")
OWNER = re.compile(r"^@s(\d+)_")
ATTACHING = re.compile(r"^Attaching \d+ probes?\.\.\.$")
STATS017 = re.compile(r"^(@.*): count (-?\d+), average (-?\d+), total (-?\d+)$")
BUCKET = re.compile(r"^\[(-?\d+), (-?\d+)\)")
# maps that 0.17 prints sorted by value: equal values come out in the
# kernel hash table's order, which has a random seed (N6); and avg() and
# stats() maps, which 0.26 sorts by average, with std::sort (N9)
BY_VALUE = {"int", "count", "sum", "min", "max", "avg", "stats"}
AVERAGE = re.compile(r"\.average = (-?\d+)")


def rank(kind, value):
    """What the 0.26 sort of a map of this kind compares."""
    if kind == "stats":
        m = AVERAGE.search(value)
        return int(m.group(1)) if m else value
    if kind == "avg":
        return int(value)
    return value


def by_average(lines, kinds):
    """0.17 prints avg() and stats() maps in key order, 0.26 by average
    (N9): runs of one such map's entries stably sorted by average."""
    out, run = [], []

    def flush():
        out.extend(sorted(run, key=lambda ln: rank(
            kinds.get(ENTRY.match(ln).group(1)), ENTRY.match(ln).group(4))))
        run.clear()
    for ln in lines:
        m = ENTRY.match(ln)
        # a key seen again starts another print() of the map
        if m and kinds.get(m.group(1)) in ("avg", "stats") and \
                (not run or ENTRY.match(run[0]).group(1) == m.group(1)) and \
                not any(ENTRY.match(x).group(3) == m.group(3) for x in run):
            run.append(ln)
            continue
        flush()
        if m and kinds.get(m.group(1)) in ("avg", "stats"):
            run.append(ln)
        else:
            out.append(ln)
    flush()
    return out


def normalize_017(lines, kinds):
    """bpftrace 0.17's stdout in bpftrace 0.26's form (KNOWN.md N1-N5)."""
    out = []
    if lines and ATTACHING.match(lines[0]):        # N1
        lines = lines[1:]
    prev_kind = None
    for ln in lines:
        m = OWNER.match(ln)
        name = ln.split("[")[0].split(":")[0] if m else None
        kind = kinds.get(name) if m else None
        if kind in ("hist", "lhist") and ln.endswith(": "):
            ln = ln[:-1]                             # N2
        if kind == "stats":
            ln = STATS017.sub(r"\1: { .count = \2, .average = \3,"
                              r" .total = \4 }", ln)  # N4
        b = BUCKET.match(ln)
        if b and int(b.group(2)) == int(b.group(1)) + 1:
            # N5: a bucket of one integer; the label field is 16 wide
            ln = ("[%s]" % b.group(1)).ljust(16) + ln[16:]
        if ln == "" and prev_kind in ("avg", "stats"):
            prev_kind = None                         # N3
            continue
        prev_kind = kind if m else (None if ln == "" else prev_kind)
        out.append(ln)
    return by_average(out, kinds)


def sort_ties(lines, kinds):
    """Runs of entries of one by-value map with equal values, sorted (N6):
    applied to both outputs."""
    out, run, runkey = [], [], None

    def flush():
        out.extend(sorted(run))
        run.clear()
    for ln in lines:
        m = ENTRY.match(ln)
        key = None
        if m and kinds.get(m.group(1)) in BY_VALUE:
            key = (m.group(1), rank(kinds[m.group(1)], m.group(4)))
        if key is None or key != runkey:
            flush()
        runkey = key
        if key is None:
            out.append(ln)
        else:
            run.append(ln)
    flush()
    return out


def split(lines, seeds):
    """{seed: lines} of a batch's output, or None when its markers are not
    all there in order."""
    parts = {s: [] for s in seeds}
    parts[None] = []
    want = [MARK % s for s in seeds] + [END]
    cur, i, owner = None, 0, None
    for ln in lines:
        if i < len(want) and ln == want[i]:
            cur = seeds[i] if i < len(seeds) else "maps"
            i += 1
            continue
        if cur == "maps":
            # a map's lines go to the seed in its name; a histogram's
            # buckets and blank lines to the map before them
            m = OWNER.match(ln)
            if m:
                owner = int(m.group(1))
                owner = owner if owner in parts else None
            parts[owner].append(ln)
            continue
        parts[cur].append(ln)
    return parts if i == len(want) else None


def run(cmd, path):
    """(exit status, stdout, stderr) of cmd PATH."""
    try:
        p = subprocess.run(cmd + [path], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=TIMEOUT)
        return p.returncode, p.stdout.decode("utf-8", "replace"), \
            p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def text_of(sections, seeds):
    body = []
    for s in seeds:
        if len(seeds) > 1:
            body.append('  printf("%s\\n");' % (MARK % s))
        body.extend(sections[s][0])
    if len(seeds) > 1:
        body.append('  printf("%s\\n");' % END)
    return "BEGIN {\n" + "\n".join(body) + "\n  exit();\n}\n"


def both(args, path):
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        fs = ex.submit(run, [args.sonde], path)
        fb = ex.submit(run, [args.bpftrace], path)
        return fs.result(), fb.result()


def udiff(a, b):
    d = difflib.unified_diff(a, b, "bpftrace-0.17 (normalized)", "sonde",
                             lineterm="", n=2)
    return ["    " + x for x in list(d)[:40]]


def report_one(args, seed, sect):
    """Runs one seed's program alone; returns its result lines."""
    path = os.path.join(args.scratch, "diff-%d.bt" % seed)
    with open(path, "w") as f:
        f.write(text_of({seed: sect}, [seed]))
    return compare_file(args, path, "diff-%d" % seed, sect[1])


def compare_file(args, path, name, kinds):
    """Result lines of the program in path run under both tools; kinds:
    the kind of each of its maps."""
    (src, sout, serr), (brc, bout, berr) = both(args, path)
    b = sort_ties(normalize_017(bout.splitlines(), kinds), kinds)
    s = sort_ties(sout.splitlines(), kinds)
    why = None
    if brc != 0 and src == 0 and "Error loading program" in berr:
        # 0.17's LLVM code that the kernel's verifier refuses: no
        # reference to compare with (KNOWN.md K8)
        return ["skip %s: bpftrace 0.17 cannot load this program"
                " (the verifier refuses its code)" % name]
    if src != brc:
        why = "exit status %s, bpftrace %s" % (src, brc)
    elif src != 0:
        why = "both refused or failed (exit status %s): the generator" \
              " wrote a program bpftrace does not run" % src
    elif b != s:
        why = "stdout differs"
    if why is None:
        return ["ok " + name]
    out = ["not ok %s: %s" % (name, why)]
    out += ["    | " + x for x in open(path).read().splitlines()]
    out += udiff(b, s)
    for who, err in (("sonde", serr), ("bpftrace", berr)):
        errs = [x for x in err.splitlines() if "ERROR" in x]
        out += ["    %s: %s" % (who, x) for x in errs[:4]]
    return out


def run_batch(args, seeds):
    sections = {s: gen.generate(s) for s in seeds}
    kinds = {}
    for s in seeds:
        kinds.update(sections[s][1])
    path = os.path.join(args.scratch, "batch-%d.bt" % seeds[0])
    with open(path, "w") as f:
        f.write(text_of(sections, seeds))
    (src, sout, _), (brc, bout, _) = both(args, path)
    bp = split(normalize_017(bout.splitlines(), kinds), seeds)
    sp = split(sout.splitlines(), seeds)
    if src != 0 or brc != 0 or bp is None or sp is None \
            or bp[None] != sp[None]:
        out = []
        for s in seeds:
            out += report_one(args, s, sections[s])
        return out
    out = []
    for s in seeds:
        k = sections[s][1]
        b, o = sort_ties(bp[s], k), sort_ties(sp[s], k)
        if b == o:
            out.append("ok diff-%d" % s)
        else:
            # the same program alone, to show it with its own output
            out += report_one(args, s, sections[s])
    if not args.keep:
        os.unlink(path)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sonde", required=True)
    ap.add_argument("--bpftrace", required=True)
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--cases", action="store_true",
                    help="also the programs of cases/*.bt (regressions)")
    args = ap.parse_args()
    os.makedirs(args.scratch, exist_ok=True)
    if args.cases:
        # hand-written programs for what the layer found, each run as it
        # is (maps without kinds: they print no histogram or stats)
        cases = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "cases")
        for bt in sorted(os.listdir(cases)):
            if bt.endswith(".bt"):
                for ln in compare_file(args, os.path.join(cases, bt),
                                       "diff-case-" + bt[:-3], {}):
                    print(ln, flush=True)
    seeds = list(range(args.first, args.first + args.count))
    batches = [seeds[i:i + args.batch]
               for i in range(0, len(seeds), args.batch)]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for lines in ex.map(lambda b: run_batch(args, b), batches):
            for ln in lines:
                print(ln, flush=True)


if __name__ == "__main__":
    main()
