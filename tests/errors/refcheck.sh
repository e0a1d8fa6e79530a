#!/bin/bash
# Checks the errors corpus's expectations (NAME.err, sonde's own output)
# against bpftrace's messages for the same scripts, from committed files
# only (bpftrace is not run here):
#   ref017/NAME.txt  bpftrace 0.17 run on NAME.bt (bpftrace_ref.sh)
#   ref026/NAME.txt  bpftrace 0.26.1's expected message for the same
#                    construct, copied from its test suite
# For each NAME.bt it prints one line: "ok ref:NAME" when sonde's first
# error agrees with every reference NAME has or each disagreement is
# listed in DIFFERENCES.md; "not ok ref:NAME: ..." naming the first one
# that is not; "skip ref:NAME: no bpftrace message" when NAME has no
# reference recorded.
#
# What is compared, and the normalizations (nothing else is):
#  - the first error line of each side: "FILE:L:C: ERROR: MSG", "ERROR:
#    MSG", clang's "FILE:L:C: error: MSG" (or "fatal error:") for C
#    definitions, or LLVM's
#    "error: MSG"; its text
#    MSG exactly, and its place L:C (file names are not compared: 0.26's
#    suite says stdin);
#  - the place by its start, L:C1, of the range all three print (L:C1-C2;
#    L1-L2 for a span over lines has no start column and is compared as
#    no place): 0.17's spans are bison's, its ends not comparable;
#  - the place against ref026 only when the 0.26 test's source line is
#    sonde's (its scripts are other scripts; ref017 ran this very file),
#    and then the whole range, which the entry shows;
#  - a 0.26 runtime test's EXPECT_REGEX: sonde's MSG must match it (ERE,
#    whole message; after "ERROR.*", the pattern from that ".*" on);
#  - ref017: the dry run's first error; when the dry run accepted the
#    script and the real run failed, the real run's; a script 0.17
#    accepts (or hangs or crashes on) reads "accepted" (...), which
#    differs from any sonde error;
#  - bytes outside printable ASCII are written \xHH in the summaries.
# A difference is listed in DIFFERENCES.md by the line
#   - NAME REF: sonde `` SONDE `` / bpftrace `` BPFTRACE ``
# (REF 017 or 026, each side "L:C: MSG" or "MSG"), which may go on with
# " — " and a note; the reason is the section it is in. The line holds sonde's
# message, so an entry stops counting when the .err changes.
#   tests/errors/refcheck.sh            result lines
#   tests/errors/refcheck.sh --entries  the lines DIFFERENCES.md lacks
set -u
cd "$(dirname "$0")" || exit 1
mode=check
[ "${1:-}" = --entries ] && mode=entries
DIFFS=DIFFERENCES.md

# first_error FILE REF: "KIND<US>LOC<US>MSG<US>SRC<US>RANGE" for FILE's
# first error. KIND: error, regex (a 0.26 EXPECT_REGEX), or, for ref017,
# accepted/other outcomes with no message; LOC "L:C" or "-", RANGE the
# place as written ("L:C1-C2", "L1-L2") or "-"; SRC the
# line after the error line (its source line), for the place rule. US
# is the unit separator \x1f: read would merge empty fields between tabs.
first_error() {
	LC_ALL=C awk -v ref="$2" '
	function esc(s,   i, c, o) {
		o = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c >= " " && c <= "~") o = o c
			else o = o sprintf("\\x%02x", ord[c])
		}
		return o
	}
	# parse(line): sets kind/loc/msg when line is an error line
	function parse(line,   p, pre, a, s) {
		if ((p = index(line, ": ERROR: ")) > 0) {
			pre = substr(line, 1, p - 1); msg = substr(line, p + 9)
		} else if ((p = index(line, ": error: ")) > 0) {
			pre = substr(line, 1, p - 1); msg = substr(line, p + 9)
		} else if ((p = index(line, ": fatal error: ")) > 0) {
			pre = substr(line, 1, p - 1); msg = substr(line, p + 15)
		} else if (line ~ /^error: /) {
			pre = ""; msg = substr(line, 8)
		} else if ((p = index(line, "ERROR: ")) > 0) {
			pre = substr(line, 1, p - 1); msg = substr(line, p + 7)
		} else if (line ~ /^EXPECT_REGEX / &&
			   (p = index(line, "ERROR.*")) > 0) {
			# a pattern that skips what follows ERROR (0.26.1
			# dwunwind test): the message is what that .* takes
			pre = "EXPECT_REGEX "; msg = substr(line, p + 5)
		} else
			return 0
		kind = (pre ~ /^EXPECT_REGEX /) ? "regex" : "error"
		loc = "-"; range = "-"
		if (match(pre, /:[0-9]+:[0-9]+(-[0-9]+)?(-[0-9]+:[0-9]+)?$/)) {
			s = substr(pre, RSTART + 1)
			split(s, a, /[:-]/)
			loc = a[1] ":" a[2]; range = s
		} else if (match(pre, /:[0-9]+-[0-9]+$/)) {
			range = substr(pre, RSTART + 1) # lines: no column
		}
		return 1
	}
	BEGIN { for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i; section = 0; US = "\037" }
	found == 1 { src = $0; found = 2 }
	found { next }
	ref == "017" && /^# bpftrace / {
		section++
		outcome[section] = $0
		sub(/^[^)]*\): /, "", outcome[section])
		next
	}
	/^# / { next }
	ref == "017" && section == 2 && outcome[2] !~ /^exit [1-9]/ { next }
	parse($0) { found = 1; src = "" }
	END {
		if (!found) {
			if (ref != "017" || section == 0) { print "none" US "-" US US US "-"; exit }
			# no error line: what bpftrace did instead
			o = outcome[section]
			if (section == 2 && o ~ /still running/) o = "accepted (dry run exit 0, ran until stopped)"
			else if (o ~ /^exit 0/) o = "accepted (exit 0)"
			else if (o ~ /^exit [0-9]+$/) o = o " with no error message"
			kind = "accepted"; loc = "-"; range = "-"; msg = o
		}
		if (kind == "regex") print kind US loc US msg US src US range
		else print kind US loc US esc(msg) US esc(src) US range
	}' "$1"
}

# summary LOC MSG: "L:C: MSG" or "MSG"
summary() { if [ "$1" = - ]; then printf '%s' "$2"; else printf '%s: %s' "$1" "$2"; fi; }

# The entry lines of DIFFERENCES.md, each without its note (" — ..."),
# read once: a lookup per difference instead of a process.
declare -A entry
if [ -f "$DIFFS" ]; then
	while IFS= read -r l; do
		[[ $l == "- "* ]] && entry[${l%% — *}]=1
	done <"$DIFFS"
fi
# listed LINE: whether DIFFERENCES.md has LINE (with or without a note)
listed() { [ -n "${entry[$1]+x}" ]; }

for bt in *.bt; do
	[ -f "$bt" ] || continue
	name=${bt%.bt}
	refs=()
	for r in 017 026; do [ -f "ref$r/$name.txt" ] && refs+=("$r"); done
	if [ ${#refs[@]} = 0 ]; then
		[ $mode = check ] && echo "skip ref:$name: no bpftrace message"
		continue
	fi
	if [ ! -f "$name.err" ]; then
		[ $mode = check ] && echo "not ok ref:$name: no $name.err"
		continue
	fi
	IFS=$'\x1f' read -r skind sloc smsg ssrc srange < <(first_error "$name.err" sonde)
	if [ "$skind" != error ]; then
		[ $mode = check ] && echo "not ok ref:$name: $name.err has no error line"
		continue
	fi
	problem=
	for r in "${refs[@]}"; do
		IFS=$'\x1f' read -r bkind bloc bmsg bsrc brange < <(first_error "ref$r/$name.txt" "$r")
		same=0 sl=$sloc
		case $bkind in
		error)
			if [ "$bmsg" = "$smsg" ]; then
				same=1
				# the place: always for 0.17 (the same file), for
				# 0.26 only on the same source line, and whole
				if [ "$bloc" != - ] && [ "$r" = 017 ]; then
					[ "$bloc" = "$sloc" ] || same=0
				elif [ "$bloc" != - ] && [ "$bsrc" = "$ssrc" ]; then
					bloc=$brange sl=$srange
					[ "$bloc" = "$sl" ] || same=0
				fi
			fi
			;;
		regex)
			# bpftrace's runner matches with Python's re; its
			# patterns here use only what ERE shares with it.
			printf '%s\n' "$smsg" | grep -qE "^(${bmsg})\$" && same=1
			bloc=- ;;
		none) bmsg="(no error line)" ;;
		esac
		[ $same = 1 ] && continue
		line="- $name $r: sonde \`\` $(summary "$sl" "$smsg") \`\` / bpftrace \`\` $(summary "$bloc" "$bmsg") \`\`"
		if ! listed "$line"; then
			if [ $mode = entries ]; then
				printf '%s\n' "$line"
			elif [ -z "$problem" ]; then
				problem="sonde's message differs from bpftrace $r's and $DIFFS does not list it"
				detail=$line
			fi
		fi
	done
	[ $mode = check ] || continue
	if [ -n "$problem" ]; then
		echo "not ok ref:$name: $problem"
		echo "    wanted in $DIFFS: $detail"
	else
		echo "ok ref:$name"
	fi
done
exit 0
