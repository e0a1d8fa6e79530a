#!/bin/bash
# Flame graph layer (root + BPF; the SVG test also needs chromium):
#   profile-folded  profile:hz:99 samples of the deep-call workload
#                   (tests/runtime/stackwl.c: main -> level1 -> level2 ->
#                   level3 -> spin) keyed by [kstack, ustack, comm]:
#                   the symbolised user frames appear in order, and the
#                   --folded file holds the map's entries: the sum of its
#                   counts is the map's total, every line starts with the
#                   comm and its user frames are the map's frames.
#   svg-render      the --flamegraph SVG of that run, rendered by headless
#                   chromium: the frames its script builds are in the DOM.
#   svg-first-screen, svg-deep-first-screen
#                   screenshots (1200x800, headless chromium) of that SVG
#                   and of one whose stacks are 120 frames deep
#                   (deepsvg.c): the root frame and the two levels above it
#                   are inside the first screen (firstscreen.py reads the
#                   PNG).
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"
RTDIR=$TOP/tests/runtime
# shellcheck source=tests/runtime/common.sh
. "$RTDIR/common.sh"

if [ "$(id -u)" != 0 ]; then
	echo "skip flamegraph: not root (the tests load BPF programs)"
	layer_done
fi
scratch=$BUILD/tests/flamegraph
rm -rf "$scratch"
mkdir -p "$scratch"
build_workload "$BUILD/tests/runtime" || { echo "not ok flamegraph-workload: cannot compile the workloads"; layer_done; }

out=$scratch/out err=$scratch/err folded=$scratch/stacks.folded svg=$scratch/stacks.svg
run_sonde "$out" "$err" -q --folded "$folded" --flamegraph "$svg" \
	-e 'profile:hz:99 /pid == cpid/ { @[kstack, ustack, comm] = count(); }' \
	-c "$SWL 30000"

# The map's total and the total of the folded counts.
map_total=$(grep -aoE '\]: [0-9]+$' "$out" | awk '{ s += $2 } END { print s + 0 }')
folded_total=$(awk '{ s += $NF } END { print s + 0 }' "$folded" 2>/dev/null)
chain='main;level1;level2;level3;spin'
if why=$(status_problem 0 "$err") && [ -z "$why" ]; then
	if [ "$map_total" -lt 10 ]; then
		why="only $map_total samples of the workload"
	elif ! tr '\n' ' ' <"$out" | grep -qE 'spin\+[0-9]+ +level3\+[0-9]+ +level2\+[0-9]+ +level1\+[0-9]+ +main\+[0-9]+'; then
		why="no symbolised spin, level3, level2, level1, main frames in order in the map"
	elif [ ! -s "$folded" ]; then
		why="no folded output"
	elif [ "$folded_total" != "$map_total" ]; then
		why="folded counts sum to $folded_total, the map's to $map_total"
	elif grep -qv '^stackwl;' "$folded"; then
		why="a folded line does not start with the comm"
	elif ! awk -v c="$chain" -v t="$map_total" \
		'index($0, c) { n += $NF } END { exit !(n * 2 >= t) }' "$folded"; then
		why="fewer than half the samples are in $chain"
	fi
fi
if [ -n "$why" ]; then
	echo "not ok profile-folded: $why"
	indent "$err" 10
	indent "$folded" 10
else
	echo "ok profile-folded"
fi

# The SVG, rendered. --dump-dom prints the DOM after the scripts ran:
# every frame the script drew has a <title>NAME (N samples, P%)</title>.
if ! command -v chromium >/dev/null; then
	echo "skip svg-render: chromium is not installed (apt-get install chromium)"
elif [ ! -s "$svg" ]; then
	echo "not ok svg-render: no SVG written"
else
	dom=$scratch/dom
	render_svg "$svg" "$dom" "$scratch/chromium.err"
	why=
	for f in all stackwl main level1 level2 level3 spin; do
		grep -qE "<title>$f \([0-9]+ samples, [0-9.]+%\)</title>" "$dom" ||
			{ why="no frame $f in the rendered DOM"; break; }
	done
	if [ -z "$why" ] && ! grep -q "<title>all ($map_total samples, 100.00%)</title>" "$dom"; then
		why="the root frame does not hold the $map_total samples"
	fi
	if [ -n "$why" ]; then
		echo "not ok svg-render: $why"
		indent "$dom" 10
	else
		echo "ok svg-render"
	fi
	deep=$scratch/deep.svg
	# the libraries the Makefile links sonde with
	libs="$(pkg-config --libs libbpf libelf zlib libdw libprotobuf-c) -liberty -pthread"
	pkg-config --exists libmicrohttpd && libs+=" $(pkg-config --libs libmicrohttpd)"
	${CC:-cc} -std=gnu11 -I"$TOP/src" "$TOP/tests/flamegraph/deepsvg.c" \
		-o "$scratch/deepsvg" "$BUILD/libsonde.a" $libs \
		2>"$scratch/deepsvg.err" && "$scratch/deepsvg" 120 >"$deep" ||
		{ echo "not ok svg-deep-first-screen: cannot build deepsvg.c"; indent "$scratch/deepsvg.err" 10; deep=; }
	for t in svg-first-screen:"$svg" svg-deep-first-screen:"$deep"; do
		name=${t%%:*} file=${t#*:}
		[ -n "$file" ] || continue
		prof=$(mktemp -d)
		rm -f "$scratch/$name.png"
		timeout 60 chromium --headless --no-sandbox --disable-gpu \
			--no-first-run --disable-background-networking \
			--disable-component-update --disable-sync \
			--user-data-dir="$prof" --window-size=1200,800 \
			--screenshot="$scratch/$name.png" "file://$file" \
			>/dev/null 2>"$scratch/chromium.err"
		rm -rf "$prof"
		if [ ! -s "$scratch/$name.png" ]; then
			echo "not ok $name: chromium wrote no screenshot"
			indent "$scratch/chromium.err" 10
		elif why=$(python3 "$TOP/tests/flamegraph/firstscreen.py" "$scratch/$name.png" 2>&1); then
			echo "ok $name"
		else
			echo "not ok $name: $why"
		fi
	done
fi
layer_done
