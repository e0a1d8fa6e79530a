#!/bin/bash
# The diff layer's long mode: DIFF_RUNS programs (default 5000) from seed
# DIFF_FIRST (default 1001, after the layer's fixed 1..200), two batches
# at a time. Prints the layer's lines and ends with "N passed, N failed,
# N skipped"; exits 1 on a failure.
#   usage: tests/diff/run-long.sh [--build DIR]   (from the top of the tree)
set -u
cd "$(dirname "$0")/../.." || exit 1
build=build
[ "${1:-}" = --build ] && build=$2
export SONDE="$PWD/$build/sonde" BUILD="$PWD/$build" TOP="$PWD"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
DIFF_RUNS=${DIFF_RUNS:-5000} DIFF_FIRST=${DIFF_FIRST:-1001} DIFF_JOBS=${DIFF_JOBS:-2} \
	tests/diff/layer.sh | tee "$out" | grep -v '^ok '
p=$(grep -c '^ok ' "$out"); f=$(grep -c '^not ok ' "$out"); s=$(grep -c '^skip ' "$out")
if ! grep -qx '# layer done' "$out"; then
	echo "not ok diff-layer: stopped before its end (no '# layer done' line)"
	f=$((f + 1))
fi
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ] && [ $((p + s)) -gt 0 ]
