#!/bin/bash
# A loop device for the block I/O tool tests, so that the disk the test
# measures carries only the test's I/O.
#   loopdev.sh setup     (in the test's scratch directory) makes an 8 MB
#                        image and a loop device on it; prints DEV=/dev/loopN
#                        and DISK=loopN; exits 77 (skip) where loop devices
#                        cannot be made
#   loopdev.sh cleanup DEV   detaches it
set -u
case "${1:-}" in
setup)
	command -v losetup >/dev/null || { echo "no losetup command"; exit 77; }
	[ -e /dev/loop-control ] || { echo "no loop device support (/dev/loop-control)"; exit 77; }
	truncate -s 8M loop.img || exit 1
	dev=$(losetup -f --show loop.img 2>&1) || { echo "losetup failed: $dev"; exit 77; }
	echo "DEV=$dev"
	echo "DISK=${dev#/dev/}"
	;;
cleanup)
	losetup -d "$2"
	;;
*)
	echo "usage: $0 setup | cleanup DEV" >&2
	exit 2
	;;
esac
