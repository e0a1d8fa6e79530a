#!/bin/bash
# Stack benchmarks (root): prints a markdown section on stdout.
#   1. printing a map of 10,000 distinct user stacks (10 frames each),
#      every frame symbolised (bench/stacks/print_stacks.c; median of 5);
#      and writing such a map (a real per-CPU BPF map, as --folded and
#      --pprof write at exit) as folded stacks and as a pprof profile:
#      time, file size and peak memory growth (bench/stacks/
#      write_profiles.c; medians of 5; root);
#   2. profile:hz:999 on all CPUs with @[kstack, ustack] = count() for
#      DURATION seconds (default 5) under a workload of varied stacks:
#      samples, distinct stacks, lost samples (only to a full count map,
#      which sonde reports at exit: stacks are captured into the keys, so
#      there are no stack map collisions) and the time from the end of
#      sampling to sonde's exit (reading, symbolising and printing).
# usage: bench/stacks.sh [-d DURATION] [--sonde PATH]
set -u
cd "$(dirname "$0")/.."
dur=5 sonde=$PWD/build/sonde
while [ $# -gt 0 ]; do
	case "$1" in
	-d) dur=$2; shift 2 ;;
	--sonde) sonde=$2; shift 2 ;;
	*) echo "usage: $0 [-d DURATION] [--sonde PATH]" >&2; exit 2 ;;
	esac
done
out=build/bench/stacks
mkdir -p "$out"
make -s all >/dev/null || exit 1
cc -std=gnu11 -O2 -Wall -Wextra -Werror -Isrc -o "$out/print_stacks" \
	bench/stacks/print_stacks.c build/libsonde.a -lbpf -ldw -lelf -lz -liberty || exit 1

echo "## Stacks"
echo
times=()
for _ in 1 2 3 4 5; do
	times+=("$("$out/print_stacks" 10000 | awk '{ print $(NF-1) }')")
done
med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
echo "- printing 10,000 distinct user stacks (10 frames each, all symbolised): **$med ms** (median of 5)"

if [ "$(id -u)" = 0 ] &&
	cc -std=gnu11 -O2 -g -Wall -Wextra -Werror -Isrc -o "$out/write_profiles" \
		bench/stacks/write_profiles.c build/libsonde.a \
		$(pkg-config --libs libbpf libelf zlib libdw libprotobuf-c) -liberty 2>"$out/wp.err"; then
	# medians of 5 of each column: wall ms, CPU ms, file KB, RSS growth KB
	for fmt in folded pprof; do
		for _ in 1 2 3 4 5; do
			"$out/write_profiles" "$fmt" 10000 "$out/profile.$fmt" || break
		done >"$out/wp.$fmt"
	done
	col() { awk -v c="$2" '{ print $c }' "$out/wp.$1" | sort -n | sed -n 3p; }
	if [ "$(wc -l <"$out/wp.folded")" = 5 ] && [ "$(wc -l <"$out/wp.pprof")" = 5 ]; then
		echo "- writing a map of 10,000 distinct user stacks (10 frames each, every frame a distinct address: 100,000 locations, the worst case) at exit, medians of 5:"
		echo
		echo "| output | wall ms | CPU ms | file | peak RSS growth |"
		echo "|---|---|---|---|---|"
		for fmt in folded pprof; do
			echo "| --$fmt | $(col $fmt 3) | $(col $fmt 4) | $(col $fmt 5) KB | $(awk -v k="$(col $fmt 6)" 'BEGIN { printf "%.1f MB", k / 1024 }') |"
		done
		echo
		echo "  (pprof also looks up each frame's DWARF lines and inlined calls, and packs and gzips the protobuf; both read the map once)"
	else
		echo "- writing 10,000 stacks as folded / pprof: n/a (write_profiles failed)"
	fi
else
	echo "- writing 10,000 stacks as folded / pprof: n/a (not root, or bench/stacks/write_profiles.c does not build)"
fi

if [ "$(id -u)" != 0 ]; then
	echo "- profile at 999 Hz: n/a (not root)"
	exit 0
fi
# A workload with many distinct stacks: file system walks and hashing.
( end=$((SECONDS + dur + 1))
  while [ $SECONDS -lt $end ]; do
	find /usr/lib -maxdepth 3 -name '*.so*' 2>/dev/null | head -200 | xargs -r sha1sum >/dev/null 2>&1
	ls -lR /usr/share/doc >/dev/null 2>&1
  done ) &
wl=$!
start=$(date +%s.%N)
"$sonde" -q -e "profile:hz:999 { @[kstack, ustack] = count(); } interval:s:$dur { exit(); }" \
	>"$out/profile.out" 2>"$out/profile.err"
end=$(date +%s.%N)
kill "$wl" 2>/dev/null
wait "$wl" 2>/dev/null
samples=$(grep -aoE '\]: [0-9]+$' "$out/profile.out" | awk '{ s += $2 } END { print s + 0 }')
stacks=$(grep -acE '\]: [0-9]+$' "$out/profile.out")
lost=$(grep -aoE 'lost [0-9]+ updates of @' "$out/profile.err" | awk '{ s += $2 } END { print s + 0 }')
exit_ms=$(awk -v s="$start" -v e="$end" -v d="$dur" 'BEGIN { printf "%.0f", (e - s - d) * 1000 }')
echo "- profile:hz:999 on $(nproc) CPUs for ${dur} s, @[kstack, ustack] = count(): $samples samples in $stacks distinct stacks, **${lost:-0} lost** samples (to a full map); start-up plus exit (maps read, symbolised, printed): **$exit_ms ms**"
