/*
 * The printf engine: format strings of printf(), system() and cat(), plus
 * the time() and strftime() formatters.
 *
 * A format is parsed once at compile time (fmt_parse), checked against the
 * argument types (fmt_check), and applied in user space to each event
 * record the BPF program sends (fmt_format).
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

struct arena;
struct strbuf;
struct type;

/* bpftrace: "printf() takes up to 128 arguments", the format included. */
#define FMT_MAX_ARGS 127

enum fmt_conv {
	FMT_INT,   /* d u x X o */
	FMT_CHAR,  /* c */
	FMT_PTR,   /* p */
	FMT_STR,   /* s */
	FMT_BUF,   /* r: printable bytes as is, others \xNN */
	FMT_BUF_X, /* rx: every byte \xNN */
	FMT_BUF_H, /* rh: "61 62 0a" */
};

enum fmt_len { FMT_LEN_NONE, FMT_LEN_HH, FMT_LEN_H, FMT_LEN_LONG };

struct fmt_seg {
	bool is_conv;
	/* Text: the bytes to print (may hold NULs). Conversion: the spec as
	 * written, e.g. "%-08.3lx". */
	const char *text;
	size_t len;
	/* Conversions only. */
	enum fmt_conv conv;
	enum fmt_len length;  /* l, ll, j, z and t are all 64-bit */
	const char *name;     /* length + conversion, "lx", for messages */
	const char *cspec;    /* the C spec that prints it: "%-08.3llx" */
	bool left;            /* '-' */
	bool zero;            /* width written with a leading 0 */
	int width, prec;      /* -1: not given */
	uint32_t arg;         /* index of the argument it takes */
	bool dead;            /* takes its argument but prints nothing */
};

struct fmt {
	struct fmt_seg *segs;
	uint32_t nsegs;
	uint32_t nconv; /* arguments expected */
};

/* Parses fmt[0..len) (escapes already decoded). Never fails: text that is
 * not a conversion is literal. Everything lives in the arena, so use one
 * that outlives the run if the runtime keeps the result. */
const struct fmt *fmt_parse(struct arena *a, const char *fmt, size_t len);

/* fmt_error.arg when the format string itself is at fault. */
#define FMT_AT_FORMAT (-1)

struct fmt_error {
	const char *msg; /* "printf: %d specifier expects ...", arena-owned */
	int arg;         /* offending argument index, or FMT_AT_FORMAT */
};

/*
 * Checks n argument types against the format; fn ("printf", "system",
 * "cat") prefixes the message. Returns 0, or -EINVAL with *err filled for
 * the first problem, worded as bpftrace 0.17 words it:
 *   "printf: Not enough arguments for format string (1 supplied, 2 expected)"
 *     (arg: FMT_AT_FORMAT)
 *   "printf: Too many arguments for format string (2 supplied, 1 expected)"
 *     (arg: the first surplus argument)
 *   "printf: %d specifier expects a value of type integer (string supplied)"
 */
int fmt_check(struct arena *a, const struct fmt *f, const char *fn,
	      const struct type *const *args, uint32_t n,
	      struct fmt_error *err);

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
