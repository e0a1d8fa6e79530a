#!/bin/bash
# The DWARF unwinder (issue 37) against the frame-pointer walk (root):
# prints a markdown section on stdout.
#   For each workload (Debian's xz -9 on 64 MB of base64 text, and
#   Debian's python3 running recursive Python calls; neither keeps frame
#   pointers), profile:hz:999 filtered on its comm with @[ustack] =
#   count() for DURATION seconds (default 5), once with the frame-pointer
#   ustack and once with ustack_unwind = dwarf (system-wide: every
#   process's tables), and, where perf is installed, `perf record -g
#   --call-graph dwarf` on the same process:
#   - the program's cost per sample, timed by the kernel
#     (kernel.bpf_stats_enabled: run_time_ns / run_cnt of sonde's programs,
#     build/bench/xlated), and sonde's start-up to "Attached";
#   - the share of samples whose stack reaches main: a frame of libc's
#     __libc_start_call_main, which calls it (Debian's xz is stripped: its
#     main has no name), with no [truncated] marker.
# usage: bench/dwunwind.sh [-d DURATION] [--sonde PATH]
set -u
cd "$(dirname "$0")/.."
dur=5 sonde=$PWD/build/sonde
while [ $# -gt 0 ]; do
	case "$1" in
	-d) dur=$2; shift 2 ;;
	--sonde) sonde=$2; shift 2 ;;
	*) echo "usage: $0 [-d DURATION] [--sonde PATH]" >&2; exit 2 ;;
	esac
done
out=build/bench/dwunwind
mkdir -p "$out"
make -s all >/dev/null && make -s -C bench/c BUILD="$PWD/build" >/dev/null || exit 1
xlated=$PWD/build/bench/xlated
[ -s "$out/input.txt" ] || head -c 48000000 /dev/urandom | base64 >"$out/input.txt"
cat >"$out/rec.py" <<'EOF'
import sys
def f(n):
    return f(n - 1) + 1 if n else sum(range(200))
while True:
    f(40)
EOF

old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
trap 'sysctl -qw kernel.bpf_stats_enabled=$old_stats' EXIT

start_workload() { # NAME: starts it, sets wpid and comm
	case "$1" in
	xz) xz -9 -T1 -c "$out/input.txt" >/dev/null & wpid=$! comm=xz ;;
	python3) /usr/bin/python3 "$out/rec.py" & wpid=$! comm=python3 ;;
	esac
	sleep 0.5
}

# reach FILE: "reached total" over sonde's map output
reach() {
	awk '/^@\[$/ { s = ""; next }
	     /^\]: [0-9]+$/ { t += $2; if (s ~ /__libc_start_call_main/ && s !~ /\[truncated\]/) r += $2; next }
	     { s = s " " $1 }
	     END { print r + 0, t + 0 }' "$1"
}

# sonde MODE WORKLOAD: one run, prints "ns/run reached total start_ms".
# fp, dwarf: system-wide, filtered on the comm (the reach); fp-p, dwarf-p:
# -p PID, whose perf events sample only that process, so that every run
# is a sample (the cost per sample; dw_ustack unwinds -p's process).
run_sonde() {
	local mode=$1 w=$2 prog args=()
	start_workload "$w"
	case $mode in
	fp) prog="config = { show_debug_info = 0 } profile:hz:999 /comm == \"$comm\"/ { @[ustack] = count(); }" ;;
	dwarf) prog="config = { ustack_unwind = dwarf; show_debug_info = 0 } profile:hz:999 /comm == \"$comm\"/ { @[ustack] = count(); }" ;;
	fp-p) prog="config = { show_debug_info = 0 } profile:hz:999 { @[ustack] = count(); }" args=(-p $wpid) ;;
	dwarf-p) prog="config = { unstable_dw_ustack = enable; show_debug_info = 0 } profile:hz:999 { @[dw_ustack] = count(); }" args=(-p $wpid) ;;
	esac
	local t0=$(date +%s%N)
	"$sonde" "${args[@]}" -e "$prog" >"$out/$w.$mode.out" 2>"$out/$w.$mode.err" &
	local spid=$! t1=
	for _ in $(seq 600); do
		grep -q Attached "$out/$w.$mode.err" 2>/dev/null && { t1=$(date +%s%N); break; }
		sleep 0.05
	done
	sleep "$dur"
	local runs=$("$xlated" $spid | awk '$1 == "runs" { printf "%d", $2 ? $3 / $2 : 0 }')
	kill -INT $spid; wait $spid
	kill $wpid; wait $wpid 2>/dev/null
	echo "$runs $(reach "$out/$w.$mode.out") $(( (${t1:-$t0} - t0) / 1000000 ))"
}

# perf WORKLOAD: "reached total", or "- -" without perf
run_perf() {
	command -v perf >/dev/null || { echo "- -"; return; }
	start_workload "$1"
	perf record -q -F 999 -g --call-graph dwarf -p $wpid -o "$out/$1.perf.data" -- sleep "$dur" >/dev/null 2>&1
	kill $wpid; wait $wpid 2>/dev/null
	perf script -i "$out/$1.perf.data" 2>/dev/null | awk '
		/^[^ \t]/ { if (n) { t++; if (hit) r++ } n = 1; hit = 0; next }
		/__libc_start_call_main/ { hit = 1 }
		END { if (n) { t++; if (hit) r++ } print r + 0, t + 0 }'
}

pct() { [ "${2:-0}" -gt 0 ] 2>/dev/null && awk -v r="$1" -v t="$2" 'BEGIN { printf "%.1f%% (%d of %d)", 100 * r / t, r, t }' || echo "-"; }

echo "## DWARF unwinding of user stacks (issue 37)"
echo
echo "\`profile:hz:999 /comm == \"NAME\"/ { @[ustack] = count(); }\` for $dur s on a workload built without frame pointers;"
echo "the samples whose stack reaches main (a frame of libc's __libc_start_call_main, and no [truncated]) system-wide"
echo "(ustack_unwind = dwarf: every process's tables), and the program's cost per sample from the kernel's statistics"
echo "(run_time_ns / run_cnt) with -p PID and no filter (dw_ustack), so that every run is a sample. Start-up: from the"
echo "command to \"Attached\", system-wide (DWARF: reading every running process's tables; $(ls /proc | grep -c '^[0-9]') processes here). \`perf record --call-graph dwarf\` copies 8 KiB"
echo "of stack per sample and unwinds in user space afterwards; sonde unwinds in the kernel from .eh_frame tables."
echo
echo "| workload | FP ustack ns/sample | DWARF ns/sample | FP reaches main | DWARF reaches main | perf --call-graph dwarf reaches main | start-up FP / DWARF (ms) |"
echo "|---|---|---|---|---|---|---|"
for w in xz python3; do
	read -r _ fr ft fst < <(run_sonde fp $w)
	read -r _ dr dt dst < <(run_sonde dwarf $w)
	read -r fns _ < <(run_sonde fp-p $w)
	read -r dns _ < <(run_sonde dwarf-p $w)
	read -r pr pt < <(run_perf $w)
	echo "| $w | $fns | $dns | $(pct $fr $ft) | $(pct $dr $dt) | $(pct $pr $pt) | $fst / $dst |"
done
echo
