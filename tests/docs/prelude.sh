#!/bin/bash
# Lint (no kernel): docs/stdlib-prelude.md is what scripts/gen_stdlib_docs.sh
# writes from the prelude's comments (src/stdlib/*.bt), so that an entry
# added to the prelude, or a comment changed, is in the document. Sourced
# by tests/docs/layer.sh before its layer_done, or run on its own (it then
# prints its one line). Prints "lint ok prelude-docs" or "lint not ok
# prelude-docs: ..." with the difference, indented.
if ! declare -F lint_result >/dev/null; then
	TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
	# shellcheck source=tests/lib.sh
	. "$TOP/tests/lib.sh"
fi
prelude_docs_check() {
	local want=$TOP/docs/stdlib-prelude.md got why= d
	got=$(mktemp) || { lint_result prelude-docs "mktemp failed"; return; }
	if ! "$TOP/scripts/gen_stdlib_docs.sh" "$got" 2>"$got.err"; then
		why="scripts/gen_stdlib_docs.sh failed: $(head -1 "$got.err")"
	elif [ ! -f "$want" ]; then
		why="docs/stdlib-prelude.md is missing (run scripts/gen_stdlib_docs.sh)"
	elif ! d=$(diff -u "$want" "$got"); then
		why="docs/stdlib-prelude.md is not what scripts/gen_stdlib_docs.sh writes from src/stdlib/*.bt (run it)"
	fi
	lint_result prelude-docs "$why"
	[ -n "${d:-}" ] && [ -n "$why" ] && printf '%s\n' "$d" | head -20 | sed 's/^/    /'
	rm -f "$got" "$got.err"
}
prelude_docs_check
