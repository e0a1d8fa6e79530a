#!/bin/bash
# Docs layer (no kernel): the man page (docs/sonde.8) and docs/usage.md
# must describe every option `sonde -h` shows, so that neither falls behind
# the code. One result per option and document. Every tool of tools/ has a
# row in docs/tools.md's table and an entry in the man page's TOOLS
# section. These are lint checks (of the documents' text), reported apart
# from the tests. An option is matched as a whole name: --emit-elf does
# not count as a mention of -e, nor --tools of --tool.
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

help=$("$SONDE" -h) || { lint_result docs "sonde -h failed"; layer_done; }
# Every name of every option, as they start the lines of the help:
# "-o, --output FILE" names -o and --output.
opts=$(printf '%s\n' "$help" | grep -oE '^ +(-[a-zA-Z], )?--?[a-zA-Z][a-z-]*' |
	sed -E 's/^ +//; s/, /\n/' | sort -u)
[ -n "$opts" ] || { lint_result docs "no options found in sonde -h"; layer_done; }
man=$TOP/docs/sonde.8
usage=$TOP/docs/usage.md
tools=$TOP/docs/tools.md
# troff writes '-' as '\-': the man page's name of an option is its name
# with each '-' escaped, not followed by another name character or '\-'
# and not preceded by '-' ('\fB\-e' names -e; '\-\-emit\-elf' names
# neither -e nor --emit).
B='\' # one backslash
for o in $opts; do
	troff=${o//-/[$B$B]-}
	why=
	grep -qE -- "(^|[^-])$troff([^a-zA-Z$B$B]|[$B$B][^-]|$)" "$man" || why="docs/sonde.8 does not mention $o"
	lint_result "man:$o" "$why"
	why=
	grep -qE -- "(^|[^a-zA-Z-])$o([^a-zA-Z-]|$)" "$usage" || why="docs/usage.md does not mention $o"
	lint_result "usage:$o" "$why"
done
for f in "$TOP"/tools/*.bt; do
	n=$(basename "$f" .bt)
	why=
	grep -qF "| \`$n\` |" "$tools" || why="docs/tools.md's tool table has no row for $n"
	lint_result "tools-table:$n" "$why"
	why=
	grep -qE "^\.B $n( |$)" "$man" || why="docs/sonde.8 has no TOOLS entry for $n"
	lint_result "man-tool:$n" "$why"
done
# the prelude's generated reference (docs/stdlib-prelude.md) is current
. "$TOP/tests/docs/prelude.sh"
layer_done
