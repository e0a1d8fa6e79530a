#!/bin/bash
# arm64 layer (root + qemu-system-aarch64): runtime tests of sonde built
# for aarch64 (`make arm64`: $BUILD/arm64/sonde), in one qemu guest (TCG,
# one virtual CPU: see below) booting Debian 12's stock arm64 kernel, whose root is
# its own initramfs of Debian's arm64 busybox, bash and libc
# (tests/vm/kernel.sh arm64). It is the VM layer (tests/vm/layer.sh) with
# that kernel and that tracer: the harness runs here, the tracer and the
# workloads (tests/runtime/*.c, cross-compiled here by
# aarch64-linux-gnu-gcc into the run's shared directory) in the guest.
# Results are named arm64:NAME.
#
# Which tests: tests/arm64/tests.list (why each group is there, and why
# some tests are not), and the checks of arm64 itself in tests/arm64/
# (registers, syscall numbers). The whole layer must stay near 4 minutes
# on a 2-CPU machine (CI's 30-minute budget): the list is a selection.
#
#   ARM64_SONDE  the tracer (default: `make arm64`'s $BUILD/arm64/sonde,
#                built here first when the Makefile has that target)
#   ARM64_TESTS  the tests instead of the list's (names as in
#                RUNTIME_TESTS; the arm64 checks as tests/arm64/NAME), in
#                the guest of ARM64_KERNEL (default arm64: Debian 12's
#                6.1; arm64-6.12: its 6.12, tests/vm/kernel.sh)
# TIMEOUT_SCALE (default 6 here), VM_TIMEOUT (seconds a guest may live:
# default 600 here, twice a slow run) and RUNTIME_JOBS (default 1 here)
# pass through. One test at a time, and one virtual CPU (VM_CPUS, default
# 1 here, as the x86 guests): with two, about one run in 60 of a syscall
# tracepoint program saw no syscall event of any process (stop 46: 5 of
# 300 runs of one program through the agent), although it attached, the
# -c child's TIF_SYSCALL_TRACEPOINT was set (its flags read at
# sched_process_exec) and sched tracepoints fired in the same run: the
# sys_enter tracepoint's jump label, patched by one emulated CPU (arm64
# patches it without stopping the others), not yet in effect on the
# other. With one CPU: 0 of 300. That was stop 45's "miss" too (and two
# runs of one guest's directory at once, such as what is left of a run
# killed halfway, cut and mix the tests' outputs: tests/vm/layer.sh's
# lock now refuses that).
#
# ARM64_LAYER=0 skips the guest, saying so (make arm64 still runs, and
# its failure is one).
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "skip arm64: not root (the guest's tests load BPF programs)"
	layer_done
fi
for c in aarch64-linux-gnu-gcc aarch64-linux-gnu-objcopy qemu-system-aarch64; do
	if ! command -v "$c" >/dev/null; then
		echo "not ok arm64: no $c (scripts/deps.sh installs it)"
		layer_done
	fi
done

sonde=${ARM64_SONDE:-}
if [ -z "$sonde" ]; then
	sonde=$BUILD/arm64/sonde
	# `make arm64` (not in `make check`'s time budget: its objects are
	# kept, so it is quick once built)
	# (the build directory named only when it is not the Makefile's own)
	mkargs=(-C "$TOP" arm64)
	[ "$BUILD" -ef "$TOP/build" ] || mkargs+=(BUILD="$BUILD")
	if make -n "${mkargs[@]}" >/dev/null 2>&1; then
		mkdir -p "$BUILD/arm64"
		if ! make "${mkargs[@]}" >"$BUILD/arm64/make.log" 2>&1; then
			echo "not ok arm64-build: make arm64 failed"
			indent "$BUILD/arm64/make.log" 20
			layer_done
		fi
		# the ELF header's machine: 183, EM_AARCH64
		if [ "$(od -An -tu2 -j18 -N2 "$sonde" | tr -d ' ')" = 183 ]; then
			echo "ok arm64-build"
		else
			echo "not ok arm64-build: $sonde is no aarch64 executable"
			layer_done
		fi
	fi
fi
# (with ARM64_LAYER=0 the build above still runs: it is checked, the
# guest is not booted)
if [ "${ARM64_LAYER:-1}" = 0 ]; then
	echo "skip arm64: ARM64_LAYER=0 (the guest not booted; make arm64 was built and checked)"
	layer_done
fi
if [ ! -x "$sonde" ]; then
	echo "skip arm64: no $sonde (the Makefile has no arm64 target; ARM64_SONDE names a sonde built for aarch64)"
	layer_done
fi
if ! file -L "$sonde" | grep -q 'ARM aarch64'; then
	echo "not ok arm64: $sonde is no aarch64 executable: $(file -L "$sonde")"
	layer_done
fi

# The list: names and "kernel: NAME" lines, '#' comments. groups:
# kernel names in order; tests[K]: K's tests.
declare -A tests=()
groups=()
if [ -n "${ARM64_TESTS:-}" ]; then
	groups=("${ARM64_KERNEL:-arm64}")
	tests[${groups[0]}]=$ARM64_TESTS
else
	k=arm64
	while read -r line; do
		line=${line%%#*}
		case $line in
		kernel:*) k=${line#kernel:} k=${k//[[:space:]]/} ;;
		*[a-z]*)
			[[ " ${groups[*]} " == *" $k "* ]] || groups+=("$k")
			tests[$k]+=" $line"
			;;
		esac
	done <"$TOP/tests/arm64/tests.list"
fi
missing=0
for k in "${groups[@]}"; do
	for t in ${tests[$k]}; do
		case $t in */*) f=$TOP/$t.test ;; *) f=$TOP/tests/runtime/$t.test ;; esac
		[ -f "$f" ] || { echo "not ok arm64-list: no test $t ($f)"; missing=1; }
	done
done
[ $missing = 0 ] || layer_done

# The workloads are the guest's: cross-compiled, with Debian's arm64
# <sys/sdt.h> (kernel.sh puts it in the kernel's include/); the runtime
# harness's nm and objcopy read and write arm64 files.
export CC="aarch64-linux-gnu-gcc -I$BUILD/vm/arm64/include" \
	OBJCOPY=aarch64-linux-gnu-objcopy NM=aarch64-linux-gnu-nm
# One guest at a time, each
# through the VM layer, whose "# layer done" lines are its own.
for k in "${groups[@]}"; do
	VM_KERNELS=$k VM_SMP='' VM_CPUS=${VM_CPUS:-1} VM_JOBS=1 \
		VM_SONDE=$sonde VM_QEMU=qemu-system-aarch64 \
		TIMEOUT_SCALE=${TIMEOUT_SCALE:-6} VM_TIMEOUT=${VM_TIMEOUT:-600} \
		RUNTIME_JOBS=${RUNTIME_JOBS:-1} \
		RUNTIME_TESTS="${tests[$k]}" \
		"$TOP/tests/vm/layer.sh" | grep -vx '# layer done'
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || echo "not ok arm64-$k: tests/vm/layer.sh exited with status $rc"
done
layer_done
