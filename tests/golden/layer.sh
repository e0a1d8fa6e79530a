#!/bin/bash
# Golden layer (no kernel): sonde's debug dumps compared with checked-in files.
#   tests/golden/ast/NAME.bt  ->  sonde --dump ast NAME.bt  must print NAME.ast
#   tests/golden/bpf/NAME.bt  ->  sonde --dump bpf NAME.bt  must print NAME.bpf
# sonde runs from inside the directory, so paths in the output are relative.
# Each must exit 0. A listing is only as good as the kernel's word on it:
# as root, every bpf/NAME.bt must also load through the verifier
# (`sonde --verify`, the same compile; bpf/NAME:loads), so a listing that
# the kernel refuses is never an expectation. Review the diff when the
# output changes on purpose, then rewrite the files you name (a list of
# names or patterns; see tests/lib.sh):
#   UPDATE_GOLDEN='bpf/casts,ast/*' tests/run.sh --layers golden
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"

ntests=0
for kind in ast bpf; do
	dir=$TOP/tests/golden/$kind
	scratch=$BUILD/golden/$kind
	mkdir -p "$scratch"
	cd "$dir" 2>/dev/null || continue
	for bt in *.bt; do
		[ -f "$bt" ] || continue
		ntests=$((ntests + 1))
		name=${bt%.bt}
		exp=$name.$kind out=$scratch/$name.out err=$scratch/$name.err
		run_sonde "$out" "$err" --dump "$kind" "$bt"
		if why=$(status_problem 0 "$err") && [ -z "$why" ]; then
			if update_golden "$exp" "$out" "$kind/$name"; then
				:
			elif [ ! -f "$exp" ]; then
				echo "not ok $kind/$name: no $exp (create it with UPDATE_GOLDEN=$kind/$name)"
			elif cmp -s "$exp" "$out"; then
				echo "ok $kind/$name"
			else
				echo "not ok $kind/$name: output differs from $exp"
				show_diff "$exp" "$out"
			fi
		else
			echo "not ok $kind/$name: $why"
			indent "$err" 10
		fi
		[ "$kind" = bpf ] || continue
		if [ "$(id -u)" != 0 ]; then
			echo "skip $kind/$name:loads: not root (loading needs BPF)"
			continue
		fi
		run_sonde "$out.verify" "$err.verify" --verify "$bt"
		if grep -qE 'the kernel refuses [a-z_]+ programs|cannot run here' "$err.verify"; then
			echo "skip $kind/$name:loads: this kernel lacks what it needs: $(head -n 1 "$err.verify" | sed 's/^sonde: //')"
		else
			verify_result "$kind/$name:loads" "$out.verify" "$err.verify"
		fi
	done
done
[ $ntests -gt 0 ] || echo "skip golden: no tests/golden/{ast,bpf}/*.bt yet"
layer_done
