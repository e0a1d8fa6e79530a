#!/bin/bash
# Generates the error cases that are binary (NUL bytes, invalid UTF-8,
# control bytes) or large (deep nesting, garbage), so that their contents
# are reviewable here. Run from anywhere; writes into tests/errors.
# Files over 200 KB are not committed (see .gitignore): run this first.
set -eu
cd "$(dirname "$0")"

# rep STR N: STR repeated N times
rep() { local s=$1 n=$2 out=; for ((i = 0; i < n; i++)); do out+=$s; done; printf '%s' "$out"; }

# -- stray bytes in code --
printf 'BEGIN { @a = 1;\x01 }\n'                   > stray_control.bt
printf 'BEGIN { @a = 1;\x7f }\n'                   > stray_del.bt
printf 'BEGIN { @a\x00 = 1; }\n'                   > nul_in_code.bt
printf '\x00BEGIN { }\n'                           > nul_at_start.bt
printf 'BEGIN { @a = 1; }\n\x00'                   > nul_at_end.bt
# -- NUL and control bytes in strings --
printf 'BEGIN { printf("a\x00b\\n"); }\n'          > nul_in_string.bt
printf 'BEGIN { printf("a\x01b\x1bc"); }\n'        > control_in_string.bt
printf "BEGIN { @a = '\\x00'; @b = '\x00'; }\n"    > nul_in_char.bt
# -- invalid UTF-8 in code --
printf 'BEGIN { @a = \x80; }\n'                    > utf8_lone_continuation.bt
printf 'BEGIN { @a = \xc0\xaf; }\n'                > utf8_overlong.bt
printf 'BEGIN { @a = \xe2\x82; }\n'                > utf8_truncated.bt
printf 'BEGIN { @a = 1; }\n\xf0\x9f\x98'           > utf8_truncated_at_eof.bt
printf 'BEGIN { @a = \xed\xa0\x80; }\n'            > utf8_surrogate.bt
printf 'BEGIN { @a = \xff; }\n'                    > utf8_invalid_lead.bt
printf 'BEGIN { @a = \xc3\xa9; }\n'                > utf8_valid_char_in_code.bt
# -- invalid UTF-8 in strings and comments --
printf 'BEGIN { printf("a\x80b"); }\n'             > utf8_string_lone_continuation.bt
printf 'BEGIN { printf("a\xc0\xafb"); }\n'         > utf8_string_overlong.bt
printf 'BEGIN { printf("a\xe2\x82"); }\n'          > utf8_string_truncated.bt
printf 'BEGIN { printf("ok \xc3\xa9 \xe2\x88\x91"); @a = 1 +; }\n' > utf8_string_valid_then_error.bt
printf 'kprobe:vfs_\x80read { }\n'                 > utf8_in_attach_point.bt
# Comments may hold any bytes; the error after them must still be found.
printf 'BEGIN { /* \x80\xff\x00 */ @a = ; }\n'      > utf8_in_comment.bt

# -- deep nesting: refused cleanly, never a stack overflow --
{ printf 'BEGIN { @a = '; rep '(' 10000; printf '1'; rep ')' 10000; printf '; }\n'; } > deep_parens.bt
{ printf 'BEGIN {\n'; rep 'if (1) { ' 10000; printf '@a = 1;'; rep ' }' 10000; printf '\n}\n'; } > deep_if.bt
{ printf 'BEGIN {\n'; rep '{ ' 10000; rep '} ' 10000; printf '\n}\n'; } > deep_blocks.bt
{ printf 'BEGIN { @a = '; rep '- ' 10000; printf '1; }\n'; } > deep_unary_minus.bt
{ printf 'BEGIN { @a = '; rep '!' 10000; printf '1; }\n'; } > deep_unary_not.bt
{ printf 'BEGIN { @a = 1'; rep '+1' 100000; printf '; }\n'; } > long_chain_plus.bt
{ printf 'BEGIN { @a = $t'; rep '.0' 10000; printf '; }\n'; } > long_chain_tuple_index.bt
{ printf 'BEGIN { @a = '; rep '1 ? ' 10000; printf '1'; rep ' : 1' 10000; printf '; }\n'; } > deep_ternary.bt
{ printf 'struct a {\n'; rep 'struct { ' 10000; printf 'int x;'; rep ' };' 10000; printf '\n};\nBEGIN { }\n'; } > deep_struct.bt

# -- garbage: every byte value, deterministic (LCG), must not crash --
garbage() {
	awk -v n="$1" -v seed="$2" 'BEGIN {
		s = seed
		for (i = 0; i < n; i++) {
			s = (s * 1103515245 + 12345) % 2147483648
			printf "%c", int(s / 65536) % 256
		}
	}' LC_ALL=C
}
LC_ALL=C garbage 150000 1 > garbage_150k.bt
LC_ALL=C garbage 1048576 7 > garbage_1mb.bt
# 180 KB of valid code: the error is at the very end.
{ printf 'BEGIN {\n'; for ((i = 0; i < 20000; i++)); do printf '\t@a = 1;\n'; done; printf '\t@b = ;\n}\n'; } > big_script_error_at_end.bt

# -- hostile inputs (hostile_*: the layer also bounds their CPU time and
# memory): a long straight-line probe (100k statements, 1.3 MB: past the
# kernel's 1M instructions), a printf of 100 string literals of 1 KB
# (past the stack, the coalescing of their copies hung), a 1 MB literal,
# and unrolls nested into a million statements
{ printf 'BEGIN {\n'; for ((i = 0; i < 100000; i++)); do printf '@a = @a + 1;\n'; done; printf '}\n'; } > hostile_100k_statements.bt
kb=$(rep x 1024)
{ printf 'BEGIN { printf("'; rep '%s' 100; printf '\\n"'; for ((i = 0; i < 100; i++)); do printf ', "%s"' "$kb"; done; printf '); }\n'; } > hostile_100_literals_1kb.bt
{ printf 'BEGIN { printf("%%s\\n", "'; head -c 1048576 /dev/zero | tr '\0' y; printf '"); }\n'; } > hostile_literal_1mb.bt
printf 'BEGIN { unroll(100) { unroll(100) { unroll(100) { @a = @a + 1; } } } }\n' > hostile_unroll_nested.bt

