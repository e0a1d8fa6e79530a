#!/bin/bash
# Records bpftrace's own messages for the errors corpus: for each
# tests/errors/NAME.bt, bpftrace (0.17 here, /usr/bin/bpftrace) is run on
# it and its stderr is kept in tests/errors/ref017/NAME.txt, a reference
# sonde did not write. refcheck.sh compares the .err files with these
# (and with ref026/) without running bpftrace, so CI needs no bpftrace;
# run this by hand, as root, when the corpus grows:
#   tests/errors/bpftrace_ref.sh [NAME...]
#
# The layer runs `sonde --mode codegen NAME.bt` from inside tests/errors:
# parse, probe expansion, sema and code generation, no load, no attach.
# bpftrace's nearest equivalent is its dry run, `bpftrace -d NAME.bt`
# (same passes through LLVM codegen, then exit); its debug dump goes to
# stdout and is dropped. When the dry run accepts the script (exit 0),
# bpftrace is run for real for RUN_SECS seconds, because 0.17 reports
# some faults (a tracepoint that does not exist, ...) only when it
# attaches; the file then has a second section.
#
# File format: a "# " line names the command and its outcome ("exit N",
# "accepted", "timed out", "crashed: SIGx"), then bpftrace's stderr.
# Normalized, and only this:
#  - this machine's noise that every run prints and that is no answer to
#    the script: the failed read of available_filter_functions (printed
#    with no newline, so it is cut from the front of the next line) and
#    "couldn't set RLIMIT_MEMLOCK" (the container refuses setrlimit);
#  - "Attaching N probes..." (progress, not a message);
#  - lines cut to 2000 bytes and each run's stderr to 40 lines: the
#    hostile and garbage scripts echo lines of up to 1 MB (and one gets
#    100 errors), and only the first error is compared.
set -u
cd "$(dirname "$0")" || exit 1
BPFTRACE=${BPFTRACE:-/usr/bin/bpftrace}
DRY_SECS=${DRY_SECS:-60} RUN_SECS=${RUN_SECS:-5}
# Address space per bpftrace run: LLVM on the hostile scripts could take
# the shared machine's memory otherwise (a refusal then reads "crashed"
# or "exit 1" with bad_alloc, and is recorded as that).
MEM_KB=${MEM_KB:-8388608}
mkdir -p ref017
[ "$(id -u)" = 0 ] || { echo "bpftrace_ref.sh: run as root (bpftrace needs it)" >&2; exit 1; }
version=$("$BPFTRACE" --version 2>/dev/null) || { echo "bpftrace_ref.sh: no $BPFTRACE" >&2; exit 1; }
# The large and binary cases are generated, as the layer does.
./gen.sh || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# normalize < RAW > CLEAN: the normalizations listed above.
normalize() {
	LC_ALL=C sed -E \
		-e 's#^Error while reading traceable functions from [^:]*: Operation not permitted##' \
		-e '/^ERROR: Unknown error -1: couldn.t set RLIMIT_MEMLOCK for bpftrace\./d' \
		-e '/^Attaching [0-9]+ probes?\.\.\.$/d' |
		LC_ALL=C cut -b 1-2000 | head -n 40
}

# outcome RC SECS WHAT: the outcome of an exit status from timeout(1);
# WHAT says what a time-out means (a dry run that hangs; a real run that
# is still tracing, i.e. accepted).
outcome() {
	case $1 in
	0) echo "exit 0 (accepted)" ;;
	124 | 137) echo "$3 after $2 s" ;;
	# timeout(1) says 128+N for a child killed by signal N; bpftrace
	# itself exits 255 on some errors
	*) if [ "$1" -gt 128 ] && [ "$1" -lt 160 ]; then
		echo "crashed: SIG$(kill -l $(($1 - 128)) 2>/dev/null || echo $(($1 - 128))) (exit $1)"
	else
		echo "exit $1"
	fi ;;
	esac
}

if [ $# -gt 0 ]; then
	names=("$@")
else
	names=()
	for bt in *.bt; do names+=("${bt%.bt}"); done
fi
for name in "${names[@]}"; do
	bt=$name.bt ref=ref017/$name.txt
	[ -f "$bt" ] || { echo "bpftrace_ref.sh: no $bt" >&2; continue; }
	(ulimit -v "$MEM_KB"; exec timeout -k 5 "$DRY_SECS" "$BPFTRACE" -d "$bt") </dev/null >/dev/null 2>"$tmp/err"
	rc=$?
	{
		echo "# $version -d $bt (dry run): $(outcome $rc "$DRY_SECS" "timed out")"
		normalize <"$tmp/err"
		if [ $rc = 0 ]; then
			# The real run's stdout is dropped too: the scripts
			# here are about errors, not output.
			(ulimit -v "$MEM_KB"; exec timeout -k 5 "$RUN_SECS" "$BPFTRACE" "$bt") </dev/null >/dev/null 2>"$tmp/err"
			rc=$?
			echo "# $version $bt (run for up to $RUN_SECS s): $(outcome $rc "$RUN_SECS" "still running (accepted)")"
			normalize <"$tmp/err"
		fi
	} >"$ref"
	echo "$name: $(grep -a '^# ' "$ref" | sed 's/.*: //' | paste -sd ';')"
done
