/*
 * A parsed printf-style format (printf(), system(), cat()): parsed and
 * checked once at compile time (lang/fmt_parse.h), applied to each event
 * record in user space (runtime/fmt.h). See runtime/fmt.h for the
 * semantics, which are bpftrace 0.17's.
 */
#ifndef SONDE_MODEL_FMT_H
#define SONDE_MODEL_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
