#!/bin/bash
# VM layer (root + qemu): the kernel-facing layers again, inside qemu guests
# that boot Debian's stock kernels (tests/vm/kernel.sh, tests/vm/guest.sh),
# where kprobes and fentry exist and helpers differ from this machine's.
# Each result is the inner layer's, named KERNEL:NAME (ok 6.1:comm_var). A
# guest that does not get to the end is one failure, with its console.
#
#   VM_KERNELS  the kernels (default "6.1 6.12")
#   VM_LAYERS   the layers run in each (default "runtime")
#   VM_JOBS     guests run at once (default: 1 per 2 host CPUs)
#   VM_TIMEOUT  seconds per guest (default 1500)
# RUNTIME_TESTS and the other layers' selectors pass through, e.g.
#   VM_KERNELS=6.1 RUNTIME_TESTS=comm_var tests/run.sh --layers vm -v
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "skip vm: not root (the guests' tests load BPF programs)"
	exit 0
fi
if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "not ok vm: qemu-system-x86_64 is missing (scripts/deps.sh installs it)"
	exit 0
fi

kernels=${VM_KERNELS:-6.1 6.12}
layers=${VM_LAYERS:-runtime}
jobs=${VM_JOBS:-$(( ($(nproc) + 1) / 2 ))}
scratch=$BUILD/vm/results
mkdir -p "$scratch"

# Build what the guests would otherwise compile under emulation (the
# runtime workloads), once, here.
# shellcheck source=tests/runtime/common.sh
RTDIR=$TOP/tests/runtime
. "$RTDIR/common.sh"
build_workload "$BUILD/tests/runtime" >/dev/null 2>&1

# Kernels are prepared one at a time (apt and the unpacking), then the
# guests run, VM_JOBS at once, each with the host's CPUs shared out.
for k in $kernels; do
	if ! "$TOP/tests/vm/kernel.sh" "$k" "$BUILD/vm/$k" >"$scratch/$k.prep" 2>&1; then
		echo "not ok vm-$k: cannot prepare the guest kernel"
		indent "$scratch/$k.prep" 10
	fi
done

# run.sh takes the build directory relative to the top of the tree
rel_build=$(realpath --relative-to="$TOP" "$BUILD")
cpus=$(( $(nproc) / jobs ))
[ "$cpus" -ge 2 ] || cpus=2
run_guest() {
	local k=$1
	"$TOP/tests/vm/guest.sh" --kernel "$k" --cpus "$cpus" --timeout "${VM_TIMEOUT:-1500}" -- \
		tests/run.sh -v --build "$rel_build" --layers "$layers" >"$scratch/$k.out" 2>&1
	echo $? >"$scratch/$k.rc"
}
running=0
for k in $kernels; do
	[ -s "$scratch/$k.prep" ] && grep -q '^[0-9]' "$scratch/$k.prep" || continue
	rm -f "$scratch/$k.rc"
	run_guest "$k" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

for k in $kernels; do
	[ -f "$scratch/$k.rc" ] || continue
	release=$(tail -n1 "$scratch/$k.prep")
	echo "# guest $k: Debian's $release"
	# results renamed KERNEL:NAME, the inner summaries kept as comments
	sed -E -e "s/^(ok|not ok|skip) /\1 $k:/" \
		-e "s/^# ([a-z-]+): /# $k \1: /" \
		-e "s/^([0-9]+ passed, [0-9]+ failed.*)/# $k in all: \1/" "$scratch/$k.out"
	rc=$(cat "$scratch/$k.rc")
	if [ "$rc" = 125 ]; then
		echo "not ok vm-$k: the guest did not finish (see the lines above)"
	elif ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$scratch/$k.out"; then
		echo "not ok vm-$k: the tests in the guest printed no summary (exit status $rc)"
	fi
done
exit 0
