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
# Circles between the modules of a folder (scripts/include_graph.sh: A.c
# needs B.c when a header A.c includes declares a function B.c defines
# and A.c calls it): codegen's were once 15 files all needing each other,
# sema's four; at most 5 in codegen (the issue's bound) and none in lang.
for rule in codegen:5 lang:0; do
	d=${rule%:*} max=${rule#*:}
	n=$("$TOP/scripts/include_graph.sh" --summary "$TOP/src/$d" 2>&1 |
		sed -n 's#^// largest cycle: \([0-9]*\) files$#\1#p')
	if ! [[ $n =~ ^[0-9]+$ ]]; then
		lint_result "cycles:$d" "scripts/include_graph.sh gave no figure"
	elif [ "$n" -gt "$max" ]; then
		lint_result "cycles:$d" "a circle of $n files (at most $max): $("$TOP/scripts/include_graph.sh" --summary "$TOP/src/$d" | grep '^// cycle' | head -3 | tr '\n' ' ')"
	else
		lint_result "cycles:$d" ""
	fi
done
layer_done
