#!/bin/bash
# Per-probe compile cost: `sonde --mode codegen` of one body shared by N uprobe
# targets (a wildcard over libLLVM's functions), wall time and peak RSS,
# and the refusal under the default BPFTRACE_MAX_PROBES (512). bpftrace
# 0.17 is shown for the refusal only: it has no compile-only mode, and with the
# limits raised it loads and attaches every probe.
# Usage: bench/probe_cost.sh [SONDE] >> bench/PROBE_COST.md
set -u
sonde=${1:-build/sonde}
lib=$(ls -v /usr/lib/x86_64-linux-gnu/libLLVM-[0-9]*.so.1 2>/dev/null | tail -n 1)
[ -n "$lib" ] || { echo "no libLLVM-*.so.1: apt-get install libllvm15"; exit 0; }
measure() { # PATTERN LIMIT -> "N probes: T s, R MB"
	local out tf
	tf=$(mktemp)
	BPFTRACE_MAX_PROBES=$2 /usr/bin/time -o "$tf" -f "%e %M" "$sonde" \
		--mode codegen -e "uprobe:$lib:$1 { @[probe] = count(); }" \
		>/dev/null 2>&1
	out=$(tail -n 1 "$tf")
	rm -f "$tf"
	local n
	n=$(BPFTRACE_MAX_PROBES=1 "$sonde" --mode codegen -e "uprobe:$lib:$1 {}" 2>&1 |
		sed -n 's/.*Can.t attach to \([0-9]*\) probes.*/\1/p' | head -n 1)
	set -- $out
	awk -v n="${n:-1}" -v t="$1" -v kb="$2" 'BEGIN {
		printf "| %6d | %6.2f s | %7.1f MB | %6.2f KB |\n", n, t, kb / 1024, kb / n }'
}
echo "## Probe cost ($(date -u +%Y-%m-%d), $(uname -r), $lib)"
echo
echo "| probes | time | peak RSS | RSS per probe |"
echo "|-------:|-----:|---------:|--------------:|"
measure '_ZN4llvm2cl6Option*' 1000000
measure '_ZNK4llvm*' 1000000
measure '_ZN4llvm*' 1000000
measure '*' 1000000
echo
t0=$(date +%s%N)
"$sonde" --mode codegen -e "uprobe:$lib:* { @[probe] = count(); }" 2>&1 | head -n 1 | cut -c1-110
t1=$(date +%s%N)
echo
echo "Default limit: refused in $(( (t1 - t0) / 1000000 )) ms."
