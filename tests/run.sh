#!/bin/bash
# Runs every test layer and prints two summary lines, the lint checks
# (the tree's text: documents, headers, files that must exist) apart from
# the tests of what sonde does:
#   lint: N passed, N failed
#   N passed, N failed, N skipped
# Each layer is tests/<layer>/layer.sh; it prints one line per result:
#   ok NAME | not ok NAME: why (more indented lines may follow) | skip NAME: why
#   lint ok NAME | lint not ok NAME: why
# and ends with "# layer done" (lib.sh's layer_done). A layer that exits
# non-zero, or ends without that line (killed, or its own script stopped
# halfway), is one more failure: the tests it did not reach are lost.
# Usage: tests/run.sh [--build DIR] [--layers a,b,c] [-v]
set -u
cd "$(dirname "$0")/.."
BUILD=build
LAYERS=unit,golden,errors,diff,docs,layers,completion,tools,install,static,deb,object,emit,runtime,lifecycle,flamegraph,heatmap,metrics,pprof,vm,arm64
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

pass=0 fail=0 skip=0 lpass=0 lfail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for layer in ${LAYERS//,/ }; do
	script=tests/$layer/layer.sh
	[ -x "$script" ] || { echo "not ok layer-$layer: $script missing"; fail=$((fail+1)); continue; }
	started=$SECONDS
	LAYER=$layer "$script" >"$out" 2>&1
	rc=$?
	took=$((SECONDS - started))
	lp=$(grep -c '^ok ' "$out"); lf=$(grep -c '^not ok ' "$out"); ls=$(grep -c '^skip ' "$out")
	llp=$(grep -c '^lint ok ' "$out"); llf=$(grep -c '^lint not ok ' "$out")
	if [ $VERBOSE = 1 ]; then cat "$out"; else grep -vE '^(lint )?ok |^# layer done$' "$out"; fi
	if [ $rc = 0 ] && [ $((lp + lf + ls + llp + llf)) = 0 ]; then
		echo "not ok layer-$layer: printed no results"
		lf=$((lf + 1))
	elif [ $rc != 0 ]; then
		echo "not ok layer-$layer: exited with status $rc$( [ $rc -gt 128 ] && echo " (SIG$(kill -l $((rc - 128)) 2>/dev/null))")"
		lf=$((lf + 1))
	elif ! grep -qx '# layer done' "$out"; then
		echo "not ok layer-$layer: stopped before its end (no '# layer done' line)"
		lf=$((lf + 1))
	fi
	# (the time: what .ci/run's 30-minute budget is spent on)
	echo "# $layer: $lp passed, $lf failed, $ls skipped$( [ $((llp + llf)) -gt 0 ] && echo "; lint: $llp passed, $llf failed") ($took s)"
	pass=$((pass+lp)); fail=$((fail+lf)); skip=$((skip+ls))
	lpass=$((lpass+llp)); lfail=$((lfail+llf))
done
echo "lint: $lpass passed, $lfail failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ] && [ $lfail = 0 ]
