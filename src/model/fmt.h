/*
 * A parsed printf-style format (printf(), system(), cat()): parsed and
 * checked once at compile time (lang/fmt_parse.h), applied to each event
 * record in user space (runtime/fmt.h). See runtime/fmt.h for the
 * semantics, which are bpftrace 0.26's (its format_string.cpp).
 */
#ifndef SONDE_MODEL_FMT_H
#define SONDE_MODEL_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* bpftrace: "printf() takes up to 128 arguments", the format included. */
#define FMT_MAX_ARGS 127

enum fmt_conv {
	FMT_INT,   /* d i u o x X */
	FMT_CHAR,  /* c */
	FMT_PTR,   /* p */
	FMT_STR,   /* s (and the specifiers the check refuses) */
	FMT_BUF,   /* r: printable bytes as is, others \xNN */
	FMT_BUF_X, /* rx: every byte \xNN */
	FMT_BUF_H, /* rh: "61 62 0a" */
	FMT_GFP,   /* gr: GFP flags by name */
};
#define FMT_CONV_LAST FMT_GFP

struct fmt_seg {
	bool is_conv;
	/* Text: the bytes to print (may hold NULs), "%%" already one '%'.
	 * Conversion: the spec as written, e.g. "%-08lx". */
	const char *text;
	size_t len;
	/* Conversions only. */
	enum fmt_conv conv;
	const char *name;     /* the specifier: "d", "gr", "f" */
	const char *length;   /* the length modifier as written: "", "ll" */
	bool left;            /* '-': padded on the right */
	bool plus;            /* '+': a sign on signed numbers */
	bool alt;             /* '#': 0x / 0 before hex / octal */
	bool zero;            /* '0': padded with zeros */
	int width;            /* 0: none (a '*' width is none too) */
	uint32_t arg;         /* index of the argument it takes */
};

struct fmt {
	struct fmt_seg *segs;
	uint32_t nsegs;
	uint32_t nconv; /* arguments expected */
};

#endif
