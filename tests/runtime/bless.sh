#!/bin/bash
# Maintainer tool (not run by the layer): fills in the EXPECT block of each
# given test from bpftrace's output, then runs sonde on it. A test where
# sonde differs is moved to pending/ with bpftrace's output kept.
#   tests/runtime/bless.sh [-n] tests/runtime/NAME.test...
# -n: only show bpftrace's and sonde's outputs, change nothing.
# Tests with NOREF, or without an EXPECT block, are only run under sonde.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
RTDIR=$TOP/tests/runtime
BUILD=${BUILD:-$TOP/build}
SONDE=${SONDE:-$BUILD/sonde}
BPFTRACE=${BPFTRACE:-bpftrace}
. "$TOP/tests/lib.sh"
. "$RTDIR/common.sh"
dry=0
[ "${1:-}" = -n ] && { dry=1; shift; }
scratch=$BUILD/tests/runtime-bless
build_workload "$BUILD/tests/runtime" || exit 1
for t in "$@"; do
	name=$(basename "$t" .test)
	parse_test "$t" || { echo "$name: bad test file"; continue; }
	d=$scratch/$name
	mkdir -p "$d/ref" "$d/sonde"
	if ! has_key NOREF; then
		run_setup "$d/ref" && run_one "$t" "$BPFTRACE" "$d/ref"; run_cleanup "$d/ref"
		[ -f "$d/ref/tmp/out" ] && cp "$d/ref/tmp/out" "$d/ref/outfile"
		echo "== $name: bpftrace exit $RC"
		cat -A "$d/ref/out" | head -40
		grep -v RLIMIT_MEMLOCK "$d/ref/err" | head -5
		if [ $dry = 0 ] && [ "$RC" = "${T_STATUS:-0}" ] && has_key EXPECT; then
			# Rewrite the EXPECT (and EXPECT_OUTFILE) blocks.
			python3 - "$t" "$d/ref/out" "$d/ref/outfile" <<'PY'
import sys, os, re
t, out, outfile = sys.argv[1:]
lines = open(t).read().split('\n')
def block(key, path):
    global lines
    if not os.path.exists(path): return
    data = open(path, 'rb').read().decode('utf-8', 'surrogateescape')
    # sonde prints what bpftrace 0.26 prints where 0.17 differs (the man
    # page's DIFFERENCES): "Attached N probes" goes to stderr, and JSON's
    # attached_probes has a count.
    data = re.sub(r'\AAttaching \d+ probes?\.\.\.\n', '', data)
    data = re.sub(r'^\{"type": "attached_probes", "data": \{"probes": (\d+)\}\}$',
                  r'{"type": "attached_probes", "count": \1, "data": {"probes": \1}}',
                  data, flags=re.M)
    assert data == '' or data.endswith('\n'), 'output does not end with a newline'
    new = []
    i = 0
    while i < len(lines):
        if lines[i] == key + '<<EOF':
            new.append(lines[i])
            i += 1
            while lines[i] != 'EOF': i += 1
            new.extend(data.split('\n')[:-1])
            new.append('EOF')
            i += 1
        else:
            new.append(lines[i]); i += 1
    lines = new
block('EXPECT', out)
block('EXPECT_OUTFILE', outfile)
open(t, 'w').write('\n'.join(lines))
PY
			parse_test "$t"
		fi
	fi
	run_setup "$d/sonde" && run_one "$t" "$SONDE" "$d/sonde"; run_cleanup "$d/sonde"
	st=$(status_problem "${T_STATUS:-0}" "$d/sonde/err")
	why=$(check_output "$d/sonde")
	if [ -z "$st" ] && [ -z "$why" ]; then
		echo "ok $name"
	else
		echo "DIFF $name: $st ${why%%$'\n'*}"
		echo "$why" | tail -n +2
		head -5 "$d/sonde/err"
		if [ $dry = 0 ] && [ "$(basename "$(dirname "$(realpath "$t")")")" != pending ]; then
			mkdir -p "$RTDIR/pending"
			mv "$t" "$RTDIR/pending/"
		fi
	fi
done
