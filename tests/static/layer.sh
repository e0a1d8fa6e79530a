#!/bin/bash
# Static layer: `make static` links $BUILD/sonde-static, one executable
# with no dynamic loader and no shared library, and it traces from an
# empty root: a mount namespace and chroot holding only the binary, a
# static test program (tests/static/sprog.c, -g), one tool, /proc, and
# /sys with tracefs at /sys/kernel/tracing (so /sys/kernel/btf too); no
# /usr, /lib or /etc. Each run there is compared with the dynamic build's
# ($BUILD/sonde) run of the same command outside the root: a tracepoint,
# a raw tracepoint, a uprobe reading DWARF arguments and its ustack, USDT,
# profile:hz:99's symbolised user stacks, a tool found by name (-t), and
# --metrics answering curl from outside the root. The probe checks run
# again in qemu guests booting Debian's 6.1 and 5.10 (tests/vm/guest.sh),
# with kprobe, kretprobe and fentry/fexit, which this host may lack: one
# guest per kernel, running this script with --guest K there, named
# static-K:NAME (STATIC_VM_KERNELS: the kernels, default "6.1 5.10";
# empty: none). Outside the root, the
# static binary never loads a shared object: not libdebuginfod (libdw's
# client, left out) for a binary without debug info, not an NSS module
# for `username` of a uid /etc/passwd lacks (glibc's built-in "files"
# service alone; a module loaded into a static glibc crashed). As root
# only (namespaces, chroot, BPF). STATIC_KEEP=1 keeps the root and each
# test's outputs in $BUILD/static-work.
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"
cd "$TOP" || exit 1

STATIC=$BUILD/sonde-static
DYN=$BUILD/sonde
work=$BUILD/static-work
root=$work/root
export STATIC_ROOT=$root
INROOT=$TOP/tests/static/inroot.sh
out_s=$work/static.out err_s=$work/static.err out_d=$work/dyn.out err_d=$work/dyn.err
# the probe types this kernel attaches, as the dynamic build sees them
# ($work/info: written once the root is made, or in the guest)
has() { grep -qE "^ +$1: yes$" "$work/info"; }

# in_root: SONDE=inroot.sh; run_sonde (lib.sh) then runs /sonde in the root
in_root() { SONDE=$INROOT run_sonde "$@"; }

# both ARGS...: sonde-static ARGS in the root, then the dynamic build
# with ARGS outside it, @R@ standing for the root's path (so /sprog inside
# is $root/sprog outside); results in RC_S, RC_D and the four files.
both() {
	local a in=() outside=()
	for a in "$@"; do
		in+=("${a//@R@/}")
		outside+=("${a//@R@/$root}")
	done
	in_root "$out_s" "$err_s" "${in[@]}"
	RC_S=$RC
	SONDE=$DYN run_sonde "$out_d" "$err_d" "${outside[@]}"
	RC_D=$RC
}

# same NAME [LINE...]: ok when both exited 0 with the same stdout and
# stderr, the stdout is not empty and holds each LINE (so that two equally
# wrong outputs do not pass).
same() {
	local why line missing=
	for line in "${@:2}"; do
		grep -qxF -- "$line" "$out_s" || { missing=$line; break; }
	done
	# kept for a look (STATIC_KEEP=1 keeps $work)
	cp "$out_s" "$work/$1.static.out"; cp "$out_d" "$work/$1.dyn.out"
	if [ "$RC_S" = 125 ]; then
		echo "not ok $1: could not mount proc, sysfs or tracefs in the root"
	elif ! why=$(RC=$RC_S status_problem 0 "$err_s") || [ -n "$why" ]; then
		echo "not ok $1: static, in the root: $why"
		indent "$err_s" 10
	elif ! why=$(RC=$RC_D status_problem 0 "$err_d") || [ -n "$why" ]; then
		echo "not ok $1: dynamic: $why"
		indent "$err_d" 10
	elif ! [ -s "$out_s" ]; then
		echo "not ok $1: no output"
		indent "$err_s" 10
	elif ! cmp -s "$out_d" "$out_s"; then
		echo "not ok $1: stdout differs from the dynamic build's"
		show_diff "$out_d" "$out_s"
	elif ! cmp -s "$err_d" "$err_s"; then
		echo "not ok $1: stderr differs from the dynamic build's"
		show_diff "$err_d" "$err_s"
	elif [ -n "$missing" ]; then
		echo "not ok $1: both print no line '$missing'"
		indent "$out_s" 20
	else
		echo "ok $1"
	fi
}

# probe_checks P: the checks run both here and in each guest, named
# P NAME (P: static- here, static-6.1: in the 6.1 guest), each skipped
# where the kernel lacks its probe type. sprog (the default mode) makes
# one openat() of $nofile, which fails with ENOENT, and five getpid().
nofile=/sonde-static-test/no-such-file
probe_checks() {
	local p=$1
	if ! has tracepoint || ! [ -d /sys/kernel/tracing/events/syscalls/sys_enter_openat ]; then
		echo "skip ${p}tracepoint: no tracepoint syscalls:sys_enter_openat"
	else
		both -c @R@/sprog \
			-e 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { printf("%s\n", str(args->filename)); }'
		same "${p}tracepoint" "$nofile"
	fi

	if ! has raw_tracepoint; then
		echo "skip ${p}rawtracepoint: the kernel has no raw tracepoints"
	else
		# getpid is syscall 39 on x86-64
		both -c @R@/sprog \
			-e 'rawtracepoint:sys_enter /pid == cpid && arg1 == 39/ { @getpid = count(); }'
		same "${p}rawtracepoint" "@getpid: 5"
	fi

	if ! has uprobe; then
		echo "skip ${p}uprobe-dwarf: the kernel has no uprobes"
		echo "skip ${p}usdt: the kernel has no uprobes"
	else
		# args from sprog's DWARF; the stack with its source lines
		both -c @R@/sprog \
			-e 'uprobe:@R@/sprog:pair_sum { printf("%d %d %s %d\n", args->p->a, args->p->b, args->p->tag, args->k); if (args->k == 102) { print(ustack(3)); } }'
		same "${p}uprobe-dwarf" "3 30 three 102"
		both -c @R@/sprog \
			-e 'usdt:@R@/sprog:sprog:mark { printf("mark %d %d\n", arg0, arg1); }'
		same "${p}usdt" "mark 3 102"
	fi

	if ! has kprobe; then
		echo "skip ${p}kprobe: the kernel has no kprobes"
		echo "skip ${p}kretprobe: the kernel has no kprobes"
	else
		# the path openat was given (a user address: uptr), and a wildcard
		# read from available_filter_functions in the root
		# (__do_sys_getpid on Debian's kernels)
		both -c @R@/sprog \
			-e 'kprobe:do_sys_openat2 /pid == cpid/ { printf("%s\n", str(uptr(arg1))); } kprobe:__*sys_getpid /pid == cpid/ { @getpid = count(); }'
		same "${p}kprobe" "$nofile" "@getpid: 5"
		both -c @R@/sprog \
			-e 'kretprobe:do_sys_openat2 /pid == cpid/ { printf("%d\n", retval); }'
		same "${p}kretprobe" -2
	fi

	if ! has fentry; then
		echo "skip ${p}fentry: the kernel has no fentry"
	else
		# args by name from /sys/kernel/btf/vmlinux in the root: AT_FDCWD,
		# the path, struct open_how's flags (O_LARGEFILE); fexit's -ENOENT
		both -c @R@/sprog \
			-e 'fentry:do_sys_openat2 /pid == cpid/ { printf("%d %s %x\n", args->dfd, str(uptr(args->filename)), args->how->flags); } fexit:do_sys_openat2 /pid == cpid/ { printf("= %d\n", retval); }'
		same "${p}fentry" "-100 $nofile 8000" "= -2"
	fi
}

# In a guest (--guest K, started at the end of the host part below by
# tests/vm/guest.sh): the root and both builds are the host's, seen
# through the guest's overlay, where this script's writes stay.
if [ "${1:-}" = --guest ]; then
	"$DYN" --info >"$work/info" 2>&1
	probe_checks "static-$2:"
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "skip static: not root (the empty root needs mount namespaces and chroot)"
	layer_done
fi

# --- the build
log=$BUILD/static-make.log
started=$SECONDS
if ! make -s -j2 all static BUILD="$BUILD" >"$log" 2>&1; then
	echo "not ok static-build: make static failed"
	indent "$log" 30
	layer_done
fi
echo "ok static-build"
echo "# make static: $((SECONDS - started)) s (libmicrohttpd from Debian's source, then the link)"

why=
ldd "$STATIC" >"$BUILD/static-ldd.out" 2>&1
grep -q 'not a dynamic executable' "$BUILD/static-ldd.out" || why="ldd: $(head -c 200 "$BUILD/static-ldd.out")"
readelf -lW "$STATIC" 2>/dev/null | grep -qE '^ +(INTERP|DYNAMIC) ' && why+=" has a PT_INTERP or PT_DYNAMIC segment"
if [ -n "$why" ]; then echo "not ok static-ldd: $why"; else echo "ok static-ldd"; fi

# --- the empty root
rm -rf "$work"
mkdir -p "$root/proc" "$root/sys" "$root/tools"
[ -n "${STATIC_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
if ! cc -static -g -O0 -fno-omit-frame-pointer -o "$root/sprog" tests/static/sprog.c 2>"$work/cc.err"; then
	echo "not ok static-sprog: the static test program does not build"
	indent "$work/cc.err" 10
	layer_done
fi
cp "$STATIC" "$root/sonde"
cp tools/opensnoop.bt "$root/tools/"
if [ "$(cd "$root" && find . | sort | tr '\n' ' ')" != ". ./proc ./sonde ./sprog ./sys ./tools ./tools/opensnoop.bt " ]; then
	echo "not ok static-root: the root holds more than sonde, sprog and the tool"
	find "$root" | indent /dev/stdin 20
else
	echo "ok static-root"
fi
"$DYN" --info >"$work/info" 2>&1

in_root "$out_s" "$err_s" --version
RC_S=$RC
SONDE=$DYN run_sonde "$out_d" "$err_d" --version
RC_D=$RC
same static-version

probe_checks static-

if ! has perf_event; then
	echo "skip static-profile: the kernel has no perf events"
else
	# Where samples land is not deterministic, so each run's stacks are
	# reduced to their frames' names (no offsets, no counts); both must
	# have spin() called from main(), and no frame may be a bare address.
	both -c "@R@/sprog spin" \
		-e 'profile:hz:99 /pid == cpid/ { @[ustack(2)] = count(); }'
	frames() { awk '/^@\[/ { k = ""; next } /^\]/ { print k; next } NF { f = $1; sub(/\+[0-9]+(@.*)?$/, "", f); k = k (k == "" ? "" : ";") f }' "$1" | sort -u; }
	frames "$out_s" >"$work/frames.s"
	frames "$out_d" >"$work/frames.d"
	if ! why=$(RC=$RC_S status_problem 0 "$err_s") || [ -n "$why" ]; then
		echo "not ok static-profile: static, in the root: $why"
		indent "$err_s" 10
	elif ! grep -qx 'spin;main' "$work/frames.s"; then
		echo "not ok static-profile: no sample of spin() called by main() in the root"
		indent "$out_s" 20
	elif grep -qE '(^|;)(0x)?[0-9a-f]+(;|$)' "$work/frames.s"; then
		echo "not ok static-profile: a frame is not symbolised"
		indent "$out_s" 20
	elif ! grep -qx 'spin;main' "$work/frames.d"; then
		echo "not ok static-profile: the dynamic build saw no spin() called by main()"
		indent "$out_d" 20
	else
		echo "ok static-profile"
	fi
fi

if ! has tracepoint || ! [ -d /sys/kernel/tracing/events/syscalls/sys_exit_openat ]; then
	echo "skip static-tool: no syscalls:sys_*_openat tracepoints (opensnoop)"
else
	# opensnoop by name: in the root, from /tools (next to /sonde);
	# sprog's open, with the PID column blanked (it differs)
	both -c @R@/sprog -t opensnoop
	for f in "$out_s" "$out_d"; do
		grep -E ' sprog +-1 +2 /sonde-static-test/no-such-file$' "$f" |
			awk '{ $1 = "PID"; print }' >"$f.tool"
		mv "$f.tool" "$f"
	done
	same static-tool
fi

# --metrics: the server in the root, curl from outside it
if ! command -v curl >/dev/null; then
	echo "skip static-metrics: no curl"
else
	prog='BEGIN { @answer["static"] = 42; @runs = count(); }'
	for who in static dynamic; do
		if [ $who = static ]; then s=$INROOT; else s=$DYN; fi
		rm -f "$work/metrics.$who"
		if SONDE=$s start_sonde "$work/m.out" "$work/m.err" --metrics 127.0.0.1:0 -e "$prog"; then
			curl -sS --max-time 10 "$URL" >"$work/metrics.$who" 2>"$work/curl.err"
			curl -sS --max-time 10 -o /dev/null -w '%{http_code}\n' "${URL%/metrics}/other" >>"$work/metrics.$who" 2>>"$work/curl.err"
		fi
		stop_sonde
		cp "$work/m.err" "$work/m.err.$who"
	done
	if ! grep -q '^sonde_answer{key="static"} 42$' "$work/metrics.static" 2>/dev/null; then
		echo "not ok static-metrics: curl got no answer from the root's --metrics"
		indent "$work/m.err.static" 10
		indent "$work/curl.err" 5
	elif ! cmp -s "$work/metrics.dynamic" "$work/metrics.static"; then
		echo "not ok static-metrics: the page differs from the dynamic build's"
		show_diff "$work/metrics.dynamic" "$work/metrics.static"
	else
		echo "ok static-metrics"
	fi
fi

# username: the root has no /etc/passwd, so root's uid has no name there
# ("", as for an unknown user), where the dynamic build outside says root
in_root "$out_s" "$err_s" -e 'BEGIN { printf("[%s] %d\n", username, uid); exit(); }'
if ! why=$(status_problem 0 "$err_s") || [ -n "$why" ]; then
	echo "not ok static-username-root: $why"
	indent "$err_s" 10
elif ! grep -qx '\[\] 0' "$out_s"; then
	echo "not ok static-username-root: expected [] 0"
	indent "$out_s" 5
else
	echo "ok static-username-root"
fi

# Outside the root, a uid that /etc/passwd lacks: the static binary asks
# the "files" service only, and prints "" as the dynamic build does
# (loading nsswitch.conf's other modules, such as libnss_systemd, into a
# static glibc crashed it). The workload runs as uid 54321.
if ! command -v setpriv >/dev/null || getent passwd 54321 >/dev/null; then
	echo "skip static-username-unknown: no setpriv, or uid 54321 has a name here"
else
	prog='tracepoint:syscalls:sys_enter_getpid /pid == cpid && uid == 54321/ { printf("[%s] %d\n", username, uid); exit(); }'
	SONDE=$STATIC run_sonde "$out_s" "$err_s" -c "setpriv --reuid 54321 $root/sprog" -e "$prog"
	RC_S=$RC
	SONDE=$DYN run_sonde "$out_d" "$err_d" -c "setpriv --reuid 54321 $root/sprog" -e "$prog"
	RC_D=$RC
	same static-username-unknown
fi

# No shared object is ever opened: a stripped program (its DWARF looked
# up beyond the file: libdw's debuginfod client would be loaded) probed
# with a stack, with DEBUGINFOD_URLS set.
if ! command -v strace >/dev/null || ! has uprobe; then
	echo "skip static-no-dlopen: no strace, or no uprobes"
else
	cp "$root/sprog" "$work/sprog-stripped"
	strip -g "$work/sprog-stripped"
	DEBUGINFOD_URLS=http://127.0.0.1:9/ timeout -k 5 20 strace -f -qq -e trace=open,openat -o "$work/strace.log" \
		"$STATIC" -c "$work/sprog-stripped" -e "uprobe:$work/sprog-stripped:pair_sum { @[ustack(2)] = count(); }" \
		</dev/null >"$out_s" 2>"$err_s"
	RC=$?
	if ! why=$(status_problem 0 "$err_s") || [ -n "$why" ]; then
		echo "not ok static-no-dlopen: $why"
		indent "$err_s" 10
	elif grep -E '\.so(\.[0-9]+)*"|ld\.so\.cache' "$work/strace.log" >"$work/so.log"; then
		echo "not ok static-no-dlopen: it opened shared objects"
		indent "$work/so.log" 10
	elif ! grep -q 'pair_sum+0' "$out_s"; then
		echo "not ok static-no-dlopen: no stack"
		indent "$out_s" 10
	else
		echo "ok static-no-dlopen"
	fi
fi

# --- the probe checks again in qemu guests booting Debian's kernels, one
# guest at a time, each kernel prepared as the vm layer does (that layer
# runs after this one). A guest that ends with status 125 before any
# result did not boot (under emulation: "IO-APIC + timer doesn't work"):
# it is started once more.
for k in ${STATIC_VM_KERNELS-6.1 5.10}; do
	if ! command -v qemu-system-x86_64 >/dev/null; then
		echo "skip static-$k: no qemu-system-x86_64 (scripts/deps.sh installs it)"
		continue
	fi
	if ! "$TOP/tests/vm/kernel.sh" "$k" "$BUILD/vm/$k" >"$work/vm-$k.prep" 2>&1; then
		echo "skip static-$k: cannot prepare Debian's $k kernel (tests/vm/kernel.sh)"
		indent "$work/vm-$k.prep" 10
		continue
	fi
	started=$SECONDS
	for try in 1 2; do
		"$TOP/tests/vm/guest.sh" --kernel "$k" --cpus 1 --timeout 180 -- \
			bash "$TOP/tests/static/layer.sh" --guest "$k" >"$work/vm-$k.out" 2>&1
		rc=$?
		if [ "$rc" != 125 ] || grep -qE '^(ok|not ok|skip) ' "$work/vm-$k.out"; then break; fi
	done
	echo "# guest $k: Debian's $(tail -n1 "$work/vm-$k.prep"), $((SECONDS - started)) s, $try boot(s)"
	if [ "$rc" = 0 ]; then
		cat "$work/vm-$k.out"
	else
		# the results, then guest.sh's report (the console's last lines)
		sed -n '/^guest\.sh: /q; p' "$work/vm-$k.out"
		echo "not ok static-$k: the guest ended with status $rc"
		sed -n '/^guest\.sh: /,$p' "$work/vm-$k.out" | indent /dev/stdin 25
	fi
done

layer_done
