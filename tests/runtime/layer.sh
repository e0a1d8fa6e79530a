#!/bin/bash
# Runtime layer (root + BPF): each tests/runtime/NAME.test holds a script, a
# workload and the expected output (format: see common.sh). The program runs
# on the real kernel under $SONDE; its output must match exactly (or by
# regex where it cannot be exact). Tests whose needs the kernel lacks are
# skipped with the reason. tests/runtime/pending/ holds tests of known
# differences from bpftrace 0.17; they are not run here (see
# tests/runtime/pending/README). Run one test by name with
#   RUNTIME_TESTS="name1 name2" tests/run.sh --layers runtime -v
# RUNTIME_JOBS=N runs N tests at once (default 1); a test that must run
# alone (it measures the machine's own pace) says SERIAL: yes.
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"
RTDIR=$TOP/tests/runtime
# shellcheck source=tests/runtime/common.sh
. "$RTDIR/common.sh"

if [ "$(id -u)" != 0 ]; then
	echo "skip runtime: not root (the runtime tests load BPF programs)"
	layer_done
fi
scratch=$BUILD/tests/runtime
RUNTIME_JOBS=${RUNTIME_JOBS:-1}
build_workload "$scratch" || { echo "not ok runtime-workload: cannot compile $RTDIR/wl.c"; layer_done; }
cd "$RTDIR" || exit 1

pick_tests "${RUNTIME_TESTS:-}"
# What the requirement checks ask of the kernel, found once here, before
# the tests (which may run at once) look.
sonde_info >/dev/null
breakpoint_state >/dev/null
# lock_user_files TEST: a uprobe, USDT probe or watchpoint sees every
# process that runs its file, so a test of user-space probes on a file (a
# shared workload, libc, a tool's binary) runs while no other test runs
# that file: the file's lock is taken (in a fixed order) before the test
# runs, alone by a test that probes it, shared by one that only runs it
# (stack_ids_lost's uprobes on stackwl counted 114 calls of another
# test's stackwl beside it).
lock_user_files() {
	local res=() r fd mode=-s
	# a test that probes user space holds its files' locks alone; one
	# that only runs them shares them with others that only run them
	grep -qE '(^|[^a-z_])(uprobe|uretprobe|usdt|u|ur|watchpoint|asyncwatchpoint|w|aw):|^TOOL:' "$1" &&
		mode=-x
	grep -qE '@UWL(NP)?@' "$1" && res+=(uwl)
	grep -qE '@DWL(DL|IB)?@' "$1" && res+=(dwl)
	grep -q '@TWL@' "$1" && res+=(twl)
	grep -q '@SWL@' "$1" && res+=(swl)
	grep -q '@WL@' "$1" && res+=(wl)
	[ ${#res[@]} -gt 0 ] || [ $mode = -s ] || res+=(other)
	for r in "${res[@]}"; do
		exec {fd}>"$scratch/.lock-$r"
		flock $mode "$fd"
	done
}

ntests=0
running=0
for t in "${tests[@]}"; do
	[ -f "$t" ] || continue
	ntests=$((ntests + 1))
	# its name: the file's, without the directory (pick_tests)
	n=${t##*/}
	n=${n%.test}
	if [ "$RUNTIME_JOBS" -le 1 ]; then
		run_test_file "$t" "$n" "$scratch/$n"
		continue
	fi
	if grep -q '^SERIAL: yes' "$t"; then
		# alone: once the tests started before it have ended (its
		# lines printed in order with theirs, below)
		wait
		running=0
		run_test_file "$t" "$n" "$scratch/$n" >"$scratch/$n.result" 2>&1
		continue
	fi
	# RUNTIME_JOBS at once, each one's lines printed when all are done,
	# in the tests' order.
	(
		lock_user_files "$t"
		run_test_file "$t" "$n" "$scratch/$n"
	) >"$scratch/$n.result" 2>&1 &
	running=$((running + 1))
	if [ "$running" -ge "$RUNTIME_JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait
if [ "$RUNTIME_JOBS" -gt 1 ]; then
	for t in "${tests[@]}"; do
		n=${t##*/}
		n=${n%.test}
		[ -f "$scratch/$n.result" ] || continue
		cat "$scratch/$n.result"
		rm -f "$scratch/$n.result"
	done
fi
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
rm -f "${TMPDIR:-/tmp}/sonde-info.$$"
layer_done
