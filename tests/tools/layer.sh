#!/bin/bash
# Tools layer: real-world scripts must parse and load. For
#   - every bpftrace tool Debian ships (/usr/sbin/*.bt, package bpftrace);
#   - every tool of our own (tools/*.bt)
# `sonde -d ast FILE` must exit 0 with nothing on stderr (NAME), and, as
# root, `sonde --verify FILE` must load every program of the tool through
# the kernel's verifier (NAME:loads). A tool that needs what this kernel
# lacks (a probe type it cannot run, a kernel function or symbol it does
# not have, a library function) is skipped with the reason.
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

scratch=$BUILD/tools
mkdir -p "$scratch"

# check NAME FILE
check() {
	local out=$scratch/${1//\//_}.out err=$scratch/${1//\//_}.err why
	run_sonde "$out" "$err" -d ast "$2"
	if ! why=$(status_problem 0 "$err") || [ -n "$why" ]; then
		echo "not ok $1: $why"
		indent "$err" 10
	elif [ -s "$err" ]; then
		echo "not ok $1: parsed, but printed on stderr"
		indent "$err" 10
	else
		echo "ok $1"
	fi
	[ "$(id -u)" = 0 ] || return 0
	run_sonde "$out" "$err" --verify "$2"
	if grep -qE "cannot run here|no kernel (symbol|function)|no function .* in /|no tracepoint|does not exist|not found in BTF" "$err"; then
		echo "skip $1:loads: this system lacks what it needs: $(grep -m1 error: "$err" | sed 's/^[^ ]* error: //')"
	elif ! why=$(status_problem 0 "$err") || [ -n "$why" ]; then
		echo "not ok $1:loads: $why"
		indent "$err" 10
	elif ! grep -qE "^[0-9]+ programs passed the verifier$" "$out"; then
		echo "not ok $1:loads: no verifier report"
		indent "$out" 10
	else
		echo "ok $1:loads"
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
for f in tools/*.bt; do
	[ -f "$f" ] || continue
	check "$f" "$f"
done
exit 0
