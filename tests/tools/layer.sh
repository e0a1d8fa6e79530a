#!/bin/bash
# Tools layer (no kernel): real-world scripts must parse. `sonde -d ast FILE`
# must exit 0 with nothing on stderr for
#   - every bpftrace tool Debian ships (/usr/sbin/*.bt, package bpftrace);
#   - every tool of our own (tools/*.bt).
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
