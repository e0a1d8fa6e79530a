#!/bin/bash
# Installs what sonde's build and tests need, on Debian 12 (bookworm).
# Idempotent: prints nothing and touches nothing when all is present. As
# root it installs what is missing with apt-get (running `apt-get update`
# once, only then); as another user it names what is missing and fails.
# It also mounts tracefs at /sys/kernel/tracing when it is not mounted.
set -u

# Package (why):
PKGS=(
	gcc make pkg-config                   # the build
	libbpf-dev libelf-dev zlib1g-dev      # sonde's libraries (libbpf, libelf, zlib)
	libmicrohttpd-dev                     # --metrics' HTTP server (optional: the build leaves --metrics out without it)
	libdw-dev                             # elfutils' libdw: DWARF of probed programs
	libiberty-dev                         # cplus_demangle (static: no run-time dependency)
	libprotobuf-c-dev protobuf-c-compiler # pprof profiles: protobuf encoding, and protoc-c compiling profile.proto at build time
	g++                                   # C++ test programs (demangling)
	clang libclang-rt-14-dev              # fuzzer + sanitizers (libclang_rt.fuzzer), BPF test objects
	llvm binutils                         # llvm-dwp and dwp: the DWARF packages of the split-DWARF tests
	bpftrace                              # the reference: comparison tests, /usr/sbin/*.bt
	bpftool                               # /usr/sbin/bpftool: inspecting loaded programs
	systemtap-sdt-dev                     # <sys/sdt.h> for USDT test programs
	chromium                              # headless rendering of flame graph and heatmap SVGs (tests/flamegraph, tests/heatmap)
	zsh                                   # the zsh completion's test (tests/completion)
	mount util-linux iproute2             # tool tests: losetup (a loop disk), unshare + ip (a netns)
	iputils-ping                          # bpftrace's suite (btrt): ping makes the packet drops of its kfree_skb tests
	prometheus curl                       # promtool and a real Prometheus server scraping --metrics (tests/metrics)
	qemu-system-x86 busybox-static cpio   # the VM layer (tests/vm): guests booting Debian's stock kernels
	zstd xz-utils kmod                    # ... unpacking those kernels and their modules (depmod)
	strace                                # runtime tests that prove what reached the kernel (bpf() calls)
	elfutils gdb                          # eu-stack and gdb: independent unwinders the DWARF stack tests compare with
	time                                  # /usr/bin/time: CPU time and peak memory of the hostile inputs (tests/errors), the compile benchmark
	golang-go                             # go tool pprof, the reader of every profile sonde writes (tests/pprof)
	libc6-dev liblzma-dev libbz2-dev      # make static: libc.a, and the liblzma.a and libbz2.a that libdw.a needs (the other .a come with the -dev packages above)
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross # make arm64: the cross compiler, arm64's libc.a and kernel headers (linux-libc-dev-arm64-cross); the other arm64 libraries are Debian's arm64 -dev packages unpacked into a sysroot (arm64.mk)
	qemu-system-arm                       # the arm64 layer (tests/vm arm64 guest)
	dpkg-dev debhelper lintian build-essential # make static: apt-get source and dpkg-source (libmicrohttpd, built without HTTPS); make deb: dpkg-buildpackage (which wants build-essential), dh; lintian (tests/deb)
)

# One dpkg-query for all; unknown packages print nothing and count as missing.
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${PKGS[@]}" 2>/dev/null |
	awk '$2 == "installed" { print $1 }')
missing=()
for p in "${PKGS[@]}"; do
	grep -qxF "$p" <<<"$installed" || missing+=("$p")
done

is_root() { [ "$(id -u)" = 0 ]; }

if [ ${#missing[@]} -gt 0 ]; then
	if ! is_root; then
		echo "deps.sh: missing packages: ${missing[*]}" >&2
		echo "deps.sh: as root, run: apt-get install ${missing[*]}" >&2
		exit 1
	fi
	echo "deps.sh: installing ${missing[*]}" >&2
	log=$(mktemp)
	trap 'rm -f "$log"' EXIT
	export DEBIAN_FRONTEND=noninteractive
	if ! { apt-get update -q &&
		apt-get install -y -q --no-install-recommends "${missing[@]}"; } </dev/null >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		echo "deps.sh: apt-get failed" >&2
		exit 1
	fi
fi

# Tracepoint formats and probe registration live in tracefs. Without it only
# the tracing tests suffer, so a failure to mount is a warning.
tr=/sys/kernel/tracing
if ! mountpoint -q "$tr" 2>/dev/null; then
	if ! is_root; then
		echo "deps.sh: warning: tracefs is not mounted at $tr (as root: mount -t tracefs tracefs $tr)" >&2
	elif ! mount -t tracefs tracefs "$tr" 2>/dev/null; then
		echo "deps.sh: warning: could not mount tracefs at $tr; tracing tests will be skipped" >&2
	fi
fi
exit 0
