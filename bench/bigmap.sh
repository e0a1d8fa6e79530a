#!/bin/bash
# Printing a big map at exit (root): prints a markdown section on stdout.
# The workload makes N getpid() calls (default 999,000); the program keeps
# one key per call, @[nsecs] = count(), with BPFTRACE_MAP_KEYS_MAX=1000000,
# so N keys are read, sorted and printed when the workload exits. Each
# tracer runs the same script; wall time and peak RSS (GNU time) are
# medians of ROUNDS runs (default 3), interleaved, with their ratio. Most
# of the time is the printing (the calls take a fraction of a second).
# usage: bench/bigmap.sh [-n N] [-r ROUNDS] [--sonde PATH] [--bpftrace PATH]
set -u
cd "$(dirname "$0")/.."
n=999000 rounds=3 sonde=$PWD/build/sonde bpftrace=$(command -v bpftrace || echo /usr/bin/bpftrace)
while [ $# -gt 0 ]; do
	case "$1" in
	-n) n=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	--sonde) sonde=$2; shift 2 ;;
	--bpftrace) bpftrace=$2; shift 2 ;;
	*) echo "usage: $0 [-n N] [-r ROUNDS] [--sonde PATH] [--bpftrace PATH]" >&2; exit 2 ;;
	esac
done
out=build/bench/bigmap
mkdir -p "$out"
make -s all >/dev/null || exit 1
cc -O2 -o "$out/wl" tests/runtime/wl.c || exit 1
[ -x /usr/bin/time ] || { echo "## Big map"; echo; echo "- n/a (no /usr/bin/time)"; exit 0; }
ulimit -l unlimited 2>/dev/null
prog='tracepoint:syscalls:sys_enter_getpid /pid == cpid/ { @[nsecs] = count(); }'

# run TRACER NAME ROUND: appends "secs rss_kb keys" to $out/NAME.txt
run() {
	local f=$out/$2.$3
	BPFTRACE_MAP_KEYS_MAX=1000000 /usr/bin/time -f '%e %M' -o "$f.time" \
		"$1" -e "$prog" -c "$out/wl getpid $n" >"$f.out" 2>"$f.err"
	echo "$(cat "$f.time" | tail -1) $(grep -c '^@\[' "$f.out")" >>"$out/$2.txt"
}
rm -f "$out"/*.txt
for r in $(seq "$rounds"); do
	run "$bpftrace" bpftrace "$r"
	run "$sonde" sonde "$r"
done
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
bt_s=$(awk '{ print $1 }' "$out/bpftrace.txt" | med)
bt_m=$(awk '{ print $2 }' "$out/bpftrace.txt" | med)
bt_k=$(awk '{ print $3 }' "$out/bpftrace.txt" | med)
so_s=$(awk '{ print $1 }' "$out/sonde.txt" | med)
so_m=$(awk '{ print $2 }' "$out/sonde.txt" | med)
so_k=$(awk '{ print $3 }' "$out/sonde.txt" | med)
echo "## Big map: $n keys printed at exit"
echo
echo "| tracer | keys printed | wall s | peak RSS MB |"
echo "|---|---|---|---|"
echo "| bpftrace | $bt_k | $bt_s | $((bt_m / 1024)) |"
echo "| sonde | $so_k | $so_s | $((so_m / 1024)) |"
echo
awk -v a="$so_s" -v b="$bt_s" -v c="$so_m" -v d="$bt_m" 'BEGIN {
	printf "sonde/bpftrace: time %.2f, memory %.2f (medians of the runs; lower is better)\n", (b > 0 ? a / b : 0), (d > 0 ? c / d : 0) }'
