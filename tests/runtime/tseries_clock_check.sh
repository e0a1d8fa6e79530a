# The checks of tseries_real_clock and tseries_boot_clock: $OUT holds
# the JSON of @s (1 per event of bursts of 5, 7 and 3 getpid() calls 600
# ms apart, in 200 ms intervals) and @mx (the millisecond within the
# minute of each interval's last event, by the clock the test names).
# "MAP START_MS VALUE" per interval, START_MS the ms within the minute
series() {
	grep "\"@$1\"" "$OUT" | grep -o '"interval_start":"[^"]*","value":[0-9-]*' |
		sed 's/.*:\([0-9][0-9]\)\.\([0-9]*\)","value":\(.*\)/\1 \2 \3/' |
		awk -v m="$1" '{ print m, $1 * 1000 + substr($2, 1, 3) + 0, $3, $2 }'
}
s=$(series s) mx=$(series mx)
[ "$(echo "$s" | awk '{ printf "%s ", $3 }')" = "5 7 3 " ] ||
	{ echo "@s's intervals are not 5, 7, 3:"; echo "$s"; exit 1; }
echo "$s" | awk '$4 !~ /^[0-9](00000000)$/ || ($2 % 200) { bad = 1 } END { exit bad }' ||
	{ echo "an interval does not start on a multiple of 200 ms:"; echo "$s"; exit 1; }
echo "$s" | awk 'NR > 1 { d = ($2 - p + 60000) % 60000; if (d < 400 || d > 1200) bad = 1 } { p = $2 } END { exit bad }' ||
	{ echo "intervals not 400 ms to 1.2 s apart:"; echo "$s"; exit 1; }
[ "$(echo "$s" | awk '{ print $2 }')" = "$(echo "$mx" | awk '{ print $2 }')" ] ||
	{ echo "@s and @mx have different intervals:"; echo "$s"; echo "$mx"; exit 1; }
echo "$mx" | awk '{ d = ($3 - $2 + 60000) % 60000; if (d >= 200) bad = 1 } END { exit bad }' ||
	{ echo "an event's clock is outside its interval:"; echo "$mx"; exit 1; }
