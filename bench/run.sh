#!/bin/bash
# sonde benchmarks: sonde vs bpftrace vs a hand-written libbpf C program,
# run side by side, interleaved (C bpftrace sonde C bpftrace sonde ...),
# reported as medians in bench/RESULTS.md. Raw data: build/bench/raw/.
#
#   bench/run.sh [-b LIST] [-r N] [-q] [-o FILE] [--sonde PATH] [--bpftrace PATH]
#
#   -b LIST   comma-separated benchmarks: dd,startup,insns,throughput,footprint
#             (default: all)
#   -r N      rounds for dd and startup (default 7; throughput uses N/2+1)
#   -q        quick smoke run: 3 rounds, smaller dd, 1 s load, 6 scripts
#   -o FILE   where the markdown goes (default bench/RESULTS.md)
#   --report  only rewrite the report from the raw data of the last run
#             (give the same -r/-q as that run)
#
# Timings are benchmarks, never test assertions: this script exits 0 even
# when a tracer fails; a failed run shows as "n/a (reason)".
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD

BENCHES=dd,startup,insns,throughput,footprint
ROUNDS=7
QUICK=0
REPORT_ONLY=0
OUT=bench/RESULTS.md
SONDE=$ROOT/build/sonde
BPFTRACE=$(command -v bpftrace || echo /usr/bin/bpftrace)
while [ $# -gt 0 ]; do
	case $1 in
	-b) BENCHES=$2; shift ;;
	-r) ROUNDS=$2; shift ;;
	-q) QUICK=1 ;;
	--report) REPORT_ONLY=1 ;;
	-o) OUT=$2; shift ;;
	--sonde) SONDE=$2; shift ;;
	--bpftrace) BPFTRACE=$2; shift ;;
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
DD_N=1000000
LOAD_SECS=2
NSCRIPTS=1000
if [ $QUICK = 1 ]; then
	ROUNDS=3 DD_N=200000 LOAD_SECS=1 NSCRIPTS=6
fi
TP_ROUNDS=$((ROUNDS / 2 + 1))
PACED_RATE=100000 # events/s: the rate at which nothing may be lost
TRACERS=(c bpftrace sonde)

B=$ROOT/build/bench
RAW=$B/raw
TMP=$B/tmp
SHM=/dev/shm/sonde-bench.$$
mkdir -p "$RAW" "$TMP" "$SHM"
trap 'rm -rf "$SHM"' EXIT

log() { echo "[bench] $*" >&2; }

# ---------------------------------------------------------------- set-up
[ "$(id -u)" = 0 ] || { echo "run.sh: must run as root (BPF)" >&2; exit 1; }
if [ -x scripts/deps.sh ]; then
	scripts/deps.sh || log "warning: scripts/deps.sh failed"
fi
if ! command -v bpftrace >/dev/null; then
	log "installing bpftrace"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q bpftrace >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q bpftrace >/dev/null 2>&1; }
	BPFTRACE=$(command -v bpftrace || echo /usr/bin/bpftrace)
fi
ulimit -l unlimited 2>/dev/null || ulimit -l 1048576 2>/dev/null || true
if ! make -s -C bench/c BUILD="$ROOT/build" >"$TMP/make.log" 2>&1; then
	cat "$TMP/make.log" >&2
	echo "run.sh: building the C baselines failed" >&2
	exit 1
fi
CPUTIME=$B/cputime LOADER=$B/loader XLATED=$B/xlated LOAD=$B/load

# ------------------------------------------------------- tracer commands
# tracer_cmd TRACER KIND ARG -> sets CMD (array). KIND is "prog" (ARG is a
# program text, or for c the object name) or "file" (ARG is a .bt path).
tracer_cmd() {
	local t=$1 kind=$2 arg=$3
	case $t in
	c) CMD=("$LOADER" "$B/$arg.bpf.o") ;;
	bpftrace|sonde)
		local bin=$BPFTRACE
		[ "$t" = sonde ] && bin=$SONDE
		if [ "$kind" = file ]; then CMD=("$bin" "$arg"); else CMD=("$bin" -e "$arg"); fi ;;
	esac
}

# First line of a failure, squeezed for a table cell.
reason_of() {
	grep -h -v -E -e '^Attach(ing|ed) [0-9]' -e 'RLIMIT_MEMLOCK' -e '^$' "$@" 2>/dev/null | head -n 1 |
		tr -d '|' | cut -c1-70
}

# start_tracer NAME CMD... : runs CMD in the background (stdout NAME.out,
# stderr NAME.err), waits for "Attaching N probe" (bpftrace 0.17, the C
# loader) or "Attached N probe" (sonde, bpftrace 0.24+) and then 0.5 s more so
# the attach is done. Sets TPID; returns 1 (with REASON) if it failed.
start_tracer() {
	local name=$1; shift
	"$@" >"$name.out" 2>"$name.err" </dev/null &
	TPID=$!
	local i
	for ((i = 0; i < 300; i++)); do
		if grep -qsE '^Attach(ing|ed) [0-9]* probe' "$name.out" "$name.err"; then
			sleep 0.5
			kill -0 $TPID 2>/dev/null && return 0
			break
		fi
		kill -0 $TPID 2>/dev/null || break
		sleep 0.1
	done
	stop_tracer
	REASON=$(reason_of "$name.err" "$name.out")
	[ $i -ge 300 ] && REASON="no 'Attached' line within 30 s"
	[ -n "$REASON" ] || REASON="exited before attaching"
	return 1
}

# stop_tracer: SIGINT, then SIGKILL after 10 s. Sets TRC to its exit code.
stop_tracer() {
	kill -INT $TPID 2>/dev/null
	local i
	for ((i = 0; i < 100; i++)); do
		kill -0 $TPID 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL $TPID 2>/dev/null
	wait $TPID 2>/dev/null
	TRC=$?
}

# raw FILE fields... : append one tab-separated record.
raw() { local f=$1; shift; (IFS=$'\t'; echo "$*") >>"$f"; }

# ------------------------------------------------------------ benchmark 1
DD_PROGS=(empty count hist pidcount)
declare -A DD_TEXT=(
	[empty]='tracepoint:syscalls:sys_enter_write { }'
	[count]='tracepoint:syscalls:sys_enter_write { @ = count(); }'
	[hist]='tracepoint:syscalls:sys_enter_write { @ = hist(args->count); }'
	[pidcount]='tracepoint:syscalls:sys_enter_write { @[pid] = count(); }'
)

run_dd_once() { # -> prints "wall user sys rss exit"
	"$CPUTIME" -t 60 -o "$TMP/dd.time" -- dd if=/dev/zero of=/dev/null count=$DD_N 2>/dev/null
	cat "$TMP/dd.time"
}

bench_dd() {
	local f=$RAW/dd.tsv r p t
	: >"$f"
	log "dd: $ROUNDS rounds x ${#DD_PROGS[@]} programs x (none ${TRACERS[*]}), count=$DD_N"
	for ((r = 1; r <= ROUNDS; r++)); do
		for p in "${DD_PROGS[@]}"; do
			for t in none "${TRACERS[@]}"; do
				if [ $t = none ]; then
					read -r _ u s _ _ < <(run_dd_once)
					raw "$f" "$p" none "$r" ok "$(awk -v u=$u -v s=$s 'BEGIN{printf "%.6f", u+s}')"
					continue
				fi
				local arg=${DD_TEXT[$p]}
				[ $t = c ] && arg=dd_$p
				tracer_cmd $t prog "$arg"
				if ! start_tracer "$TMP/dd.$t" "${CMD[@]}"; then
					raw "$f" "$p" "$t" "$r" fail "$REASON"
					continue
				fi
				read -r _ u s _ ex < <(run_dd_once)
				if ! kill -0 $TPID 2>/dev/null; then
					stop_tracer
					raw "$f" "$p" "$t" "$r" fail "tracer died during the run: $(reason_of "$TMP/dd.$t.err")"
					continue
				fi
				stop_tracer
				raw "$f" "$p" "$t" "$r" ok "$(awk -v u=$u -v s=$s 'BEGIN{printf "%.6f", u+s}')"
			done
		done
		log "dd: round $r done"
	done
	bench_progcost
}

# The programs' own cost, from the kernel's BPF run statistics (run time
# and count of each program, kept while kernel.bpf_stats_enabled is 1):
# what the compiler controls, without the noise of dd's CPU time. The
# statistics cost two clock reads per run, so they stay off during the
# timed runs above.
STATS_ROUNDS=3
bench_progcost() {
	local f=$RAW/progcost.tsv r p t old
	: >"$f"
	old=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null) || {
		log "progcost: no kernel.bpf_stats_enabled, skipped"; return; }
	sysctl -qw kernel.bpf_stats_enabled=1
	log "progcost: $STATS_ROUNDS rounds x ${#DD_PROGS[@]} programs x (${TRACERS[*]})"
	for ((r = 1; r <= STATS_ROUNDS; r++)); do
		for p in "${DD_PROGS[@]}"; do
			for t in "${TRACERS[@]}"; do
				local arg=${DD_TEXT[$p]}
				[ $t = c ] && arg=dd_$p
				tracer_cmd $t prog "$arg"
				if ! start_tracer "$TMP/pc.$t" "${CMD[@]}"; then
					raw "$f" "$p" "$t" "$r" fail "$REASON"
					continue
				fi
				run_dd_once >/dev/null
				local runs=$("$XLATED" $TPID 2>/dev/null | awk '$1 == "runs" { print $2, $3 }')
				stop_tracer
				if [ -z "$runs" ] || [ "${runs% *}" -lt "$DD_N" ]; then
					raw "$f" "$p" "$t" "$r" fail "no run statistics"
				else
					raw "$f" "$p" "$t" "$r" ok "$(awk -v c=${runs% *} -v ns=${runs#* } 'BEGIN { printf "%.2f", ns / c }')"
				fi
			done
		done
	done
	sysctl -qw kernel.bpf_stats_enabled="$old"
}

# ------------------------------------------------------------ benchmark 2
STARTUP_CASES=(begin stdlib three)
# stdlib: functions of bpftrace's standard library that 0.17 has too, so
# that both run it (0.26 compiles its stdlib, written in its language, for
# every script; sonde's is built into its compiler)
declare -A STARTUP_TEXT=(
	[begin]='BEGIN { exit(); }'
	[stdlib]='BEGIN { printf("%d %s %d %s\n", pid, comm, strncmp(comm, "bpf", 3), strftime("%H:%M:%S", nsecs)); @h = hist(pid); @l = lhist(uid, 0, 1000, 100); @c[comm] = count(); @s = stats(pid); @m = max(tid); exit(); }'
	[three]='tracepoint:syscalls:sys_enter_write { @ = count(); } interval:ms:100 { exit(); } END { printf("end\n"); }'
)

bench_startup() {
	local f=$RAW/startup.tsv r c t
	: >"$f"
	log "startup: $ROUNDS rounds x ${#STARTUP_CASES[@]} cases x (${TRACERS[*]})"
	for ((r = 1; r <= ROUNDS; r++)); do
		for c in "${STARTUP_CASES[@]}"; do
			for t in "${TRACERS[@]}"; do
				local arg=${STARTUP_TEXT[$c]}
				[ $t = c ] && arg=$c
				tracer_cmd $t prog "$arg"
				rm -f "$TMP/st.time"
				"$CPUTIME" -t 30 -o "$TMP/st.time" -- "${CMD[@]}" >"$TMP/st.out" 2>"$TMP/st.err" </dev/null
				local wall u s rss ex
				read -r wall u s rss ex <"$TMP/st.time" || ex=missing
				if [ "$ex" != 0 ]; then
					local why=$(reason_of "$TMP/st.err" "$TMP/st.out")
					raw "$f" "$c" "$t" "$r" fail "exit $ex${why:+: $why}"
				else
					raw "$f" "$c" "$t" "$r" ok "$wall" "$rss"
				fi
			done
		done
		log "startup: round $r done"
	done
}

# ------------------------------------------------------------ benchmark 3
bench_insns() {
	local f=$RAW/insns.tsv s t n=0
	: >"$f"
	local scripts=(bench/scripts/*.bt)
	scripts=("${scripts[@]:0:$NSCRIPTS}")
	log "insns: ${#scripts[@]} scripts x (bpftrace sonde)"
	for s in "${scripts[@]}"; do
		local name=$(basename "$s" .bt)
		for t in bpftrace sonde; do
			tracer_cmd $t file "$ROOT/$s"
			if ! start_tracer "$TMP/in.$t" "${CMD[@]}"; then
				raw "$f" "$name" "$t" 1 fail "$REASON"
				continue
			fi
			"$XLATED" $TPID >"$RAW/insns.$name.$t.txt" 2>&1
			stop_tracer
			local tot=$(awk '$1 == "total" { print $2, $3 }' "$RAW/insns.$name.$t.txt")
			if [ -z "$tot" ] || [ "${tot% *}" = 0 ]; then
				raw "$f" "$name" "$t" 1 fail "no BPF program found in its fds"
			else
				raw "$f" "$name" "$t" 1 ok ${tot#* } ${tot% *}
			fi
		done
	done
}

# ------------------------------------------------------------ benchmark 4
TP_TEXT='tracepoint:syscalls:sys_enter_getppid { printf("%d %s %llu\n", pid, comm, nsecs); }'

bench_throughput() {
	local f=$RAW/throughput.tsv r t
	: >"$f"
	log "throughput: $TP_ROUNDS rounds x (${TRACERS[*]}) x (flat out, paced $PACED_RATE/s), load ${LOAD_SECS}s"
	for ((r = 1; r <= TP_ROUNDS; r++)); do
		for mode in tp paced; do
		local rate=0
		[ $mode = paced ] && rate=$PACED_RATE
		for t in "${TRACERS[@]}"; do
			local arg=$TP_TEXT
			[ $t = c ] && arg=printf
			tracer_cmd $t prog "$arg"
			# The events go to tmpfs: as cheap to write as /dev/null, and
			# countable afterwards.
			if ! start_tracer "$SHM/tp.$t" "${CMD[@]}"; then
				raw "$f" $mode "$t" "$r" fail "$REASON"
				continue
			fi
			local calls secs lpid
			read -r _ calls _ secs _ lpid < <(timeout 60 "$LOAD" $LOAD_SECS $rate)
			stop_tracer
			if [ "$TRC" != 0 ] && [ "$TRC" != 130 ]; then
				raw "$f" $mode "$t" "$r" fail "exit $TRC: $(reason_of "$SHM/tp.$t.err")"
				continue
			fi
			local got=$(grep -c "^$lpid load " "$SHM/tp.$t.out")
			# Lost counts: bpftrace prints "Lost N events"; the C loader
			# prints "map lost: ..., sum N".
			local lost=$(cat "$SHM/tp.$t.out" "$SHM/tp.$t.err" | awk '
				/Lost [0-9]+ events/ { for (i = 1; i < NF; i++) if ($i == "Lost") n += $(i+1) }
				/^map lost:/ { n += $NF }
				END { print n + 0 }')
			raw "$f" $mode "$t" "$r" ok "$calls" "$secs" "$got" "$lost"
			rm -f "$SHM/tp.$t.out"
		done
		done
		log "throughput: round $r done"
	done
}

# ------------------------------------------------------------ benchmark 5
# footprint BIN -> "size stripped nlibs libbytes"
footprint() {
	local bin=$1
	[ -x "$bin" ] || { echo "missing"; return; }
	local size=$(stat -Lc %s "$bin")
	cp "$bin" "$TMP/strip.bin" && strip "$TMP/strip.bin" 2>/dev/null
	local stripped=$(stat -c %s "$TMP/strip.bin")
	local libs=$(ldd "$bin" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }' | sort -u)
	local n=0 bytes=0 l
	for l in $libs; do
		n=$((n + 1))
		bytes=$((bytes + $(stat -Lc %s "$l")))
	done
	echo "$size $stripped $n $bytes"
	printf '%s\n' $libs >"$RAW/footprint.$(basename "$bin").libs"
}

bench_footprint() {
	local f=$RAW/footprint.tsv
	: >"$f"
	log "footprint"
	raw "$f" c "$LOADER" $(footprint "$LOADER")
	raw "$f" bpftrace "$BPFTRACE" $(footprint "$BPFTRACE")
	raw "$f" sonde "$SONDE" $(footprint "$SONDE")
}

# --------------------------------------------------------------- report
# med FILE CASE TRACER COL -> median of column COL over ok records
med() {
	awk -F'\t' -v c="$2" -v t="$3" -v k="$4" '$1 == c && $2 == t && $4 == "ok" { print $k }' "$1" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit; if (NR % 2) print v[(NR+1)/2]; else printf "%.6f\n", (v[NR/2] + v[NR/2+1]) / 2 }'
}
# nok FILE CASE TRACER -> number of ok records
nok() { awk -F'\t' -v c="$2" -v t="$3" '$1 == c && $2 == t && $4 == "ok"' "$1" | wc -l; }
# why FILE CASE TRACER -> "n/a (reason)" from its most frequent failure
why() {
	local r=$(awk -F'\t' -v c="$2" -v t="$3" '$1 == c && $2 == t && $4 == "fail" { print $5 }' "$1" |
		sort | uniq -c | sort -rn | head -n 1 | sed 's/^ *[0-9]* //')
	echo "n/a (${r:-not run})"
}
# ratio A B -> "A/B" as x.xx, or n/a
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "n/a"; else printf "%.2fx\n", a / b }'
}
fmt() { awk -v v="$1" -v m="$2" -v d="${3:-1}" 'BEGIN { if (v == "") print "n/a"; else printf "%." d "f\n", v * m }'; }

report_dd() {
	local f=$RAW/dd.tsv p
	[ -s "$f" ] || return
	echo "## 1. Per-event overhead (dd)"
	echo
	echo "\`dd if=/dev/zero of=/dev/null count=$DD_N\` (one write(2) per block), with each tracer attached to"
	echo "\`tracepoint:syscalls:sys_enter_write\`. CPU = dd's user+sys time, median of $ROUNDS interleaved runs."
	echo "Overhead = (traced CPU - untraced CPU) / $DD_N writes, in ns per event. Lower is better."
	echo
	echo "| program | untraced CPU ms | C (libbpf) | bpftrace | sonde | sonde / C | sonde / bpftrace | bpftrace / C |"
	echo "|---|---|---|---|---|---|---|---|"
	for p in "${DD_PROGS[@]}"; do
		local base=$(med "$f" $p none 5) cell=() ns=() t
		for t in "${TRACERS[@]}"; do
			local m=$(med "$f" $p $t 5)
			if [ -z "$m" ] || [ -z "$base" ]; then
				cell+=("$(why "$f" $p $t)"); ns+=("")
			else
				local n=$(awk -v m=$m -v b=$base -v N=$DD_N 'BEGIN { printf "%.1f", (m - b) * 1e9 / N }')
				cell+=("$(fmt $m 1000) ms, +$n ns/ev ($(awk -v m=$m -v b=$base 'BEGIN { printf "%+.0f", (m - b) * 100 / b }')%)")
				ns+=("$n")
			fi
		done
		echo "| \`${DD_TEXT[$p]}\` | $(fmt "$base" 1000) | ${cell[0]} | ${cell[1]} | ${cell[2]} | $(ratio "${ns[2]}" "${ns[0]}") | $(ratio "${ns[2]}" "${ns[1]}") | $(ratio "${ns[1]}" "${ns[0]}") |"
	done
	echo
	report_progcost
}

report_progcost() {
	local f=$RAW/progcost.tsv p t
	[ -s "$f" ] || return
	echo "### Program cost (kernel BPF run statistics)"
	echo
	echo "The same programs, timed by the kernel itself (\`kernel.bpf_stats_enabled\`: run_time_ns / run_cnt over"
	echo "the tracer's programs during one dd run), median of $STATS_ROUNDS rounds: the cost of the program alone,"
	echo "without the attach path the three share and without the noise of dd's CPU time. The statistics add"
	echo "two clock reads per run to every figure alike. Lower is better."
	echo
	echo "| program | C ns/run | bpftrace ns/run | sonde ns/run | sonde / C | sonde / bpftrace |"
	echo "|---|---|---|---|---|---|"
	for p in "${DD_PROGS[@]}"; do
		local v=() cell=()
		for t in "${TRACERS[@]}"; do
			local m=$(med "$f" $p $t 5)
			v+=("$m")
			if [ -z "$m" ]; then cell+=("$(why "$f" $p $t)"); else cell+=("$m"); fi
		done
		echo "| \`${DD_TEXT[$p]}\` | ${cell[0]} | ${cell[1]} | ${cell[2]} | $(ratio "${v[2]}" "${v[0]}") | $(ratio "${v[2]}" "${v[1]}") |"
	done
	echo
}

report_startup() {
	local f=$RAW/startup.tsv c t
	[ -s "$f" ] || return
	echo "## 2. Start-up"
	echo
	echo "From the command to its exit: wall time and peak RSS (getrusage of the child), median of $ROUNDS interleaved runs."
	echo "The three-probe script exits from \`interval:ms:100\`, so its wall time includes that 100 ms."
	echo
	echo "| script | C wall ms / RSS MB | bpftrace wall ms / RSS MB | sonde wall ms / RSS MB | sonde / C (wall, RSS) | sonde / bpftrace (wall, RSS) |"
	echo "|---|---|---|---|---|---|"
	for c in "${STARTUP_CASES[@]}"; do
		local cell=() w=() m=()
		for t in "${TRACERS[@]}"; do
			local wall=$(med "$f" $c $t 5) rss=$(med "$f" $c $t 6)
			if [ -z "$wall" ]; then cell+=("$(why "$f" $c $t)")
			else cell+=("$(fmt $wall 1000) ms / $(fmt $rss 0.0009765625) MB"); fi
			w+=("$wall"); m+=("$rss")
		done
		echo "| \`${STARTUP_TEXT[$c]}\` | ${cell[0]} | ${cell[1]} | ${cell[2]} | $(ratio "${w[2]}" "${w[0]}"), $(ratio "${m[2]}" "${m[0]}") | $(ratio "${w[2]}" "${w[1]}"), $(ratio "${m[2]}" "${m[1]}") |"
	done
	echo
}

report_insns() {
	local f=$RAW/insns.tsv s
	[ -s "$f" ] || return
	echo "## 3. Code quality: BPF instructions held by the kernel"
	echo
	echo "Sum of \`xlated_prog_len / 8\` (BPF_OBJ_GET_INFO_BY_FD) over every program the tracer holds while it runs"
	echo "(found through /proc/PID/fdinfo), for each script in \`bench/scripts/\`. progs = number of programs. Lower is better."
	echo
	echo "| script | feature | bpftrace insns (progs) | sonde insns (progs) | sonde / bpftrace |"
	echo "|---|---|---|---|---|"
	local tb=0 ts=0 both=1
	for s in $(cut -f1 "$f" | uniq); do
		local feat=$(sed -n 's|^// feature: ||p' "bench/scripts/$s.bt" | head -n 1 | sed 's/|/\\|/g')
		local bi=$(med "$f" $s bpftrace 5) bp=$(med "$f" $s bpftrace 6)
		local si=$(med "$f" $s sonde 5) sp=$(med "$f" $s sonde 6)
		local bc=${bi:+$bi ($bp)} sc=${si:+$si ($sp)}
		[ -n "$bi" ] && tb=$((tb + bi))
		[ -n "$si" ] && ts=$((ts + si))
		{ [ -n "$bi" ] && [ -n "$si" ]; } || both=0
		echo "| $s | $feat | ${bc:-$(why "$f" $s bpftrace)} | ${sc:-$(why "$f" $s sonde)} | $(ratio "$si" "$bi") |"
	done
	if [ $both = 1 ]; then
		echo "| **total** | | $tb | $ts | $(ratio $ts $tb) |"
	else
		echo "| **total** | | $tb | n/a (not every script ran) | n/a |"
		# The comparable part: the scripts both tracers ran.
		local cb=0 cs=0 nc=0
		for s in $(cut -f1 "$f" | uniq); do
			local bi=$(med "$f" $s bpftrace 5) si=$(med "$f" $s sonde 5)
			if [ -n "$bi" ] && [ -n "$si" ]; then
				cb=$((cb + bi)) cs=$((cs + si)) nc=$((nc + 1))
			fi
		done
		echo "| **total over the $nc scripts both ran** | | $cb | $cs | $(ratio $cs $cb) |"
	fi
	echo
}

# tp_table MODE: one table row per tracer for throughput mode MODE.
tp_table() {
	local f=$RAW/throughput.tsv mode=$1 t
	echo "| tracer | delivered events/s | load calls/s | lost (reported) | missing | delivered / C | delivered / bpftrace |"
	echo "|---|---|---|---|---|---|---|"
	local dc=$(awk -F'\t' -v m=$mode '$1 == m && $2 == "c" && $4 == "ok" { print $7 / $6 }' "$f" | sort -g | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}')
	local db=$(awk -F'\t' -v m=$mode '$1 == m && $2 == "bpftrace" && $4 == "ok" { print $7 / $6 }' "$f" | sort -g | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}')
	for t in "${TRACERS[@]}"; do
		if [ "$(nok "$f" $mode $t)" = 0 ]; then
			echo "| $t | $(why "$f" $mode $t) | | | | | |"
			continue
		fi
		local d=$(awk -F'\t' -v m=$mode -v t=$t '$1 == m && $2 == t && $4 == "ok" { print $7 / $6 }' "$f" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
		local l=$(awk -F'\t' -v m=$mode -v t=$t '$1 == m && $2 == t && $4 == "ok" { print $5 / $6 }' "$f" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
		local lost=$(med "$f" $mode $t 8)
		local maxlost=$(awk -F'\t' -v m=$mode -v t=$t '$1 == m && $2 == t && $4 == "ok" && $8 > x { x = $8 } END { print x + 0 }' "$f")
		local miss=$(awk -F'\t' -v m=$mode -v t=$t '$1 == m && $2 == t && $4 == "ok" { print $5 - $7 }' "$f" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
		echo "| $t | $(fmt $d 1 0) | $(fmt $l 1 0) | $(fmt "$lost" 1 0) (max $maxlost) | $(fmt "$miss" 1 0) | $(ratio $d "$dc") | $(ratio $d "$db") |"
	done
	echo
}

report_throughput() {
	local f=$RAW/throughput.tsv
	[ -s "$f" ] || return
	echo "## 4. Event throughput (printf)"
	echo
	echo "\`$TP_TEXT\`"
	echo
	echo "under \`load $LOAD_SECS\` (getppid(2) in a tight loop on one CPU). The events go to a tmpfs file (as cheap"
	echo "as /dev/null for the writer, and countable). delivered/s = lines from the load's pid / load time;"
	echo "load calls/s shows how much the tracer slows the traced process; lost = as reported by the tracer"
	echo "(median, and the largest of any run); missing = calls - delivered. Medians of $TP_ROUNDS interleaved runs."
	echo
	echo "**Flat out** (as many calls as the load can make):"
	echo
	tp_table tp
	echo "**Paced** at $PACED_RATE calls/s (\`load $LOAD_SECS $PACED_RATE\`): nothing should be lost."
	echo
	tp_table paced
}

report_footprint() {
	local f=$RAW/footprint.tsv
	[ -s "$f" ] || return
	echo "## 5. Footprint"
	echo
	echo "Binary size on disk, size of a stripped copy, and its shared-library closure (\`ldd\`, sizes of the resolved files)."
	echo
	echo "| tool | binary | stripped KB | libs | libs MB | stripped + libs MB |"
	echo "|---|---|---|---|---|---|"
	local t bin sz st n lb tot=()
	while IFS=$'\t' read -r t bin sz st n lb; do
		if [ "$sz" = missing ] || [ -z "$st" ]; then
			echo "| $t | \`$bin\` | n/a (missing) | | | |"; tot+=(""); continue
		fi
		local all=$((st + lb)); tot+=($all)
		echo "| $t | \`${bin#$ROOT/}\` | $(fmt $st 0.0009765625 0) | $n | $(fmt $lb 0.00000095367 1) | $(fmt $all 0.00000095367 1) |"
	done <"$f"
	echo
	echo "sonde / bpftrace (stripped + libs): $(ratio "${tot[2]:-}" "${tot[1]:-}")"
	[ "$SONDE_TRACES" = 1 ] || echo "(sonde cannot trace yet: its binary and libraries are not yet those of a working tracer.)"
	echo
}

SONDE_TRACES=0
write_report() {
	local sonde_state
	if "$SONDE" -e 'BEGIN { exit(); }' >"$TMP/probe.out" 2>"$TMP/probe.err" </dev/null; then
		SONDE_TRACES=1
		sonde_state="sonde traces (\`$SONDE -e 'BEGIN { exit(); }'\` exits 0)"
	else
		sonde_state="**run without sonde: sonde cannot trace yet** (\`sonde -e 'BEGIN { exit(); }'\`: $(reason_of "$TMP/probe.err" "$TMP/probe.out"))"
	fi
	{
		echo "# sonde benchmarks"
		echo
		echo "Generated by \`make bench\` (\`bench/run.sh$ARGS_SHOWN\`). Method: bench/README.md. Raw data: build/bench/raw/."
		echo
		echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "- kernel: $(uname -r) ($(uname -m)), CPUs: $(nproc), $(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -n 1)"
		echo "- bpftrace: $("$BPFTRACE" --version 2>/dev/null | head -n 1); libbpf $(pkg-config --modversion libbpf 2>/dev/null)"
		echo "- sonde: $(git rev-parse --short HEAD 2>/dev/null) — $sonde_state"
		echo "- noise: the $(nproc) CPUs are shared with other jobs (compiles, test runs), so timings are noisy: runs are"
		echo "  interleaved and medians taken, but a dd median can still move by 10-20% between runs; ratios within"
		echo "  ~0.1x of each other are not a difference. Raw per-run values: build/bench/raw/."
		[ $QUICK = 1 ] && echo "- **quick mode** (smoke run): fewer rounds, smaller workloads"
		echo
		for b in ${BENCHES//,/ }; do report_$b; done
	} >"$OUT"
	log "wrote $OUT"
}

ARGS_SHOWN=""
[ $QUICK = 1 ] && ARGS_SHOWN+=" -q"
[ "$BENCHES" != dd,startup,insns,throughput,footprint ] && ARGS_SHOWN+=" -b $BENCHES"
[ $QUICK = 0 ] && [ "$ROUNDS" != 7 ] && ARGS_SHOWN+=" -r $ROUNDS"

T0=$SECONDS
for b in ${BENCHES//,/ }; do
	[ $REPORT_ONLY = 1 ] && break
	case $b in
	dd|startup|insns|throughput|footprint)
		rm -f "$RAW/$b.tsv"
		bench_$b ;;
	*) echo "run.sh: unknown benchmark $b" >&2; exit 2 ;;
	esac
done
write_report
log "done in $((SECONDS - T0)) s"
