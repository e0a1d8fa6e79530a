#!/bin/bash
# Runtime layer (root + BPF): each tests/runtime/NAME.test holds a script, a
# workload and the expected output (format: see common.sh). The program runs
# on the real kernel under $SONDE; its output must match exactly (or by
# regex where it cannot be exact). Tests whose needs the kernel lacks are
# skipped with the reason. tests/runtime/pending/ holds tests of known
# differences from bpftrace 0.17; they are not run here (see
# tests/runtime/pending/README). Run one test by name with
#   RUNTIME_TESTS="name1 name2" tests/run.sh --layers runtime -v
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"
RTDIR=$TOP/tests/runtime
# shellcheck source=tests/runtime/common.sh
. "$RTDIR/common.sh"

if [ "$(id -u)" != 0 ]; then
	echo "skip runtime: not root (the runtime tests load BPF programs)"
	exit 0
fi
scratch=$BUILD/tests/runtime
build_workload "$scratch" || { echo "not ok runtime-workload: cannot compile $RTDIR/wl.c"; exit 0; }
cd "$RTDIR" || exit 1

pick_tests "${RUNTIME_TESTS:-}"
ntests=0
for t in "${tests[@]}"; do
	[ -f "$t" ] || continue
	ntests=$((ntests + 1))
	run_test_file "$t" "${t%.test}" "$scratch/${t%.test}"
done
[ $ntests -gt 0 ] || [ -n "${RUNTIME_TESTS:-}" ] || echo "skip runtime: no tests/runtime/*.test yet"
# Command-line cases (cli.sh), not .test files: they run with the full
# layer, or when RUNTIME_TESTS names "cli".
case " ${RUNTIME_TESTS:-cli} " in
*" cli "*)
	# shellcheck source=tests/runtime/cli.sh
	. "$RTDIR/cli.sh"
	cli_all
	;;
esac
exit 0
