#!/bin/sh
# embed.sh FILE.bt: the prelude as C for lang/macro.c to include, written
# to stdout: the file's text as one string, and the names of its macros,
# sorted as strcmp sorts them, which the expander searches before it
# parses anything (a script that names none of them never pays for the
# prelude).
set -eu
f=$1
echo "/* Generated from $f by src/stdlib/embed.sh: do not edit. */"
echo "static const char prelude_text[] ="
# each line a C string: backslashes and quotes escaped, its newline kept
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' "$f"
echo ";"
echo "static const char *const prelude_names[] = {"
sed -n 's/^macro[ 	]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\)[ 	]*(.*/\1/p' "$f" |
	LC_ALL=C sort -u | sed 's/.*/	"&",/'
echo "};"
