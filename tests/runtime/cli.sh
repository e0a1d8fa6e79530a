# shellcheck shell=bash
# Sourced by layer.sh: command-line cases a .test cannot express (it runs
# sonde as root with -e or a script file of its own).

# cli_expect NAME EXPECTED_STDERR_REGEX COMMAND...: the command exits 1 and
# its stderr has a line matching the regex.
cli_expect() {
	local name=$1 re=$2 d=$scratch/cli_$1 rc
	shift 2
	mkdir -p "$d"
	timeout 10 "$@" </dev/null >"$d/out" 2>"$d/err"
	rc=$?
	if [ "$rc" != 1 ]; then
		echo "not ok $name: exit status $rc, expected 1"
		indent "$d/err" 10
	elif ! grep -qE -- "$re" "$d/err"; then
		echo "not ok $name: stderr has no line matching /$re/"
		indent "$d/err" 10
	else
		echo "ok $name"
	fi
}

cli_all() {
	# A directory given as the script: it says so (read() would say EIO).
	mkdir -p "$scratch/cli_dir.bt"
	cli_expect cli_script_is_dir "^ERROR: failed to open file .*/cli_dir\.bt.: Is a directory$" \
		"$SONDE" "$scratch/cli_dir.bt"
	# bpftrace 0.26's command-line errors, with its sentences (its
	# runtime tests basic:"pid fails validation ...").
	local p='BEGIN { exit(); }'
	cli_expect cli_pid_invalid_integer "^ERROR: Failed to parse pid: invalid integer: a1111$" \
		"$SONDE" -p a1111 -e "$p"
	cli_expect cli_pid_long_option "^ERROR: Failed to parse pid: invalid integer: not_a_pid$" \
		"$SONDE" --pid not_a_pid file.bt
	# 4194304 is no pid this machine has handed out yet (pid_max)
	if [ "$(cat /proc/sys/kernel/pid_max)" -lt 4194304 ]; then
		cli_expect cli_pid_no_process "^ERROR: Failed to attach to pid: Unable to open pidfd$" \
			"$SONDE" -p 4194304 -e "$p"
	else
		echo "skip cli_pid_no_process: pid_max allows every pid"
	fi
	cli_expect cli_cmd_and_pid "^ERROR: USAGE: Cannot use both -c and -p\.$" \
		"$SONDE" --cmd true --pid 1 -e "$p"
	cli_expect cli_no_program "^ERROR: USAGE: filename or -e 'program' required\.$" \
		"$SONDE" -q
	cli_expect cli_buffering "^ERROR: USAGE: -B must be either 'line', 'full', or 'none'\.$" \
		"$SONDE" -B half -e "$p"
	cli_expect cli_debug_stage "^ERROR: USAGE: invalid option for -d: bogus$" \
		"$SONDE" -d ast,bogus -e "$p"
	cli_expect cli_mode_bad "^ERROR: USAGE: --mode can only be 'codegen', 'compiler-bench', 'bench', 'test' or 'format'\.$" \
		"$SONDE" --mode fast -e "$p"
	cli_expect cli_mode_conflict "^ERROR: USAGE: --test conflicts with existing --mode$" \
		"$SONDE" --mode codegen --test -e "$p"
	cli_expect cli_mode_compiler_bench "^ERROR: --mode compiler-bench times bpftrace's compiler passes, which sonde does not have" \
		"$SONDE" --mode compiler-bench -e "$p"
	cli_expect cli_no_feature "^ERROR: USAGE: --no-feature can only have values 'kprobe_multi,kprobe_session,uprobe_multi'\.$" \
		"$SONDE" --no-feature uprobe_multi,fast -e "$p"
	cli_expect cli_probe_filter_bad "^ERROR: Invalid --probe-filter regex '\[invalid': " \
		"$SONDE" --probe-filter '[invalid' -e "$p"
	cli_expect cli_traceable_missing "^ERROR: Failed to open kernel function info: /nonexistent/funcs: No such file or directory$" \
		"$SONDE" --traceable-functions /nonexistent/funcs -e "$p"
	cli_expect cli_no_llvm "^ERROR: --emit-llvm: sonde compiles to BPF without LLVM" \
		"$SONDE" --emit-llvm out -e "$p"
	# Not root: one sentence, before any bpf() call fails.
	if [ -n "${VM_RUN:-}" ]; then
		echo "skip cli_not_root: the VM layer reaches its guest as root only"
	elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$SONDE"; then
		cli_expect cli_not_root "^sonde: tracing needs root, or the CAP_BPF and CAP_PERFMON capabilities" \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$SONDE" -e 'BEGIN { exit(); }'
	else
		echo "skip cli_not_root: no setpriv, or user nobody cannot run $SONDE"
	fi
	# These watch a tracer running here: its stdout a full device or a
	# closed pipe, signals at chosen moments, its output as it comes.
	local c
	for c in cli_stop_exact cli_write_errors cli_uprobe_multi_func \
		cli_sigint_while_detaching cli_sighup_ignored; do
		if [ -n "${VM_RUN:-}" ]; then
			echo "skip $c: it watches a tracer running here (live output and signals), not one in the VM layer's guest"
		else
			$c
		fi
	done
}

# cli_result NAME WHY ERR: "ok NAME", or "not ok NAME: WHY" and the first
# lines of stderr file ERR.
cli_result() {
	if [ -n "$2" ]; then
		echo "not ok $1: $2"
		indent "$3" 10
	else
		echo "ok $1"
	fi
}

# wait_file FILE REGEX [TENTHS]: waits (up to TENTHS/10 s, default 20 s)
# for a line of FILE to match.
wait_file() {
	local i
	for ((i = 0; i < ${3:-200}; i++)); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# Every libc function (2,594 here), keyed by `func`: one uprobe_multi link
# (the attach cookie names the function), so Ctrl-C ends the run within
# 5 s. With a link each (as `func` made it before), the exit took 280 s:
# the kernel releases uprobes one after the other, ~0.1 s each.
cli_uprobe_multi_func() {
	local name=cli_uprobe_multi_func d=$scratch/cli_uprobe_multi_func pid t0 t1 why=
	if ! "$SONDE" --info 2>/dev/null | grep -q '^  uprobe_multi: yes'; then
		echo "skip $name: this kernel lacks uprobe_multi (sonde --info)"
		return
	fi
	mkdir -p "$d"
	# (a previous run's files would be seen before the redirections
	# empty them)
	rm -f "$d/out" "$d/err"
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 BPFTRACE_MAX_PROBES=10000 \
		BPFTRACE_MAX_BPF_PROGS=10000 timeout -k 30 60 "$SONDE" \
		-e 'uprobe:libc:* { @[func] = count(); }' -c "sleep 30" \
		</dev/null >"$d/out" 2>"$d/err" &
	pid=$!
	wait_file "$d/out" __BPFTRACE_NOTIFY_PROBES_ATTACHED 400 || why="never attached"
	t0=$(date +%s%N)
	kill -INT $pid 2>/dev/null
	wait $pid
	RC=$?
	t1=$(date +%s%N)
	if [ -z "$why" ] && [ $RC != 0 ]; then
		why="exit status $RC"
	elif [ -z "$why" ] && [ $(((t1 - t0) / 1000000)) -gt 5000 ]; then
		why="it took $(((t1 - t0) / 1000000)) ms to end after Ctrl-C"
	elif [ -z "$why" ] && ! cat "$d/out" "$d/err" | grep -qE '^Attach(ing|ed) [0-9]{4} probes'; then
		why="not thousands of probes"
	elif [ -z "$why" ] && ! grep -qE '^@\[(__)?nanosleep\]: [0-9]+$' "$d/out"; then
		why="no @[nanosleep] (sleep's call) among the maps"
	fi
	cli_result "$name" "$why" "$d/err"
}

# A Ctrl-C while the kernel is still releasing the probes (23 uprobes,
# one link each since the body reads kstack: ~0.1 s apiece, one after
# the other) is told why sonde has not ended, and how many are left.
cli_sigint_while_detaching() {
	local name=cli_sigint_while_detaching d=$scratch/cli_sigint_while_detaching pid spid why=
	mkdir -p "$d"
	rm -f "$d/out" "$d/err"
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 timeout -k 5 60 "$SONDE" -B line \
		-e 'uprobe:libc:strc*,uprobe:libc:mem* { @[kstack] = count(); }' \
		-c "sleep 30" </dev/null >"$d/out" 2>"$d/err" &
	pid=$!
	if ! wait_file "$d/out" __BPFTRACE_NOTIFY_PROBES_ATTACHED 400; then
		why="never attached"
	else
		# to sonde itself: timeout passes on only the first
		spid=$(pgrep -P $pid)
		kill -INT $spid
		# the maps print (flushed) before the probes are released,
		# which takes seconds
		wait_file "$d/out" '^@' || why="no maps printed"
		sleep 0.3
		kill -INT $spid
	fi
	wait $pid
	RC=$?
	if [ -z "$why" ] && [ $RC != 0 ]; then
		why="exit status $RC"
	elif [ -z "$why" ] && ! grep -qE '^sonde: the kernel is still releasing the probes \(uprobe:[^ ]+, \.\.\.\): [0-9]+ of their 23 links and perf events left, sonde ends when they are$' "$d/err"; then
		why="the second Ctrl-C was not told what is still being detached"
	fi
	cli_result "$name" "$why" "$d/err"
}

# SIGHUP stops a run as SIGTERM does (sighup_stops_run.test), but not
# under nohup, which ignores it: the workload sends SIGHUP after 3
# getpid() calls, then sleeps 500 ms and makes 4 more, all counted, and
# the run ends with it.
cli_sighup_ignored() {
	local name=cli_sighup_ignored d=$scratch/cli_sighup_ignored why=
	mkdir -p "$d"
	# (nohup inside timeout: timeout's own SIGHUP handler would undo
	# an ignore set before it)
	timeout -k 5 20 nohup "$SONDE" \
		-e 'tracepoint:syscalls:sys_enter_getpid /pid == cpid/ { @n = count(); }' \
		-c "$WL getpid 3 killparent 1 sleep 500 getpid 4" \
		</dev/null >"$d/out" 2>"$d/err"
	RC=$?
	if [ $RC != 0 ]; then
		why="exit status $RC"
	elif ! grep -qx '@n: 7' "$d/out"; then
		why="not '@n: 7' (the run did not go on to the workload's end): $(tr '\n' ' ' <"$d/out")"
	fi
	cli_result "$name" "$why" "$d/err"
}

# cli_write_case NAME HOW WORDS: sonde's stdout is HOW ("full": /dev/full;
# "pipe": a pipe whose reader has gone, with SIGPIPE ignored, as some
# service managers start programs; "closed": no fd 1, where sonde puts a
# read-only /dev/null before it opens anything: its epoll fd became
# stdout, and the error said "Invalid argument"). The workload would run 30 s; the
# failed write must stop the run at once, be said once on stderr, and
# make sonde exit 1; WORDS are the errno's. (bpftrace 0.17 runs on: `| head -1` never ends.)
cli_write_case() {
	local name=$1 how=$2 d=$scratch/cli_$1 prog n why
	mkdir -p "$d"
	prog='tracepoint:syscalls:sys_enter_getpid /pid == cpid/ { printf("line %d\n", pid); }'
	case $how in
	full)
		timeout -k 5 20 "$SONDE" -e "$prog" -c "$WL getpid 100000 sleep 30000" \
			</dev/null >/dev/full 2>"$d/err"
		echo $? >"$d/rc"
		;;
	closed)
		timeout -k 5 20 "$SONDE" -e "$prog" -c "$WL getpid 100000 sleep 30000" \
			</dev/null >&- 2>"$d/err"
		echo $? >"$d/rc"
		;;
	pipe)
		# the reader exits at once: every write gets EPIPE
		{ trap '' PIPE
		  timeout -k 5 20 "$SONDE" -e "$prog" -c "$WL getpid 100000 sleep 30000" \
			</dev/null 2>"$d/err"
		  echo $? >"$d/rc"; } | true
		;;
	esac
	n=$(grep -c 'cannot write' "$d/err")
	why=
	if [ "$(cat "$d/rc")" != 1 ]; then
		why="exit status $(cat "$d/rc"), expected 1"
	elif ! grep -qE "^sonde: cannot write to stdout: $3\$" "$d/err" || [ "$n" != 1 ]; then
		why="stderr has not exactly one line 'sonde: cannot write to stdout: $3'"
	fi
	cli_result "$name" "$why" "$d/err"
}

cli_write_errors() {
	cli_write_case cli_write_stdout_full full "No space left on device"
	cli_write_case cli_write_stdout_pipe pipe "Broken pipe"
	cli_write_case cli_write_stdout_closed closed "Bad file descriptor"
}

# Exactness at a stop: the -c workload makes exactly N getpid() calls,
# each a printf record, then sends SIGINT to sonde at once, while the ring
# buffer still holds records (a small one overflows: the kernel counts
# those lost). Every record is printed or counted, whatever the moment of
# the signal: printed + the "Lost N events" (on stderr) = N, in each of 20
# runs (before this, the record in hand when the stop was seen was
# neither, once or twice per stop).
cli_stop_exact() {
	local d=$scratch/cli_stop_exact n=50000 run pages printed lost why=
	mkdir -p "$d"
	for run in $(seq 20); do
		case $((run % 4)) in
		0) pages=1 ;; 1) pages=8 ;; 2) pages=64 ;; 3) pages= ;;
		esac
		{ env ${pages:+BPFTRACE_PERF_RB_PAGES=$pages} timeout -k 5 30 "$SONDE" \
			-e 'tracepoint:syscalls:sys_enter_getpid /pid == cpid/ { printf("e %d\n", pid); }' \
			-c "$WL getpid $n killparent 2 sleep 5000" \
			</dev/null >"$d/out" 2>"$d/err"; } 2>/dev/null
		RC=$?
		if [ $RC != 0 ]; then
			why="run $run: exit status $RC"
			break
		fi
		printed=$(grep -c '^e ' "$d/out")
		# (reported as they happen: the lines add up)
		lost=$(awk '/^Lost [0-9]+ events$/ { n += $2 } END { print n + 0 }' "$d/err")
		if [ $((printed + ${lost:-0})) != $n ]; then
			why="run $run (${pages:-default} pages): $printed printed + ${lost:-0} lost != $n"
			break
		fi
	done
	cli_result cli_stop_exact "$why" "$d/err"
}
