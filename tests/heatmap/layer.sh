#!/bin/bash
# Heatmap layer (root + BPF; the SVG test also needs chromium). The
# workload (sleepwl.c) sleeps 1 ms and 8 ms alternately in three phases of
# 6, 24 and 96 pairs; the script keeps a hist() of nanosleep latency in
# units of 100 us (1 ms lands in [8, 16), 8 ms in [64, 128), with room for
# the timer's slack) and prints and clears it at the end of each phase.
#   heatmap-term      --heatmap: one row per phase, then the exit print's
#                     empty row; in each, the cells of columns 8 and 64 have
#                     the shade of the phase's count (6: '-' 4-7, 24: '+'
#                     16-31, 96: '#' 64-127), every other cell a lighter
#                     shade (late wake-ups of a loaded machine), and the
#                     row's total is exact
#   heatmap-color     the same under a terminal (script(1), TERM with 256
#                     colours): cells are 256-colour grey backgrounds, and
#                     NO_COLOR turns them back into ASCII shades
#   heatmap-svg       --heatmap-svg of the same run, rendered by headless
#                     chromium: its script drew one cell per non-empty
#                     terminal cell, with hover text naming the buckets
#   heatmap-not-hist  bad input: --heatmap of a script with no hist()
#                     map, and --heatmap with -f json, are refused
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

scratch=$BUILD/tests/heatmap
rm -rf "$scratch"
mkdir -p "$scratch"

# Bad input first: it needs no BPF for -f json, but the map check runs
# after loading.
out=$scratch/bad.out err=$scratch/bad.err
run_sonde "$out" "$err" --heatmap -f json -e 'BEGIN { @h = hist(1); exit(); }'
why=
if [ "$RC" != 1 ]; then
	why="--heatmap -f json: exit status $RC, expected 1"
elif ! grep -q '^sonde: --heatmap draws text rows and cannot be used with -f json' "$err"; then
	why="--heatmap -f json: no clear message"
fi
if [ -z "$why" ] && [ "$(id -u)" = 0 ]; then
	run_sonde "$out" "$err" --heatmap -e 'BEGIN { @c = count(); @s = sum(2); exit(); }'
	if [ "$RC" != 1 ]; then
		why="--heatmap of count(): exit status $RC, expected 1"
	elif ! grep -q '^sonde: --heatmap draws hist() and lhist() maps, and the script has none (@c is count(), @s is sum())$' "$err"; then
		why="--heatmap of count(): not the expected message"
	fi
fi
if [ -n "$why" ]; then
	echo "not ok heatmap-not-hist: $why"
	indent "$err" 10
else
	echo "ok heatmap-not-hist"
fi

if [ "$(id -u)" != 0 ]; then
	echo "skip heatmap-term: not root (the tests load BPF programs)"
	layer_done
fi
if [ ! -e /sys/kernel/tracing/events/syscalls/sys_enter_nanosleep ] &&
	[ ! -e /sys/kernel/debug/tracing/events/syscalls/sys_enter_nanosleep ]; then
	echo "skip heatmap-term: no syscalls:sys_enter_nanosleep tracepoint"
	layer_done
fi
wl=$scratch/sleepwl
${CC:-cc} -O2 -o "$wl" "$TOP/tests/heatmap/sleepwl.c" ||
	{ echo "not ok heatmap-workload: cannot compile sleepwl.c"; layer_done; }

prog='tracepoint:syscalls:sys_enter_nanosleep /pid == cpid/ { @start[tid] = nsecs; }
tracepoint:syscalls:sys_exit_nanosleep /@start[tid]/ {
	@lat = hist((nsecs - @start[tid]) / 100000); delete(@start[tid]); }
tracepoint:syscalls:sys_exit_getppid /pid == cpid/ { print(@lat); clear(@lat); }'

# check_rows FILE: one line per heatmap row: "TOTAL SHADE8 SHADE64 STRAYS"
# (shades as characters, '_' for blank; STRAYS "ok" when every other cell
# is lighter than both).
check_rows() {
	awk '
	/^time +\|/ {
		# header: labels left-aligned in cells of equal width
		start = index($0, "|") + 1
		body = substr($0, start)
		sub(/\|.*/, "", body)
		n = split(body, lab, / +/)
		w = index(substr(body, 2), lab[2]) # start of the 2nd label
		ncol = length(body) / w
		for (c = 0; c < ncol; c++) col[lab[c + 1]] = c
		next
	}
	/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] +\|/ {
		s = index($0, "|") + 1
		rest = substr($0, s)
		cells = substr(rest, 1, ncol * w)
		total = substr(rest, ncol * w + 3)
		a = ("8" in col) ? substr(cells, col["8"] * w + 1, 1) : " "
		b = ("64" in col) ? substr(cells, col["64"] * w + 1, 1) : " "
		strays = "ok"
		shades = " .:-=+*#%@"
		top = index(shades, a) < index(shades, b) ? index(shades, a) : index(shades, b)
		for (c = 0; c < ncol; c++) {
			if (("8" in col) && c == col["8"]) continue
			if (("64" in col) && c == col["64"]) continue
			ch = substr(cells, c * w + 1, 1)
			if (ch != " " && index(shades, ch) >= top) strays = "bad"
		}
		if (a == " ") a = "_"
		if (b == " ") b = "_"
		print total, a, b, strays
	}' "$1"
}

out=$scratch/term.out err=$scratch/term.err svg=$scratch/lat.svg
run_sonde "$out" "$err" -q --heatmap --heatmap-svg "$svg" -e "$prog" -c "$wl 6 24 96"
printf '%s\n' "12 - - ok" "48 + + ok" "192 # # ok" "0 _ _ ok" >"$scratch/term.want"
check_rows "$out" >"$scratch/term.got"
if why=$(status_problem 0 "$err") && [ -z "$why" ]; then
	if ! grep -q "^@lat: hist() over time" "$out"; then
		why="no heatmap header"
	elif ! grep -qF "shades:  ' ' 0  '.' 1  ':' 2-3  '-' 4-7  '=' 8-15  '+' 16-31  '*' 32-63  '#' 64-127  '%' 128-255  '@' 256+" "$out"; then
		why="no legend"
	elif ! cmp -s "$scratch/term.want" "$scratch/term.got"; then
		why="rows (total, shade of column 8, of column 64, other cells)"
	fi
fi
if [ -n "$why" ]; then
	echo "not ok heatmap-term: $why"
	show_diff "$scratch/term.want" "$scratch/term.got"
	indent "$out" 20
	indent "$err" 10
else
	echo "ok heatmap-term"
fi

# Colour: script(1) gives sonde a terminal.
if ! command -v script >/dev/null; then
	echo "skip heatmap-color: script(1) is not installed (util-linux)"
else
	cout=$scratch/color.out
	TERM=xterm-256color NO_COLOR= timeout 30 script -qec "$SONDE -q --heatmap -e '$prog' -c '$wl 6'" /dev/null </dev/null >"$cout" 2>&1
	nout=$scratch/nocolor.out
	TERM=xterm-256color NO_COLOR=1 timeout 30 script -qec "$SONDE -q --heatmap -e '$prog' -c '$wl 6'" /dev/null </dev/null >"$nout" 2>&1
	esc=$(printf '\033')
	why=
	if ! grep -q "^[0-9:]\{8\} |.*${esc}\[48;5;2[345][0-9]m" "$cout"; then
		why="no 256-colour grey cell in a row under TERM=xterm-256color"
	elif grep -q "${esc}\[48;5;" "$nout"; then
		why="colour cells despite NO_COLOR=1"
	elif ! grep -q '^[0-9:]\{8\} |.*-' "$nout"; then
		why="no ASCII shades with NO_COLOR=1"
	fi
	if [ -n "$why" ]; then
		echo "not ok heatmap-color: $why"
		indent "$cout" 10
	else
		echo "ok heatmap-color"
	fi
fi

# The SVG of the first run, rendered.
if ! command -v chromium >/dev/null; then
	echo "skip heatmap-svg: chromium is not installed (apt-get install chromium)"
elif [ ! -s "$svg" ]; then
	echo "not ok heatmap-svg: no SVG written"
else
	# non-empty cells of the terminal rows
	want=$(awk '
	/^time +\|/ { body = substr($0, index($0, "|") + 1); sub(/\|.*/, "", body)
		split(body, lab, / +/); w = index(substr(body, 2), lab[2]); ncol = length(body) / w; next }
	/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] +\|/ { cells = substr($0, index($0, "|") + 1, ncol * w)
		for (c = 0; c < ncol; c++) if (substr(cells, c * w + 1, 1) != " ") n++ }
	END { print n + 0 }' "$out")
	dom=$scratch/dom
	render_svg "$svg" "$dom" "$scratch/chromium.err"
	got=$(grep -o '<rect class="cell"' "$dom" | wc -l)
	why=
	if [ "$got" != "$want" ]; then
		why="$got cells in the rendered DOM, $want non-empty cells in the terminal rows"
	elif ! grep -qE '<title>[0-9:]{8}  \[8, 16\): [0-9]+</title>' "$dom" ||
		! grep -qE '<title>[0-9:]{8}  \[64, 128\): [0-9]+</title>' "$dom"; then
		why="no hover text for the [8, 16) and [64, 128) cells"
	fi
	if [ -n "$why" ]; then
		echo "not ok heatmap-svg: $why"
		indent "$dom" 10
	else
		echo "ok heatmap-svg"
	fi
fi
layer_done
