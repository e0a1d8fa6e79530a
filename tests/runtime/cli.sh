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
