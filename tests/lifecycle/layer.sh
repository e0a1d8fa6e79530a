#!/bin/bash
# Lifecycle layer (root + BPF): however a run ends (exit(), Ctrl-C, SIGTERM,
# the -c command exiting, sonde itself SIGKILLed), nothing it loaded stays
# in the kernel, and its -c command does not outlive it. A program holds
# its maps, and links and perf events hold their programs, so a map of the
# run that is gone proves the rest is gone too. Each case runs with one
# probe (detached before printing), with a wildcard over many (stopped
# by a flag, printed, then detached), with every syscall (one raw
# tracepoint program) and, where the kernel has them, with libc's str*
# functions (one uprobe_multi link). The positive control: while the run
# is attached, its map is seen in the kernel (map_seen), so "gone" after
# it is not the look-up failing to find anything.
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "skip lifecycle: not root (the tests load BPF programs)"
	layer_done
fi
command -v bpftool >/dev/null || { echo "skip lifecycle: no bpftool (scripts/deps.sh installs it)"; layer_done; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# map_gone NAME: waits up to 3 s for no kernel map named AT_NAME.
map_gone() {
	for _ in $(seq 30); do
		bpftool map show 2>/dev/null | grep -q "name AT_$1 " || return 0
		sleep 0.1
	done
	return 1
}

# map_seen NAME: a kernel map named AT_NAME is loaded now.
map_seen() {
	bpftool map show 2>/dev/null | grep -q "name AT_$1 "
}

# wait_for FILE REGEX: up to 10 s for a line of FILE to match.
wait_for() {
	for _ in $(seq 100); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

n=0
libc=/lib/x86_64-linux-gnu/libc.so.6
ulib=
[ -r $libc ] && "$SONDE" --info 2>/dev/null | grep -q '^  uprobe_multi: yes' && ulib=ulib
for probes in one many all $ulib; do
	for how in exit sigint sigterm child sigkill; do
		n=$((n + 1))
		name=lc$$_$n
		case $probes in
		one) attach='tracepoint:syscalls:sys_enter_getppid' ;;
		many) attach='tracepoint:syscalls:sys_enter_get*' ;;
		# one program for every syscall (codegen/sysdispatch.c)
		all) attach='tracepoint:syscalls:sys_enter_*' ;;
		# one uprobe_multi link (codegen/multiattach.c)
		ulib) attach="uprobe:$libc:str*" ;;
		esac
		# BEGIN counts once, so the map is printed at exit however
		# few events came (a map never hit prints nothing)
		prog="BEGIN { @$name = count(); } $attach { @$name = count(); }"
		# (the exit comes late enough for map_seen to look first)
		[ $how = exit ] && prog="$prog interval:ms:700 { exit(); }"
		out=$tmp/$name.out
		case $how in
		child) "$SONDE" -e "$prog" -c "sleep 0.3" >"$out" 2>&1 & ;;
		sigkill) "$SONDE" -e "$prog" -c "sleep 77" >"$out" 2>&1 & ;;
		*) "$SONDE" -e "$prog" >"$out" 2>&1 & ;;
		esac
		spid=$!
		why=
		if ! wait_for "$out" '^Attached'; then
			why="never attached"
		elif ! map_seen "$name"; then
			why="positive control: map AT_$name was not seen while the run was attached"
		else
			case $how in
			sigint) sleep 0.2; kill -INT $spid ;;
			sigterm) sleep 0.2; kill -TERM $spid ;;
			sigkill)
				sleep 0.2
				child=$(pgrep -P $spid sleep)
				kill -KILL $spid ;;
			esac
		fi
		wait $spid 2>/dev/null
		rc=$?
		if [ -z "$why" ] && [ $how != sigkill ]; then
			[ $rc = 0 ] || why="exit status $rc"
			grep -q "^@$name: " "$out" || why="${why:+$why; }the map was not printed"
		fi
		if [ -z "$why" ] && [ $how = sigkill ]; then
			if [ -z "$child" ]; then
				why="the -c command was not running"
			else
				for _ in $(seq 30); do kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
				kill -0 "$child" 2>/dev/null && { why="the -c command outlived sonde"; kill "$child"; }
			fi
		fi
		[ -z "$why" ] && ! map_gone "$name" && why="map AT_$name is still loaded"
		if [ -n "$why" ]; then
			echo "not ok lifecycle:$probes-$how: $why"
			sed 's/^/    /' "$out" | head -10
		else
			echo "ok lifecycle:$probes-$how"
		fi
	done
done
layer_done
