/* time() and strftime(): see fmt.h. */
#include "fmt.h"

#include <errno.h>
#include <time.h>

#include "util/strbuf.h"

#define NSEC_PER_SEC 1000000000ULL

/* bpftrace 0.17 formats into a char[64]. */
#define TIME_BUF 64

static int format_tm(struct strbuf *out, const char *fmt, uint64_t epoch_ns)
{
	time_t sec = (time_t)(epoch_ns / NSEC_PER_SEC);
	struct tm tm;
	char buf[TIME_BUF];
	if (!localtime_r(&sec, &tm))
		return -EOVERFLOW;
	size_t n = strftime(buf, sizeof(buf), fmt, &tm);
	if (!n)
		return -ERANGE;
	sb_appendn(out, buf, n);
	return 0;
}

int fmt_strftime(struct strbuf *out, const char *fmt, uint64_t epoch_ns)
{
	unsigned nsec = (unsigned)(epoch_ns % NSEC_PER_SEC);
	struct strbuf f = STRBUF_INIT;
	/* bpftrace 0.26's extensions, found by a plain search as its regex
	 * does ("%%f" too): %f microseconds, %k nanoseconds, %l
	 * milliseconds, zero-padded */
	for (const char *s = fmt; *s;) {
		if (s[0] == '%' && s[1] == 'f') {
			sb_printf(&f, "%06u", nsec / 1000);
			s += 2;
		} else if (s[0] == '%' && s[1] == 'k') {
			sb_printf(&f, "%09u", nsec);
			s += 2;
		} else if (s[0] == '%' && s[1] == 'l') {
			sb_printf(&f, "%03u", nsec / 1000000);
			s += 2;
		} else {
			sb_putc(&f, *s++);
		}
	}
	int err = format_tm(out, sb_str(&f), epoch_ns);
	sb_free(&f);
	if (err)
		sb_append(out, "(?)");
	return err;
}

int fmt_time(struct strbuf *out, const char *fmt, uint64_t epoch_ns)
{
	return format_tm(out, fmt, epoch_ns);
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * (int64_t)NSEC_PER_SEC + ts->tv_nsec;
}

/* Two realtime reads around a boottime read; the pair closest together
 * of five tries gives the best estimate (bpftrace's "vdso sandwich"). */
int64_t fmt_boot_epoch_ns(void)
{
	int64_t best = -ENOENT, best_delta = INT64_MAX;
	for (int i = 0; i < 5; i++) {
		struct timespec before, boot, after;
		if (clock_gettime(CLOCK_REALTIME, &before) ||
		    clock_gettime(CLOCK_BOOTTIME, &boot) ||
		    clock_gettime(CLOCK_REALTIME, &after))
			return -errno;
		int64_t delta = ts_ns(&after) - ts_ns(&before);
		if (delta < best_delta) {
			best_delta = delta;
			best = ts_ns(&before) + delta / 2 - ts_ns(&boot);
		}
	}
	return best;
}

uint64_t fmt_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts_ns(&ts);
}
