/*
 * The printf engine: format strings of printf(), system() and cat(), plus
 * the time() and strftime() formatters.
 *
 * A format is parsed once at compile time (lang/fmt_parse.h: fmt_parse,
 * checked against the argument types by fmt_check), and applied here in
 * user space to each event record the BPF program sends (fmt_format).
 *
 * Semantics are bpftrace 0.17's, quirks included, because it formats with
 * the C printf family piece by piece:
 *   - a conversion is %[-][digits][.digits](LEN)CONV, with CONV one of
 *     d u x X o p (LEN: none hh h l ll j z t), c, s, r rx rh (buffers);
 *     nothing else is a conversion (no %i %e %f, no + # or space flags,
 *     no %ls): such text is printed literally;
 *   - the text before each conversion goes through C printf, so "%%" there
 *     prints "%"; the text after the last conversion is printed verbatim,
 *     so printf("100%%\n") prints "100%%";
 *   - "%%d" is counted as a conversion (it takes an argument) that prints
 *     "%d" and ignores its argument;
 *   - integers are widened to 64 bits by their own signedness, then read by
 *     the conversion as C does: %d/%x without LEN print the low 32 bits;
 *   - the output of one conversion stops at a NUL byte (%c of 0 prints
 *     nothing).
 */
#ifndef SONDE_FMT_H
#define SONDE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/fmt.h"

struct strbuf;
struct type;

/* Renders a value that is neither an integer, a string nor a buffer (ksym,
 * usym, kstack, inet, username, probe, timestamp ...) as text. */
typedef void (*fmt_value_fn)(struct strbuf *sb, const struct type *t,
			     const void *bytes, void *ctx);

/*
 * Appends the formatted text to out. Argument i has type args[i] and its
 * bytes at record + offsets[i] (the layout of types.h). The record holds
 * rec_len bytes; an argument outside it gives -EINVAL and no output.
 */
int fmt_format(struct strbuf *out, const struct fmt *f,
	       const struct type *const *args, const void *record,
	       size_t rec_len, const uint32_t *offsets, fmt_value_fn value,
	       void *ctx);

/*
 * Time. Both take nanoseconds since the Unix epoch and print local time.
 * Their output is at most 63 bytes (bpftrace's 64-byte buffer); longer or
 * empty output is an error, as strftime(3) returning 0 is in bpftrace.
 *
 * strftime(fmt, ns): ns is what the BPF side recorded (ns since boot)
 * plus fmt_boot_epoch_ns(). "%f" prints the microseconds, 6 digits; like
 * bpftrace 0.17 every "%f" is replaced before strftime(3) sees the format,
 * even in "%%f". On error appends "(?)" (what bpftrace prints) and returns
 * -ERANGE, and the caller reports "strftime returned 0".
 */
int fmt_strftime(struct strbuf *out, const char *fmt, uint64_t epoch_ns);
/* time(fmt): no "%f"; on error appends nothing and returns -ERANGE. */
int fmt_time(struct strbuf *out, const char *fmt, uint64_t epoch_ns);
/* Wall-clock time at boot, ns: CLOCK_REALTIME - CLOCK_BOOTTIME, sampled
 * as bpftrace does (best of 5). Negative -errno on failure. */
int64_t fmt_boot_epoch_ns(void);
/* The current wall-clock time, ns since the epoch (for time()). */
uint64_t fmt_now_ns(void);

#endif
