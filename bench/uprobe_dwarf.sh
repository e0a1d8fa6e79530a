#!/bin/bash
# Uprobe start-up on a binary with large debug info (root): prints a
# markdown section on stdout.
#
# A program of PARTS compile units (default 20), each with 5,000 structs of
# 41 members and 5,000 functions, built with -g (about 100 MB of DWARF),
# is probed on its last function with `args->x` (typed from DWARF) and
# exits on the first hit; the same with the debug info stripped and `arg1`
# shows what reading DWARF costs. Each case is timed from the command to
# its exit (attach, the program's run, the one event, detach), median of
# ROUNDS (default 5) interleaved runs of sonde and bpftrace. There is no
# hand-written C column: a libbpf program has no DWARF reader to compare
# with; the stripped case is the floor of each tracer.
# usage: bench/uprobe_dwarf.sh [-r ROUNDS] [-p PARTS] [--sonde PATH]
#                              [--bpftrace PATH]
set -u
cd "$(dirname "$0")/.."
rounds=5 parts=20 sonde=$PWD/build/sonde bpftrace=$(command -v bpftrace)
while [ $# -gt 0 ]; do
	case "$1" in
	-r) rounds=$2; shift 2 ;;
	-p) parts=$2; shift 2 ;;
	--sonde) sonde=$2; shift 2 ;;
	--bpftrace) bpftrace=$2; shift 2 ;;
	*) echo "usage: $0 [-r ROUNDS] [-p PARTS] [--sonde PATH] [--bpftrace PATH]" >&2; exit 2 ;;
	esac
done
out=$PWD/build/bench/bigdwarf
mkdir -p "$out"
make -s all >/dev/null || exit 1

# The generated program, built once (cached by PARTS).
big=$out/big$parts
if [ ! -x "$big" ] || [ ! -x "$big.stripped" ]; then
	for ((p = 0; p < parts; p++)); do
		awk -v p=$p 'BEGIN {
			split("int long char short double", ty, " ")
			for (i = 0; i < 5000; i++) {
				n = p * 5000 + i
				printf "struct big%d {\n", n
				for (j = 0; j < 40; j++)
					printf "\t%s m%d_%d;\n", ty[j % 5 + 1], n, j
				printf "\tstruct big%d *next;\n};\n", n
				printf "long fn%d(struct big%d *q, int x) { return q ? q->m%d_0 + x : x; }\n", n, n, n
			}
		}' >"$out/part$p.c"
	done
	last=$((parts * 5000 - 1))
	printf 'struct big%d;\nlong fn%d(struct big%d *q, int x);\nint main(void) { return (int)fn%d(0, 7) - 7; }\n' \
		$last $last $last $last >"$out/main.c"
	objs=()
	for ((p = 0; p < parts; p++)); do
		cc -g -O0 -c "$out/part$p.c" -o "$out/part$p.o" &
		# two at a time: the machine is shared
		(( p % 2 == 1 )) && wait
		objs+=("$out/part$p.o")
	done
	wait
	cc -g -O0 -o "$big" "$out/main.c" "${objs[@]}" || exit 1
	strip --strip-debug -o "$big.stripped" "$big" || exit 1
	rm -f "$out"/part*.o "$out"/part*.c
fi
fn=fn$((parts * 5000 - 1))
dwarf_mb=$(size -A "$big" | awk '$1 ~ /^\.debug/ { s += $2 } END { printf "%.0f", s / 1048576 }')

# wall ms of one run, or "fail"
run() {
	local t0 t1
	t0=$(date +%s%N)
	if ! timeout 60 "$@" >"$out/run.out" 2>"$out/run.err" </dev/null ||
		! grep -q '^7$' "$out/run.out"; then
		echo fail
		return
	fi
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

declare -A times
for ((r = 0; r < rounds; r++)); do
	for t in sonde bpftrace; do
		bin=$sonde
		[ $t = bpftrace ] && bin=$bpftrace
		[ -n "$bin" ] || continue
		times[$t.dwarf]+="$(run "$bin" -e "uprobe:$big:$fn { printf(\"%d\\n\", args->x); exit(); }" -c "$big") "
		times[$t.plain]+="$(run "$bin" -e "uprobe:$big.stripped:$fn { printf(\"%d\\n\", arg1); exit(); }" -c "$big.stripped") "
	done
done

med() {
	local v
	v=$(printf '%s\n' $1 | grep -v fail | sort -n)
	local n=$(printf '%s\n' "$v" | grep -c .)
	[ "$n" = "$rounds" ] || { echo "n/a"; return; }
	printf '%s\n' "$v" | sed -n "$(((n + 1) / 2))p"
}
ratio() {
	case "$1$2" in *n/a*) echo n/a ;; *) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }' ;; esac
}

echo "## Uprobe start-up on a binary with ${dwarf_mb} MB of DWARF"
echo
echo "\`uprobe:BIN:$fn { printf(\"%d\\n\", args->x); exit(); }\` with \`-c BIN\` ($parts compile units, $((parts * 5000)) functions"
echo "and structs), from the command to its exit, median of $rounds interleaved runs; \"stripped\" is the same binary"
echo "without debug info, probed with \`arg1\`."
echo
echo "| case | bpftrace ms | sonde ms | sonde / bpftrace |"
echo "|---|---|---|---|"
for c in dwarf plain; do
	b=$(med "${times[bpftrace.$c]:-}") s=$(med "${times[sonde.$c]:-}")
	label="args->x, ${dwarf_mb} MB of DWARF"
	[ $c = plain ] && label="arg1, stripped"
	echo "| $label | $b | $s | $(ratio "$s" "$b") |"
done
echo
