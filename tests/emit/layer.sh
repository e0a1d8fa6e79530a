#!/bin/bash
# Emit layer: `sonde --emit-elf F.o` then `sonde --object F.o` must print
# byte for byte what running the script prints (text and JSON, printf,
# maps, hist, cpid under -c, BEGIN/END/interval, uprobes); libbpf
# (bpftool prog loadall) must load the object; a damaged .sonde section,
# another format version, damaged code, another machine's object and a
# probe that no longer resolves are refused with one sentence. Needs root and BPF.
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"
cd "$TOP" || exit 1
D=$BUILD/tests/emit
mkdir -p "$D"
TESTS="printf_count hist_json begin_end enum_names uprobe socket_cookie_rawtp libbpf_load corrupt_sonde version truncated code_damaged other_arch gone_target cpid_needed refused_probe"
skip_all() { for t in $TESTS; do echo "skip emit.$t: $1"; done; layer_done; }
[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -r /sys/kernel/tracing/events/syscalls/sys_enter_write/format ] ||
	[ -r /sys/kernel/debug/tracing/events/syscalls/sys_enter_write/format ] ||
	skip_all "no syscall tracepoints"
WL=$D/wl UWL=$D/uwl
cc -O2 -o "$WL" tests/runtime/wl.c && cc -O2 -o "$UWL" tests/runtime/uwl.c ||
	skip_all "cannot build the workloads"

# same NAME PROG [RUN OPTIONS...]: the script run directly and through
# --emit-elf + --object print the same bytes (-c CMD gives -c to both).
same() {
	local n=$1 prog=$2
	shift 2
	local ec=()
	case " $* " in *" -c "*) ec=(-c true) ;; esac
	run_sonde "$D/$n.direct" "$D/$n.derr" "$@" -e "$prog"
	local drc=$RC
	run_sonde "$D/$n.eout" "$D/$n.eerr" --emit-elf "$D/$n.o" "${ec[@]}" -e "$prog"
	if [ "$RC" != 0 ]; then nok_ "$n" "--emit-elf failed" "$D/$n.eerr"; return; fi
	run_sonde "$D/$n.obj" "$D/$n.oerr" --object "$D/$n.o" "$@"
	if [ "$drc" != 0 ] || [ "$RC" != 0 ]; then
		nok_ "$n" "direct rc=$drc, object rc=$RC" "$D/$n.oerr"
	elif ! [ -s "$D/$n.direct" ]; then
		nok_ "$n" "the direct run printed nothing" "$D/$n.derr"
	elif cmp -s "$D/$n.direct" "$D/$n.obj"; then
		echo "ok emit.$n"
	else
		diff "$D/$n.direct" "$D/$n.obj" >"$D/$n.diff"
		nok_ "$n" "outputs differ" "$D/$n.diff"
	fi
}
nok_() { echo "not ok emit.$1: $2"; [ -n "${3:-}" ] && indent "$3" 20; }
# refused NAME WANT_REGEX ARGS...: exit 1, one line matching WANT_REGEX
refused() {
	local n=$1 want=$2
	shift 2
	run_sonde "$D/$n.out" "$D/$n.err" "$@"
	if [ "$RC" = 1 ] && grep -qE -- "$want" "$D/$n.err" &&
		! grep -aqE 'Sanitizer|Segmentation' "$D/$n.err"; then
		echo "ok emit.$n"
	else
		nok_ "$n" "rc=$RC, want 1 and /$want/" "$D/$n.err"
	fi
}

W='tracepoint:syscalls:sys_enter_write /pid == cpid/'
same printf_count "$W { printf(\"write %d by %s, %d\\n\", args->count, comm, elapsed > 0); @c[comm] = count(); @s = sum(args->count); }" \
	-c "$WL writes 2 10 writes 3 100"
same hist_json "$W { @h = hist(args->count); @l[cpid == pid] = lhist(args->count, 0, 200, 50); printf(\"%d\\n\", args->count); }" \
	-f json -c "$WL writes 2 10 writes 3 100"
same begin_end 'BEGIN { printf("start\n"); @x = 7; } interval:ms:100 { @i++; if (@i == 2) { exit(); } } END { printf("end %d\n", @x); delete(@x); }'
same enum_names 'enum Foo { ONE = 1, TWO = 2 }; BEGIN { $x = 2; printf("%d %s %s %s\n", ONE, TWO, (enum Foo)$x, (enum Foo)($x + 1)); @[TWO] = ONE; @t = (ONE, 5); exit(); }'
same uprobe "uprobe:$UWL:uwl_add { printf(\"add %d %d\\n\", arg0, arg1); @[probe] = count(); } uretprobe:$UWL:uwl_add { printf(\"ret %d\\n\", retval); }" \
	-c "$UWL"
# a rawtracepoint probe compiled as tp_btf (socket_cookie()) is one here too
if [ -x /usr/bin/python3 ] && [ -d /sys/kernel/tracing/events/tcp/tcp_probe ]; then
	echo "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); c = socket.create_connection(s.getsockname()); a, _ = s.accept(); c.sendall(b'x' * 100); a.recv(100); a.sendall(b'y'); c.recv(1)" >"$D/tcp.py"
	same socket_cookie_rawtp 'rawtracepoint:tcp_probe { printf("%d\n", socket_cookie(args.sk) != 0); exit(); }' \
		-c "/usr/bin/python3 $D/tcp.py"
else
	echo "skip emit.socket_cookie_rawtp: no python3 or no tcp:tcp_probe"
fi

# libbpf opens and loads the object (every program pinned, then removed)
pin=/sys/fs/bpf/sonde_emit_test_$$
if ! mountpoint -q /sys/fs/bpf && ! mount -t bpf bpf /sys/fs/bpf 2>/dev/null; then
	echo "skip emit.libbpf_load: no bpffs at /sys/fs/bpf"
elif ! command -v bpftool >/dev/null; then
	echo "skip emit.libbpf_load: no bpftool"
else
	bpftool prog loadall "$D/printf_count.o" "$pin" >"$D/load.err" 2>&1
	lrc=$?
	n=$(find "$pin" -mindepth 1 2>/dev/null | wc -l)
	rm -rf "$pin"
	if [ $lrc = 0 ] && [ "$n" -ge 1 ]; then echo "ok emit.libbpf_load"
	else nok_ libbpf_load "bpftool rc=$lrc, $n programs pinned" "$D/load.err"; fi
fi

# damage: byte OFF (from the .sonde section's start, or the section SEC's)
# of a copy of printf_count.o set to VALUE (hex; when it is VALUE already,
# VALUE ^ 0x40, so that the byte always changes)
damage() { # damage OUT SEC OFF VALUE
	local off v
	off=$(readelf -SW "$D/printf_count.o" | awk -v s="$2" '$2 == s { print $5 } $3 == s { print $6 }' | head -1)
	cp "$D/printf_count.o" "$1"
	v=$4
	[ "$(od -An -tx1 -j $((0x$off + $3)) -N1 "$1" | tr -d ' ')" = "$v" ] &&
		v=$(printf '%02x' $((0x$v ^ 0x40)))
	printf "\\x$v" | dd of="$1" bs=1 seek=$((0x$off + $3)) conv=notrunc status=none
}
damage "$D/c1.o" .sonde 100 ff
refused corrupt_sonde 'cannot run .*c1\.o: its \.sonde section is truncated or corrupt' --object "$D/c1.o" -c "$WL"
damage "$D/c2.o" .sonde 8 63
refused version 'format version 99 and this sonde reads version [0-9]+' --object "$D/c2.o" -c "$WL"
damage "$D/c3.o" .sonde 12 01
refused truncated 'truncated or corrupt' --object "$D/c3.o" -c "$WL"
damage "$D/c4.o" tracepoint/syscalls/sys_enter_write 20 ff
refused code_damaged 'the code of the program for .* is damaged' --object "$D/c4.o" -c "$WL"
# the machine the object was compiled for (its pt_regs offsets, syscall
# numbers): another's is refused, naming both ("x86_64" made "a86_64")
damage "$D/c5.o" .sonde.arch 0 61
refused other_arch 'cannot run .*c5\.o: it was compiled for [^ ]+, and this sonde runs (x86_64|aarch64) programs' --object "$D/c5.o" -c "$WL"

# the uprobe's function is gone from the file it names
cp "$UWL" "$D/gone"
run_sonde "$D/gone.eout" "$D/gone.eerr" --emit-elf "$D/gone.o" -e "uprobe:$D/gone:uwl_add { @ = count(); }"
cp "$WL" "$D/gone"
refused gone_target 'uwl_add' --object "$D/gone.o"

run_sonde "$D/cp.eout" "$D/cp.eerr" --emit-elf "$D/cp.o" -c true -e 'BEGIN { printf("%d\n", cpid); exit(); }'
refused cpid_needed 'was emitted with -c: run it with -c CMD' --object "$D/cp.o"
refused refused_probe 'emit-elf cannot carry usdt probes' --emit-elf "$D/r.o" -e "usdt:$UWL:uwl:plain { exit(); }"
layer_done
