# shellcheck shell=bash
# Helpers for the CHECK blocks of tests/tools/*.test (sourced there):
#   . "$TOP/tests/tools/checks.sh"
# They read bpftrace's text output in $OUT.

# hist_rows HEADER: the "LABEL COUNT" rows of the histogram printed under the
# line HEADER (e.g. "@usecs[loop3]:"; bpftrace ends it with a space, which
# is ignored), one per line.
hist_rows() {
	awk -v h="$1" '
		{ line = $0; sub(/ +$/, "", line) }
		line == h { on = 1; next }
		on && /^[\[(]/ {
			label = $0; sub(/[)\]] .*/, "", label); sub(/^[\[(]/, "", label)
			rest = $0; sub(/^[^)\]]*[)\]] +/, "", rest); split(rest, f, " ")
			print label, f[1]; next
		}
		on { exit }
	' "$OUT"
}

# hist_total HEADER: the sum of the counts of that histogram (0 if absent).
hist_total() {
	hist_rows "$1" | awk '{ s += $NF } END { print s + 0 }'
}

# hist_count HEADER LABEL: the count of bucket LABEL ("32K, 64K" or "2, 3").
hist_count() {
	hist_rows "$1" | awk -v l="$2" '{ c = $NF; $NF = ""; sub(/ $/, "") } $0 == l { print c; f = 1 } END { if (!f) print 0 }'
}

# hist_from HEADER LOW [HIGH]: how many values that histogram holds in buckets
# whose lower bound is LOW or more (and below HIGH, when given); bounds like
# 32K and 1M are powers of 1024, as hist prints them.
hist_from() {
	hist_rows "$1" | awk -v lo="$2" -v hi="${3:-}" '
		function val(s) { if (s ~ /K$/) return s * 1024; if (s ~ /M$/) return s * 1048576; if (s ~ /G$/) return s * 1073741824; return s + 0 }
		$1 ~ /^[0-9]+[KMG]?,/ { split($1, a, ","); v = val(a[1]); if (v >= val(lo) && (hi == "" || v < val(hi))) s += $NF }
		END { print s + 0 }'
}

# want WHAT GOT OP N: fails (printing why) unless GOT OP N (-eq, -ge, -le).
want() {
	local ok=1
	case "$3" in
	-eq) [ "$2" -eq "$4" ] ;;
	-ge) [ "$2" -ge "$4" ] ;;
	-le) [ "$2" -le "$4" ] ;;
	*) false ;;
	esac 2>/dev/null && ok=0
	[ $ok = 0 ] || echo "$1 is $2, expected $3 $4"
	return $ok
}
