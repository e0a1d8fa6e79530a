#!/bin/bash
# Many probes (root): prints a markdown section on stdout. For a wildcard
# over every syscall tracepoint (361 here) and over 2,000 uprobes on a
# generated binary, each tracer runs `@[probe] = count()` and exits after a
# 200 ms interval. Measured from the start: when the first map line is
# printed, and when the process is gone. The time between the interval
# firing and the first map line is what a user waits for the answer; the
# rest is the kernel detaching the probes (an RCU grace period each,
# serialised by the kernel).
# usage: bench/many_probes.sh [--sonde PATH] [--bpftrace PATH] [-r ROUNDS]
# (MANY_PROBES_CASES="syscalls" leaves the slow 2,000-uprobe case out)
set -u
cd "$(dirname "$0")/.."
sonde=$PWD/build/sonde bpftrace=$(command -v bpftrace || true) rounds=1
while [ $# -gt 0 ]; do
	case "$1" in
	--sonde) sonde=$2; shift 2 ;;
	--bpftrace) bpftrace=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	*) echo "usage: $0 [--sonde PATH] [--bpftrace PATH] [-r ROUNDS]" >&2; exit 2 ;;
	esac
done
out=build/bench/many_probes
mkdir -p "$out"
[ "$(id -u)" = 0 ] || { echo "## Many probes"; echo; echo "n/a (not root)"; exit 0; }

# A binary with 2,000 small functions for the uprobes.
bin=$out/funcs2000
if [ ! -x "$bin" ]; then
	{
		for i in $(seq 0 1999); do echo "int f$i(int x) { return x + $i; }"; done
		echo "int main(void) { return 0; }"
	} >"$out/funcs2000.c"
	cc -O0 -o "$bin" "$out/funcs2000.c" || exit 1
fi

# time_run TRACER SCRIPT: "attach_s exit_s probes" of one run: from the
# start to the "stop" line of the interval probe (less its 200 ms), and
# from that line to the process being gone.
time_run() {
	python3 - "$@" <<'PY'
import os, subprocess, sys, time
tracer, script = sys.argv[1], sys.argv[2]
env = dict(os.environ, BPFTRACE_MAX_PROBES="3000",
           BPFTRACE_MAX_BPF_PROGS="3000")
t0 = time.monotonic()
p = subprocess.Popen([tracer, "-e", script], stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True, env=env)
stop, n = None, "?"
for line in p.stdout:
    if line.startswith(("Attaching", "Attached")):
        n = line.split()[1]
    if line.strip() == "stop" and stop is None:
        stop = time.monotonic() - t0
p.wait()
total = time.monotonic() - t0
if stop is None or p.returncode:
    print("failed failed %s" % n)
else:
    print("%.2f %.2f %s" % (stop - 0.2, total - stop, n))
PY
}

echo "## Many probes"
echo
echo "Wall seconds (median of $rounds): attaching / from exit() to the process gone (printing, then detaching). The probes are on functions the run never calls, so the maps are empty."
echo
echo "| case | probes | bpftrace 0.17 | sonde |"
echo "|---|---|---|---|"
for c in ${MANY_PROBES_CASES:-syscalls uprobes}; do
	case $c in
	syscalls) script='tracepoint:syscalls:sys_enter_* { @[probe] = count(); } interval:ms:200 { printf("stop\n"); exit(); }' ;;
	uprobes) script="uprobe:$PWD/$bin:f* { @[probe] = count(); } interval:ms:200 { printf(\"stop\\n\"); exit(); }" ;;
	esac
	row="| $c |"
	probes=
	for t in "$bpftrace" "$sonde"; do
		if [ -z "$t" ]; then row+=" n/a |"; continue; fi
		res=()
		for _ in $(seq "$rounds"); do res+=("$(time_run "$t" "$script")"); done
		mid=$(printf '%s\n' "${res[@]}" | sort -k2 -g | sed -n "$(( (rounds + 1) / 2 ))p")
		read -r first total n <<<"$mid"
		probes=$n
		row+=" $first / $total |"
	done
	echo "${row/| $c |/| $c | $probes |}"
done

# ---- per-event cost of the syscall wildcard ----
# Each tracer runs the wildcard while dd makes 400,000 syscalls (a read
# and a write per block); the kernel's run statistics (run_time_ns /
# run_cnt over the tracer's programs, kernel.bpf_stats_enabled) give the
# cost of a program run, and dd's CPU time the cost to the traced process.
# bpftrace runs one program per syscall tracepoint, sonde one on raw
# tracepoint sys_enter that dispatches on the number (codegen/sysdispatch.c),
# the C baseline one on sys_enter that counts by number (bench/c).
B=$PWD/build/bench
make -s -C bench/c BUILD="$PWD/build" >/dev/null 2>&1 || true
if [ -x "$B/xlated" ] && [ -x "$B/cputime" ] && [ -r "$B/syscalls_count.bpf.o" ] &&
	old=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null); then
	wild='tracepoint:syscalls:sys_enter_* { @[probe] = count(); }'
	dd_cpu() { # user+sys seconds of one dd run
		"$B/cputime" -o "$out/dd.time" -- dd if=/dev/zero of=/dev/null bs=1 count=200000 2>/dev/null
		awk '{ printf "%.4f", $2 + $3 }' "$out/dd.time"
	}
	sysctl -qw kernel.bpf_stats_enabled=1
	base=$(for _ in 1 2 3; do dd_cpu; echo; done | sort -g | sed -n 2p)
	echo
	echo "### Per-event cost of the syscall wildcard"
	echo
	echo "\`$wild\` while \`dd bs=1 count=200000\` runs (400,000 syscalls). ns/run: the kernel's run statistics over the tracer's programs; dd: its CPU time per syscall above an untraced run (${base} s), median of 3."
	echo
	echo "| tracer | programs | ns/run | dd ns/syscall | ns/run vs C | ns/run vs bpftrace |"
	echo "|---|---|---|---|---|---|"
	declare -A nsrun
	for t in c bpftrace sonde; do
		case $t in
		c) cmd=("$B/loader" -q "$B/syscalls_count.bpf.o") ;;
		bpftrace) [ -n "$bpftrace" ] || continue; cmd=("$bpftrace" -e "$wild") ;;
		sonde) cmd=("$sonde" -e "$wild") ;;
		esac
		"${cmd[@]}" >"$out/pe.$t.out" 2>&1 </dev/null &
		pid=$!
		for _ in $(seq 300); do
			grep -qsE '^Attach(ing|ed) ' "$out/pe.$t.out" && break
			sleep 0.1
		done
		sleep 0.5
		runs=() cpus=()
		for _ in 1 2 3; do
			before=$("$B/xlated" $pid 2>/dev/null | awk '$1 == "runs" { print $2, $3 }')
			cpus+=("$(dd_cpu)")
			after=$("$B/xlated" $pid 2>/dev/null | awk '$1 == "runs" { print $2, $3 }')
			runs+=("$(awk -v b="$before" -v a="$after" 'BEGIN { split(b, x, " "); split(a, y, " "); if (y[1] > x[1]) printf "%.1f", (y[2] - x[2]) / (y[1] - x[1]); else print "n/a" }')")
		done
		nprogs=$("$B/xlated" $pid 2>/dev/null | awk '$1 == "total" { print $2 }')
		kill -INT $pid 2>/dev/null; wait $pid 2>/dev/null
		ns=$(printf '%s\n' "${runs[@]}" | sort -g | sed -n 2p)
		cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n 2p)
		nsrun[$t]=$ns
		ddns=$(awk -v c="$cpu" -v b="$base" 'BEGIN { printf "%.0f", (c - b) * 1e9 / 400000 }')
		vs_c=$(awk -v a="$ns" -v b="${nsrun[c]:-}" 'BEGIN { if (b > 0 && a > 0) printf "%.2fx", a / b; else print "" }')
		vs_b=$(awk -v a="$ns" -v b="${nsrun[bpftrace]:-}" 'BEGIN { if (b > 0 && a > 0) printf "%.2fx", a / b; else print "" }')
		echo "| $t | ${nprogs:-?} | $ns | $ddns | $vs_c | $vs_b |"
	done
	sysctl -qw kernel.bpf_stats_enabled="$old"
fi
