#!/bin/bash
# agent.sh DIR: runs inside a guest (tests/vm/guest.sh --share), serving
# the commands tests/vm/vmrun puts in DIR, a directory both sides see:
#   ID.req   a bash script (the command, its directory, environment and
#            redirections), run in a subshell of the agent
#   ID.pid   the command's process id, written by the request itself
#   ID.rc    its exit status, written when it ends
#   ID.kill  asks for the command to get SIGTERM, then SIGKILL 3 s later
#            if it is still there; a request whose files the host removed
#            before it ended (the host gave up) gets SIGKILL
#   stop     ends the agent (the guest then powers off)
# Why: the test harness (bash, a few dozen processes per test) costs
# seconds per test under emulation; run on the host, it sends only the
# tracer and the workloads into the guest. For the same reason the agent
# starts no process of its own per request but the command: a subshell
# (a fork) runs the request. (Without a terminal, `set -m` gives jobs no
# process group of their own: the command's own id is what gets killed;
# the tracer ends its -c command itself.)
dir=$1
[ -d "$dir" ] || { echo "agent.sh: no directory $dir" >&2; exit 2; }
# A sleep without a process: read with a time limit from a FIFO that
# nobody writes.
fifo=/tmp/agent-fifo.$$
mkfifo "$fifo" || exit 1
exec 3<>"$fifo"
nap() { read -r -t "$1" -u 3 _; }

declare -A sub=() killed=()

# kill_req SIGNAL ID: signals request ID's command (once it said its id)
kill_req() {
	local pid
	[ -s "$dir/$2.pid" ] && pid=$(<"$dir/$2.pid") && kill "-$1" "$pid" 2>/dev/null
}
echo ready >"$dir/ready"
while [ ! -e "$dir/stop" ]; do
	for req in "$dir"/*.req; do
		[ -e "$req" ] || continue
		id=${req##*/}
		id=${id%.req}
		[ -z "${sub[$id]:-}" ] || continue
		(
			. "$req"
			echo $? >"$dir/$id.rc"
		) </dev/null &
		sub[$id]=$!
	done
	for id in "${!sub[@]}"; do
		if [ ! -e "$dir/$id.req" ]; then
			# the host took the result, or gave up waiting for it
			[ -e "$dir/$id.rc" ] || kill_req KILL "$id"
			rm -f "$dir/$id".*
			unset "sub[$id]" "killed[$id]"
		elif [ -e "$dir/$id.kill" ] && [ ! -e "$dir/$id.rc" ]; then
			if [ -z "${killed[$id]:-}" ]; then
				kill_req TERM "$id"
				killed[$id]=$SECONDS
			elif [ $((SECONDS - killed[$id])) -ge 3 ]; then
				kill_req KILL "$id"
			fi
		fi
	done
	nap 0.02
done
for id in "${!sub[@]}"; do
	kill_req KILL "$id"
done
rm -f "$fifo"
