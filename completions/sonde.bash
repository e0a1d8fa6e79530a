# bash completion for sonde(8): options (read from `sonde -h`, so they stay
# current), their arguments, probe types, and probe names through
# `sonde -l PREFIX*` (after -l, and for the probe being written in -e's
# program or as a probe word of its own).
#
# Installed by `make install` in PREFIX/share/bash-completion/completions.

# Probe types, with the ':' that follows them (BEGIN and END stand alone).
_sonde_probe_types='BEGIN END tracepoint: rawtracepoint: kprobe: kretprobe:
kfunc: kretfunc: uprobe: uretprobe: usdt: software: hardware: profile:
interval: watchpoint: asyncwatchpoint:'

# _sonde_probe_candidates PREFIX: one probe type or probe name per line.
_sonde_probe_candidates()
{
	local p=$1 sonde=${_sonde_cmd:-sonde} IFS=$' \t\n'
	if [[ $p != *:* ]]; then
		compgen -W "$_sonde_probe_types" -- "$p"
		return
	fi
	"$sonde" -l "$p*" 2>/dev/null
}

_sonde()
{
	local cur prev line
	_sonde_cmd=${COMP_WORDS[0]}
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	# COMP_WORDS splits at ':'; the whole word up to the cursor:
	line=${COMP_LINE:0:COMP_POINT}
	local word=${line##*[[:space:]\'\"\{\,]}
	# the words before it, for the option the word belongs to
	local before=${line%"$word"}
	before=${before%%[[:space:]\'\"]}
	local opt=${before##*[[:space:]]}
	[[ $cur == : || $prev == : || $word == *:* ]] || opt=$prev
	COMPREPLY=()
	case $opt in
	-B) COMPREPLY=($(compgen -W "none line full" -- "$cur")); return ;;
	-f) COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
	--dump) COMPREPLY=($(compgen -W "ast ir bpf" -- "$cur")); return ;;
	-c) COMPREPLY=($(compgen -c -- "$cur")); return ;;
	-p) COMPREPLY=($(compgen -W "$(cd /proc && echo [0-9]*)" -- "$cur"))
	    return ;;
	-t) COMPREPLY=($(compgen -W "$("$_sonde_cmd" --tools 2>/dev/null |
		awk '/^[a-z]/ { print $1 }')" -- "$cur"))
	    return ;;
	-o | --folded | --flamegraph | --pprof | --heatmap-svg | --object | --emit-elf)
	    COMPREPLY=($(compgen -f -- "$cur")); return ;;
	esac
	if [[ $word == -* ]]; then
		COMPREPLY=($(compgen -W "$("$_sonde_cmd" -h 2>/dev/null |
			grep -oE '^ +(-[a-zA-Z], )?--?[a-zA-Z][a-z-]*' |
			sed -E 's/^ +//; s/, / /')" -- "$cur"))
		return
	fi
	if [[ $opt == -l || $opt == -e || $word == *:* ||
	      $line == *-e* ]]; then
		local IFS=$'\n' c
		# bash replaces only what follows the word's last ':'
		local keep=
		[[ $word == *:* ]] && keep=${word%:*}:
		for c in $(_sonde_probe_candidates "$word"); do
			COMPREPLY+=("${c#"$keep"}")
		done
		[[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *: ]] &&
			compopt -o nospace 2>/dev/null
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}

complete -F _sonde sonde
