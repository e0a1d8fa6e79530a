#!/bin/bash
# Compile time and peak memory of long scripts: prints a markdown section
# on stdout. The script is N statements `@a = @a + 1;` in one BEGIN
# (N = 1,000, 10,000 and 100,000 by default), compiled and not loaded:
#   sonde --mode codegen FILE      (compile only: 0.26's --dry-run attaches)
#   bpftrace --emit-elf OUT FILE   (bpftrace 0.17's compile-only mode)
#   clang -O2 -target bpf -c       the same program written in C (N map
#                                  lookups and updates of one u64 key),
#                                  the baseline: a C compiler's pipeline
# CPU time (user + system) and peak RSS come from bench/c/cputime.c
# (wait4's rusage), medians of ROUNDS interleaved runs (default 3). A run past TIMEOUT seconds
# (default 300) is killed and shown as such; each runs with its address
# space limited to LIMIT_MB (default 4096), so that a compiler that grows
# without bound fails instead of taking the machine.
# usage: bench/compile.sh [-n "N1 N2 ..."] [-r ROUNDS] [-t TIMEOUT]
#                         [--sonde PATH] [--bpftrace PATH]
set -u
cd "$(dirname "$0")/.."
sizes="1000 10000 100000" rounds=3 timeout=300 limit_mb=4096
sonde=$PWD/build/sonde bpftrace=$(command -v bpftrace || echo /usr/bin/bpftrace)
while [ $# -gt 0 ]; do
	case "$1" in
	-n) sizes=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	-t) timeout=$2; shift 2 ;;
	--sonde) sonde=$2; shift 2 ;;
	--bpftrace) bpftrace=$2; shift 2 ;;
	*) echo "usage: $0 [-n \"N1 N2 ...\"] [-r ROUNDS] [-t TIMEOUT] [--sonde PATH] [--bpftrace PATH]" >&2; exit 2 ;;
	esac
done
out=build/bench/compile
mkdir -p "$out"
make -s all >/dev/null || exit 1
cc -O2 -o "$out/cputime" bench/c/cputime.c || exit 1
echo "## Compile time and memory of long scripts"
echo
ulimit -l unlimited 2>/dev/null

# gen N: the script and the C program of N statements
gen() {
	local n=$1 i
	{
		echo 'BEGIN {'
		for ((i = 0; i < n; i++)); do echo '@a = @a + 1;'; done
		echo '}'
	} >"$out/s$n.bt"
	{
		cat <<'EOF'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u64);
} a SEC(".maps");
#define STMT { __u64 k = 0, *p = bpf_map_lookup_elem(&a, &k); \
	__u64 v = (p ? *p : 0) + 1; bpf_map_update_elem(&a, &k, &v, 0); }
SEC("raw_tp")
int begin(void *ctx)
{
EOF
		for ((i = 0; i < n; i++)); do echo 'STMT'; done
		echo 'return 0; }'
		echo 'char LICENSE[] SEC("license") = "GPL";'
	} >"$out/s$n.bpf.c"
}

# run NAME N ROUND CMD...: appends "cpu_s rss_kb status" to $out/NAME.N.txt
# (status: ok, refused (exit 1 with a message), killed, or failed)
run() {
	local name=$1 n=$2 r=$3 f
	shift 3
	f=$out/$name.$n.$r
	(
		ulimit -v $((limit_mb * 1024))
		exec "$out/cputime" -t "$timeout" -o "$f.time" -- "$@"
	) >"$f.out" 2>"$f.err"
	local st w u s m x
	read -r w u s m x <"$f.time"
	case $x in
	0) st=ok ;;
	1) st=refused ;;
	timeout) st=killed ;;
	*) st=failed ;;
	esac
	echo "$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }') $m $st" >>"$out/$name.$n.txt"
}
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# cell NAME N: "CPU s, MB" (medians), or what stopped it
cell() {
	local f=$out/$1.$2.txt st
	st=$(awk '{ print $3 }' "$f" | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
	case $st in
	killed) echo "killed after ${timeout} s"; return ;;
	failed) echo "failed (over ${limit_mb} MB?)"; return ;;
	esac
	printf '%s s, %s MB%s' "$(awk '{ print $1 }' "$f" | med)" \
		"$(($(awk '{ print $2 }' "$f" | med) / 1024))" \
		"$([ "$st" = refused ] && echo ' (refused)')"
}
ratio() { # ratio NAME1 NAME2 N FIELD: NAME1/NAME2 of the medians
	local a b
	# none against a run that was killed or failed
	if grep -qE 'killed|failed' "$out/$1.$3.txt" "$out/$2.$3.txt"; then
		echo "-"
		return
	fi
	a=$(awk -v k="$4" '{ print $k }' "$out/$1.$3.txt" | med)
	b=$(awk -v k="$4" '{ print $k }' "$out/$2.$3.txt" | med)
	awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'
}

for n in $sizes; do
	gen "$n"
	rm -f "$out"/*."$n".txt
	for r in $(seq "$rounds"); do
		run clang "$n" "$r" clang -O2 -target bpf -I/usr/include/"$(cc -dumpmachine)" \
			-c "$out/s$n.bpf.c" -o "$out/s$n.bpf.o"
		run bpftrace "$n" "$r" "$bpftrace" --emit-elf "$out/s$n.bt.o" "$out/s$n.bt"
		run sonde "$n" "$r" "$sonde" --mode codegen "$out/s$n.bt"
	done
done

echo "One BEGIN probe of N statements \`@a = @a + 1;\`, compiled and not loaded: \`sonde --mode codegen\`,"
echo "\`bpftrace --emit-elf\` (0.17's compile-only mode) and, as the baseline, \`clang -O2 -target bpf\`"
echo "on the same program in C (N map lookups and updates). CPU time (user + system) and peak RSS,"
echo "medians of $rounds interleaved runs; runs past ${timeout} s are killed, and each may take at"
echo "most ${limit_mb} MB of address space. \"refused\": exit 1 with a message (sonde: a program"
echo "past the kernel's 1,000,000 instructions, said before loading). Lower is better."
echo
echo "| statements | C (clang -O2) | bpftrace | sonde | sonde / bpftrace CPU | sonde / C CPU | sonde / bpftrace memory |"
echo "|---|---|---|---|---|---|---|"
for n in $sizes; do
	echo "| $n | $(cell clang "$n") | $(cell bpftrace "$n") | $(cell sonde "$n") |" \
		"$(ratio sonde bpftrace "$n" 1) | $(ratio sonde clang "$n" 1) | $(ratio sonde bpftrace "$n" 2) |"
done
echo
for n in $sizes; do
	msg=$(head -n 1 "$out/sonde.$n.1.err")
	[ -n "$msg" ] && echo "- sonde at $n: \`$msg\`"
	msg=$(grep -v RLIMIT_MEMLOCK "$out/bpftrace.$n.1.err" | head -n 1)
	[ -n "$msg" ] && echo "- bpftrace at $n: \`$msg\`"
done
exit 0
