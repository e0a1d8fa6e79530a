#!/bin/bash
# VM layer (root + qemu): the runtime layer again against qemu guests that
# boot Debian's stock kernels (tests/vm/kernel.sh), where kprobes and
# fentry exist and helpers differ from this machine's: Debian 11's 5.10
# (sonde's oldest kernel, where its fallbacks run), Debian 12's 6.1 and
# 6.12. The harness runs
# here; the tracer and the workloads run in the guest, sent there by
# tests/vm/vmrun to the guest's agent (tests/vm/agent.sh): under emulation
# the harness's own processes would cost seconds per test. Each result is
# the runtime layer's, named KERNEL:NAME (ok 6.1:comm_var). A guest that
# dies is one failure, with its console.
#
#   VM_KERNELS  the kernels (default "5.10 6.1 6.12")
#   VM_JOBS     guests at once (default: all of them; each guest is one
#               emulated CPU, so on a 2-CPU host three guests share two
#               CPUs, which ends sooner than two then one: the last guest
#               alone would leave a CPU idle)
#   VM_CPUS     virtual CPUs of each guest (default 1: with two, 6.12 once
#               died of an int3 left in __schedule while kernel text was
#               patched, a hazard of emulated cross-CPU code changes)
#   VM_SMP      KERNEL:CPUS, a guest with more CPUs than this machine has
#               (default 6.1:4), which runs the tests that need more than
#               one CPU (REQUIRES: cpus:N): per-CPU merging and the order
#               of events made on four CPUs. Results are named 6.1x4:NAME.
#               Empty: none.
#   VM_TIMEOUT  seconds a guest may live (default 2400)
#   TIMEOUT_SCALE  the tests' time limits are this many times longer
#               (default 4: emulation is slow)
#   VM_SONDE    the tracer the guests run (default $BUILD/sonde; a copy of
#               it, so that a rebuild meanwhile changes nothing under them)
#   VM_QEMU     the emulator the kernels need (default qemu-system-x86_64)
# The arm64 layer (tests/arm64/layer.sh) is this layer with VM_KERNELS=arm64
# and its own VM_SONDE and CC (the workloads are built for the guest).
# RUNTIME_TESTS and RUNTIME_JOBS pass through, e.g.
#   VM_KERNELS=6.1 RUNTIME_TESTS=comm_var tests/run.sh --layers vm -v
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "skip vm: not root (the guests' tests load BPF programs)"
	layer_done
fi
qemu=${VM_QEMU:-qemu-system-x86_64}
if ! command -v "$qemu" >/dev/null; then
	echo "not ok ${LAYER:-vm}: $qemu is missing (scripts/deps.sh installs it)"
	layer_done
fi

kernels=${VM_KERNELS:-5.10 6.1 6.12}
jobs=${VM_JOBS:-$(echo $kernels | wc -w)}
cpus=${VM_CPUS:-1}
scratch=$BUILD/vm
mkdir -p "$scratch"

# The kernels are prepared one at a time (apt and the unpacking).
for k in $kernels; do
	if ! "$TOP/tests/vm/kernel.sh" "$k" "$scratch/$k" >"$scratch/$k.prep" 2>&1; then
		echo "not ok vm-$k: cannot prepare the guest kernel"
		indent "$scratch/$k.prep" 10
	fi
done

# run_kernel K [CPUS NAME]: boots K's guest (CPUS virtual CPUs, default
# $cpus) with its agent, runs the runtime layer against it, stops it.
# Results in $scratch/NAME.out (NAME: K).
run_kernel() {
	local k=$1 ncpus=${2:-$cpus} name=${3:-$1}
	local run=$scratch/run-$name
	local agent=$run/agent lock
	# One run of a guest's directory at a time: a second one (or what
	# is left of a run killed halfway, whose runtime layer goes on
	# sending tests to the agent directory) would write the same tests'
	# files: outputs cut, tests seeing each other's processes. The
	# lock's descriptor stays open in every process of this run.
	exec {lock}>"$scratch/run-$name.lock"
	if ! flock -n "$lock"; then
		echo "not ok vm-$name: another run is using $run (a test run still going, or the rest of one killed halfway: its processes hold $scratch/run-$name.lock)"
		exec {lock}>&-
		return
	fi
	rm -rf "$run"
	mkdir -p "$agent"
	# the copy's tools/ beside its directory is the tree's, as the
	# binary's own (sonde finds tools there)
	mkdir -p "$run/bin"
	ln -s "$TOP/tools" "$run/tools"
	cp "${VM_SONDE:-$BUILD/sonde}" "$run/bin/sonde" || { echo "not ok guest: no tracer ${VM_SONDE:-$BUILD/sonde}"; return; }
	# the tracer, as the runtime layer calls it, is the guest's
	printf '#!/bin/sh\nexec %q %q "$@"\n' "$TOP/tests/vm/vmrun" "$run/bin/sonde" >"$agent/sonde"
	chmod +x "$agent/sonde"
	{
		"$TOP/tests/vm/guest.sh" --kernel "$k" --cpus "$ncpus" --share "$run" \
			--timeout "${VM_TIMEOUT:-2400}" -- bash "$TOP/tests/vm/agent.sh" "$agent"
		echo "guest exit status $?"
		: >"$agent/dead"
	} >"$run/guest.log" 2>&1 &
	local gpid=$! waited=0
	while [ ! -e "$agent/ready" ] && [ ! -e "$agent/dead" ] && [ $waited -lt 1200 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	if [ ! -e "$agent/ready" ]; then
		echo "not ok guest: the agent did not start"
		indent "$run/guest.log" 20
		: >"$agent/stop"
		wait "$gpid"
		exec {lock}>&-
		return
	fi
	# SONDE_BIN: the binary itself, for a test that starts it inside a
	# command it runs where the tracer runs (unshare ... SONDE_BIN)
	VM_AGENT=$agent VM_RUN=$TOP/tests/vm/vmrun SONDE=$agent/sonde \
		SONDE_BIN=$run/bin/sonde BUILD=$run \
		TIMEOUT_SCALE=${TIMEOUT_SCALE:-4} \
		RUNTIME_JOBS=${RUNTIME_JOBS:-2} "$TOP/tests/runtime/layer.sh" 2>&1
	: >"$agent/stop"
	wait "$gpid"
	if grep -q 'did not finish\|stopped before' "$run/guest.log"; then
		echo "not ok guest: it died before the end"
		indent "$run/guest.log" 20
	fi
	exec {lock}>&-
}

running=0
for k in $kernels; do
	[ -s "$scratch/$k.prep" ] && grep -q '^[0-9]' "$scratch/$k.prep" || continue
	run_kernel "$k" >"$scratch/$k.out" 2>&1 &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

# The guest with more CPUs, for the tests that need them.
smp=${VM_SMP-6.1:4} smpname=
if [ -n "$smp" ]; then
	sk=${smp%%:*} sc=${smp#*:} smpname=${smp%%:*}x${smp#*:}
	smptests=$(cd "$TOP/tests/runtime" && grep -l '^REQUIRES:.*cpus:' ./*.test | sed 's#^\./##; s#\.test$##' | tr '\n' ' ')
	if [ -n "${RUNTIME_TESTS:-}" ]; then
		# only those of the tests asked for
		smptests=$(for t in $smptests; do case " $RUNTIME_TESTS " in *" $t "*) echo "$t" ;; esac; done | tr '\n' ' ')
	fi
	if [ -z "${smptests// /}" ]; then
		smpname=
	elif [ ! -s "$scratch/$sk.prep" ] || ! grep -q '^[0-9]' "$scratch/$sk.prep"; then
		"$TOP/tests/vm/kernel.sh" "$sk" "$scratch/$sk" >"$scratch/$sk.prep" 2>&1 ||
			{ echo "not ok vm-$smpname: cannot prepare the guest kernel"; indent "$scratch/$sk.prep" 10; smpname=; }
	fi
	[ -z "$smpname" ] || RUNTIME_TESTS=$smptests run_kernel "$sk" "$sc" "$smpname" >"$scratch/$smpname.out" 2>&1
fi

for k in $kernels $smpname; do
	[ -f "$scratch/$k.out" ] || continue
	echo "# guest $k: Debian's $(tail -n1 "$scratch/${k%x*}.prep")"
	# (the guest's runtime layer ends with its own "# layer done")
	grep -vx '# layer done' "$scratch/$k.out" | sed -E "s/^(ok|not ok|skip) /\1 $k:/"
done
layer_done
