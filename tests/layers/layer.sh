#!/bin/bash
# Layers layer (no kernel): each folder of src/ includes headers only from
# the folders below it, as docs/DESIGN.md draws them. driver/ (the
# command line, the front end's pass list, the object runners) ties the
# stages together, as src/main.c does. One result per
# folder; a failure names every include that breaks the rule. src/main.c,
# which ties the stages together, may include anything. Lint checks (of
# the sources' text), reported apart from the tests.
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

# folder: the folders its files may include from (itself always)
rules="
util:
model: util
kernel: util model
backend: util model
probes: util model kernel
lang: util model kernel probes
codegen: util model kernel probes lang backend
runtime: util model kernel probes
object: util model kernel probes runtime
tools: util
stdlib:
driver: util model kernel backend probes lang codegen runtime object tools
"

folders=$(cd "$TOP/src" && find . -mindepth 1 -maxdepth 1 -type d | sed 's#^\./##' | sort)
for d in $folders; do
	line=$(printf '%s\n' "$rules" | grep -E "^$d:")
	if [ -z "$line" ]; then
		lint_result "layers:$d" "src/$d has no rule in tests/layers/layer.sh"
		continue
	fi
	allowed=" $d ${line#*:} "
	bad=$(grep -HnoE '^#include "[a-z_]+/' "$TOP/src/$d"/*.[ch] "$TOP/src/$d"/*.def 2>/dev/null |
		while IFS= read -r hit; do
			dep=${hit##*\"}; dep=${dep%/}
			case "$allowed" in *" $dep "*) ;; *) echo "    ${hit#"$TOP"/}";; esac
		done)
	if [ -n "$bad" ]; then
		lint_result "layers:$d" "includes from a folder it must not use (allowed: ${allowed# })"
		printf '%s\n' "$bad"
	else
		lint_result "layers:$d" ""
	fi
done
layer_done
