#!/bin/bash
# Tools layer: real-world scripts must parse and load. For
#   - every bpftrace tool Debian ships (/usr/sbin/*.bt, package bpftrace);
#   - every tool of our own (tools/*.bt)
# `sonde --dump ast FILE` must exit 0 with nothing on stderr (NAME, a lint
# check: it parses), and, as
# root, `sonde --verify FILE` must load every program of the tool through
# the kernel's verifier (NAME:loads). A tool that needs what this kernel
# lacks (a probe type it cannot run, a kernel function or symbol it does
# not have, a library function) is skipped with the reason.
#
# Then, as root, the runtime tests of our tools: tests/tools/NAME.test, in
# the runtime layer's format (tests/runtime/common.sh) with TOOL naming
# the tool. Every tool of tools/ must have at least one (NAME.test or
# NAME-*.test for tools/NAME.bt or tools/NAME). Run some by name with
#   TOOLS_TESTS="execsnoop biolatency-disk" tests/run.sh --layers tools -v
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

scratch=$BUILD/tools
mkdir -p "$scratch"

# check NAME FILE
check() {
	local out=$scratch/${1//\//_}.out err=$scratch/${1//\//_}.err why
	run_sonde "$out" "$err" --dump ast "$2"
	# parsing alone is a lint check; loading (below) is the test
	if ! why=$(status_problem 0 "$err") || [ -n "$why" ]; then
		lint_result "$1" "$why"
		indent "$err" 10
	elif [ -s "$err" ]; then
		lint_result "$1" "parsed, but printed on stderr"
		indent "$err" 10
	else
		lint_result "$1" ""
	fi
	[ "$(id -u)" = 0 ] || return 0
	run_sonde "$out" "$err" --verify "$2"
	# bpftrace's tools name kernel struct members of the kernels they were
	# written for (runqlen.bt: cfs_rq's nr_running, gone in 6.x; bpftrace
	# 0.17 refuses it the same way here)
	local lacks="cannot run here|no kernel (symbol|function)|No matches for |Failed to resolve kernel symbol|no function .* in /|no tracepoint|does not exist|not found in BTF"
	[[ $1 == bpftrace/* ]] && lacks+="|^[^ ]* ERROR: struct [a-z_0-9]+ has no field named"
	if grep -qE "$lacks" "$err"; then
		echo "skip $1:loads: this system lacks what it needs: $(grep -m1 ERROR: "$err" | sed 's/^[^ ]* ERROR: //')"
	elif [[ $1 == bpftrace/* ]] && grep -q "^HINT: since bpftrace 0.22 a variable lives in the block" "$err"; then
		# Debian's tools are 0.17's: a variable assigned in a block and
		# read after it is refused by bpftrace 0.22 and later (block
		# scopes), and by sonde in 0.26's words
		echo "skip $1:loads: written for bpftrace 0.17's probe-scoped variables, which 0.26 refuses: $(grep -m1 ERROR: "$err" | sed 's/^[^ ]* ERROR: //')"
	else
		verify_result "$1:loads" "$out" "$err"
	fi
}

found=0
for f in /usr/sbin/*.bt; do
	[ -f "$f" ] || continue
	found=1
	check "bpftrace/$(basename "$f")" "$f"
done
[ $found = 1 ] || echo "skip bpftrace-tools: bpftrace is not installed (apt-get install bpftrace)"

cd "$TOP" || exit 1
if [ -z "${TOOLS_TESTS:-}" ]; then
	for f in tools/*.bt; do
		[ -f "$f" ] || continue
		check "$f" "$f"
	done
fi

TDIR=$TOP/tests/tools
# Every tool's header says how to use it and shows its output.
if [ -z "${TOOLS_TESTS:-}" ]; then
	for f in tools/*; do
		miss=
		head -40 "$f" | grep -qiE '^[ #*]*usage:' || miss+=" usage"
		head -60 "$f" | grep -qE '^[ #*]*Example:' || miss+=" example"
		lint_result "$f:header" "${miss:+its header comment has no$miss}"
	done
fi

# Every tool has a runtime test.
if [ -z "${TOOLS_TESTS:-}" ]; then
	for f in tools/*; do
		n=$(basename "$f")
		n=${n%.bt}
		# profile.bt's wrapper tools/profile shares its tests
		why=
		compgen -G "$TDIR/$n.test" >/dev/null || compgen -G "$TDIR/$n-*.test" >/dev/null ||
			why="no tests/tools/$n.test or $n-*.test"
		lint_result "$f:has-test" "$why"
	done
fi

if [ "$(id -u)" != 0 ]; then
	echo "skip tools-runtime: not root (the tool tests load BPF programs)"
	layer_done
fi
RTDIR=$TOP/tests/runtime
# shellcheck source=tests/runtime/common.sh
. "$RTDIR/common.sh"
rtscratch=$BUILD/tests/runtime
build_workload "$rtscratch" || { echo "not ok tools-workload: cannot compile $RTDIR/wl.c"; layer_done; }
cd "$TDIR" || exit 1
pick_tests "${TOOLS_TESTS:-}"
for t in "${tests[@]}"; do
	[ -f "$t" ] || { echo "not ok $t: no such test"; continue; }
	run_test_file "$t" "tool-${t%.test}" "$scratch/tool-${t%.test}"
done
layer_done
