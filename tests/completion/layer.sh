#!/bin/bash
# Completion layer: completions/sonde.bash and completions/_sonde complete
# a partial probe name through `sonde -l` (root: tracefs), probe types,
# options (read from `sonde -h`) and option arguments. bash runs the real
# _sonde with COMP_* set as readline sets them; zsh runs the real
# _sonde_probes with compadd/compset replaced by stand-ins that print
# what would be offered (zsh's completion widgets need a terminal).
# shellcheck source=tests/lib.sh
. "$TOP/tests/lib.sh"
C=$TOP/completions
bin=$(dirname "$SONDE")

# bash_complete LINE: the COMPREPLY for LINE with the cursor at its end.
bash_complete() {
	PATH=$bin:$PATH bash --norc -c '
		. "$1"
		line=$2
		COMP_LINE=$line COMP_POINT=${#line}
		# readline splits words at spaces and at ":" (COMP_WORDBREAKS)
		read -ra COMP_WORDS <<<"${line//:/ : }"
		case $line in *" " | *:) COMP_WORDS+=("") ;; esac
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_sonde
		printf "%s\n" "${COMPREPLY[@]}"' _ "$C/sonde.bash" "$1"
}

check() { # NAME GOT WANT
	if [ "$2" = "$3" ]; then
		echo "ok $1"
	else
		echo "not ok $1"
		printf '    want: %s\n' $3
		printf '    got:  %s\n' $2
	fi
}

tp=tracepoint:syscalls:sys_enter_getp
want=$("$SONDE" -l "$tp*" | sed 's/.*://')
if [ "$(id -u)" != 0 ] || [ -z "$want" ]; then
	echo "skip bash-probe-name: needs root and tracepoint $tp*"
	echo "skip zsh-probe-name: needs root and tracepoint $tp*"
else
	# bash puts back only what follows the word's last ':'
	check bash-probe-name "$(bash_complete "sonde -l $tp")" "$want"
	check bash-probe-in-program "$(bash_complete "sonde -e 'BEGIN { } ${tp}p")" \
		"$(grep '^sys_enter_getpp' <<<"$want")"
	if command -v zsh >/dev/null; then
		got=$(PATH=$bin:$PATH zsh -fc '
			compadd() { local -a a; while [[ $1 == -* ]]; do
				case $1 in -a) a=(${(P)2}); shift 2 ;;
				-S) shift 2 ;; *) shift ;; esac; done
				print -rl -- ${(M)a:#${PREFIX}*}; }
			compset() { [[ $1 == -P ]] && PREFIX=${PREFIX##$~2}; }
			_call_program() { shift; eval "$@"; }
			_arguments() { :; }
			source "$1"
			words=(sonde) PREFIX="BEGIN { } $2"
			_sonde_probes' _ "$C/_sonde" "$tp")
		check zsh-probe-name "$got" "$("$SONDE" -l "$tp*")"
	else
		echo "skip zsh-probe-name: no zsh"
	fi
fi
check bash-probe-types "$(bash_complete "sonde -l u")" "uprobe:
uretprobe:
usdt:"
check bash-options "$(bash_complete "sonde --fl")" "--flamegraph"
check bash-dump-listings "$(bash_complete "sonde --dump ")" "ast
ir
bpf"
check bash-format "$(bash_complete "sonde -f j")" "json"
# every option of sonde -h is offered after a bare '-'
opts=$("$SONDE" -h | grep -oE '^ +(-[a-zA-Z], )?--?[a-zA-Z][a-z-]*' |
	sed -E 's/^ +//; s/, /\n/' | sort)
check bash-all-options "$(bash_complete "sonde -" | sort)" "$opts"
if command -v zsh >/dev/null; then
	if zsh -n "$C/_sonde"; then echo "ok zsh-syntax"; else echo "not ok zsh-syntax"; fi
	# every long option of sonde -h has a spec in _sonde
	miss=$(grep -oE -- '--[a-z][a-z-]*' <<<"$opts" |
		while read -r o; do grep -qF -- "'$o[" "$C/_sonde" ||
			grep -qF -- "*$o[" "$C/_sonde" ||
			grep -qF -- ")$o[" "$C/_sonde" ||
			grep -qF -- ",$o}'" "$C/_sonde" || echo "$o"; done)
	check zsh-all-long-options "$miss" ""
fi
layer_done
