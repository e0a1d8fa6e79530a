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
	cli_expect cli_mode_bench "^ERROR: --mode bench runs the program's bench: probes, a probe type sonde does not support yet$" \
		"$SONDE" --bench -e "$p"
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
}
