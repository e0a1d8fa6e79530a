#!/bin/bash
# Object layer: clang-built BPF objects run through object mode (obj_run)
# by sonde --object, on the real kernel. Needs root, clang and
# bpftool; without them every test is skipped with the reason.
. "$TOP/tests/lib.sh"
cd "$TOP" || exit 1
D=$BUILD/tests/object
SRC=tests/object
mkdir -p "$D"
TESTS="build tracepoint set json hist_keyed hist_slots ringbuf perfbuf raw_tp tp_btf uprobe perf_event kprobe_fentry prog_select broken bad_section not_an_object usdt stop_on_pid hist_json sigint write_error"

skip_all() { for t in $TESTS; do echo "skip object.$t: $1"; done; layer_done; }
[ "$(id -u)" = 0 ] || skip_all "needs root"
command -v clang >/dev/null || skip_all "no clang"
command -v bpftool >/dev/null || skip_all "no bpftool"
[ -r /sys/kernel/btf/vmlinux ] || skip_all "no /sys/kernel/btf/vmlinux"

ok() { echo "ok object.$1"; }
nok() { echo "not ok object.$1: $2"; [ -n "${3:-}" ] && sed 's/^/    /' "$3" | head -30; }
skip() { echo "skip object.$1: $2"; }

# ---- build: vmlinux.h, objects, workload, driver ----
log=$D/build.log
: >"$log"
build() {
	[ -s "$D/vmlinux.h" ] || bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$D/vmlinux.h" || return 1
	cc -O1 -g -o "$D/objwl" "$SRC/workload.c" || return 1
	local arch
	arch=$(uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
	for f in "$SRC"/*.bpf.c; do
		# <asm/...> (usdt.bpf.h wants it) lives under the multiarch dir.
		clang -target bpf -g -O2 -D__TARGET_ARCH_$arch -I"$D" -I"$SRC" \
			-I/usr/include/"$(cc -dumpmachine)" \
			-DWL_PATH="\"$D/objwl\"" -c "$f" -o "$D/$(basename "${f%.c}").o" || {
			[ "$(basename "$f")" = broken.bpf.c ] || return 1; }
	done
}
if build >>"$log" 2>&1; then ok build; else nok build "see $log" "$log"; layer_done; fi

WL=$D/objwl
run() { # run NAME ARGS... -> $D/NAME.out, $D/NAME.err, rc in $rc
	local n=$1; shift
	# the last argument is the object: sonde [options] --object FILE
	timeout 30 "$SONDE" "${@:1:$#-1}" --object "${@: -1}" >"$D/$n.out" 2>"$D/$n.err"; rc=$?
}
# Checks that every line of expected text (stdin) appears in the output.
has() { grep -qxF -- "$2" "$D/$1.out"; }

# ---- tracepoint: counts per pid ----
run tracepoint -c "$WL writes" "$D/count_write.bpf.o"
pid_lines=$(grep -c '^@counts\[[0-9]*\]: [0-9]*$' "$D/tracepoint.out")
if [ $rc = 0 ] && grep -qx 'Attached 1 probe' "$D/tracepoint.err" && [ "$pid_lines" -ge 1 ]; then
	ok tracepoint
else nok tracepoint "rc=$rc, want @counts[PID]: N lines" "$D/tracepoint.out"; cat "$D/tracepoint.err"; fi

# ---- --set: a char[16] and a u64 const volatile ----
run set --set target_comm=objwl --set min_count=8 -c "$WL writes" "$D/count_write.bpf.o"
# writes of 8 (x4), 100 (x5) and 4096 (x2) bytes pass: 11, all from one pid
if [ $rc = 0 ] && [ "$(grep -c '^@counts\[' "$D/set.out")" = 1 ] && grep -q '^@counts\[[0-9]*\]: 11$' "$D/set.out"; then
	ok set
else nok set "rc=$rc, want one @counts[PID]: 11" "$D/set.out"; cat "$D/set.err"; fi
run set_bad --set nosuch=1 "$D/count_write.bpf.o"
if [ $rc != 0 ] && grep -q "no global variable 'nosuch'" "$D/set_bad.err"; then ok set_unknown
else nok set_unknown "want an error for an unknown variable" "$D/set_bad.err"; fi

# ---- JSON ----
run json -f json --set target_comm=objwl --set min_count=100 -c "$WL writes" "$D/count_write.bpf.o"
if [ $rc = 0 ] && grep -q '^{"type": "map", "data": {"@counts": {"[0-9]*": 7}}}$' "$D/json.out"; then ok json
else nok json "want {\"type\": \"map\", \"data\": {\"@counts\": {\"PID\": 7}}}" "$D/json.out"; fi

# ---- histograms: the exact text bpftrace prints (0.26's form) for
#   tracepoint:syscalls:sys_enter_write /pid == $PID/ { @ = hist(args->count); }
# on "objwl writes" (sonde's language version must print it too).
cat >"$D/hist.expected" <<'EOT'


@:
[0]                    1 |@@@@@@@@@@                                          |
[1]                    1 |@@@@@@@@@@                                          |
[2, 4)                 5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[4, 8)                 0 |                                                    |
[8, 16)                4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           |
[16, 32)               0 |                                                    |
[32, 64)               0 |                                                    |
[64, 128)              5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[128, 256)             0 |                                                    |
[256, 512)             0 |                                                    |
[512, 1K)              0 |                                                    |
[1K, 2K)               0 |                                                    |
[2K, 4K)               0 |                                                    |
[4K, 8K)               2 |@@@@@@@@@@@@@@@@@@@@                                |

EOT
# The object's map has a name; bpftrace's is "@".
for t in hist_keyed:hist_write:hist hist_slots:hist_slots:sizes; do
	IFS=: read -r name obj map <<<"$t"
	run "$name" -c "$WL writes" "$D/$obj.bpf.o"
	sed "s/^@$map:\$/@:/" "$D/$name.out" >"$D/$name.cmp"
	if [ $rc = 0 ] && diff -u "$D/hist.expected" "$D/$name.cmp" >"$D/$name.diff"; then ok "$name"
	else nok "$name" "differs from bpftrace's output (rc=$rc)" "$D/$name.diff"; cat "$D/$name.err"; fi
done
# ... and sonde's language version of the same program prints the same.
timeout 30 "$SONDE" -c "$WL writes" -e 'tracepoint:syscalls:sys_enter_write /pid == cpid/ { @ = hist(args->count); }' >"$D/hist_lang.out" 2>"$D/hist_lang.err"; rc=$?
if [ $rc = 0 ] && diff -u "$D/hist.expected" "$D/hist_lang.out" >"$D/hist_lang.diff"; then ok hist_language_matches_object
else nok hist_language_matches_object "sonde -e differs (rc=$rc)" "$D/hist_lang.diff"; cat "$D/hist_lang.err"; fi

# ---- ring buffer and perf buffer records, printed by BTF ----
rec='^{ .pid = [0-9]*, .count = 100, .comm = objwl, .inner = { .fd = 7, .neg = -3 } }$'
run ringbuf -c "$WL writes" "$D/ringbuf.bpf.o"
if [ $rc = 0 ] && [ "$(grep -c "$rec" "$D/ringbuf.out")" = 5 ]; then ok ringbuf
else nok ringbuf "want 5 records like { .pid = N, .count = 100, ... }" "$D/ringbuf.out"; cat "$D/ringbuf.err"; fi
run perfbuf --set use_perf=1 -c "$WL writes" "$D/ringbuf.bpf.o"
if [ $rc = 0 ] && [ "$(grep -c "$rec" "$D/perfbuf.out")" = 5 ]; then ok perfbuf
else nok perfbuf "want 5 records like { .pid = N, .count = 100, ... }" "$D/perfbuf.out"; cat "$D/perfbuf.err"; fi

# ---- raw_tp and tp_btf (write is syscall 1 on x86_64) ----
nr_write=$(printf '#include <sys/syscall.h>\nSYS_write\n' | cc -E -P - | tail -1)
run rawtp --prog on_raw -c "$WL writes" "$D/raw_tp.bpf.o"
if [ $rc = 0 ] && has rawtp "@raw_counts[$nr_write]: 18"; then ok raw_tp
else nok raw_tp "want @raw_counts[$nr_write]: 18" "$D/rawtp.out"; cat "$D/rawtp.err"; fi
run tpbtf --prog on_btf -c "$WL writes" "$D/raw_tp.bpf.o"
if [ $rc = 0 ] && has tpbtf "@btf_counts[$nr_write]: 18"; then ok tp_btf
elif grep -q "not available on this kernel" "$D/tpbtf.err"; then skip tp_btf "$(cat "$D/tpbtf.err")"
else nok tp_btf "want @btf_counts[$nr_write]: 18" "$D/tpbtf.out"; cat "$D/tpbtf.err"; fi

# ---- uprobe / uretprobe ----
run uprobe -c "$WL calls" "$D/uprobe.bpf.o"
if [ $rc = 0 ] && grep -qx 'Attached 2 probes' "$D/uprobe.err" && has uprobe "@calls[1]: 1" && has uprobe "@calls[3]: 3" && has uprobe "@rets[4]: 2" && has uprobe "@rets[6]: 3"; then ok uprobe
else nok uprobe "want @calls[n]: n and @rets[2n]: n" "$D/uprobe.out"; cat "$D/uprobe.err"; fi

# ---- perf_event at a frequency ----
run perf --perf-event cpu-clock:999 -c "$WL spin 300" "$D/perf_event.bpf.o"
n=$(sed -n 's/^@samples: \([0-9]*\)$/\1/p' "$D/perf.out")
if [ $rc = 0 ] && [ "${n:-0}" -ge 20 ]; then ok perf_event
else nok perf_event "want @samples: >= 20 (got '${n:-}')" "$D/perf.out"; cat "$D/perf.err"; fi
run perf_bad --perf-event nosuch:9 "$D/perf_event.bpf.o"
if [ $rc != 0 ] && grep -q "unknown perf event 'nosuch'" "$D/perf_bad.err"; then ok perf_event_unknown
else nok perf_event_unknown "want an error" "$D/perf_bad.err"; fi

# ---- kprobe and fentry: a clear one-line error where refused ----
for p in on_kprobe:kprobes on_fentry:fentry; do
	IFS=: read -r prog what <<<"$p"
	run "$prog" --prog "$prog" -c "true" "$D/kprobe.bpf.o"
	if [ $rc = 0 ]; then ok "$prog"
	elif [ "$(wc -l <"$D/$prog.err")" = 1 ] && grep -q "$what.* not available on this kernel (.*); use .* instead$" "$D/$prog.err"; then ok "${prog}_refused"
	else nok "$prog" "want success or one clear error" "$D/$prog.err"; fi
done

# ---- --prog with a name the object lacks ----
run prog_bad --prog nosuch "$D/raw_tp.bpf.o"
if [ $rc != 0 ] && grep -q "no program named 'nosuch' in .* (it has: on_raw, on_btf)" "$D/prog_bad.err"; then ok prog_select
else nok prog_select "want the list of programs" "$D/prog_bad.err"; fi

# ---- a broken object: the program's name and the verifier's message ----
if [ -f "$D/broken.bpf.o" ]; then
	run broken "$D/broken.bpf.o"
	if [ $rc != 0 ] && grep -q "^sonde: program 'broken' (SEC(\"tp/syscalls/sys_enter_write\")) failed to load" "$D/broken.err" &&
		grep -q "invalid mem access" "$D/broken.err"; then ok broken
	else nok broken "want the program name and the verifier's message" "$D/broken.err"; fi
else nok broken "clang did not build broken.bpf.o" "$log"; fi

# ---- an unknown section name is named (libbpf alone: "Invalid argument") ----
run badsec "$D/badsec.bpf.o"
if [ $rc != 0 ] && grep -q "^sonde: program 'badsec': unknown section name SEC(\"foo/bar\")" "$D/badsec.err"; then ok bad_section
else nok bad_section "want the program and its section named" "$D/badsec.err"; fi

# ---- not an object: libbpf's words, not "Unknown error 4001" ----
printf 'not an ELF file\n' >"$D/garbage.o"
run garbage "$D/garbage.o"
if [ $rc != 0 ] && grep -q "^sonde: cannot open BPF object .*garbage.o: BPF object format invalid$" "$D/garbage.err"; then ok not_an_object
else nok not_an_object "want libbpf's error string" "$D/garbage.err"; fi

# ---- usdt (the workload carries a hand-made .note.stapsdt) ----
run usdt -c "$WL usdt" "$D/usdt.bpf.o"
if [ $rc = 0 ] && has usdt "@ticks[1]: 1" && has usdt "@ticks[2]: 2" && has usdt "@ticks[3]: 3" && ! grep -q '__bpf' "$D/usdt.out"; then ok usdt
else nok usdt "want @ticks[n]: n" "$D/usdt.out"; cat "$D/usdt.err"; fi

# ---- -p PID: stops when that process exits ----
"$WL" spin 700 & wpid=$!
run pid -p $wpid --perf-event cpu-clock:999 "$D/perf_event.bpf.o"
wait $wpid
n=$(sed -n 's/^@samples: \([0-9]*\)$/\1/p' "$D/pid.out")
if [ $rc = 0 ] && [ "${n:-0}" -ge 20 ]; then ok stop_on_pid
else nok stop_on_pid "want @samples: >= 20 after the pid exits (rc=$rc)" "$D/pid.out"; fi

# ---- SIGINT stops the run and still prints the maps ----
"$SONDE" --set target_comm=objwl --object "$D/count_write.bpf.o" >"$D/sigint.out" 2>"$D/sigint.err" & rpid=$!
sleep 1; "$WL" writes; sleep 0.3; kill -INT $rpid; wait $rpid; rc=$?
if [ $rc = 0 ] && grep -q '^@counts\[[0-9]*\]: 18$' "$D/sigint.out"; then ok sigint
else nok sigint "want rc 0 and @counts[PID]: 18 (rc=$rc)" "$D/sigint.out"; fi

# ---- a histogram in JSON ----
run hist_json -f json -c "$WL writes" "$D/hist_write.bpf.o"
if [ $rc = 0 ] && grep -q '^{"type": "hist", "data": {"@hist": \[' "$D/hist_json.out" && grep -q '{"min": 4096, "max": 8191, "count": 2}' "$D/hist_json.out"; then ok hist_json
else nok hist_json "want a JSON hist with {\"min\": 4096, \"max\": 8191, \"count\": 2}" "$D/hist_json.out"; fi

# ---- -o /dev/full: the failed write is said once, exit 1 ----
run write_error -o /dev/full -c "$WL writes" "$D/count_write.bpf.o"
if [ $rc = 1 ] && [ "$(grep -c '^sonde: cannot write to /dev/full: No space left on device$' "$D/write_error.err")" = 1 ]; then
	ok write_error
else nok write_error "want rc 1 and one 'cannot write to /dev/full' (rc=$rc)" "$D/write_error.err"; fi
layer_done
