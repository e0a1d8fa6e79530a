#!/bin/bash
# pprof layer (root + BPF; go tool pprof from Debian's golang-go reads
# every profile, with -symbolize=none so that the names are sonde's;
# curl and libmicrohttpd for the endpoint). Workloads: stackwl
# (tests/runtime/stackwl.c: main -> level1 -> level2 -> level3 -> spin,
# getppid() once a round) and pprofwl (tests/pprof/pprofwl.c: an inlined
# hot loop; two phases, alpha then beta).
#   pprof-top          the issue's command: @[ustack, kstack] = count() at
#                      199 Hz; -top names spin first, the profile's sample
#                      total is the map's total in sonde's text output, the
#                      sample types are samples/count and cpu/nanoseconds
#                      with a period of 1e9/199 ns, and the main binary
#                      (stackwl, with its build id) is the first mapping
#   pprof-traces-labels @[kstack, ustack, comm, pid]: -traces keeps the
#                      order spin, level3, level2, level1, main; -tags has
#                      comm stackwl on the map's samples of stackwl (one
#                      may catch the child in its execve, still sonde)
#                      and pid the child's pid for every sample; kernel
#                      frames, when a sample has them, are in
#                      [kernel.kallsyms]
#   pprof-inline       DWARF: hot() shows as inlined in outer(), with
#                      pprofwl.c lines
#   pprof-sum          @bytes[ustack] = sum(args->count) of dd's writes:
#                      the type is bytes/bytes and the total is the bytes
#                      written (50 x 1000)
#   pprof-two-maps     a profile map and a tracepoint map in one profile:
#                      one column each (the profile one with its cpu
#                      time), no period, the getppid column's total is
#                      the number of getppid calls (stackwl's rounds), and
#                      their kernel frames are in [kernel.kallsyms]
#   pprof-build-id     @[ustack(build_id)]: frames are offsets in a mapping
#                      named by the file's build id (what a symbolising
#                      server needs), and they name stackwl's functions
#   pprof-no-frames    @[kstack] of a process spinning in user space: the
#                      samples whose stack has no frame are one [unknown]
#                      frame, so the profile's total is the map's (pprof's
#                      tools drop a sample of no location)
#   pprof-false-frame  @[ustack] of falseframe.c's call through a fake
#                      frame: its one trace is ff_target, ff_caller, then
#                      [truncated] at the root, not the data address
#   pprof-endpoint     --metrics' /debug/pprof/profile?seconds=1, scraped
#                      with curl after alpha is over: 200, octet-stream,
#                      a profile of beta with no alpha in it although the
#                      map holds alpha; go tool pprof fetching it itself;
#                      three scrapes at once; a client hanging up; of nine
#                      at once, one refused (503); bad seconds (400);
#                      a window still open when the run ends is sent then
#   pprof-bad-input    --pprof with no stack map is refused before
#                      anything is attached; an unwritable file is an
#                      error; the endpoint of a script without stack maps
#                      answers 404 with the reason
#   pprof-tool         tools/profile --pprof writes a profile go tool
#                      pprof reads, labelled with the process's comm
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"
RTDIR=$TOP/tests/runtime
# shellcheck source=tests/runtime/common.sh
. "$RTDIR/common.sh"

if [ "$(id -u)" != 0 ]; then
	echo "skip pprof: not root (the tests load BPF programs)"
	layer_done
fi
if ! command -v go >/dev/null || ! go tool pprof -h >/dev/null 2>&1; then
	echo "skip pprof: no go tool pprof (apt-get install golang-go)"
	layer_done
fi
scratch=$BUILD/tests/pprof
rm -rf "$scratch"
mkdir -p "$scratch/home"
# go tool pprof keeps fetched profiles under $HOME/pprof
export HOME=$scratch/home
build_workload "$BUILD/tests/runtime" || { echo "not ok pprof-workload: cannot compile the runtime workloads"; layer_done; }
PWL=$scratch/pprofwl
${CC:-cc} -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-o "$PWL" "$TOP/tests/pprof/pprofwl.c" 2>"$scratch/cc.err" ||
	{ echo "not ok pprof-workload: cannot compile pprofwl.c"; indent "$scratch/cc.err"; layer_done; }

pp() { go tool pprof -symbolize=none "$@" 2>&1; }

# samples_total FILE COLUMN: the sum of a sample column in -raw output
samples_total() {
	pp -raw "$1" | awk -v c="$2" '
		/^Samples:/ { s = 1; getline; next }
		/^Locations/ { s = 0 }
		s && /:/ { t += $c }
		END { printf "%.0f\n", t }'
}

# map_total OUT: the sum of the counts of the maps sonde printed
map_total() {
	grep -aoE '\]: [0-9]+$' "$1" | awk '{ s += $2 } END { print s + 0 }'
}

report() { # NAME WHY FILES...
	local name=$1 why=$2
	shift 2
	if [ -n "$why" ]; then
		echo "not ok $name: $why"
		for f in "$@"; do [ -s "$f" ] && indent "$f" 20; done
	else
		echo "ok $name"
	fi
}

# ---- pprof-top: the issue's command ----
p=$scratch/top.pb.gz out=$scratch/top.out err=$scratch/top.err
run_sonde "$out" "$err" --pprof "$p" -c "$SWL 20000" \
	-e 'profile:hz:199 /pid == cpid/ { @[ustack, kstack] = count(); }'
why=$(status_problem 0 "$err")
if [ -z "$why" ]; then
	pp -top "$p" >"$scratch/top.txt"
	pp -raw "$p" >"$scratch/top.raw"
	mt=$(map_total "$out")
	pt=$(samples_total "$p" 1)
	first=$(awk '/flat%/ { getline; print $NF; exit }' "$scratch/top.txt")
	bid=$(readelf -n "$SWL" | awk '/Build ID/ { print $3 }')
	if [ "$mt" -lt 20 ]; then
		why="only $mt samples"
	elif [ "$first" != spin ]; then
		why="-top's first function is '$first', not spin"
	elif [ "$pt" != "$mt" ]; then
		why="the profile's total is $pt, the map's $mt"
	elif ! grep -qx 'samples/count cpu/nanoseconds' "$scratch/top.raw"; then
		why="sample types are not samples/count cpu/nanoseconds"
	elif ! grep -qx 'Period: 5025125' "$scratch/top.raw" ||
		! grep -qx 'PeriodType: cpu nanoseconds' "$scratch/top.raw"; then
		why="no period of 1e9/199 cpu nanoseconds"
	elif ! grep -qE "^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $SWL $bid \[FN\]" "$scratch/top.raw"; then
		why="the first mapping is not $SWL with build id $bid"
	elif [ "$(samples_total "$p" 2)" != $((mt * 5025125)) ]; then
		why="cpu nanoseconds are not samples x period"
	fi
fi
report pprof-top "$why" "$err" "$scratch/top.txt" "$scratch/top.raw"

# ---- pprof-traces-labels ----
p=$scratch/tl.pb.gz out=$scratch/tl.out err=$scratch/tl.err
run_sonde "$out" "$err" --pprof "$p" -c "$SWL 20000" \
	-e 'profile:hz:199 /pid == cpid/ { @[kstack, ustack, comm, pid] = count(); }'
why=$(status_problem 0 "$err")
if [ -z "$why" ]; then
	cpid=$(grep -aoE ', stackwl, [0-9]+\]: [0-9]+$' "$out" | head -1 | sed -E 's/, stackwl, ([0-9]+)\].*/\1/')
	mt=$(map_total "$out")
	# A sample may catch the -c child in its execve, still named sonde
	# (its pid is cpid all along): the comm label must match the map's
	# own split, the samples of stackwl's keys.
	st=$(grep -aoE ', stackwl, [0-9]+\]: [0-9]+$' "$out" | awk '{ s += $NF } END { print s + 0 }')
	pp -traces "$p" >"$scratch/tl.traces"
	pp -tags -sample_index=samples "$p" >"$scratch/tl.tags"
	pp -raw "$p" >"$scratch/tl.raw"
	# the frames of each trace on one line, separated by spaces
	chains=$(awk '/^-+\+/ { if (t) print t; t = ""; next } NF { t = t " " $NF } END { if (t) print t }' "$scratch/tl.traces")
	if [ -z "$cpid" ]; then
		why="no pid in sonde's map output"
	elif ! grep -qE ' spin level3 level2 level1 main( |$)' <<<"$chains"; then
		why="no trace spin, level3, level2, level1, main in that order"
	elif [ "$st" -lt $((mt * 9 / 10)) ]; then
		why="only $st of the map's $mt samples are stackwl's"
	elif ! grep -qE "^ +$st(\.0)? \( *[0-9.]+%\): stackwl$" "$scratch/tl.tags"; then
		why="the comm label is not stackwl on the map's $st samples of stackwl"
	elif ! grep -qE "^ +$mt(\.0)? \( *100(\.0)?%\): $cpid$" "$scratch/tl.tags"; then
		why="the pid label is not $cpid on all $mt samples"
	elif grep -qE '^ +[0-9]+: 0xffffffff[0-9a-f]+ ' "$scratch/tl.raw" &&
		! grep -qE '^[0-9]+: 0xffffffff[0-9a-f]+/0xffffffff[0-9a-f]+/0x0 \[kernel\.kallsyms\]' "$scratch/tl.raw"; then
		# (a spinning program is sampled in the kernel only now and
		# then: pprof-two-maps has kernel frames at every getppid)
		why="kernel frames, but no [kernel.kallsyms] mapping"
	fi
fi
report pprof-traces-labels "$why" "$err" "$scratch/tl.traces" "$scratch/tl.tags"

# ---- pprof-inline ----
p=$scratch/inl.pb.gz out=$scratch/inl.out err=$scratch/inl.err
run_sonde "$out" "$err" -q --pprof "$p" -c "$PWL inline 3000" \
	-e 'profile:hz:199 /pid == cpid/ { @[ustack] = count(); }'
why=$(status_problem 0 "$err")
if [ -z "$why" ]; then
	pp -traces "$p" >"$scratch/inl.traces"
	pp -lines -top "$p" >"$scratch/inl.lines"
	if ! grep -A2 -E '^ +[0-9.]+m?s +hot \(inline\)$' "$scratch/inl.traces" | tr -s ' \n' ' ' |
		grep -qE 'hot \(inline\) outer main'; then
		why="no trace hot (inline), outer, main"
	elif ! grep -qE ' hot .*pprofwl\.c:[0-9]+' "$scratch/inl.lines"; then
		why="no pprofwl.c line of hot in -lines"
	fi
fi
report pprof-inline "$why" "$err" "$scratch/inl.traces" "$scratch/inl.lines"

# ---- pprof-sum ----
p=$scratch/sum.pb.gz out=$scratch/sum.out err=$scratch/sum.err
run_sonde "$out" "$err" -q --pprof "$p" -c 'dd if=/dev/zero of=/dev/null bs=1000 count=50 status=none' \
	-e 'tracepoint:syscalls:sys_enter_write /pid == cpid/ { @bytes[ustack] = sum(args->count); }'
why=$(status_problem 0 "$err")
if [ -z "$why" ]; then
	pp -raw "$p" >"$scratch/sum.raw"
	if [ "$(map_total "$out")" != 50000 ]; then
		why="the map's total is $(map_total "$out"), not 50000"
	elif ! grep -qx 'bytes/bytes' "$scratch/sum.raw"; then
		why="the sample type is not bytes/bytes"
	elif [ "$(samples_total "$p" 1)" != 50000 ]; then
		why="the profile's total is $(samples_total "$p" 1), not 50000"
	fi
fi
report pprof-sum "$why" "$err" "$scratch/sum.raw"

# ---- pprof-two-maps ----
p=$scratch/two.pb.gz out=$scratch/two.out err=$scratch/two.err
run_sonde "$out" "$err" -q --pprof "$p" -c "$SWL 3000" \
	-e 'profile:hz:99 /pid == cpid/ { @oncpu[ustack] = count(); }
	    tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @getppid[kstack, ustack] = count(); }'
why=$(status_problem 0 "$err")
if [ -z "$why" ]; then
	pp -raw "$p" >"$scratch/two.raw"
	if ! grep -qx 'oncpu/count oncpu_cpu/nanoseconds getppid/count' "$scratch/two.raw"; then
		why="sample types are not oncpu/count oncpu_cpu/nanoseconds getppid/count"
	elif grep -qE '^PeriodType: +[a-z]' "$scratch/two.raw"; then
		why="a period, though one map is not sampled by time"
	elif [ "$(samples_total "$p" 3)" != 3000 ]; then
		why="the getppid column's total is $(samples_total "$p" 3), not 3000"
	elif ! grep -qE '^[0-9]+: 0xffffffff[0-9a-f]+/0xffffffff[0-9a-f]+/0x0 \[kernel\.kallsyms\]' "$scratch/two.raw"; then
		why="the getppid column's kernel stacks have no [kernel.kallsyms] mapping"
	elif ! pp -sample_index=getppid -top "$p" | grep -qE '^ +[0-9]+ +[0-9.]+% +[0-9.]+% +3000 +100% +level3$'; then
		# (libc's getppid has no frame: the frame walk skips spin)
		why="the getppid column does not put all 3000 calls under level3"
	fi
fi
report pprof-two-maps "$why" "$err" "$scratch/two.raw"

# ---- pprof-build-id: ustack(build_id) frames keep no address ----
p=$scratch/bid.pb.gz out=$scratch/bid.out err=$scratch/bid.err
run_sonde "$out" "$err" -q --pprof "$p" -c "$SWL 20000" \
	-e 'profile:hz:199 /pid == cpid/ { @[ustack(build_id)] = count(); }'
why=$(status_problem 0 "$err")
if [ -z "$why" ]; then
	pp -raw "$p" >"$scratch/bid.raw"
	bid=$(readelf -n "$SWL" | awk '/Build ID/ { print $3 }')
	# the mapping of stackwl's build id; its locations' addresses are
	# file offsets, which addr2line names
	m=$(awk -v b="$bid" '/^Mappings/ { s = 1 } s && $3 == b { print $1 }' "$scratch/bid.raw" | tr -d :)
	offs=$(awk -v m="M=$m" '/^Locations/ { s = 1; next } /^Mappings/ { s = 0 } s && $3 == m { print $2 }' "$scratch/bid.raw")
	names=$(printf '%s\n' $offs | xargs -r addr2line -f -e "$SWL" | awk 'NR % 2' | sort -u | tr '\n' ' ')
	if [ -z "$m" ]; then
		why="no mapping with stackwl's build id $bid"
	elif [ "$(samples_total "$p" 1)" != "$(map_total "$out")" ]; then
		why="the profile's total ($(samples_total "$p" 1)) is not the map's ($(map_total "$out"))"
	elif ! grep -qw spin <<<"$names" || ! grep -qw main <<<"$names"; then
		why="the offsets of stackwl's mapping do not name spin and main: $names"
	fi
fi
report pprof-build-id "$why" "$err" "$scratch/bid.raw" "$out"

# ---- pprof-no-frames: a stack of no frame is still a sample ----
p=$scratch/nof.pb.gz out=$scratch/nof.out err=$scratch/nof.err
run_sonde "$out" "$err" -q --pprof "$p" -c "$SWL 1000" \
	-e 'profile:hz:199 /pid == cpid/ { @[kstack] = count(); }'
why=$(status_problem 0 "$err")
if [ -z "$why" ]; then
	pp -top "$p" >"$scratch/nof.top"
	if ! grep -qaE '^@\[$' "$out" || ! grep -qaE '^\]: [0-9]+$' "$out"; then
		why="no sample without kernel frames (the spinner ran in the kernel?)"
	elif [ "$(samples_total "$p" 1)" != "$(map_total "$out")" ]; then
		why="the profile's total ($(samples_total "$p" 1)) is not the map's ($(map_total "$out"))"
	elif ! grep -qE ' \[unknown\]$' "$scratch/nof.top"; then
		why="the samples of no frame are not [unknown]"
	fi
fi
report pprof-no-frames "$why" "$err" "$out" "$scratch/nof.top"

# ---- pprof-false-frame ----
# (tests/runtime/falseframe.c: ff_caller calls ff_target with its frame
# pointer at a fake frame whose return address is a data word)
p=$scratch/ff.pb.gz out=$scratch/ff.out err=$scratch/ff.err
if [ "$(uname -m)" != x86_64 ]; then
	echo "skip pprof-false-frame: falseframe.c is x86_64 assembly"
elif ! ${CC:-cc} -O2 -rdynamic -o "$scratch/ff" "$TOP/tests/runtime/falseframe.c" 2>"$scratch/ff.cc"; then
	echo "not ok pprof-false-frame: cannot compile falseframe.c"
	indent "$scratch/ff.cc"
else
	run_sonde "$out" "$err" -q --pprof "$p" -c "$scratch/ff 4" \
		-e "uprobe:$scratch/ff:ff_target { @[ustack] = count(); }"
	why=$(status_problem 0 "$err")
	if [ -z "$why" ]; then
		pp -traces "$p" >"$scratch/ff.traces"
		# the traces after the header, one line each
		chains=$(awk '/^-+\+/ { on = 1; if (t) print t; t = ""; next } on && NF { t = t " " $NF } END { if (t) print t }' "$scratch/ff.traces")
		if [ "$(samples_total "$p" 1)" != 4 ]; then
			why="the profile has $(samples_total "$p" 1) samples, not 4"
		elif [ "$chains" != " ff_target ff_caller [truncated]" ]; then
			why="the traces are '$chains', not one of ff_target ff_caller [truncated]"
		fi
	fi
	report pprof-false-frame "$why" "$err" "$out" "$scratch/ff.traces"
fi

# ---- pprof-endpoint ----
# (start_sonde and stop_sonde: tests/lib.sh)
profile_url() { echo "${URL%/metrics}/debug/pprof/profile?seconds=$1"; }

why=
if ! "$SONDE" -h | grep -q -- '--metrics' || ! command -v curl >/dev/null; then
	echo "skip pprof-endpoint: no --metrics in this sonde, or no curl"
else
	out=$scratch/ep.out err=$scratch/ep.err marker=$scratch/ep.marker
	rm -f "$marker"
	if ! start_sonde "$out" "$err" -q --metrics 127.0.0.1:0 -c "$PWL phases 1.5 30 $marker" \
		-e 'profile:hz:199 /pid == cpid/ { @[ustack, comm] = count(); }'; then
		why="sonde did not start serving"
	else
		for _ in $(seq 100); do [ -e "$marker" ] && break; sleep 0.1; done
		sleep 0.2
		curl -s -m 10 -D "$scratch/ep.headers" -o "$scratch/ep.pb.gz" "$(profile_url 1)"
		pp -top "$scratch/ep.pb.gz" >"$scratch/ep.top"
		# go tool pprof as its own client: it asks for ?seconds=1
		go tool pprof -symbolize=none -seconds 1 -top "${URL%/metrics}/debug/pprof/profile" >"$scratch/ep.go" 2>&1
		# three at once
		cpids=()
		for i in 1 2 3; do
			curl -s -m 10 -o "$scratch/ep$i.pb.gz" -w '%{http_code}\n' "$(profile_url 1)" >"$scratch/ep$i.code" &
			cpids+=($!)
		done
		# a client that hangs up, then bad seconds
		curl -s -m 1 -o /dev/null "$(profile_url 3)"
		: >"$scratch/ep.bad"
		for s in 0 -1 abc 3601 '' 99999999999999999999; do
			curl -s -m 5 -w ' %{http_code}\n' "${URL%/metrics}/debug/pprof/profile?seconds=$s" >>"$scratch/ep.bad"
		done
		wait "${cpids[@]}"
		# nine at once: eight are taken, one is refused (which one
		# depends on the order they arrive in)
		cpids=()
		for i in $(seq 9); do
			curl -s -m 15 -o /dev/null -w '%{http_code}\n' "$(profile_url 5)" >"$scratch/ep9-$i.code" &
			cpids+=($!)
		done
		wait "${cpids[@]}"
	fi
	if [ -z "$why" ]; then
		if ! grep -qi '^HTTP/1.1 200' "$scratch/ep.headers"; then
			why="the scrape's status is not 200"
		elif ! grep -qi '^content-type: application/octet-stream' "$scratch/ep.headers"; then
			why="the scrape's content type is not application/octet-stream"
		elif ! grep -qE ' beta$' "$scratch/ep.top"; then
			why="no beta in the profile of the window"
		elif grep -qE ' alpha$' "$scratch/ep.top"; then
			why="alpha, which ran before the window, is in its profile"
		elif ! grep -qE 'Duration: (1|0\.9[0-9]*|1\.[0-4][0-9]*)s' "$scratch/ep.top"; then
			why="the window's duration is not about 1 s"
		elif ! grep -qE ' beta$' "$scratch/ep.go"; then
			why="go tool pprof fetching the profile itself saw no beta"
		fi
		for i in 1 2 3; do
			[ -n "$why" ] && break
			[ "$(cat "$scratch/ep$i.code")" = 200 ] && pp -top "$scratch/ep$i.pb.gz" | grep -qE ' beta$' ||
				why="concurrent scrape $i: status $(cat "$scratch/ep$i.code"), or no beta"
		done
		if [ -z "$why" ]; then
			n400=$(grep -c '^ 400$' "$scratch/ep.bad")
			nwhy=$(grep -c '^sonde: seconds must be a whole number from 1 to 3600' "$scratch/ep.bad")
			[ "$n400" = 6 ] && [ "$nwhy" = 6 ] || why="$n400 of 6 bad seconds answered 400, $nwhy with the reason"
		fi
		if [ -z "$why" ]; then
			n200=$(cat "$scratch"/ep9-*.code | grep -c '^200$')
			n503=$(cat "$scratch"/ep9-*.code | grep -c '^503$')
			if [ "$n200" != 8 ] || [ "$n503" != 1 ]; then
				why="nine at once: $n200 answered 200 and $n503 503, expected 8 and 1"
			fi
		fi
	fi
	stop_sonde
	# a window open when the run ends: sent then, with its true duration
	if [ -z "$why" ]; then
		out=$scratch/ep-end.out err=$scratch/ep-end.err marker=$scratch/ep-end.marker
		if ! start_sonde "$out" "$err" -q --metrics 127.0.0.1:0 -c "$PWL phases 0 2 $marker" \
			-e 'profile:hz:199 /pid == cpid/ { @[ustack] = count(); }'; then
			why="sonde did not start serving (second run)"
		else
			code=$(curl -s -m 20 -o "$scratch/ep-end.pb.gz" -w '%{http_code}' "$(profile_url 30)")
			wait "$SPID"
			rc=$?
			pp -top "$scratch/ep-end.pb.gz" >"$scratch/ep-end.top"
			if [ "$code" != 200 ] || [ "$rc" != 0 ]; then
				why="a window open at exit: status $code, sonde's exit status $rc"
			elif ! grep -qE ' beta$' "$scratch/ep-end.top" ||
				! grep -qE 'Duration: [0-9.]+m?s' "$scratch/ep-end.top" ||
				grep -qE 'Duration: (2[0-9]|3[0-9])\.' "$scratch/ep-end.top"; then
				why="a window open at exit: no beta, or not the run's duration"
			fi
		fi
	fi
	report pprof-endpoint "$why" "$scratch/ep.err" "$scratch/ep.headers" "$scratch/ep.top" "$scratch/ep.go" "$scratch/ep.bad" "$scratch/ep-end.top"
fi

# ---- pprof-bad-input ----
why=
run_sonde "$scratch/bad1.out" "$scratch/bad1.err" --pprof "$scratch/none.pb.gz" \
	-e 'tracepoint:syscalls:sys_enter_getppid { @c[comm] = count(); } BEGIN { exit(); }'
if [ "$RC" != 1 ] || ! grep -qx 'sonde: --pprof: no map keyed by kstack or ustack with count() or sum() values to write a profile of' "$scratch/bad1.err"; then
	why="--pprof without a stack map: exit status $RC, or not the expected message"
elif grep -q 'Attach' "$scratch/bad1.out" "$scratch/bad1.err"; then
	why="--pprof without a stack map: probes were attached"
fi
if [ -z "$why" ]; then
	run_sonde "$scratch/bad2.out" "$scratch/bad2.err" --pprof /nonexistent/dir/p.pb.gz \
		-e 'profile:hz:99 { @[kstack] = count(); } interval:ms:100 { exit(); }'
	if [ "$RC" != 1 ] || ! grep -q '^sonde: cannot write /nonexistent/dir/p.pb.gz: No such file or directory$' "$scratch/bad2.err"; then
		why="an unwritable --pprof file: exit status $RC, or not the expected message"
	fi
fi
if [ -z "$why" ] && "$SONDE" -h | grep -q -- '--metrics' && command -v curl >/dev/null; then
	if ! start_sonde "$scratch/bad3.out" "$scratch/bad3.err" -q --metrics 127.0.0.1:0 \
		-e 'tracepoint:syscalls:sys_enter_getppid { @c[comm] = count(); }'; then
		why="sonde did not start serving"
	else
		body=$(curl -s -m 5 -w ' %{http_code}' "$(profile_url 1)")
		stop_sonde
		[ "$body" = "sonde: the script has no map keyed by kstack or ustack with count() or sum() values to profile
 404" ] || why="the endpoint without stack maps answered: $body"
	fi
fi
report pprof-bad-input "$why" "$scratch/bad1.err" "$scratch/bad2.err"

# ---- pprof-tool ----
p=$scratch/tool.pb.gz
"$PWL" phases 0 10 "$scratch/tool.marker" &
bg=$!
SONDE_TIMEOUT=20 SONDE="$SONDE" timeout -k 5 20 "$TOP/tools/profile" -F 99 -p "$bg" --pprof "$p" 2 \
	>"$scratch/tool.out" 2>"$scratch/tool.err"
RC=$?
kill "$bg" 2>/dev/null
wait "$bg" 2>/dev/null
why=$(status_problem 0 "$scratch/tool.err")
if [ -z "$why" ]; then
	pp -tags -sample_index=samples "$p" >"$scratch/tool.tags"
	mt=$(map_total "$scratch/tool.out")
	# (a loaded machine gives the spinning workload a fraction of a CPU)
	if [ "$mt" -lt 5 ]; then
		why="only $mt samples"
	elif ! grep -qE "^ +$mt(\.0)? \( *100(\.0)?%\): pprofwl$" "$scratch/tool.tags"; then
		why="the comm label is not pprofwl on all $mt samples"
	elif [ "$(samples_total "$p" 1)" != "$mt" ]; then
		why="the profile's total is $(samples_total "$p" 1), the map's $mt"
	fi
fi
report pprof-tool "$why" "$scratch/tool.err" "$scratch/tool.tags"
layer_done
