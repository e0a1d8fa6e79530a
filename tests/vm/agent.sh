#!/bin/bash
# agent.sh DIR: runs inside a guest (tests/vm/guest.sh --share), serving
# the commands tests/vm/vmrun puts in DIR, a directory both sides see:
#   ID.req   a bash script (the command, its directory, environment and
#            redirections), run in a process group of its own
#   ID.rc    its exit status, written when it ends
#   ID.kill  asks for its process group to get SIGTERM, then SIGKILL 3 s
#            later if it is still there; a request whose files the host
#            removed before it ended (the host gave up) gets SIGKILL
#   stop     ends the agent (the guest then powers off)
# Why: the test harness (bash, a few dozen processes per test) costs
# seconds per test under emulation; run on the host, it sends only the
# tracer and the workloads into the guest. For the same reason the agent
# starts no process of its own per request but the command: a subshell
# (a fork) runs the request, job control gives it its process group.
dir=$1
[ -d "$dir" ] || { echo "agent.sh: no directory $dir" >&2; exit 2; }
set -m
# A sleep without a process: read with a time limit from a FIFO that
# nobody writes.
fifo=/tmp/agent-fifo.$$
mkfifo "$fifo" || exit 1
exec 3<>"$fifo"
nap() { read -r -t "$1" -u 3 _; }

declare -A pgid=() killed=()
echo ready >"$dir/ready"
while [ ! -e "$dir/stop" ]; do
	for req in "$dir"/*.req; do
		[ -e "$req" ] || continue
		id=${req##*/}
		id=${id%.req}
		[ -z "${pgid[$id]:-}" ] || continue
		(
			. "$req"
			echo $? >"$dir/$id.rc"
		) </dev/null &
		pgid[$id]=$!
	done
	for id in "${!pgid[@]}"; do
		if [ ! -e "$dir/$id.req" ]; then
			# the host took the result, or gave up waiting for it
			[ -e "$dir/$id.rc" ] || kill -KILL -- "-${pgid[$id]}" 2>/dev/null
			rm -f "$dir/$id".*
			unset "pgid[$id]" "killed[$id]"
		elif [ -e "$dir/$id.kill" ] && [ ! -e "$dir/$id.rc" ]; then
			if [ -z "${killed[$id]:-}" ]; then
				kill -TERM -- "-${pgid[$id]}" 2>/dev/null
				killed[$id]=$SECONDS
			elif [ $((SECONDS - killed[$id])) -ge 3 ]; then
				kill -KILL -- "-${pgid[$id]}" 2>/dev/null
			fi
		fi
	done
	nap 0.02
done
for id in "${!pgid[@]}"; do
	kill -KILL -- "-${pgid[$id]}" 2>/dev/null
done
rm -f "$fifo"
