#include "diag.h"

#include "utf8.h"

#include <stdarg.h>
#include <string.h>

void diag_init(struct diag *d, FILE *out)
{
	d->out = out;
	d->nerrors = 0;
	d->max_errors = 20;
	d->no_warnings = false;
	d->nrepeats = 0;
	d->nrecent = 0;
}

struct span span_join(struct span a, struct span b)
{
	if (!a.file)
		return b;
	if (!b.file || b.file != a.file)
		return a;
	uint32_t end = b.off + b.len;
	if (end > a.off)
		a.len = end - a.off;
	return a;
}

/* Bytes in the character at t[p] as shown: a valid UTF-8 sequence is one
 * character, any other byte is one of its own. The lexer counts columns
 * the same way, so carets line up with the reported column. */
static uint32_t char_len(const struct src_file *f, uint32_t p)
{
	if (p >= f->len)
		return 1;
	int n = utf8_seq_len((const unsigned char *)f->text, f->len, p);
	return n ? (uint32_t)n : 1;
}

/* Prints one character so that control bytes and invalid UTF-8 cannot
 * garble the terminal (or a test's expected output): they become '?'. */
static void put_source_char(FILE *out, const struct src_file *f, uint32_t p,
			    uint32_t n)
{
	unsigned char c = (unsigned char)f->text[p];
	if (c == '\t' || (c >= 0x20 && c < 0x7f))
		fputc(c, out);
	else if (c >= 0x80 && n > 1)
		fwrite(f->text + p, 1, n, out);
	else
		fputc('?', out);
}

/* Long lines (minified or generated scripts) are shown as a window around
 * the error so the marker stays on screen. */
#define LINE_WINDOW 160

/* The bytes sp covers, less newlines at its end (a span is about the
 * text before them). An empty one (the place after a token, the end of
 * the file) is shown as one column. */
static uint32_t shown_len(struct span sp)
{
	const struct src_file *f = sp.file;
	uint32_t off = sp.off > f->len ? f->len : sp.off;
	uint32_t n = sp.len > f->len - off ? f->len - off : sp.len;
	while (n > 0 && f->text[off + n - 1] == '\n')
		n--;
	return n;
}

/* Where sp ends: the line of its last character and the column after it,
 * counted as the lexer counts columns (a character is one). */
static void span_end(struct span sp, uint32_t *line, uint32_t *col)
{
	const struct src_file *f = sp.file;
	uint32_t off = sp.off > f->len ? f->len : sp.off;
	uint32_t end = off + shown_len(sp);
	*line = sp.line;
	*col = sp.col + (end == off);
	for (uint32_t i = off; i < end; i += char_len(f, i)) {
		if (i < f->len && f->text[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

static uint32_t line_start(const struct src_file *f, uint32_t p)
{
	while (p > 0 && f->text[p - 1] != '\n')
		p--;
	return p;
}

static uint32_t line_end(const struct src_file *f, uint32_t p)
{
	while (p < f->len && f->text[p] != '\n')
		p++;
	return p;
}

/* Prints text[start, end) as put_source_char shows it; tabs become four
 * spaces when expand is set, as 0.26 shows a one-line span's line. */
static void put_text(FILE *out, const struct src_file *f, uint32_t start,
		     uint32_t end, bool expand)
{
	for (uint32_t i = start, n; i < end; i += n) {
		n = char_len(f, i);
		if (i + n > end)
			n = 1;
		if (expand && f->text[i] == '\t')
			fputs("    ", out);
		else
			put_source_char(out, f, i, n);
	}
}

/* A span over several lines: each of its lines whole, with no marker,
 * as bpftrace 0.26 shows one (a line past the window is cut). */
static void print_source_lines(FILE *out, struct span sp)
{
	const struct src_file *f = sp.file;
	uint32_t off = sp.off > f->len ? f->len : sp.off;
	uint32_t last = off + shown_len(sp) - 1; /* not empty: 2 lines */
	for (uint32_t p = line_start(f, off); p <= last && p <= f->len;) {
		uint32_t end = line_end(f, p);
		if (end - p > LINE_WINDOW) {
			put_text(out, f, p, p + LINE_WINDOW, false);
			fputs("...", out);
		} else {
			put_text(out, f, p, end, false);
		}
		fputc('\n', out);
		p = end + 1;
	}
}

/* A span on one line: the line, then '~' under each of its characters
 * (bpftrace 0.26's marker: tabs are four columns wide in both); clang's
 * marker starts with '^'. */
static void print_source_line(FILE *out, struct span sp, bool clang)
{
	const struct src_file *f = sp.file;
	uint32_t off = sp.off > f->len ? f->len : sp.off;
	uint32_t start = line_start(f, off);
	uint32_t end = line_end(f, off);
	int cut_left = 0;
	if (end - start > LINE_WINDOW) {
		if (off - start > LINE_WINDOW / 2) {
			start = off - LINE_WINDOW / 2;
			cut_left = 1;
		}
		if (end - start > LINE_WINDOW)
			end = start + LINE_WINDOW;
	}
	/* A window cut inside a character starts at the next one. */
	while (cut_left && start < off &&
	       ((unsigned char)f->text[start] & 0xc0) == 0x80)
		start++;
	if (cut_left)
		fputs("...", out);
	put_text(out, f, start, end, true);
	fputc('\n', out);
	if (cut_left)
		fputs("   ", out);
	for (uint32_t i = start; i < off; i += char_len(f, i))
		fputs(f->text[i] == '\t' ? "    " : " ", out);
	uint32_t last = off + shown_len(sp);
	if (last > end)
		last = end;
	char m = clang ? '^' : '~';
	for (uint32_t i = off; i < last; i += char_len(f, i)) {
		for (int k = f->text[i] == '\t' ? 4 : 1; k > 0; k--)
			fputc(m, out);
		m = '~';
	}
	if (last <= off) /* past the line's end: still a mark */
		fputc(m, out);
	fputc('\n', out);
}

void diag_source(FILE *out, struct span sp)
{
	if (!sp.file)
		return;
	uint32_t line, col;
	span_end(sp, &line, &col);
	if (line != sp.line)
		print_source_lines(out, sp);
	else
		print_source_line(out, sp, false);
}

void diag_place(FILE *out, struct span sp)
{
	uint32_t line, col;
	span_end(sp, &line, &col);
	if (line != sp.line)
		fprintf(out, "%s:%u-%u", sp.file->name, sp.line, line);
	else
		fprintf(out, "%s:%u:%u-%u", sp.file->name, sp.line, sp.col,
			col);
}

static void vreport(struct diag *d, const char *kind, struct span sp,
		    const char *fmt, va_list ap)
{
	/* clang's kinds are lower case: its place is LINE:COL, its marker
	 * '^' and '~' on the first line. */
	bool clang = kind[0] >= 'a' && kind[0] <= 'z';
	if (sp.file && clang)
		fprintf(d->out, "%s:%u:%u: %s: ", sp.file->name, sp.line,
			sp.col, kind);
	else if (sp.file) {
		diag_place(d->out, sp);
		fprintf(d->out, ": %s: ", kind);
	} else {
		fprintf(d->out, "%s: ", kind);
	}
	vfprintf(d->out, fmt, ap);
	fputc('\n', d->out);
	if (sp.file && clang)
		print_source_line(d->out, sp, true);
	else
		diag_source(d->out, sp);
}

/* FNV-1a over the place and the text of an error. */
static uint64_t error_hash(struct span sp, const char *msg)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const uint64_t key[] = { (uint64_t)(uintptr_t)sp.file, sp.off, sp.len };
	const unsigned char *b = (const unsigned char *)key;
	for (size_t i = 0; i < sizeof(key); i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	for (const char *c = msg; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	return h;
}

static void report_text(struct diag *d, const char *kind, struct span sp,
			const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(d, kind, sp, fmt, ap);
	va_end(ap);
}

static void verror_kind(struct diag *d, const char *kind, struct span sp,
			const char *fmt, va_list ap)
{
	d->nerrors++;
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	uint64_t h = error_hash(sp, msg);
	unsigned n = d->nrecent < 8 ? d->nrecent : 8;
	for (unsigned i = 0; i < n; i++)
		if (d->recent[i] == h) {
			d->nrepeats++;
			return;
		}
	d->recent[d->nrecent++ % 8] = h;
	if (d->nerrors - d->nrepeats > d->max_errors)
		return;
	report_text(d, kind, sp, "%s", msg);
}

void diag_verror(struct diag *d, struct span sp, const char *fmt, va_list ap)
{
	verror_kind(d, "ERROR", sp, fmt, ap);
}

void diag_c_error(struct diag *d, struct span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror_kind(d, "error", sp, fmt, ap);
	va_end(ap);
}

void diag_c_fatal(struct diag *d, const char *name, uint32_t line,
		  struct span sp, const char *fmt, ...)
{
	va_list ap;
	d->nerrors++;
	fprintf(d->out, "%s:%u:%u: fatal error: ", name, line, sp.col);
	va_start(ap, fmt);
	vfprintf(d->out, fmt, ap);
	va_end(ap);
	fputc('\n', d->out);
	if (sp.file)
		print_source_line(d->out, sp, true);
}

void diag_error(struct diag *d, struct span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(d, sp, fmt, ap);
	va_end(ap);
}

void diag_warning(struct diag *d, struct span sp, const char *fmt, ...)
{
	va_list ap;
	if (d->no_warnings || !d->out) /* !out: a muted pass (sema) */
		return;
	va_start(ap, fmt);
	vreport(d, "WARNING", sp, fmt, ap);
	va_end(ap);
}

void diag_report(struct diag *d, const char *kind, struct span sp,
		 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(d, kind, sp, fmt, ap);
	va_end(ap);
}
