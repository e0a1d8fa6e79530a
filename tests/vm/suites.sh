#!/bin/bash
# suites.sh [--kernel K]... [--suite S]... [--tool T]... [--jobs N] [--cpus N]
#           [--out DIR]: runs bpftrace's own runtime suites' tests that need
# kprobes, kretprobes or fentry/fexit (kfunc) - the ones this machine skips
# - inside qemu guests booting Debian's stock kernels (tests/vm/guest.sh),
# for sonde and for the installed bpftrace side by side, and prints their
# pass counts.
#
#   --kernel K   5.10, 6.1 and/or 6.12 (default: 6.1); one guest at a time
#   --suite S    btrt26 (bpftrace v0.26.1's suite, /work/shared/tools/
#                btrt26.py) and/or btrt (v0.17's, btrt.py); default both
#   --tool T     sonde and/or bpftrace (default both)
#   --jobs N     tests at once in the guest (default 1)
#   --cpus N     the guest's virtual CPUs (default 1: with two, 6.12 died
#                of an int3 left in __sys_bpf's entry while a trampoline
#                patched it, a hazard of emulated cross-CPU code changes)
#   --out DIR    where the results go (default build/vm/suites); DIR/K/
#                SUITE.TOOL.txt is the runner's whole report (-v), and the
#                summary is printed at the end
#
# Environment: BTRT_MIRROR (a bare clone of bpftrace; default
# /work/.mirror/bpftrace+bpftrace/repo), BTRT_TOOLS (where btrt26.py and
# btrt.py are; default /work/shared/tools), SUITE_ATTACH_TIMEOUT (seconds a
# tracer may take to attach; default 90: under emulation bpftrace's LLVM
# alone takes many seconds), SUITE_GUEST_TIMEOUT (seconds a guest may live;
# default 7200).
#
# How: the runners' caches (extracted tests, built test programs) are
# filled here first by a --list run, whose SKIP lines also name the tests
# this machine cannot run for want of kprobes or fentry; the guest, whose /
# is this machine's (read-only under an overlay, /tmp included), runs only
# those (--filter), so it builds nothing. btrt.py answers from tables of
# this machine (no kprobe or kfunc tests, no kfunc, dpath, skboutput or
# kprobe_multi): the guest runs a copy with those answers turned. A run of
# some suites or tools keeps the other results in DIR/K, and the summary
# shows them all.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
kernels=() suites=() tools=() jobs=1 cpus=1 out=${BUILD:-$top/build}/vm/suites
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernels+=("$2"); shift 2 ;;
	--suite) suites+=("$2"); shift 2 ;;
	--tool) tools+=("$2"); shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "suites.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
[ ${#kernels[@]} -gt 0 ] || kernels=(6.1)
[ ${#suites[@]} -gt 0 ] || suites=(btrt26 btrt)
[ ${#tools[@]} -gt 0 ] || tools=(sonde bpftrace)
export BTRT_MIRROR=${BTRT_MIRROR:-/work/.mirror/bpftrace+bpftrace/repo}
btdir=${BTRT_TOOLS:-/work/shared/tools}
py=/usr/bin/python3
[ -x "$py" ] || py=python3
sonde=${SONDE:-${BUILD:-$top/build}/sonde}
[ -x "$sonde" ] || { echo "suites.sh: no $sonde (make first)" >&2; exit 2; }
bpftrace=$(command -v bpftrace) || bpftrace=
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
# the guests run a copy: a rebuild meanwhile changes nothing under them
cp "$sonde" "$out/sonde" && sonde=$out/sonde || exit 2

# The tests of each suite that need what this machine lacks, as one
# anchored regex over 'file:NAME'.
for s in "${suites[@]}"; do
	[ -f "$btdir/$s.py" ] || { echo "suites.sh: no $btdir/$s.py" >&2; exit 2; }
	"$py" "$btdir/$s.py" --list "$sonde" >"$out/$s.list" 2>&1 ||
		{ echo "suites.sh: $s --list failed:" >&2; tail -n 5 "$out/$s.list" >&2; exit 2; }
	grep -E '^SKIP .* -- (kprobe|kfunc|fentry): ' "$out/$s.list" | sed -E 's/^SKIP  *//; s/ -- .*//' >"$out/$s.tests"
	"$py" - "$out/$s.tests" >"$out/$s.regex" <<'PY'
import re, sys
names = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip()]
print("^(" + "|".join(re.escape(n) for n in names) + ")$")
PY
	echo "# $s: $(wc -l <"$out/$s.tests") tests need kprobes or fentry here"
done

# btrt.py answers for this machine from fixed tables: kprobe and kfunc
# tests are never applicable, kfunc/dpath/skboutput/kprobe_multi absent.
# The guest, which has them, runs a copy with those answers turned.
for s in "${suites[@]}"; do
	[ "$s" = btrt ] || continue
	"$py" - "$btdir/btrt.py" "$out/btrt_vm.py" <<'PY' || { echo "suites.sh: cannot adapt btrt.py (changed?)" >&2; exit 2; }
import sys
s = open(sys.argv[1]).read()
subs = [
    ('for kind, label in ((("kprobe", "kretprobe"), "kprobe"),\n'
     '                        (("kfunc", "kretfunc"), "kfunc"),\n'
     '                        (("hardware",), "hardware")):',
     'for kind, label in ((("hardware",), "hardware"),):'),
    ('"kfunc": False,', '"kfunc": True,'),
    ('"dpath": False,', '"dpath": True,'),
    ('"kprobe_multi": False,', '"kprobe_multi": True,'),
    ('"skboutput": False,', '"skboutput": True,'),
]
for a, b in subs:
    if s.count(a) != 1:
        sys.exit("btrt.py: %r not found once" % a)
    s = s.replace(a, b)
open(sys.argv[2], "w").write(s)
PY
done

# The guest's part: each suite for each tool, one after the other.
cat >"$out/guest.sh" <<EOF
#!/bin/bash
cd "$out/\$1" || exit 1
for s in ${suites[*]}; do
	for t in ${tools[*]}; do
		case \$t in sonde) bin=$sonde ;; bpftrace) bin=$bpftrace ;; esac
		[ -n "\$bin" ] || { echo "no \$t" >"\$s.\$t.txt"; continue; }
		start=\$(date +%s)
		script=$btdir/\$s.py
		[ "\$s" = btrt ] && script=$out/btrt_vm.py
		"$py" "\$script" -v --jobs $jobs --attach-timeout ${SUITE_ATTACH_TIMEOUT:-90} \\
			--filter "\$(cat "$out/\$s.regex")" "\$bin" >"\$s.\$t.txt" 2>&1
		echo "# \$((\$(date +%s) - start)) s in the guest" >>"\$s.\$t.txt"
	done
done
EOF
chmod +x "$out/guest.sh"

for k in "${kernels[@]}"; do
	mkdir -p "$out/$k"
	for s in "${suites[@]}"; do
		for t in "${tools[@]}"; do
			rm -f "$out/$k/$s.$t.txt"
		done
	done
	echo "# guest $k: started $(date -u +%H:%M:%S)"
	"$here/guest.sh" --kernel "$k" --cpus "$cpus" --share "$out" --timeout "${SUITE_GUEST_TIMEOUT:-7200}" \
		-- bash "$out/guest.sh" "$k" >"$out/$k/guest.log" 2>&1
	echo "# guest $k: exit status $?, ended $(date -u +%H:%M:%S)"
done

# Summary: per kernel and suite, each tool's score (from this run or an
# earlier one) and sonde's failures.
for k in "${kernels[@]}"; do
	for s in "${suites[@]}"; do
		line="$k $s:"
		for t in sonde bpftrace; do
			f=$out/$k/$s.$t.txt
			r=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$f" 2>/dev/null | tail -n1)
			line+=" $t ${r:-no result}"
		done
		echo "$line"
		[ -f "$out/$k/$s.sonde.txt" ] && grep -E '^FAIL ' "$out/$k/$s.sonde.txt" |
			grep -vE '^FAIL .* \([0-9.]+s(, no attach)?\)( -- |$)' | sed 's/^/  sonde /'
	done
done
exit 0
