#!/bin/bash
# Errors layer (no kernel): a corpus of bad scripts. For each
# tests/errors/NAME.bt, `sonde --mode codegen NAME.bt` (run from inside
# tests/errors) must exit with status exactly 1 and print on stderr exactly
# (byte for byte) NAME.err. A crash (signal), a sanitizer report, a time-out
# or exit 0 is a failure. Scripts may hold NUL bytes and invalid UTF-8.
# The hostile_* cases must also be refused within HOSTILE_CPU seconds of
# CPU time and HOSTILE_KB of peak memory (CPU time, not wall time, so
# that other jobs on the machine do not fail them; under ASan, which is
# several times slower and bigger, the bounds are 5 times wider). The
# bound is 5 s: the linear back end refuses the largest case in about
# 1.3 s alone, and up to 2.6 s when both cores are busy with other jobs
# (page faults cost more in system time then); the quadratic one it
# replaced took 9 s, so 5 s still catches that return.
# After reviewing a change in messages, rewrite the .err files it names
# (a list of names or patterns; the diff is shown, see lib.sh):
#   UPDATE_GOLDEN='map_*,probe_unknown' tests/run.sh --layers errors
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

scratch=$BUILD/errors
mkdir -p "$scratch"
cd "$TOP/tests/errors" || exit 1
# The large and binary cases are generated (the 1 MB one is not committed).
./gen.sh || echo "not ok errors-gen: tests/errors/gen.sh failed"
HOSTILE_CPU=${HOSTILE_CPU:-5} HOSTILE_KB=${HOSTILE_KB:-1048576}
asan=0
if nm "$SONDE" 2>/dev/null | grep -q __asan_init; then
	asan=1 HOSTILE_CPU=25 HOSTILE_KB=5242880
fi
# run_bounded OUT ERR TIME ARGS...: run_sonde under /usr/bin/time, whose
# figures (user s, system s, peak KB) go to TIME.
run_bounded() {
	local out=$1 err=$2 tf=$3
	shift 3
	{ timeout -k 5 "${SONDE_TIMEOUT:-20}" /usr/bin/time -f '%U %S %M' -o "$tf" \
		"$SONDE" "$@" </dev/null >"$out" 2>"$err"; } 2>/dev/null
	RC=$?
}
# over_bounds TIME: why the figures in TIME are over the bounds, or
# nothing.
over_bounds() {
	local u s kb
	# the last line: time first says when the status is not 0
	read -r u s kb < <(tail -n 1 "$1")
	if ! [[ $kb =~ ^[0-9]+$ ]]; then
		echo "no time figures in $1"
		return
	fi
	if awk -v u="$u" -v s="$s" -v max="$HOSTILE_CPU" 'BEGIN { exit !(u + s > max) }'; then
		echo "took ${u}s user + ${s}s system, over ${HOSTILE_CPU}s"
	elif [ "$kb" -gt "$HOSTILE_KB" ]; then
		echo "took ${kb} KB of memory, over ${HOSTILE_KB} KB"
	fi
}
ntests=0
for bt in *.bt; do
	[ -f "$bt" ] || continue
	ntests=$((ntests + 1))
	name=${bt%.bt}
	exp=$name.err out=$scratch/$name.out err=$scratch/$name.err
	case $name in
	hostile_*)
		if [ ! -x /usr/bin/time ]; then
			echo "skip $name: no /usr/bin/time (scripts/deps.sh installs it)"
			continue
		fi
		run_bounded "$out" "$err" "$scratch/$name.time" --mode codegen "$bt"
		if [ "$RC" = 1 ] && why=$(over_bounds "$scratch/$name.time") && [ -n "$why" ]; then
			echo "not ok $name: $why"
			continue
		fi
		;;
	*) run_sonde "$out" "$err" --mode codegen "$bt" ;;
	esac
	if why=$(status_problem 1 "$err") && [ -z "$why" ]; then
		if update_golden "$exp" "$err" "$name"; then
			:
		elif [ ! -f "$exp" ]; then
			echo "not ok $name: no $exp (create it with UPDATE_GOLDEN=$name)"
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
# Each expectation against bpftrace's own message for the script (0.17's
# run, 0.26.1's suite; refcheck.sh): equal, or a difference listed with
# its reason in DIFFERENCES.md. It reads committed files only, so it is a
# lint check, and is run once (not again under ASan).
if [ $asan = 0 ]; then
	"$TOP/tests/errors/refcheck.sh" | sed -E 's/^(not )?ok /lint &/'
fi
layer_done
