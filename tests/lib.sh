# shellcheck shell=bash
# Helpers shared by the layer scripts (sourced, not run). Outputs of a test
# are kept in files, never in shell variables, because they may hold NUL
# bytes and invalid UTF-8.

# run_sonde OUT ERR ARGS...: runs $SONDE ARGS with no stdin, stdout to OUT,
# stderr to ERR, under a time limit ($SONDE_TIMEOUT seconds, default 20).
# Sets RC to the exit status.
run_sonde() {
	local out=$1 err=$2
	shift 2
	# The outer 2>/dev/null silences bash's own "Segmentation fault" report;
	# the crash is reported by status_problem instead.
	{ timeout -k 5 "${SONDE_TIMEOUT:-20}" "$SONDE" "$@" </dev/null >"$out" 2>"$err"; } 2>/dev/null
	RC=$?
}

# status_problem WANT ERR: prints why exit status RC (from run_sonde) is not
# WANT, or nothing when it is WANT and ERR holds no sanitizer report.
status_problem() {
	local want=$1 err=$2
	if grep -aqE '^SUMMARY: [A-Za-z]+Sanitizer' "$err"; then
		echo "sanitizer report (exit status $RC)"
	elif [ "$RC" = "$want" ]; then
		return 0
	elif [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
		echo "timed out after ${SONDE_TIMEOUT:-20}s"
	elif [ "$RC" = 126 ] || [ "$RC" = 127 ]; then
		echo "could not run $SONDE (exit status $RC)"
	elif [ "$RC" -ge 128 ]; then
		echo "crashed: killed by SIG$(kill -l $((RC - 128)) 2>/dev/null || echo $((RC - 128))) (exit status $RC), expected $want"
	else
		echo "exit status $RC, expected $want"
	fi
}

# indent FILE [N]: the first N (default 30) lines of FILE, indented, with
# control bytes and non-ASCII shown visibly (cat -v) so that the runner's
# grep never sees binary data.
indent() {
	head -n "${2:-30}" "$1" | cat -v | sed 's/^/    /'
}

# show_diff EXPECTED ACTUAL: a unified diff (first 30 lines), indented.
show_diff() {
	local d
	d=$(mktemp)
	diff -a -u --label "$1" --label actual "$1" "$2" >"$d"
	indent "$d" 30
	rm -f "$d"
}

# update_golden EXPECTED ACTUAL NAME: rewrites EXPECTED from ACTUAL only
# when the change is named: UPDATE_GOLDEN holds a comma-separated list of
# test names or shell patterns (UPDATE_GOLDEN='errors/map_*,bpf/casts'
# names the errors test map_* and the golden test bpf/casts; a name is
# matched with and without its layer's prefix). The diff is always shown,
# so a rewrite is reviewed where it is made. Returns 0 when it reported
# NAME (rewritten, or refused because the change was not named), 1 when
# UPDATE_GOLDEN is unset (the caller reports NAME as usual). A blanket
# UPDATE_GOLDEN=1 names nothing: one wrong rewrite of every expectation is
# how a bad listing once entered the history.
update_golden() {
	[ -n "${UPDATE_GOLDEN:-}" ] && [ "${UPDATE_GOLDEN}" != 0 ] || return 1
	if [ -f "$1" ] && cmp -s "$1" "$2"; then
		echo "ok $3"
		return 0
	fi
	local pat named=0
	local IFS=,
	for pat in $UPDATE_GOLDEN; do
		# shellcheck disable=SC2053 # the name is matched as a pattern
		if [[ $3 == $pat ]] || [[ ${LAYER:+$LAYER/}$3 == $pat ]]; then named=1; fi
	done
	unset IFS
	if [ $named = 1 ]; then
		echo "ok $3 # updated $1"
	else
		echo "not ok $3: differs from $1; UPDATE_GOLDEN does not name it (name it to accept: UPDATE_GOLDEN='${LAYER:+$LAYER/}$3')"
	fi
	if [ -f "$1" ]; then show_diff "$1" "$2"; else indent "$2" 30; fi
	[ $named = 1 ] && cp "$2" "$1"
	return 0
}

# verify_result NAME OUT ERR: the result of `sonde --verify` (run_sonde's
# RC, its stdout OUT and stderr ERR) once a layer has ruled out what this
# kernel lacks: ok NAME when it exited 0 and reported the programs that
# passed the verifier.
verify_result() {
	local why
	if ! why=$(status_problem 0 "$3") || [ -n "$why" ]; then
		echo "not ok $1: $why"
		indent "$3" 15
	elif ! grep -qE '^[0-9]+ programs? passed the verifier$' "$2"; then
		echo "not ok $1: no verifier report"
		indent "$2" 10
	else
		echo "ok $1"
	fi
}

# layer_done: the last line of every layer. tests/run.sh counts a layer
# that ends without it (killed, or stopped halfway by an error of its own
# script) as a failure, whatever it printed before.
layer_done() {
	echo "# layer done"
	exit 0
}

# lint_result NAME WHY: a check of the tree's text (a document mentions an
# option, a file exists, a header includes only what its layer may), not of
# what sonde does. tests/run.sh reports these on their own line, apart
# from the tests. Empty WHY: passed.
lint_result() {
	if [ -z "$2" ]; then
		echo "lint ok $1"
	else
		echo "lint not ok $1: $2"
	fi
}

# render_svg SVG DOM ERR: headless chromium runs the SVG's script and
# writes the resulting DOM to DOM (its messages to ERR).
render_svg() {
	local prof
	prof=$(mktemp -d)
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --user-data-dir="$prof" \
		--dump-dom "file://$1" >"$2" 2>"$3"
	rm -rf "$prof"
}

# start_sonde OUT ERR ARGS...: sonde (with --metrics among ARGS) in the
# background (pid SPID); waits for its "metrics at" line and sets URL to
# http://ADDR:PORT/metrics, or returns 1. stop_sonde ends it.
start_sonde() {
	local o=$1 e=$2
	shift 2
	timeout -k 5 60 "$SONDE" "$@" </dev/null >"$o" 2>"$e" &
	SPID=$!
	URL=
	for _ in $(seq 100); do
		URL=$(sed -n 's|^sonde: metrics at \(http://.*/metrics\)$|\1|p' "$e")
		[ -n "$URL" ] && return 0
		kill -0 "$SPID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
stop_sonde() {
	kill -TERM "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
}
