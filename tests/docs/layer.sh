#!/bin/bash
# Docs layer (no kernel): the man page (docs/sonde.8) and the README must
# describe every option `sonde -h` shows, so that neither falls behind the
# code. One result per option and document. Every tool of tools/ has a row
# in the README's table and an entry in the man page's TOOLS section.
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

help=$("$SONDE" -h) || { echo "not ok docs: sonde -h failed"; exit 0; }
# Long options, then short ones, as they start the lines of the help.
opts=$(printf '%s\n' "$help" | grep -oE '^ +(-[a-zA-Z], )?--?[a-zA-Z][a-z-]*' |
	sed -E 's/^ +//; s/^-[a-zA-Z], //' | sort -u)
[ -n "$opts" ] || { echo "not ok docs: no options found in sonde -h"; exit 0; }
man=$TOP/docs/sonde.8
for o in $opts; do
	# troff writes '-' as '\-'
	if grep -qF -- "${o//-/\\-}" "$man"; then
		echo "ok man:$o"
	else
		echo "not ok man:$o: docs/sonde.8 does not mention $o"
	fi
	if grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" "$TOP/README.md"; then
		echo "ok readme:$o"
	else
		echo "not ok readme:$o: README.md does not mention $o"
	fi
done
for f in "$TOP"/tools/*.bt; do
	n=$(basename "$f" .bt)
	if grep -qF "| \`$n\` |" "$TOP/README.md"; then
		echo "ok readme-tool:$n"
	else
		echo "not ok readme-tool:$n: README.md's tool table has no row for $n"
	fi
	if grep -qE "^\.B $n( |$)" "$man"; then
		echo "ok man-tool:$n"
	else
		echo "not ok man-tool:$n: docs/sonde.8 has no TOOLS entry for $n"
	fi
done
exit 0
