/*
 * Diagnostics with source locations. Every error carries a span and prints
 *   FILE:LINE:COL-ENDCOL: ERROR: MESSAGE
 *   <source line>
 *   <'~' under each character of the span>
 * as bpftrace 0.26 prints them (ENDCOL is the column after the span; a
 * span over several lines is FILE:LINE-ENDLINE, with its lines and no
 * marker), with bpftrace's words for the kind (ERROR, WARNING); one without a place
 * prints "ERROR: MESSAGE", as bpftrace's unlocated messages do.
 * Errors are collected (counted) so that several can be reported per run.
 */
#ifndef SONDE_DIAG_H
#define SONDE_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct src_file {
	const char *name; /* "stdin" for -e */
	const char *text; /* may contain NUL bytes; len is authoritative */
	uint32_t len;
};

struct span {
	const struct src_file *file;
	uint32_t off, len; /* byte range in file->text */
	uint32_t line, col; /* 1-based, of off */
};

struct diag {
	FILE *out;
	int nerrors;
	int max_errors; /* stop reporting (but keep counting) past this */
	bool no_warnings; /* --no-warnings: diag_warning prints nothing */
	/* An error repeated at the same place (a probe's body typed once
	 * per attach point) is counted in nerrors and in nrepeats, and
	 * printed once: recent holds the last ones' hashes. */
	int nrepeats;
	uint64_t recent[8];
	unsigned nrecent;
};

void diag_init(struct diag *d, FILE *out);
void diag_error(struct diag *d, struct span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* diag_error for wrappers that take their own variable arguments. */
void diag_verror(struct diag *d, struct span sp, const char *fmt, va_list ap);
/* An error in the script's C definitions (struct, union, enum,
 * typedef), worded "error:" as clang words it: bpftrace hands those
 * definitions to clang and prints its diagnostics. */
void diag_c_error(struct diag *d, struct span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A fatal error of bpftrace's C definitions as clang reports it, at
 * LINE of the file NAME bpftrace hands clang ("definitions.h") and sp's
 * column, followed by sp's line in the script and clang's marker. */
void diag_c_fatal(struct diag *d, const char *name, uint32_t line,
		  struct span sp, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void diag_warning(struct diag *d, struct span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The lines of sp and a marker under it, as after a report. */
void diag_source(FILE *out, struct span sp);
/* sp's place as a report starts with it: FILE:LINE:COL-ENDCOL, or
 * FILE:LINE-ENDLINE for a span over several lines (sp.file is set). */
void diag_place(FILE *out, struct span sp);
/* A located message of any kind ("WARNING" for bpftrace's run-time
 * helper errors), printed as the others; it counts as no error. */
void diag_report(struct diag *d, const char *kind, struct span sp,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A span covering a and b (a must come first). */
struct span span_join(struct span a, struct span b);

#endif
