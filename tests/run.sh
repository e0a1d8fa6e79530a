#!/bin/bash
# Runs every test layer and prints one summary line:
#   N passed, N failed, N skipped
# Each layer is tests/<layer>/layer.sh; it prints one line per test:
#   ok NAME | not ok NAME: why (more indented lines may follow) | skip NAME: why
# Usage: tests/run.sh [--build DIR] [--layers a,b,c] [-v]
set -u
cd "$(dirname "$0")/.."
BUILD=build
LAYERS=unit,golden,errors,docs,layers,completion,tools,install,object,emit,runtime,lifecycle,flamegraph,heatmap,metrics,pprof,vm
VERBOSE=0
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD=$2; shift 2 ;;
	--layers) LAYERS=$2; shift 2 ;;
	-v) VERBOSE=1; shift ;;
	*) echo "usage: $0 [--build DIR] [--layers a,b] [-v]" >&2; exit 2 ;;
	esac
done
export SONDE="$PWD/$BUILD/sonde" BUILD="$PWD/$BUILD" TOP="$PWD"

pass=0 fail=0 skip=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for layer in ${LAYERS//,/ }; do
	script=tests/$layer/layer.sh
	[ -x "$script" ] || { echo "not ok layer-$layer: $script missing"; fail=$((fail+1)); continue; }
	"$script" >"$out" 2>&1
	lp=$(grep -c '^ok ' "$out"); lf=$(grep -c '^not ok ' "$out"); ls=$(grep -c '^skip ' "$out")
	# A layer that dies without reporting a failure still fails.
	if [ "$lf" = 0 ] && [ "$lp" = 0 ] && [ "$ls" = 0 ]; then
		echo "not ok layer-$layer: printed no results"; lf=1
		sed 's/^/    /' "$out" | head -20
	fi
	if [ $VERBOSE = 1 ]; then cat "$out"; else grep -v '^ok ' "$out"; fi
	echo "# $layer: $lp passed, $lf failed, $ls skipped"
	pass=$((pass+lp)); fail=$((fail+lf)); skip=$((skip+ls))
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
