#!/bin/bash
# sysnr.sh NAME...: prints the syscall number of each NAME (one a line) on
# the machine the test programs are built for, from its kernel headers
# (<asm/unistd.h> through $CC, the compiler of the workloads: cc here, the
# arm64 layer's cross compiler there): a reference sonde did not write,
# for the tests that filter on a syscall number (getpid: 39 on x86-64,
# 172 on arm64). Exits 1 when a NAME has no number there.
set -eu -o pipefail
[ $# -gt 0 ] || { echo "usage: sysnr.sh NAME..." >&2; exit 2; }
# shellcheck disable=SC2086 # CC: a command and its options
nrs=$(for n in "$@"; do echo "__NR_$n"; done |
	${CC:-cc} -E -P -include asm/unistd.h -xc - | grep -v '^[[:space:]]*$')
i=0
for n in "$@"; do
	i=$((i + 1))
	nr=$(sed -n "${i}p" <<<"$nrs" | tr -d ' ()')
	[[ $nr =~ ^[0-9]+$ ]] || { echo "sysnr.sh: no syscall $n in <asm/unistd.h> (${CC:-cc}): $nr" >&2; exit 1; }
	echo "$nr"
done
