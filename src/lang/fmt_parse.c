/* printf-style formats: parse and type check. See fmt_parse.h. */
#include "fmt_parse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/types.h"
#include "util/arena.h"
#include "util/strbuf.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Saturating, so that absurd widths stay representable; the C spec text
 * is what actually prints. */
static int scan_num(const char *s, size_t len, size_t *i)
{
	long v = 0;
	while (*i < len && is_digit(s[*i])) {
		if (v < 1000000000)
			v = v * 10 + (s[*i] - '0');
		(*i)++;
	}
	return (int)v;
}

/*
 * Matches bpftrace 0.17's specifier regex at s[p] ('%'):
 *   %-?[0-9]*(\.[0-9]+)?(LEN?[duxXop]|c|s|r|rx|rh)
 * None of its optional parts can give back characters that a conversion
 * could start with, so a greedy scan without backtracking is exact.
 * Returns the end of the match, or 0; *fwp_end is where the flags, width
 * and precision end, *name where the length modifier starts.
 */
static size_t match_spec(const char *s, size_t len, size_t p,
			 struct fmt_seg *seg, size_t *fwp_end, size_t *name)
{
	size_t i = p + 1;
	memset(seg, 0, sizeof(*seg));
	seg->width = seg->prec = -1;
	if (i < len && s[i] == '-') {
		seg->left = true;
		i++;
	}
	if (i < len && is_digit(s[i])) {
		seg->zero = s[i] == '0';
		seg->width = scan_num(s, len, &i);
	}
	if (i + 1 < len && s[i] == '.' && is_digit(s[i + 1])) {
		i++;
		seg->prec = scan_num(s, len, &i);
	}
	*fwp_end = i;
	*name = i;

	static const struct { const char *s; enum fmt_len len; } lens[] = {
		{ "hh", FMT_LEN_HH }, { "h", FMT_LEN_H }, { "ll", FMT_LEN_LONG },
		{ "l", FMT_LEN_LONG }, { "j", FMT_LEN_LONG },
		{ "z", FMT_LEN_LONG }, { "t", FMT_LEN_LONG },
	};
	size_t lm = 0;
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t n = strlen(lens[k].s);
		if (i + n <= len && !memcmp(s + i, lens[k].s, n)) {
			seg->length = lens[k].len;
			lm = n;
			break;
		}
	}
	size_t c = i + lm;
	if (c >= len)
		return 0;
	size_t end = c + 1;
	switch (s[c]) {
	case 'd': case 'u': case 'x': case 'X': case 'o':
		seg->conv = FMT_INT;
		break;
	case 'p':
		seg->conv = FMT_PTR;
		break;
	case 'c':
	case 's':
	case 'r':
		if (lm)
			return 0;
		seg->conv = s[c] == 'c' ? FMT_CHAR : s[c] == 's' ? FMT_STR
								 : FMT_BUF;
		/* The longest alternative wins, as bpftrace's does. */
		if (s[c] == 'r' && end < len && s[end] == 'x') {
			seg->conv = FMT_BUF_X;
			end++;
		} else if (s[c] == 'r' && end < len && s[end] == 'h') {
			seg->conv = FMT_BUF_H;
			end++;
		}
		break;
	default:
		return 0;
	}
	return end;
}

/*
 * Renders the text before a conversion the way C printf does, since
 * bpftrace passes "prefix + spec" to snprintf: "%%" (also "%5%" and the
 * like) is one '%', and a NUL ends the format. A '%' that starts another
 * C conversion would read a missing argument in bpftrace (garbage); we
 * print it literally instead. Returns whether the spec at spec_off is
 * still a conversion; it is not when a '%' before it paired with its '%'
 * ("%%d") or a NUL came first.
 */
static bool render_prefix(struct strbuf *sb, const char *s, size_t len,
			  size_t spec_off)
{
	size_t i = 0;
	while (i < len) {
		char c = s[i];
		if (c == '\0')
			return false;
		if (c != '%') {
			sb_putc(sb, c);
			i++;
			continue;
		}
		if (i == spec_off)
			return true;
		size_t j = i + 1;
		while (j < len && s[j] && strchr("-+ #0'I", s[j]))
			j++;
		while (j < len && is_digit(s[j]))
			j++;
		if (j < len && s[j] == '.') {
			j++;
			while (j < len && is_digit(s[j]))
				j++;
		}
		while (j < len && s[j] && strchr("hlLqjzZt", s[j]))
			j++;
		sb_putc(sb, '%');
		i = j < len && s[j] == '%' ? j + 1 : i + 1;
	}
	return false;
}

static void add_text(struct arena *a, struct fmt *f, const char *s, size_t n)
{
	if (!n)
		return;
	struct fmt_seg *seg = &f->segs[f->nsegs++];
	seg->is_conv = false;
	seg->text = arena_strndup(a, s, n);
	seg->len = n;
}

const struct fmt *fmt_parse(struct arena *a, const char *s, size_t len)
{
	struct fmt *f = arena_alloc(a, sizeof(*f));
	size_t npct = 0;
	for (size_t i = 0; i < len; i++)
		npct += s[i] == '%';
	f->segs = arena_alloc(a, sizeof(*f->segs) * (2 * npct + 1));

	struct strbuf pre = STRBUF_INIT;
	static const char *const cmod[] = {
		[FMT_LEN_NONE] = "", [FMT_LEN_HH] = "hh", [FMT_LEN_H] = "h",
		[FMT_LEN_LONG] = "ll",
	};
	size_t pos = 0, p = 0;
	while (p < len) {
		struct fmt_seg conv;
		size_t end, fwp, name;
		if (s[p] != '%' ||
		    !(end = match_spec(s, len, p, &conv, &fwp, &name))) {
			p++;
			continue;
		}
		sb_reset(&pre);
		conv.dead = !render_prefix(&pre, s + pos, end - pos, p - pos);
		add_text(a, f, pre.buf, pre.len);

		conv.is_conv = true;
		conv.text = arena_strndup(a, s + p, end - p);
		conv.len = end - p;
		conv.name = arena_strndup(a, s + name, end - name);
		/* 64-bit lengths all print as ll, the one we pass. */
		if (conv.conv < FMT_BUF)
			conv.cspec = arena_printf(a, "%.*s%s%c", (int)(fwp - p),
						  s + p, cmod[conv.length],
						  s[end - 1]);
		conv.arg = f->nconv++;
		f->segs[f->nsegs++] = conv;
		pos = p = end;
	}
	/* bpftrace 0.17 printed the text after the last conversion as is
	 * ("100%%" stayed "100%%"); newer bpftrace renders it as C does. */
	sb_reset(&pre);
	render_prefix(&pre, s + pos, len - pos, len - pos);
	add_text(a, f, pre.buf, pre.len);
	sb_free(&pre);
	return f;
}

/* bpftrace 0.17 treats these as strings when checking formats. */
static bool is_stringish(const struct type *t)
{
	switch (t->kind) {
	case TY_STRING: case TY_KSYM: case TY_USYM: case TY_PROBE:
	case TY_USERNAME: case TY_KSTACK: case TY_USTACK: case TY_INET:
	case TY_MACADDR: case TY_CGROUP_PATH: case TY_TIMESTAMP:
	case TY_STRERROR:
		return true;
	case TY_ARRAY:
		/* char[N] from BTF prints as a string, as bpftrace's does. */
		return t->elem && t->elem->kind == TY_INT && t->elem->size == 1;
	default:
		return false;
	}
}

/* bpftrace's name for the type a format sees. */
static const char *class_name(const struct type *t)
{
	if (is_stringish(t))
		return "string";
	switch (t->kind) {
	case TY_INT: case TY_PTR: return "integer";
	case TY_BUF: return "buffer";
	case TY_TUPLE: return "tuple";
	case TY_RECORD: return "record";
	case TY_ARRAY: return "array";
	case TY_VOID: return "void";
	case TY_COUNT: return "count";
	case TY_SUM: return "sum";
	case TY_MIN: return "min";
	case TY_MAX: return "max";
	case TY_AVG: return "avg";
	case TY_STATS: return "stats";
	case TY_HIST: return "hist";
	case TY_LHIST: return "lhist";
	default: return "none";
	}
}

static const char *conv_class(enum fmt_conv c)
{
	switch (c) {
	case FMT_STR: return "string";
	case FMT_BUF: case FMT_BUF_X: case FMT_BUF_H: return "buffer";
	default: return "integer";
	}
}

int fmt_check(struct arena *a, const struct fmt *f, const char *fn,
	      const struct type *const *args, uint32_t n,
	      struct fmt_error *err)
{
	if (n != f->nconv) {
		err->msg = arena_printf(
			a, "%s: %s arguments for format string (%u supplied, %u expected)",
			fn, n < f->nconv ? "Not enough" : "Too many", n,
			f->nconv);
		err->arg = n < f->nconv ? FMT_AT_FORMAT : (int)f->nconv;
		return -EINVAL;
	}
	for (uint32_t i = 0; i < f->nsegs; i++) {
		const struct fmt_seg *seg = &f->segs[i];
		if (!seg->is_conv)
			continue;
		const char *want = conv_class(seg->conv);
		const char *have = class_name(args[seg->arg]);
		if (strcmp(want, have)) {
			err->msg = arena_printf(
				a, "%s: %%%s specifier expects a value of type %s (%s supplied)",
				fn, seg->name, want, have);
			err->arg = (int)seg->arg;
			return -EINVAL;
		}
	}
	return 0;
}

