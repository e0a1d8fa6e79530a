#!/bin/bash
# Differential layer: random well-typed programs (tests/diff/gen.py) run
# under sonde and under bpftrace 0.17; stdout and exit status must agree,
# once 0.17's output is put in 0.26's form where 0.26 prints differently
# (each such rewrite, and each thing the generator steers clear of, is an
# entry of tests/diff/KNOWN.md). One line per program: ok diff-SEED;
# then tests/diff/cases/*.bt, hand-written programs for what it found,
# compared the same way: ok diff-case-NAME.
# Needs root and bpftrace; uses /usr/bin/python3 (Debian's, no modules).
#   DIFF_RUNS=N     programs (default 200, seeds DIFF_FIRST.. (default 1))
#   DIFF_BATCH=N    programs per run of each tool (default 20)
#   DIFF_JOBS=N     batches at once (default 1)
#   BPFTRACE=PATH   the reference (default /usr/bin/bpftrace)
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

BPFTRACE=${BPFTRACE:-/usr/bin/bpftrace}
if [ ! -x "$BPFTRACE" ]; then
	echo "skip diff: bpftrace not installed"
	layer_done
fi
if [ ! -x /usr/bin/python3 ]; then
	echo "skip diff: /usr/bin/python3 not installed"
	layer_done
fi
if [ "$(id -u)" != 0 ]; then
	echo "skip diff: needs root (both tools load BPF programs)"
	layer_done
fi
case $("$BPFTRACE" --version 2>/dev/null) in
"bpftrace v0.17."*) ;;
*)
	echo "skip diff: $BPFTRACE is not bpftrace 0.17 (KNOWN.md is about 0.17)"
	layer_done
	;;
esac
scratch=$BUILD/diff
rm -rf "$scratch"
mkdir -p "$scratch"
/usr/bin/python3 "$TOP/tests/diff/diff.py" --sonde "$SONDE" --bpftrace "$BPFTRACE" \
	--scratch "$scratch" --first "${DIFF_FIRST:-1}" --count "${DIFF_RUNS:-200}" \
	--batch "${DIFF_BATCH:-20}" --jobs "${DIFF_JOBS:-1}" --cases ||
	echo "not ok diff-driver: tests/diff/diff.py failed (exit status $?)"
layer_done
