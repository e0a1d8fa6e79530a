#!/bin/bash
# kernel.sh NAME DIR: makes DIR/vmlinux (arm64: DIR/Image) and
# DIR/initrd.gz for guest kernel NAME (see KERNELS below) from Debian's
# stock package, unpacked, never installed. Idempotent: a DIR whose stamp
# names the same package versions is left as it is. Prints the kernel
# release on success (Debian's, ending in its architecture: -amd64, -arm64).
#
# Why each step:
#   - apt-get download: Debian's own build of the kernel users run, with its
#     config (kprobes, fentry, BTF) and its signed-off modules;
#   - the uncompressed vmlinux: qemu boots it through its PVH ELF note
#     (CONFIG_PVH=y), which skips the decompressor, slow under TCG;
#   - a busybox initramfs with the modules the guest needs to reach the
#     host's files (virtio-pci, 9p, overlay), decompressed here so busybox
#     insmod can load them whatever compression the package used;
#   - the package's module tree, indexed by depmod, which the guest mounts
#     at /lib/modules/RELEASE so that tests can modprobe (loop, veth, ...).
# A kernel of another architecture (arm64) cannot use the host's files as
# its root (they are x86 programs): its initramfs is its whole root, made
# of Debian's packages of that architecture, fetched the same way:
# busybox-static (the system commands, as applets), bash-static (for
# tests/vm/agent.sh) and libc6 (for the dynamically linked test programs,
# at the paths Debian's own arm64 system has them). Its Image is the
# package's vmlinuz, which for arm64 is the uncompressed Image already.
# DIR/include gets the headers of BUILD_PACKAGES of that architecture, for
# the test programs cross-compiled for the guest (systemtap-sdt-dev: the
# <sys/sdt.h> of USDT probes, whose Debian package is per architecture).
set -eu

# NAME: the package whose newest dependency is the kernel image
declare -A KERNELS=(
	[5.10]=linux-image-amd64       # Debian 11's kernel (bullseye.sources)
	[6.1]=linux-image-amd64        # Debian 12's default kernel
	[6.12]=linux-image-6.12-amd64  # Debian 12's newer kernel (security suite)
	[arm64]=linux-image-arm64      # Debian 12's default kernel for arm64
	[arm64-6.12]=linux-image-6.12-arm64  # its newer one (fentry: below)
)
# NAME: an apt sources file of tests/vm/ for a kernel the host's Debian
# release (or architecture) does not carry; apt reads it with lists of its
# own (below)
declare -A SOURCES=(
	[5.10]=bullseye.sources
	[arm64]=bookworm.sources
	[arm64-6.12]=bookworm.sources
)
# NAME: the Debian architecture of a kernel that is not the host's; apt
# reads its sources with APT::Architecture set to it, and the guest gets a
# root of its own made of ROOT_PACKAGES of that architecture
# (arm64's 6.1 has no ftrace direct calls, which fentry/fexit on a kernel
# function need there: Linux 6.4 adds them; 6.12 has them)
declare -A ARCHES=(
	[arm64]=arm64
	[arm64-6.12]=arm64
)
ROOT_PACKAGES="busybox-static bash-static libc6"
BUILD_PACKAGES="systemtap-sdt-dev"
# modules the init loads, in dependency order; absent ones are built in
MODULES="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci netfs fscache 9pnet 9pnet_virtio 9p overlay"

die() { echo "kernel.sh: $*" >&2; exit 1; }

[ $# = 2 ] || die "usage: kernel.sh NAME DIR (NAME: ${!KERNELS[*]})"
name=$1
mkdir -p "$2" && dir=$(cd "$2" && pwd) || die "cannot make $2"
meta=${KERNELS[$name]:-}
[ -n "$meta" ] || die "unknown kernel $name (known: ${!KERNELS[*]})"
arch=${ARCHES[$name]:-}
for c in apt-get apt-cache dpkg-deb busybox cpio gzip xz zstd depmod; do
	command -v "$c" >/dev/null || die "needs $c (scripts/deps.sh installs it)"
done
[ -n "$arch" ] || { [ -f /bin/busybox ] && file -L /bin/busybox 2>/dev/null | grep -q 'statically linked'; } ||
	die "needs a static /bin/busybox (package busybox-static)"

# apt's options: the host's own configuration, or for a kernel of another
# Debian release its sources file, with lists, cache and (empty) status of
# its own in $2/../apt-NAME, so that the host's apt never sees that suite.
apt_opts=()
sources=${SOURCES[$name]:-}
if [ -n "$sources" ]; then
	# (one per Debian release and architecture: arm64 and arm64-6.12 share)
	aptdir=$(dirname "$dir")/apt-${name%%-*}
	mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$aptdir/none"
	: >"$aptdir/status"
	apt_opts=(-o "Dir::Etc::SourceList=$(cd "$(dirname "$0")" && pwd)/$sources"
		-o "Dir::Etc::SourceParts=$aptdir/none" -o "Dir::Etc::PreferencesParts=$aptdir/none"
		-o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache"
		-o "Dir::State::status=$aptdir/status")
	[ -z "$arch" ] || apt_opts+=(-o "APT::Architecture=$arch" -o "APT::Architectures=$arch")
fi
apt_() { local cmd=$1; shift; "$cmd" "${apt_opts[@]}" "$@"; }
# our own lists are refreshed once a day: a stale one names a package the
# archive has replaced (a security update), which apt-get download misses
if [ -n "$sources" ] && [ -z "$(find "$aptdir/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n1)" ]; then
	apt_ apt-get update -q >/dev/null 2>&1 || true
fi

# The image package the meta-package depends on, and its version; a stale
# (or, for a sources file of ours, absent) package list is refreshed once
# before giving up: as root, or always for our own lists.
image_pkg() {
	apt_ apt-cache depends "$meta" 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }'
}
pkg=$(image_pkg)
if [ -z "$pkg" ] && { [ "$(id -u)" = 0 ] || [ -n "$sources" ]; }; then
	apt_ apt-get update -q >/dev/null 2>&1 || true
	pkg=$(image_pkg)
fi
[ -n "$pkg" ] || die "apt knows no package $meta (${sources:+through tests/vm/$sources; }is the archive reachable?)"
# the packages and their versions: the stamp (the root's too, for a guest
# of another architecture)
pkgs=$pkg
[ -z "$arch" ] || pkgs+=" $ROOT_PACKAGES $BUILD_PACKAGES"
stamp=$(for p in $pkgs; do echo "$p $(apt_ apt-cache policy "$p" | awk '/Candidate:/ { print $2 }')"; done)
boot=$dir/vmlinux
[ -z "$arch" ] || boot=$dir/Image

if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$stamp" ] &&
	[ -f "$boot" ] && [ -f "$dir/initrd.gz" ] && [ -d "$dir/pkg/lib/modules" ] &&
	{ [ -z "$arch" ] || [ -d "$dir/include" ]; }; then
	cat "$dir/release"
	exit 0
fi

rm -rf "$dir/dl" "$dir/pkg" "$dir/include" "$dir/initrd" "$boot" "$dir/initrd.gz" "$dir/stamp" "$dir/release"
mkdir -p "$dir/dl/root"
# shellcheck disable=SC2086 # $pkgs: words
(cd "$dir/dl" && apt_ apt-get download -q $pkgs >/dev/null 2>"$dir/dl/err") ||
	die "apt-get download $pkgs failed: $(tail -n1 "$dir/dl/err")"
dpkg-deb -x "$dir"/dl/"$pkg"_*.deb "$dir/pkg"
release=$(ls "$dir/pkg/lib/modules")
vmlinuz=$dir/pkg/boot/vmlinuz-$release
[ -f "$vmlinuz" ] || die "$pkg holds no /boot/vmlinuz-$release"

# The bzImage's payload starts at the compressor's magic; the first match
# is the payload (the setup code holds none of these byte strings).
extract() {
	local magic=$1 tool=$2 off
	off=$(LC_ALL=C grep -obUaP "$magic" "$vmlinuz" | head -n1 | cut -d: -f1)
	[ -n "$off" ] || return 1
	tail -c +"$((off + 1))" "$vmlinuz" | $tool -dc >"$dir/vmlinux" 2>/dev/null
	# trailing bytes after the stream make the tools complain; the ELF
	# header says whether what came out is the kernel
	[ "$(head -c4 "$dir/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ]
}
ir=$dir/initrd
mkdir -p "$ir/bin" "$ir/lib" "$ir/proc" "$ir/sys" "$ir/dev"
if [ -z "$arch" ]; then
	extract '\xfd7zXZ\x00' xz || extract '\x28\xb5\x2f\xfd' zstd || extract '\x1f\x8b\x08' gzip ||
		die "cannot extract vmlinux from $vmlinuz (not xz, zstd or gzip)"
	cp /bin/busybox "$ir/bin/busybox"
else
	# arm64's Image header: "ARM\x64" at byte 56 (Documentation/arch/
	# arm64/booting.rst); qemu loads the Image as it is
	[ "$(tail -c +57 "$vmlinuz" | head -c 4 | od -An -c | tr -d ' ')" = 'ARMd' ] ||
		die "$vmlinuz is no arm64 Image (compressed? its header has no ARM\\x64)"
	cp "$vmlinuz" "$boot"
	# the guest's root: busybox as /bin/busybox (init links its
	# applets), bash-static as /bin/bash, libc6's /lib and /usr/lib
	for p in $ROOT_PACKAGES; do
		dpkg-deb -x "$dir"/dl/"$p"_*.deb "$dir/dl/root"
	done
	cp "$dir/dl/root/bin/busybox" "$ir/bin/busybox"
	cp "$dir/dl/root/bin/bash-static" "$ir/bin/bash"
	cp -a "$dir/dl/root/lib/." "$ir/lib/"
	mkdir -p "$ir/usr/lib"
	cp -a "$dir/dl/root/usr/lib/." "$ir/usr/lib/"
	# gconv: character set modules no test program loads (5 MB)
	rm -rf "$ir/usr/lib/"*/gconv
	mkdir -p "$ir/tmp" "$ir/etc" "$ir/root" "$ir/run"
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$ir/etc/passwd"
	printf 'root:x:0:\n' >"$ir/etc/group"
	for p in $BUILD_PACKAGES; do
		dpkg-deb -x "$dir"/dl/"$p"_*.deb "$dir/dl/build"
	done
	# the multiarch directory's headers (sys/sdt.h) and the others
	mkdir -p "$dir/include"
	for d in "$dir/dl/build/usr/include/"*-linux-gnu "$dir/dl/build/usr/include"; do
		cp -r "$d/." "$dir/include/"
	done
	rm -rf "$dir/include/"*-linux-gnu
fi
cp "$(dirname "$0")/init" "$ir/init"
chmod 755 "$ir/init"
: >"$ir/modules.order"
for m in $MODULES; do
	f=$(find "$dir/pkg/lib/modules/$release" \( -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" \) | head -n1)
	[ -n "$f" ] || continue
	case "$f" in
	*.xz) xz -dc "$f" >"$ir/lib/$m.ko" ;;
	*.zst) zstd -qdc "$f" >"$ir/lib/$m.ko" ;;
	*) cp "$f" "$ir/lib/$m.ko" ;;
	esac
	echo "$m" >>"$ir/modules.order"
done
(cd "$ir" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$dir/initrd.gz"
echo "$release" >"$dir/release"
depmod -b "$dir/pkg" "$release"
# only what a boot needs is kept
rm -rf "$dir/dl" "$dir/pkg/boot" "$dir/pkg/usr" "$ir"
echo "$stamp" >"$dir/stamp"
cat "$dir/release"
