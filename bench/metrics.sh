#!/bin/bash
# --metrics benchmarks (root): prints a markdown section on stdout.
#   1. scrape cost of a map of 10,000 keys (bench/metrics/scrape.c: a
#      per-CPU count() hash keyed by (comm, pid), rendered by sonde's
#      metrics code and fetched by curl over loopback; medians of 7):
#      the time the event loop is busy, and curl's total time;
#   2. per-event cost with and without --metrics: `dd` writes to /dev/null
#      traced by `tracepoint:syscalls:sys_enter_write { @[pid] = count(); }`,
#      with --metrics scraped by curl every 200 ms during the run; the
#      program's own cost from the kernel's run statistics
#      (kernel.bpf_stats_enabled, bench/c/xlated.c) and dd's CPU time per
#      write, medians over ROUNDS interleaved rounds.
# usage: bench/metrics.sh [-r ROUNDS] [-n DD_COUNT] [--sonde PATH]
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
rounds=5 ddn=1000000 sonde=$ROOT/build/sonde
while [ $# -gt 0 ]; do
	case "$1" in
	-r) rounds=$2; shift 2 ;;
	-n) ddn=$2; shift 2 ;;
	--sonde) sonde=$2; shift 2 ;;
	*) echo "usage: $0 [-r ROUNDS] [-n DD_COUNT] [--sonde PATH]" >&2; exit 2 ;;
	esac
done
out=build/bench/metrics
mkdir -p "$out"
make -s all >/dev/null || exit 1
echo
echo "## Metrics (--metrics)"
echo
if [ "$(id -u)" != 0 ]; then
	echo "- n/a (not root)"
	exit 0
fi
if ! "$sonde" -h | grep -q -- --metrics || ! command -v curl >/dev/null; then
	echo "- n/a (sonde without --metrics, or no curl)"
	exit 0
fi
if ! cc -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -Isrc \
	-o "$out/scrape" bench/metrics/scrape.c build/libsonde.a \
	$(pkg-config --libs libbpf libelf zlib libdw libprotobuf-c libmicrohttpd) -liberty 2>"$out/cc.err"; then
	echo "- n/a (bench/metrics/scrape.c does not build: $(head -n 1 "$out/cc.err"))"
	exit 0
fi
if r=$("$out/scrape" 10000 2>&1); then
	ren=$(awk '$1 == "render" { print $2 }' <<<"$r")
	kb=$(awk '$1 == "render" { printf "%.0f", $4 / 1024 }' <<<"$r")
	scr=$(awk '$1 == "scrape" { print $2 }' <<<"$r")
	echo "- a scrape of a map of 10,000 keys (per-CPU count(), labels comm and pid, $kb KB of text): **$ren ms** of the event loop's time to read and render it, **$scr ms** for curl's whole GET /metrics (medians of 7)"
else
	echo "- scrape of 10,000 keys: n/a ($(head -n 1 <<<"$r"))"
fi

make -s -C bench/c BUILD="$ROOT/build" >"$out/make.log" 2>&1 ||
	{ echo "- per-event cost: n/a (bench/c does not build)"; exit 0; }
B=$ROOT/build/bench
old=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null) ||
	{ echo "- per-event cost: n/a (no kernel.bpf_stats_enabled)"; exit 0; }
sysctl -qw kernel.bpf_stats_enabled=1
prog='tracepoint:syscalls:sys_enter_write { @[pid] = count(); }'
: >"$out/runs.tsv"
for ((r = 1; r <= rounds; r++)); do
	for mode in plain metrics; do
		args=()
		[ $mode = metrics ] && args=(--metrics 127.0.0.1:0)
		"$sonde" "${args[@]}" -e "$prog" >"$out/sonde.out" 2>"$out/sonde.err" </dev/null &
		spid=$!
		for _ in $(seq 100); do
			grep -qs '^Attached' "$out/sonde.err" && break
			sleep 0.1
		done
		sleep 0.3
		spider=
		if [ $mode = metrics ]; then
			url=$(sed -n 's|^sonde: metrics at \(http://.*\)$|\1|p' "$out/sonde.err")
			(while :; do curl -s -o /dev/null "$url"; sleep 0.2; done) &
			spider=$!
		fi
		"$B/cputime" -t 60 -o "$out/dd.time" -- dd if=/dev/zero of=/dev/null count="$ddn" 2>/dev/null
		runs=$("$B/xlated" "$spid" 2>/dev/null | awk '$1 == "runs" { print $2, $3 }')
		[ -n "$spider" ] && { kill "$spider"; wait "$spider" 2>/dev/null; }
		scrapes=$(grep -c . /dev/null)
		kill -INT "$spid"
		wait "$spid" 2>/dev/null
		read -r _ u s _ _ <"$out/dd.time"
		printf '%s\t%s\t%s\t%s\n' "$mode" "$r" \
			"$(awk -v c="${runs% *}" -v ns="${runs#* }" 'BEGIN { if (c > 0) printf "%.2f", ns / c; else print "nan" }')" \
			"$(awk -v u="$u" -v s="$s" -v n="$ddn" 'BEGIN { printf "%.1f", (u + s) * 1e9 / n }')" >>"$out/runs.tsv"
	done
done
sysctl -qw kernel.bpf_stats_enabled="$old"
med() { # MODE COLUMN
	awk -F'\t' -v m="$1" -v c="$2" '$1 == m && $c != "nan" { print $c }' "$out/runs.tsv" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "n/a" }'
}
pc0=$(med plain 3) pc1=$(med metrics 3) dd0=$(med plain 4) dd1=$(med metrics 4)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else print "n/a" }'; }
echo "- per-event cost of \`$prog\`, without and with --metrics (scraped every 200 ms during the run), medians of $rounds interleaved rounds of $ddn writes:"
echo
echo "| | without --metrics | with --metrics | with / without |"
echo "|---|---|---|---|"
echo "| program cost (ns/run, bpf_stats) | $pc0 | $pc1 | $(ratio "$pc1" "$pc0") |"
echo "| dd CPU time (ns/write) | $dd0 | $dd1 | $(ratio "$dd1" "$dd0") |"
echo
if cmp -s <("$sonde" --dump bpf -e "$prog") <("$sonde" --metrics 9 --dump bpf -e "$prog"); then
	echo "\`sonde --dump bpf\` prints the same program with and without --metrics: it only reads the maps, in user space, when scraped."
else
	echo "**\`sonde --dump bpf\` prints a different program with --metrics.**"
fi
