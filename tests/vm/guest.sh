#!/bin/bash
# guest.sh [options] -- CMD [ARG...]: runs CMD in a qemu guest booting one of
# Debian's stock kernels (tests/vm/kernel.sh), in this directory, with the
# host's files (read-only, under a tmpfs overlay: the guest's writes vanish
# with it) and this shell's test variables. CMD's output (stdout and stderr)
# is printed as it comes; guest.sh exits with CMD's status, or 125 when the
# guest did not get to the end (time limit, panic), with the last lines of
# the guest's console.
#
#   --kernel NAME   6.1 (default), 6.12, 5.10, arm64 or arm64-6.12
#                   (tests/vm/kernel.sh)
#   --cpus N        virtual CPUs (default 2)
#   --mem MB        memory (default 1024; the overlay's writes live in it)
#   --timeout S     seconds before the guest is stopped (default 600)
#   --cache DIR     where the kernels are kept (default $BUILD/vm or build/vm)
#   --share DIR     DIR is writable in the guest, at the same path, and
#                   what either side writes there the other sees at once
#                   (the rest of / is the guest's own copy)
#
# VM_APPEND in the environment: more words for the guest kernel's command
# line, each followed by a space (e.g. "mitigations=off ").
#
# e.g. tests/vm/guest.sh --kernel 6.12 -- build/sonde -l 'kretfunc:vfs_rea*'
#
# Under TCG (KVM is not usable on the machines this runs on): -cpu max
# gives the guest every instruction set extension qemu emulates, so that
# host binaries run there.
#
# arm64 (a kernel whose release ends in -arm64): qemu-system-aarch64's virt
# machine, -cpu max with pauth-impdef (pointer authentication stays on, as
# on real arm64 machines, with qemu's cheap algorithm instead of QARMA,
# slow under TCG). The guest's root is its initramfs (tests/vm/init): CMD
# and its directory must be arm64 programs under the shared directory or
# this tree (mounted at the same path), or busybox applets. The machine
# has one serial port (the console): CMD's output goes through a file of
# the run directory.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
kernel=6.1 cpus=2 mem=1024 limit=600 cache=${BUILD:-$top/build}/vm share=
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--timeout) limit=$2; shift 2 ;;
	--cache) cache=$2; shift 2 ;;
	--share) share=$(cd "$2" && pwd) || exit 2; shift 2 ;;
	--) shift; break ;;
	*) echo "guest.sh: unknown option $1 (see the comment at the top)" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: guest.sh [--kernel NAME] [--cpus N] [--mem MB] [--timeout S] -- CMD [ARG...]" >&2; exit 2; }

kdir=$cache/$kernel
release=$("$here/kernel.sh" "$kernel" "$kdir") || exit 125
case $release in
*-arm64)
	qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -kernel "$kdir/Image")
	console=ttyAMA0 output=/out/output
	;;
*)
	qemu=(qemu-system-x86_64 -cpu max -kernel "$kdir/vmlinux")
	console=ttyS0 output=/dev/ttyS1
	;;
esac
command -v "${qemu[0]}" >/dev/null || { echo "guest.sh: needs ${qemu[0]} (scripts/deps.sh)" >&2; exit 125; }

run=$(mktemp -d "${TMPDIR:-/tmp}/sonde-vm.XXXXXX")
qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The guest's shell gets the variables the test layers read, then CMD.
{
	export -p | grep -E '^declare -x (PATH|HOME|LANG|LC_[A-Z]+|TERM|CI|CC|SONDE[A-Z_]*|BUILD|TOP|[A-Z]+_TESTS|BTRT_[A-Z_]+|UPDATE_GOLDEN)='
	printf 'cd %q || exit 125\n' "$PWD"
	printf '%q ' "$@"
	echo
} >"$run/cmd"
: >"$run/output"

share_opts=()
if [ -n "$share" ]; then
	share_opts=(-fsdev "local,id=share,path=$share,security_model=none,multidevs=remap"
		-device virtio-9p-pci,fsdev=share,mount_tag=share)
fi
serial=(-serial "file:$run/console")
[ "$output" != /dev/ttyS1 ] || serial+=(-serial "file:$run/output")
timeout -k 5 "$limit" "${qemu[@]}" -accel tcg -nodefaults \
	-m "$mem" -smp "$cpus" -display none -no-reboot \
	-initrd "$kdir/initrd.gz" \
	-append "console=$console loglevel=4 panic=-1 ${VM_APPEND:-}rdinit=/init sonde.modules=$kdir/pkg/lib/modules sonde.top=$top sonde.output=$output${share:+ sonde.share=$share}" \
	"${serial[@]}" \
	-fsdev "local,id=host,path=/,security_model=none,readonly=on,multidevs=remap" \
	-device virtio-9p-pci,fsdev=host,mount_tag=host \
	-fsdev "local,id=out,path=$run,security_model=none,multidevs=remap" \
	-device virtio-9p-pci,fsdev=out,mount_tag=out "${share_opts[@]}" \
	</dev/null >"$run/qemu.log" 2>&1 &
qpid=$!
tail -n +1 -F --pid="$qpid" "$run/output" 2>/dev/null
wait "$qpid"
qrc=$?
qpid=
if [ ! -f "$run/rc" ]; then
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		echo "guest.sh: the $release guest did not finish within ${limit}s; its console's last lines:"
	else
		echo "guest.sh: the $release guest stopped before the command ended (qemu exit status $qrc); its console's last lines:"
	fi
	tail -n 20 "$run/console" "$run/qemu.log" 2>/dev/null | sed 's/^/    /'
	exit 125
fi
exit "$(cat "$run/rc")"
