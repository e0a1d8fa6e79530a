#!/bin/sh
# inroot.sh ARGS...: runs /sonde ARGS in the empty root $STATIC_ROOT (the
# static layer's): in a mount namespace of its own, with proc, sysfs and
# tracefs (at /sys/kernel/tracing) mounted in the root, then chrooted
# there. The pid stays the same from here to /sonde (each step execs), so
# a signal sent to this script reaches sonde. Exit status 125: a mount
# failed.
r=${STATIC_ROOT:?STATIC_ROOT names the root}
# shellcheck disable=SC2016 # the script is for the inner sh
exec unshare -m --propagation private /bin/sh -c '
r=$1
shift
mount -t proc proc "$r/proc" && mount -t sysfs sysfs "$r/sys" &&
	mount -t tracefs tracefs "$r/sys/kernel/tracing" || exit 125
exec chroot "$r" /sonde "$@"' inroot "$r" "$@"
