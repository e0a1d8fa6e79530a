/*
 * The printf engine: format strings of printf(), system() and cat(), plus
 * the time() and strftime() formatters.
 *
 * A format is parsed once at compile time (lang/fmt_parse.h: fmt_parse,
 * checked against the argument types by fmt_check), and applied here in
 * user space to each event record the BPF program sends (fmt_format).
 *
 * Semantics are bpftrace 0.26's (format_string.cpp), which formats each
 * conversion through a C++ stream:
 *   - a conversion is %[-][+][ ][#][0][WIDTH|*][.PREC](LEN)CONV, the flags
 *     in that order, LEN any of h l L j z t, CONV one of d i o u x X c p s
 *     r rx rh gr (e E f F g G a A n are refused when checked); anything
 *     else, such as "%0-5d", is printed literally; "%%" (and "%5%") is '%';
 *   - the text between conversions is printed as written;
 *   - d i are signed and u o x X unsigned, at the width the length
 *     modifier names (int or unsigned int without one); c is that byte,
 *     a NUL too; p is 0x and hex of all 64 bits ("0" for 0); gr names GFP
 *     flags; s is the value as print() would write it (a string with its
 *     "..", a tuple, a symbol ...); r rx rh write a buffer's bytes;
 *   - WIDTH pads with spaces, or zeros with '0', on the left, or on the
 *     right with '-' (a stream's padding: "%05d" of -5 is "000-5"); '+'
 *     signs signed numbers; '#' puts 0x or 0 before hex and octal; a
 *     '*' width, the space flag and the precision change nothing.
 */
#ifndef SONDE_FMT_H
#define SONDE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/fmt.h"

struct strbuf;
struct type;

/* Renders any value as print() would (what %s prints). */
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
 * plus fmt_boot_epoch_ns(). "%f" prints the microseconds, 6 digits, "%k"
 * the nanoseconds (9) and "%l" the milliseconds (3), bpftrace 0.26's
 * extensions; as in bpftrace each is replaced before strftime(3) sees the
 * format, even in "%%f". On error appends "(?)" (what bpftrace prints) and returns
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
