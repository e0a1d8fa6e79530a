# shellcheck shell=bash
# Shared by tests/runtime/layer.sh and tests/runtime/bless.sh (sourced).
#
# A test is tests/runtime/NAME.test, a list of fields. A field is either
#   KEY: value                (one line)
# or a block
#   KEY<<EOF
#   lines...
#   EOF
# Lines starting with '#' outside blocks are comments (each test says there
# whether its expected output was compared with bpftrace 0.17, and why not).
#
#   PROG           the script (one line: passed with -e; block: as a file)
#   ARGS           options put before the program (shell-quoted words),
#                  e.g. -f json, -q, -o @TMP@/out, --unsafe
#   PARAMS         positional parameters put after the program ($1, $2, ...)
#   CMD            the workload, passed with -c (one string)
#   ENV            environment of the tracer: shell-quoted NAME=VALUE words
#                  (e.g. BPFTRACE_STRLEN=8)
#   STATUS         expected exit status (default 0)
#   TIMEOUT        seconds (default 10)
#   REQUIRES       words, all needed, else the test is skipped:
#                    tp:CAT:NAME  the tracepoint exists
#                    btf          /sys/kernel/btf/vmlinux exists
#                    cpus:N       at least N online CPUs
#                    cmd:NAME     NAME is on $PATH
#                    uwl          the uprobe workload built (@UWL@)
#                    nokprobes    the kernel has no kprobe PMU
#   EXPECT         block: stdout must be exactly these lines (byte for byte,
#                  each line ends with \n)
#   EXPECT_REGEX   block: stdout must have as many lines, line i matching
#                  the extended regex of line i as a whole
#   EXPECT_COUNT   block of lines "N REGEX": exactly N lines of stdout match
#                  the extended regex REGEX (for long or unordered outputs)
#   EXPECT_STDERR  block: each line is an extended regex that some line of
#                  stderr must match (stderr may hold more)
#   NOT_STDERR     an extended regex that no line of stderr may match
#   EXPECT_OUTFILE block: @TMP@/out must be exactly these lines (for -o)
#   BG             a command started in the background before the run; its
#                  pid is @BGPID@ (it is killed after the run)
#   NOREF          why bpftrace cannot be the reference (bless.sh skips it)
#
# In PROG, ARGS, PARAMS and CMD: @WL@ is the workload binary (wl.c),
# @UWL@ and @UWLNP@ the uprobe/USDT workload (uwl.c) as a PIE and not,
# @SWL@ the deep-call-chain one with frame pointers (stackwl.c),
# @TMP@ a scratch directory of the test, emptied before the run, @BGPID@ the
# pid of the BG command, @WLSYM:NAME@ the address (0x...) of symbol NAME in
# the workload binary (from nm).

# parse_test FILE: sets T_<KEY> for each field (blocks end with a newline)
# and T_KEYS (the keys present).
parse_test() {
	local line key block=
	T_KEYS=" "
	for key in PROG ARGS PARAMS CMD ENV NOT_STDERR STATUS TIMEOUT REQUIRES EXPECT EXPECT_REGEX \
		EXPECT_COUNT EXPECT_STDERR EXPECT_OUTFILE BG NOREF; do
		printf -v "T_$key" '%s' ""
	done
	T_PROG_BLOCK=0
	while IFS= read -r line || [ -n "$line" ]; do
		if [ -n "$block" ]; then
			if [ "$line" = EOF ]; then
				block=
			else
				eval "T_$block+=\"\$line\"\$'\\n'"
			fi
			continue
		fi
		case "$line" in
		'#'* | '') continue ;;
		*'<<EOF')
			block=${line%<<EOF}
			T_KEYS+="$block "
			printf -v "T_$block" '%s' ""
			[ "$block" = PROG ] && T_PROG_BLOCK=1
			;;
		*:*)
			key=${line%%:*}
			T_KEYS+="$key "
			line=${line#*:}
			line=${line# }
			printf -v "T_$key" '%s' "$line"
			;;
		*) echo "bad line: $line" >&2; return 1 ;;
		esac
	done <"$1"
	[ -z "$block" ] || { echo "unterminated block $block" >&2; return 1; }
	case "$T_KEYS" in *" PROG "*) ;; *) echo "no PROG" >&2; return 1 ;; esac
	return 0
}

has_key() { case "$T_KEYS" in *" $1 "*) return 0 ;; esac; return 1; }

# subst TEXT: TEXT with @WL@ and @TMP@ replaced.
subst() {
	local s=$1
	s=${s//@WL@/$WL}
	s=${s//@UWL@/$UWL}
	s=${s//@UWLNP@/$UWLNP}
	s=${s//@SWL@/$SWL}
	s=${s//@TMP@/$TMPD}
	s=${s//@BGPID@/${BGPID:-}}
	local sym addr
	while [[ $s =~ @WLSYM:([A-Za-z0-9_]+)@ ]]; do
		sym=${BASH_REMATCH[1]}
		addr=$(nm "$WL" 2>/dev/null | awk -v s="$sym" '$3 == s { print "0x" $1; exit }')
		s=${s//@WLSYM:$sym@/${addr:-0}}
	done
	printf '%s' "$s"
}

# missing_requirement: prints why a REQUIRES word is not met (or nothing).
missing_requirement() {
	local w
	for w in $T_REQUIRES; do
		case "$w" in
		tp:*)
			local p=${w#tp:}
			[ -d "$TRACEFS/events/${p/://}" ] || { echo "tracepoint ${p} not available"; return; }
			;;
		btf) [ -f /sys/kernel/btf/vmlinux ] || { echo "no kernel BTF"; return; } ;;
		cpus:*) [ "$(nproc)" -ge "${w#cpus:}" ] || { echo "needs ${w#cpus:} CPUs"; return; } ;;
		cmd:*) command -v "${w#cmd:}" >/dev/null || { echo "no ${w#cmd:} command"; return; } ;;
		nokprobes) [ ! -e /sys/bus/event_source/devices/kprobe ] || { echo "this kernel has kprobes (the test is of the error without them)"; return; } ;;
		uwl) [ -x "$UWLNP" ] || { echo "uwl.c did not build (no <sys/sdt.h>?)"; return; } ;;
		*) echo "unknown requirement $w"; return ;;
		esac
	done
}

TRACEFS=/sys/kernel/tracing
[ -d $TRACEFS/events ] || TRACEFS=/sys/kernel/debug/tracing

# build_workload DIR: compiles wl.c into DIR/wl (sets WL), and uwl.c into
# DIR/uwl (PIE) and DIR/uwlnp (-no-pie), setting UWL and UWLNP.
build_workload() {
	mkdir -p "$1"
	UWL=$1/uwl UWLNP=$1/uwlnp
	if [ ! -x "$UWLNP" ] || [ "$RTDIR/uwl.c" -nt "$UWLNP" ]; then
		# tests that need it say REQUIRES: uwl
		${CC:-cc} -O2 -fPIE -pie -o "$UWL" "$RTDIR/uwl.c" &&
			${CC:-cc} -O2 -fno-pie -no-pie -o "$UWLNP" "$RTDIR/uwl.c" ||
			rm -f "$UWL" "$UWLNP"
	fi
	WL=$1/wl
	if [ ! -x "$WL" ] || [ "$RTDIR/wl.c" -nt "$WL" ]; then
		${CC:-cc} -O2 -static -o "$WL" "$RTDIR/wl.c" 2>/dev/null ||
			${CC:-cc} -O2 -o "$WL" "$RTDIR/wl.c" || return 1
	fi
	# stackwl: deep call chains with frame pointers, for the stack tests
	SWL=$1/stackwl
	if [ ! -x "$SWL" ] || [ "$RTDIR/stackwl.c" -nt "$SWL" ]; then
		${CC:-cc} -O1 -fno-inline -fno-optimize-sibling-calls \
			-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
			-o "$SWL" "$RTDIR/stackwl.c" || return 1
	fi
}

# run_one TEST BIN SCRATCH: runs TEST's program with tracer BIN; leaves
# SCRATCH/out, SCRATCH/err and RC. TMPD is SCRATCH/tmp.
run_one() {
	local test=$1 bin=$2 scratch=$3 args=() params=() progargs envs=()
	TMPD=$scratch/tmp
	rm -rf "$TMPD"
	mkdir -p "$TMPD"
	BGPID=
	if has_key BG; then
		# shellcheck disable=SC2046
		$(subst "$T_BG") </dev/null >/dev/null 2>&1 &
		BGPID=$!
	fi
	eval "args=($(subst "$T_ARGS"))"
	eval "params=($(subst "$T_PARAMS"))"
	eval "envs=($(subst "$T_ENV"))"
	if has_key CMD; then
		args+=(-c "$(subst "$T_CMD")")
	fi
	if [ "$T_PROG_BLOCK" = 1 ]; then
		subst "$T_PROG" >"$scratch/prog.bt"
		progargs=("$scratch/prog.bt")
	else
		progargs=(-e "$(subst "$T_PROG")")
	fi
	{ env "${envs[@]}" timeout -k 5 "${T_TIMEOUT:-10}" "$bin" "${args[@]}" "${progargs[@]}" "${params[@]}" \
		</dev/null >"$scratch/out" 2>"$scratch/err"; } 2>/dev/null
	RC=$?
	if [ -n "$BGPID" ]; then
		kill "$BGPID" 2>/dev/null
		wait "$BGPID" 2>/dev/null
	fi
}

# check_output SCRATCH: prints why the run in SCRATCH does not meet the
# test's expectations (first line: the reason; then indented details), or
# nothing.
check_output() {
	local s=$1
	if has_key EXPECT; then
		printf '%s' "$T_EXPECT" >"$s/expect"
		if ! cmp -s "$s/expect" "$s/out"; then
			echo "stdout differs"
			show_diff "$s/expect" "$s/out"
			return
		fi
	fi
	if has_key EXPECT_REGEX; then
		local -a re got
		mapfile -t re <<<"${T_EXPECT_REGEX%$'\n'}"
		mapfile -t got <"$s/out"
		local i
		if [ "${#re[@]}" != "${#got[@]}" ]; then
			echo "stdout has ${#got[@]} lines, expected ${#re[@]}"
			indent "$s/out" 30
			return
		fi
		for ((i = 0; i < ${#re[@]}; i++)); do
			if ! [[ ${got[i]} =~ ^(${re[i]})$ ]]; then
				echo "stdout line $((i + 1)) does not match /${re[i]}/"
				indent "$s/out" 30
				return
			fi
		done
	fi
	if has_key EXPECT_COUNT; then
		local n r c
		while read -r n r; do
			c=$(grep -acE -- "$r" "$s/out")
			if [ "$c" != "$n" ]; then
				echo "$c lines of stdout match /$r/, expected $n"
				indent "$s/out" 10
				return
			fi
		done <<<"${T_EXPECT_COUNT%$'\n'}"
	fi
	if has_key EXPECT_STDERR; then
		local r
		while IFS= read -r r; do
			if ! grep -aqE -- "$r" "$s/err"; then
				echo "stderr has no line matching /$r/"
				indent "$s/err" 10
				return
			fi
		done <<<"${T_EXPECT_STDERR%$'\n'}"
	fi
	if has_key NOT_STDERR && grep -aqE -- "$T_NOT_STDERR" "$s/err"; then
		echo "stderr has a line matching /$T_NOT_STDERR/"
		indent "$s/err" 10
		return
	fi
	if has_key EXPECT_OUTFILE; then
		printf '%s' "$T_EXPECT_OUTFILE" >"$s/expect_outfile"
		if [ ! -f "$TMPD/out" ]; then
			echo "no output file @TMP@/out"
			return
		fi
		if ! cmp -s "$s/expect_outfile" "$TMPD/out"; then
			echo "output file differs"
			show_diff "$s/expect_outfile" "$TMPD/out"
			return
		fi
	fi
}
