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
    if line.startswith("Attaching"):
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
for c in syscalls uprobes; do
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
