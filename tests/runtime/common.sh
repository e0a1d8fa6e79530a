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
# Where bpftrace 0.26 prints the same thing differently (docs/sonde.8,
# DIFFERENCES), the expected output is in 0.26's form.
#
#   PROG           the script (one line: passed with -e; block: as a file;
#                  "file:PATH": the script file PATH, e.g. a Debian tool;
#                  @TMP@ and SETUP's @KEY@ work in PATH)
#   TOOL           instead of PROG: a file of tools/ (e.g. biolatency.bt),
#                  run as the program; a tool that is not *.bt (a wrapper
#                  such as tools/profile) is run itself, with PARAMS as its
#                  words and $SONDE naming the tracer
#   SETUP          block: bash run before the tracer (cwd: @TMP@; like
#                  CLEANUP and CHECK it runs where the harness runs: what
#                  must happen where the tracer runs, its /proc, /sys or
#                  processes, goes through ${VM_RUN:-}); each line
#                  KEY=VALUE it prints makes @KEY@ stand for VALUE in the
#                  fields below; exit status 77 skips the test (its last
#                  line of output saying why), any other failure fails it
#   CLEANUP        block: bash run after the tracer, whatever happened (the
#                  @KEY@ of SETUP work in it)
#   ARGS           options put before the program (shell-quoted words),
#                  e.g. -f json, -q, -o @TMP@/out, --unsafe
#   ENV            environment settings for the tracer (shell-quoted
#                  words VAR=VALUE)
#   PARAMS         positional parameters put after the program ($1, $2, ...)
#   CMD            the workload, passed with -c (one string)
#   STATUS         expected exit status (default 0)
#   TIMEOUT        seconds (default 10)
#   REQUIRES       words, all needed, else the test is skipped:
#                    tp:CAT:NAME  the tracepoint exists
#                    btf          /sys/kernel/btf/vmlinux exists
#                    cpus:N       at least N online CPUs
#                    cmd:NAME     NAME is on $PATH
#                    uwl          the uprobe workload built (@UWL@)
#                    dwl          the DWARF/USDT workload built (@DWL@)
#                    bpattach     hardware breakpoints can be opened
#                    breakpoints  ... and they fire (some VMs attach them
#                                 but never deliver a hit): checked by a
#                                 canary, tests/runtime/bpcanary.c
#                    twl          the types workload built (@TWL@)
#                    file:PATH    the file PATH exists
#                    nokprobes    the kernel has no kprobe PMU
#                    feat:NAME    sonde --info says "NAME: yes"
#                    nofeat:NAME  sonde --info says "NAME: no" (a fallback)
#                    kfunc:NAME   the kernel's BTF names kernel function NAME
#                    ksym:NAME    /proc/kallsyms has the symbol NAME
#                    noksym:NAME  ... has not
#                    btfname:NAME the kernel's BTF has the name NAME (a
#                                 variable, an iterator's bpf_iter_NAME)
#                    modbtf:MOD   kernel module MOD is loaded, with its BTF
#                    arch:MACHINE the target's uname -m is MACHINE (a test
#                                 program in that architecture's assembly)
#                    tpfield:CAT:NAME:FIELD  the tracepoint has the field
#                    ucaller      user stacks at a function's entry hold
#                                 its caller (canary tests/runtime/ucanary.c;
#                                 Linux 6.11 and some stable kernels)
#                    writeuser    bpf_probe_write_user writes to a new
#                                 process's argv strings (before Linux 6.0
#                                 not always: canary tests/runtime/wucanary.c)
#                    rtnames:NAME raw tracepoint NAME's arguments have
#                                 names in the kernel's BTF (its stub
#                                 __probestub_NAME or __bpf_trace_NAME is
#                                 there: not in Debian 11's 5.10)
#                    tty          a terminal made here (script(1)) reaches
#                                 the tracer (not so in the VM layer)
#                    nobreakpoints  they can be opened but never fire
#                    hostonly     not in the VM layer (the test says
#                                 why: SETUP's processes run where the
#                                 harness runs, or timing an emulated
#                                 guest cannot keep)
#                    int80        the kernel runs 32-bit syscalls (int
#                                 $0x80; IA32 emulation, which some
#                                 kernels leave out or turn off: wl's
#                                 int80 dies of SIGSEGV there)
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
#   CHECK          block: bash run after CLEANUP with $OUT naming the stdout
#                  file and $ERR the stderr file (cwd: @TMP@); it must exit
#                  0, else what it prints is
#                  the reason (for sums over a histogram and the like)
#   BG             a command started in the background before the run; its
#                  pid is @BGPID@ (it is killed after the run)
#   NOREF          why bpftrace cannot be the reference (bless.sh skips it)
#   SERIAL         "yes": never run beside other tests (RUNTIME_JOBS)
#
# In PROG, ARGS, PARAMS, CMD, BG, SETUP, CLEANUP, CHECK, EXPECT_REGEX and
# EXPECT_COUNT: @WL@ is the workload binary (wl.c),
# @UWL@ and @UWLNP@ the uprobe/USDT workload (uwl.c) as a PIE and not,
# @SWL@ the deep-call-chain one with frame pointers (stackwl.c),
# @DWL@ the DWARF/USDT workload (dwl.c, -g -O0, `dwl N` runs N rounds, 0:
# forever), @DWLIB@ its library (dwlib.c), @DWLDL@ it with its debug info
# in a separate file found through .gnu_debuglink,
# @TWL@ the one with arrays, nested structs, bitfields and pointer chains
# whose functions get pointers to known data (twl.c),
# @TMP@ a scratch directory of the test, emptied before the run, @BGPID@ the
# pid of the BG command, @WLSYM:NAME@ the address (0x...) of symbol NAME in
# the workload binary (from nm).

# parse_test FILE: sets T_<KEY> for each field (blocks end with a newline)
# and T_KEYS (the keys present).
parse_test() {
	local line key block=
	T_KEYS=" "
	for key in PROG TOOL SETUP CLEANUP CHECK ARGS ENV NOT_STDERR PARAMS CMD STATUS \
		TIMEOUT REQUIRES EXPECT EXPECT_REGEX EXPECT_COUNT EXPECT_STDERR EXPECT_OUTFILE BG \
		NOREF SERIAL; do
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
	case "$T_KEYS" in *" PROG "* | *" TOOL "*) ;; *) echo "no PROG or TOOL" >&2; return 1 ;; esac
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
	s=${s//@DWLIB@/${DWLIB:-}}
	s=${s//@DWLDL@/${DWLDL:-}}
	s=${s//@DWL@/${DWL:-}}
	s=${s//@TWL@/$TWL}
	s=${s//@TMP@/$TMPD}
	s=${s//@BGPID@/${BGPID:-}}
	local k
	for k in "${!SETUP_VARS[@]}"; do
		s=${s//@$k@/${SETUP_VARS[$k]}}
	done
	local sym addr
	while [[ $s =~ @WLSYM:([A-Za-z0-9_]+)@ ]]; do
		sym=${BASH_REMATCH[1]}
		addr=$(${NM:-nm} "$WL" 2>/dev/null | awk -v s="$sym" '$3 == s { print "0x" $1; exit }')
		s=${s//@WLSYM:$sym@/${addr:-0}}
	done
	printf '%s' "$s"
}

# test_timeout: the test's TIMEOUT (default 10 s), times TIMEOUT_SCALE
# where everything runs slower (the VM layer's emulated guests).
test_timeout() {
	echo $(( ${T_TIMEOUT:-10} * ${TIMEOUT_SCALE:-1} ))
}

# on_target CMD...: runs CMD where the tracer runs: here, or in the VM
# layer's guest ($VM_RUN, tests/vm/vmrun), whose kernel, /sys and /proc
# are not this machine's.
on_target() {
	if [ -n "${VM_RUN:-}" ]; then
		"$VM_RUN" "$@"
	else
		"$@"
	fi
}

# missing_requirement: prints why a REQUIRES word is not met (or nothing).
missing_requirement() {
	local w
	for w in $T_REQUIRES; do
		case "$w" in
		tp:*)
			local p=${w#tp:}
			on_target test -d "$TRACEFS/events/${p/://}" || { echo "tracepoint ${p} not available"; return; }
			;;
		btf) on_target test -f /sys/kernel/btf/vmlinux || { echo "no kernel BTF"; return; } ;;
		kfunc:*) on_target grep -qa "${w#kfunc:}" /sys/kernel/btf/vmlinux || { echo "no kernel function ${w#kfunc:} (Linux 6.6)"; return; } ;;
		arch:*) [ "$(on_target uname -m)" = "${w#arch:}" ] || { echo "a test of ${w#arch:} code (this is $(on_target uname -m))"; return; } ;;
		modbtf:*) on_target test -e "/sys/kernel/btf/${w#modbtf:}" || { echo "no BTF of kernel module ${w#modbtf:} (not loaded, or built in)"; return; } ;;
		ksym:*) on_target grep -qE " ${w#ksym:}([[:space:]]|\$)" /proc/kallsyms || { echo "the kernel has no symbol ${w#ksym:}"; return; } ;;
		noksym:*) ! on_target grep -qE " ${w#noksym:}([[:space:]]|\$)" /proc/kallsyms || { echo "the kernel has ${w#noksym:}"; return; } ;;
		btfname:*) on_target grep -qa "${w#btfname:}" /sys/kernel/btf/vmlinux || { echo "the kernel's BTF has no ${w#btfname:}"; return; } ;;
		tpfield:*)
			local cat name field
			IFS=: read -r cat name field <<<"${w#tpfield:}"
			on_target grep -qE "field:[^;]*[ *]$field(\[[0-9]*\])?;" "$TRACEFS/events/$cat/$name/format" ||
				{ echo "tracepoint $cat:$name has no field $field"; return; }
			;;
		rtnames:*) on_target grep -qaE "__(probestub|bpf_trace)_${w#rtnames:}\b" /sys/kernel/btf/vmlinux || { echo "the kernel's BTF names no argument of raw tracepoint ${w#rtnames:} (no __probestub_${w#rtnames:} or __bpf_trace_${w#rtnames:})"; return; } ;;
		ucaller)
			# built once per build directory; a temporary name, then a
			# rename, for checks that run at once (RUNTIME_JOBS)
			local uc=$BUILD/tests/runtime/ucanary r
			[ "$uc" -nt "$RTDIR/ucanary.c" ] || { ${CC:-cc} -O2 -o "$uc.$BASHPID" "$RTDIR/ucanary.c" && mv -f "$uc.$BASHPID" "$uc"; }
			r=$(on_target "$uc" 2>&1)
			[ "$r" = caller ] || { echo "this kernel's user stacks at a function's entry miss its caller (Linux 6.11 adds it: canary ucanary.c: $r)"; return; }
			;;
		writeuser)
			local wu=$BUILD/tests/runtime/wucanary r
			[ "$wu" -nt "$RTDIR/wucanary.c" ] || { ${CC:-cc} -O2 -o "$wu.$BASHPID" "$RTDIR/wucanary.c" && mv -f "$wu.$BASHPID" "$wu"; }
			# the last line: a load failure prints the verifier's log first
			r=$(on_target "$wu" 2>&1 | tail -n 1)
			[ "$r" = writes ] || { echo "bpf_probe_write_user cannot write to a new process's argv strings here (before Linux 6.0 their page stays write-protected after exec's mprotect: canary wucanary.c: $r)"; return; }
			;;
		cpus:*) [ "$(on_target nproc)" -ge "${w#cpus:}" ] || { echo "needs ${w#cpus:} CPUs"; return; } ;;
		cmd:*) command -v "${w#cmd:}" >/dev/null || { echo "no ${w#cmd:} command"; return; } ;;
		nokprobes) on_target test ! -e /sys/bus/event_source/devices/kprobe || { echo "this kernel has kprobes (the test is of the error without them)"; return; } ;;
		twl) [ -x "$TWL" ] || { echo "twl.c did not build"; return; } ;;
		feat:*) sonde_info | grep -q "^  ${w#feat:}: yes" || { echo "this kernel lacks ${w#feat:} (sonde --info)"; return; } ;;
		tty) [ -z "${VM_RUN:-}" ] || { echo "the VM layer's guest gets no terminal from here"; return; } ;;
		nofeat:*) sonde_info | grep -q "^  ${w#nofeat:}: no" || { echo "this kernel has ${w#nofeat:} (the test is of the path without it)"; return; } ;;
		file:*) on_target test -f "${w#file:}" || { echo "no ${w#file:}"; return; } ;;
		uwl) [ -x "$UWLNP" ] || { echo "uwl.c did not build (no <sys/sdt.h>?)"; return; } ;;
		dwl) [ -x "${DWLDL:-}" ] || { echo "dwl.c did not build (no <sys/sdt.h>, objcopy?)"; return; } ;;
		bpattach | breakpoints)
			local bp
			bp=$(breakpoint_state)
			case "$w:$bp" in
			*:fires | bpattach:attaches) ;;
			breakpoints:attaches) echo "hardware breakpoints attach but never fire here (canary bpcanary.c)"; return ;;
			*) echo "hardware breakpoints cannot be opened here (canary: ${bp#none: })"; return ;;
			esac
			;;
		hostonly) [ -z "${VM_RUN:-}" ] || { echo "the host's only (its SETUP's processes or its timing; the test says why)"; return; } ;;
		int80) on_target "$WL" int80 1 >/dev/null 2>&1 || { echo "this kernel runs no 32-bit syscalls (int \$0x80: IA32 emulation is off or left out)"; return; } ;;
		nobreakpoints)
			[ "$(breakpoint_state)" = attaches ] || { echo "hardware breakpoints fire here, or cannot be opened (the test is of the error when they never fire)"; return; } ;;
		*) echo "unknown requirement $w"; return ;;
		esac
	done
}

# sonde_info: `$SONDE --info`, run once per layer run (it loads probe
# programs to see what the kernel has; the requirement checks run in
# subshells, so the cache is a file named after the layer's shell).
sonde_info() {
	local f=${TMPDIR:-/tmp}/sonde-info.$$
	[ -s "$f" ] || "$SONDE" --info >"$f" 2>/dev/null
	cat "$f"
}

TRACEFS=/sys/kernel/tracing
[ -d $TRACEFS/events ] || TRACEFS=/sys/kernel/debug/tracing

# breakpoint_state: what the canary (bpcanary.c, built by build_workload)
# says of hardware breakpoints here: "fires", "attaches" or "none: why";
# run once, then cached.
breakpoint_state() {
	if [ -z "${BP_STATE:-}" ]; then
		BP_STATE=$(on_target "${BPCANARY:-/nonexistent}" 2>/dev/null)
		[ -n "$BP_STATE" ] || BP_STATE="none: the canary did not build"
	fi
	printf '%s\n' "$BP_STATE"
}

# build_workload DIR: compiles wl.c into DIR/wl (sets WL), and uwl.c into
# DIR/uwl (PIE) and DIR/uwlnp (-no-pie), setting UWL and UWLNP. CC,
# OBJCOPY and NM name the tools (the arm64 layer's cross compiler).
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
	# dwl: -g -O0 with structs and two USDT providers, linked to
	# libdwlib.so (its own function and provider); dwl_dl is the same
	# with its debug info moved to dwl_dl.debug (.gnu_debuglink)
	DWL=$1/dwl DWLIB=$1/libdwlib.so DWLDL=$1/dwl_dl
	if [ ! -x "$DWLDL" ] || [ "$RTDIR/dwl.c" -nt "$DWLDL" ] ||
		[ "$RTDIR/dwlib.c" -nt "$DWLDL" ]; then
		${CC:-cc} -g -O0 -fPIC -shared -o "$DWLIB" "$RTDIR/dwlib.c" &&
			${CC:-cc} -g -O0 -o "$DWL" "$RTDIR/dwl.c" -L"$1" -ldwlib \
				-Wl,-rpath,"$1" &&
			${OBJCOPY:-objcopy} --only-keep-debug "$DWL" "$DWLDL.debug" &&
			${OBJCOPY:-objcopy} --strip-debug --add-gnu-debuglink="$DWLDL.debug" \
				"$DWL" "$DWLDL" ||
			rm -f "$DWL" "$DWLIB" "$DWLDL"
	fi
	BPCANARY=$1/bpcanary
	if [ ! -x "$BPCANARY" ] || [ "$RTDIR/bpcanary.c" -nt "$BPCANARY" ]; then
		${CC:-cc} -O2 -o "$BPCANARY" "$RTDIR/bpcanary.c" || rm -f "$BPCANARY"
	fi
	# twl: arrays, nested structs, bitfields and pointer chains
	TWL=$1/twl
	if [ ! -x "$TWL" ] || [ "$RTDIR/twl.c" -nt "$TWL" ]; then
		${CC:-cc} -O1 -o "$TWL" "$RTDIR/twl.c" || return 1
	fi
	# stackwl: deep call chains with frame pointers, for the stack tests
	SWL=$1/stackwl
	if [ ! -x "$SWL" ] || [ "$RTDIR/stackwl.c" -nt "$SWL" ]; then
		${CC:-cc} -O1 -fno-inline -fno-optimize-sibling-calls \
			-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
			-o "$SWL" "$RTDIR/stackwl.c" || return 1
	fi
}

declare -A SETUP_VARS=()

# run_setup SCRATCH: runs the test's SETUP (if any) in SCRATCH/tmp, which
# it empties first, and records its KEY=VALUE lines in SETUP_VARS. Sets
# SETUP_WHY to "skip: why" or "fail: why" and returns 1 when the setup did
# not work (not in a subshell: SETUP_VARS must survive).
run_setup() {
	local scratch=$1 line rc
	TMPD=$scratch/tmp
	rm -rf "$TMPD"
	mkdir -p "$TMPD"
	SETUP_VARS=() SETUP_WHY=
	has_key SETUP || return 0
	(cd "$TMPD" && bash -c "$(subst "$T_SETUP")") >"$scratch/setup.out" 2>"$scratch/setup.err"
	rc=$?
	if [ $rc = 77 ]; then
		SETUP_WHY="skip: $(tail -n1 "$scratch/setup.out")"
		return 1
	elif [ $rc != 0 ]; then
		SETUP_WHY="fail: SETUP exited with status $rc: $(tail -n1 "$scratch/setup.err")"
		run_cleanup "$scratch"
		return 1
	fi
	while IFS= read -r line; do
		[[ $line =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] &&
			SETUP_VARS[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done <"$scratch/setup.out"
	return 0
}

# run_cleanup SCRATCH: runs the test's CLEANUP (if any). The @KEY@ of
# SETUP still hold after it, for check_output.
run_cleanup() {
	has_key CLEANUP || return 0
	(cd "$1/tmp" && bash -c "$(subst "$T_CLEANUP")") >/dev/null 2>&1
}

# run_one TEST BIN SCRATCH: runs TEST's program with tracer BIN; leaves
# SCRATCH/out, SCRATCH/err and RC. TMPD is SCRATCH/tmp (run_setup made it).
run_one() {
	local test=$1 bin=$2 scratch=$3 args=() params=() envs=() progargs
	TMPD=$scratch/tmp
	mkdir -p "$TMPD"
	BGPID= BGKILL=
	if has_key BG; then
		if [ -n "${VM_RUN:-}" ]; then
			# @BGPID@ is the process in the guest; the host's vmrun
			# is what is killed
			rm -f "$scratch/bg.pid"
			# shellcheck disable=SC2046
			VMRUN_PIDFILE=$scratch/bg.pid "$VM_RUN" $(subst "$T_BG") </dev/null >/dev/null 2>&1 &
			BGKILL=$!
			local n=0
			while [ ! -s "$scratch/bg.pid" ] && [ $n -lt 600 ]; do
				sleep 0.05
				n=$((n + 1))
			done
			BGPID=$(cat "$scratch/bg.pid" 2>/dev/null)
		else
			# shellcheck disable=SC2046
			$(subst "$T_BG") </dev/null >/dev/null 2>&1 &
			BGPID=$! BGKILL=$!
		fi
	fi
	eval "args=($(subst "$T_ARGS"))"
	eval "params=($(subst "$T_PARAMS"))"
	eval "envs=($(subst "$T_ENV"))"
	if has_key CMD; then
		args+=(-c "$(subst "$T_CMD")")
	fi
	if has_key TOOL; then
		if [[ $T_TOOL == *.bt ]]; then
			progargs=("$TOP/tools/$T_TOOL")
		else
			# a wrapper: it builds the sonde command line itself
			bin=$TOP/tools/$T_TOOL args=() progargs=()
		fi
	elif [ "$T_PROG_BLOCK" = 1 ]; then
		subst "$T_PROG" >"$scratch/prog.bt"
		progargs=("$scratch/prog.bt")
	elif [[ $T_PROG == file:* ]]; then
		progargs=("$(subst "${T_PROG#file:}")")
	else
		progargs=(-e "$(subst "$T_PROG")")
	fi
	{ env "${envs[@]}" timeout -k $((5 * ${TIMEOUT_SCALE:-1})) "$(test_timeout)" "$bin" "${args[@]}" "${progargs[@]}" "${params[@]}" \
		</dev/null >"$scratch/out" 2>"$scratch/err"; } 2>/dev/null
	RC=$?
	if [ -n "$BGKILL" ]; then
		kill "$BGKILL" 2>/dev/null
		wait "$BGKILL" 2>/dev/null
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
			# what the tracer said may tell why (a -c command
			# that did not run, a signal)
			if [ -s "$s/err" ]; then
				echo "  stderr (exit status ${RC:-?}):"
				indent "$s/err" 10
			fi
			return
		fi
	fi
	if has_key EXPECT_REGEX; then
		local -a re got
		mapfile -t re < <(subst "${T_EXPECT_REGEX%$'\n'}"; echo)
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
		done < <(subst "${T_EXPECT_COUNT%$'\n'}"; echo)
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
	if has_key CHECK; then
		local why
		if ! why=$(cd "$TMPD" && OUT=$s/out ERR=$s/err bash -c "$(subst "$T_CHECK")" 2>&1); then
			echo "CHECK failed: ${why:-(it printed nothing)}"
			indent "$s/out" 30
			return
		fi
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

# pick_tests NAMES: sets the array tests to NAME.test for each of NAMES,
# or, with none, to every *.test of the current directory. A NAME with a
# slash is a test of another directory of the tree, e.g. tests/arm64/NAME
# (the arm64 layer's own tests): $TOP/NAME.test.
pick_tests() {
	tests=()
	if [ -n "$1" ]; then
		for n in $1; do
			case $n in
			*/*) tests+=("$TOP/$n.test") ;;
			*) tests+=("$n.test") ;;
			esac
		done
	else
		tests=(*.test)
	fi
}

# run_test_file FILE NAME SCRATCH: runs the test in FILE under $SONDE (its
# files kept in SCRATCH) and prints "ok NAME", "not ok NAME: why" (with
# details) or "skip NAME: why".
run_test_file() {
	local t=$1 name=$2 d=$3 why
	if ! why=$(parse_test "$t" 2>&1); then
		echo "not ok $name: bad test file: $why"
		return
	fi
	parse_test "$t"
	why=$(missing_requirement)
	if [ -n "$why" ]; then
		echo "skip $name: $why"
		return
	fi
	mkdir -p "$d"
	if ! run_setup "$d"; then
		case "$SETUP_WHY" in
		skip:*) echo "skip $name:${SETUP_WHY#skip:}" ;;
		*) echo "not ok $name: ${SETUP_WHY#fail: }" ;;
		esac
		return
	fi
	run_one "$t" "$SONDE" "$d"
	run_cleanup "$d"
	SONDE_TIMEOUT=$(test_timeout)
	if ! why=$(status_problem "${T_STATUS:-0}" "$d/err") || [ -n "$why" ]; then
		echo "not ok $name: $why"
		indent "$d/err" 10
		indent "$d/out" 10
		return
	fi
	why=$(check_output "$d")
	if [ -n "$why" ]; then
		echo "not ok $name: $why"
	else
		echo "ok $name"
	fi
}
