#!/bin/bash
# Unit layer: every built tests/unit/test_* binary (no kernel needed).
. "$TOP/tests/lib.sh"
cd "$TOP" || exit 1
for src in tests/unit/test_*.c; do
	bin=$BUILD/${src%.c}
	name=$(basename "${src%.c}")
	if [ ! -x "$bin" ]; then echo "not ok $name: not built"; continue; fi
	"$bin" > "$BUILD/$name.out" 2>&1
	rc=$?
	sed "s/^\(not ok\|ok\|skip\) /\1 $name./" "$BUILD/$name.out"
	# A crash after the last test line is a failure too.
	if [ $rc -ne 0 ] && ! grep -q '^not ok ' "$BUILD/$name.out"; then
		echo "not ok $name: exited with status $rc"
	fi
done
layer_done
