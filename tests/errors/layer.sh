#!/bin/bash
# Errors layer (no kernel): a corpus of bad scripts. For each
# tests/errors/NAME.bt, `sonde --mode codegen NAME.bt` (run from inside
# tests/errors) must exit with status exactly 1 and print on stderr exactly
# (byte for byte) NAME.err. A crash (signal), a sanitizer report, a time-out
# or exit 0 is a failure. Scripts may hold NUL bytes and invalid UTF-8.
# After reviewing a change in messages, rewrite the .err files with:
#   UPDATE_GOLDEN=1 tests/run.sh --layers errors
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

scratch=$BUILD/errors
mkdir -p "$scratch"
cd "$TOP/tests/errors" || exit 1
# The large and binary cases are generated (the 1 MB one is not committed).
./gen.sh || echo "not ok errors-gen: tests/errors/gen.sh failed"
ntests=0
for bt in *.bt; do
	[ -f "$bt" ] || continue
	ntests=$((ntests + 1))
	name=${bt%.bt}
	exp=$name.err out=$scratch/$name.out err=$scratch/$name.err
	run_sonde "$out" "$err" --mode codegen "$bt"
	if why=$(status_problem 1 "$err") && [ -z "$why" ]; then
		if update_golden "$exp" "$err" "$name"; then
			:
		elif [ ! -f "$exp" ]; then
			echo "not ok $name: no $exp (run with UPDATE_GOLDEN=1 to create it)"
			indent "$err" 10
		elif cmp -s "$exp" "$err"; then
			echo "ok $name"
		else
			echo "not ok $name: stderr differs from $exp"
			show_diff "$exp" "$err"
		fi
	else
		echo "not ok $name: $why"
		indent "$err" 10
	fi
done
[ $ntests -gt 0 ] || echo "skip errors: no tests/errors/*.bt yet"
exit 0
