#!/bin/bash
# Metrics layer (--metrics; root + BPF, libmicrohttpd in the build, curl;
# promtool and prometheus from Debian's prometheus package). The workload
# (tests/heatmap/sleepwl.c) makes a known number of nanosleep calls, then
# pauses while the maps are scraped.
#   metrics-promtool    every kind of map, scraped over HTTP while the
#                       script runs: `promtool check metrics` finds nothing
#                       to say, and the values are the workload's (counts,
#                       sums, stats, avg/min/max, hist and lhist buckets,
#                       labels from comm/pid, probe, inet and kstack keys;
#                       a cleared count() is a gauge); other paths are 404
#   metrics-prometheus  a real Prometheus server on loopback scrapes sonde
#                       every second; its HTTP API returns the workload's
#                       count (100) and histogram count
#   metrics-bad-input   a port in use, an address this host lacks, a
#                       malformed address and -f json are refused with one
#                       sentence each, before anything is attached
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

scratch=$BUILD/tests/metrics
rm -rf "$scratch"
mkdir -p "$scratch"

out=$scratch/json.out err=$scratch/json.err
run_sonde "$out" "$err" --metrics 9100 -f json -e 'BEGIN { exit(); }'
json_why=
if [ "$RC" != 1 ] || ! grep -q '^sonde: --metrics cannot be used with -f json' "$err"; then
	json_why="--metrics -f json: exit status $RC, or no clear message"
fi

if [ "$(id -u)" != 0 ]; then
	echo "skip metrics-promtool: not root (the tests load BPF programs)"
	layer_done
fi
if ! "$SONDE" -h | grep -q -- '--metrics'; then
	echo "not ok metrics-promtool: sonde -h does not show --metrics"
	layer_done
fi
run_sonde "$scratch/mhd.out" "$scratch/mhd.err" -q --metrics 127.0.0.1:0 -e 'BEGIN { exit(); }'
if grep -q 'built without it' "$scratch/mhd.err"; then
	echo "skip metrics-promtool: sonde was built without libmicrohttpd (apt-get install libmicrohttpd-dev; make clean all)"
	layer_done
fi
if ! command -v curl >/dev/null; then
	echo "skip metrics-promtool: curl is not installed"
	layer_done
fi
wl=$scratch/sleepwl
${CC:-cc} -O2 -o "$wl" "$TOP/tests/heatmap/sleepwl.c" ||
	{ echo "not ok metrics-workload: cannot compile sleepwl.c"; layer_done; }

# scrape_until FILE REGEX: scrapes URL into FILE until a line matches REGEX
# (10 s at most).
scrape_until() {
	for _ in $(seq 100); do
		curl -s -m 2 "$URL" >"$1" 2>/dev/null
		grep -qE "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}

prog='tracepoint:syscalls:sys_enter_nanosleep /pid == cpid/ {
	@start[tid] = nsecs;
	@sleeps[comm, pid] = count(); @by_probe[probe] = count();
	@addr[ntop(2, 0x0100007f)] = count(); @stacks[kstack] = count();
	@bytes = sum((uint64)8); @stat = stats(5);
	@avg_v = avg(7); @min_v = min(3); @max_v = max(9);
	@gone = count(); }
tracepoint:syscalls:sys_exit_nanosleep /@start[tid]/ {
	@latency = hist((nsecs - @start[tid]) / 100000);
	@wait = lhist((nsecs - @start[tid]) / 1000000, 0, 20, 5);
	delete(@start[tid]); }
END { clear(@gone); }'

out=$scratch/run.out err=$scratch/run.err prom=$scratch/scrape.prom
why=
if ! start_sonde "$out" "$err" -q --metrics 127.0.0.1:0 -e "$prog" -c "$wl -p 8000 5"; then
	why="sonde did not start serving"
elif ! scrape_until "$prom" '^sonde_stat_count 10$'; then
	why="no scrape with the 10 sleeps"
elif ! curl -s -m 2 "$URL" >"$prom"; then
	# once more: maps read before @stat in the scrape that saw it at 10
	# (the first one reads kallsyms for @stacks, slowly on a busy
	# machine) may have missed the last sleeps; now the workload pauses
	why="no scrape after the 10 sleeps"
else
	# While it runs: the port is taken, so a second sonde is refused.
	port=${URL##*:}
	port=${port%%/*}
	run_sonde "$scratch/inuse.out" "$scratch/inuse.err" --metrics "127.0.0.1:$port" -e 'BEGIN { exit(); }'
	inuse_rc=$RC
	code=$(curl -s -m 2 -o /dev/null -w '%{http_code}' "${URL%/metrics}/other")
	promtool check metrics <"$prom" >"$scratch/promtool.out" 2>&1
	prc=$?
	if [ "$prc" != 0 ] || [ -s "$scratch/promtool.out" ]; then
		why="promtool check metrics: exit status $prc"
	elif [ "$code" != 404 ]; then
		why="/other answered $code, expected 404"
	else
		for want in \
			'^sonde_sleeps_total\{key1="sleepwl",key2="[0-9]+"\} 10$' \
			'^sonde_by_probe_total\{probe="tracepoint:syscalls:sys_enter_nanosleep"\} 10$' \
			'^sonde_addr_total\{inet="127.0.0.1"\} 10$' \
			'^sonde_stacks_total\{kstack="[^"]+_\[k\]"\} 10$' \
			'^# TYPE sonde_bytes_total counter$' '^sonde_bytes_total 80$' \
			'^# TYPE sonde_stat summary$' '^sonde_stat_sum 50$' '^sonde_stat_count 10$' \
			'^# TYPE sonde_avg_v gauge$' '^sonde_avg_v 7$' '^sonde_min_v 3$' '^sonde_max_v 9$' \
			'^# TYPE sonde_gone gauge$' '^sonde_gone 10$' \
			'^# TYPE sonde_latency histogram$' '^sonde_latency_bucket\{le="-1"\} 0$' \
			'^sonde_latency_bucket\{le="7"\} 0$' \
			'^sonde_latency_bucket\{le="\+Inf"\} 10$' '^sonde_latency_count 10$' \
			'^sonde_wait_bucket\{le="-1"\} 0$' '^sonde_wait_bucket\{le="\+Inf"\} 10$' \
			'^sonde_wait_count 10$'; do
			grep -qE "$want" "$prom" || { why="no line matching $want"; break; }
		done
	fi
	if [ -z "$why" ]; then
		# buckets are cumulative: never decreasing, ending at the count
		awk -F' ' '/^sonde_(latency|wait)_bucket/ { split($1, a, "{"); if (a[1] == last && $2 < prev) bad = 1; last = a[1]; prev = $2 }
			END { exit bad }' "$prom" || why="a histogram's buckets decrease"
	fi
fi
stop_sonde
if [ -n "$why" ]; then
	echo "not ok metrics-promtool: $why"
	indent "$prom" 40
	indent "$scratch/promtool.out" 10
	indent "$err" 10
else
	echo "ok metrics-promtool"
fi

# Bad input.
bad_why=$json_why
if [ -z "$bad_why" ]; then
	if [ "${inuse_rc:-}" != 1 ] ||
		! grep -q '^sonde: --metrics 127.0.0.1:[0-9]*: cannot listen there: the port is in use$' "$scratch/inuse.err"; then
		bad_why="a port in use: exit status ${inuse_rc:-none}, or not the expected message"
	fi
fi
check_bad() { # ADDR REGEX
	[ -n "$bad_why" ] && return
	run_sonde "$scratch/bad.out" "$scratch/bad.err" --metrics "$1" -e 'tracepoint:syscalls:sys_enter_getppid { @c = count(); }'
	if [ "$RC" != 1 ] || ! grep -qE "$2" "$scratch/bad.err"; then
		bad_why="--metrics $1: exit status $RC, or not the expected message"
	elif grep -q '^Attached' "$scratch/bad.err"; then
		bad_why="--metrics $1: probes were attached"
	fi
}
check_bad 192.0.2.1:9100 '^sonde: --metrics 192.0.2.1:9100: cannot listen there: this host has no such address$'
check_bad no.such.host:9100 "^sonde: --metrics 'no.such.host:9100' is not PORT, ADDR:PORT or \[IPV6ADDR\]:PORT"
check_bad 127.0.0.1:70000 "^sonde: --metrics '127.0.0.1:70000' is not PORT"
if [ -n "$bad_why" ]; then
	echo "not ok metrics-bad-input: $bad_why"
	indent "$scratch/bad.err" 5
else
	echo "ok metrics-bad-input"
fi

# A real Prometheus server scraping sonde every second.
if ! command -v prometheus >/dev/null; then
	echo "skip metrics-prometheus: prometheus is not installed (apt-get install prometheus)"
	layer_done
fi
# a free loopback port for Prometheus' own API
pport=
for _ in $(seq 50); do
	p=$((20000 + RANDOM % 20000))
	ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { pport=$p; break; }
done
out=$scratch/prom-run.out err=$scratch/prom-run.err
why=
ppid=
if [ -z "$pport" ]; then
	why="no free port for prometheus"
elif ! start_sonde "$out" "$err" -q --metrics 127.0.0.1:0 -e \
	'tracepoint:syscalls:sys_enter_nanosleep /pid == cpid/ { @sleeps[comm] = count(); @start[tid] = nsecs; }
	 tracepoint:syscalls:sys_exit_nanosleep /@start[tid]/ { @latency = hist((nsecs - @start[tid]) / 100000); delete(@start[tid]); }' \
	-c "$wl -p 30000 50"; then
	why="sonde did not start serving"
else
	target=${URL#http://}
	target=${target%/metrics}
	cat >"$scratch/prometheus.yml" <<CONF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: sonde
    static_configs:
      - targets: ['$target']
CONF
	prometheus --config.file="$scratch/prometheus.yml" \
		--storage.tsdb.path="$scratch/tsdb" \
		--web.listen-address="127.0.0.1:$pport" >"$scratch/prometheus.log" 2>&1 &
	ppid=$!
	api="http://127.0.0.1:$pport/api/v1/query"
	got= hist=
	for _ in $(seq 60); do
		got=$(curl -s -m 2 "$api" --data-urlencode 'query=sonde_sleeps_total{job="sonde",key="sleepwl"}' 2>/dev/null)
		hist=$(curl -s -m 2 "$api" --data-urlencode 'query=sonde_latency_count{job="sonde"}' 2>/dev/null)
		case "$got$hist" in *'"100"'*'"100"'*) break ;; esac
		sleep 0.5
	done
	printf '%s\n%s\n' "$got" "$hist" >"$scratch/api.json"
	# {"status":"success","data":{"resultType":"vector","result":[{"metric":{...},"value":[T,"100"]}]}}
	if ! grep -qE '"result":\[\{"metric":\{"__name__":"sonde_sleeps_total",[^}]*"key":"sleepwl"\},"value":\[[0-9.]+,"100"\]\}\]' <<<"$got"; then
		why="Prometheus' API does not give sonde_sleeps_total{key=\"sleepwl\"} 100"
	elif ! grep -qE '"value":\[[0-9.]+,"100"\]' <<<"$hist"; then
		why="Prometheus' API does not give sonde_latency_count 100"
	fi
fi
[ -n "$ppid" ] && { kill -TERM "$ppid" 2>/dev/null; wait "$ppid" 2>/dev/null; }
stop_sonde
if [ -n "$why" ]; then
	echo "not ok metrics-prometheus: $why"
	indent "$scratch/api.json" 5
	indent "$scratch/prometheus.log" 10
	indent "$err" 5
else
	echo "ok metrics-prometheus"
fi
layer_done
