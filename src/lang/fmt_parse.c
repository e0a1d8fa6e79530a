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

/* Saturating, so that absurd widths stay representable. */
static int scan_num(const char *s, size_t len, size_t *i)
{
	long v = 0;
	while (*i < len && is_digit(s[*i])) {
		if (v < 1000000)
			v = v * 10 + (s[*i] - '0');
		(*i)++;
	}
	return (int)v;
}

/*
 * Matches bpftrace 0.26's FormatSpec::regex at s[p] ('%'):
 *   %(-?)(\+?)( ?)(#?)(0?)(\*|\d+)?(?:\.(\*|\d+))?([hlLjzt]*)
 *    ([diouxXeEfFGaAcspn%]|gr|g|rh|rx|r)
 * No optional part can give back a character the parts after it could
 * start with, so a greedy scan without backtracking matches as the regex
 * does. Returns the end of the match, or 0.
 */
static size_t match_spec(struct arena *a, const char *s, size_t len, size_t p,
			 struct fmt_seg *seg)
{
	size_t i = p + 1;
	memset(seg, 0, sizeof(*seg));
	if (i < len && s[i] == '-')
		seg->left = (i++, true);
	if (i < len && s[i] == '+')
		seg->plus = (i++, true);
	if (i < len && s[i] == ' ')
		i++; /* parsed, never applied (0.26's space_prefix) */
	if (i < len && s[i] == '#')
		seg->alt = (i++, true);
	if (i < len && s[i] == '0')
		seg->zero = (i++, true);
	if (i < len && s[i] == '*')
		i++; /* a '*' width is no width in bpftrace */
	else if (i < len && is_digit(s[i]))
		seg->width = scan_num(s, len, &i);
	if (i + 1 < len && s[i] == '.' && (s[i + 1] == '*' || is_digit(s[i + 1]))) {
		/* the precision applies to floats only, which are refused */
		i++;
		if (s[i] == '*')
			i++;
		else
			scan_num(s, len, &i);
	}
	size_t lm = i;
	while (i < len && strchr("hlLjzt", s[i]) && s[i])
		i++;
	seg->length = arena_strndup(a, s + lm, i - lm);
	if (i >= len)
		return 0;
	size_t n = 1;
	if (s[i] && strchr("diouxXeEfFGaAcspn%", s[i]))
		;
	else if (s[i] == 'g' && i + 1 < len && s[i + 1] == 'r')
		n = 2;
	else if (s[i] == 'g')
		;
	else if (s[i] == 'r' && i + 1 < len &&
		 (s[i + 1] == 'h' || s[i + 1] == 'x'))
		n = 2;
	else if (s[i] != 'r')
		return 0;
	seg->name = arena_strndup(a, s + i, n);
	switch (s[i]) {
	case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
		seg->conv = FMT_INT;
		break;
	case 'c':
		seg->conv = FMT_CHAR;
		break;
	case 'p':
		seg->conv = FMT_PTR;
		break;
	case 'r':
		seg->conv = n == 1 ? FMT_BUF : s[i + 1] == 'x' ? FMT_BUF_X :
							      FMT_BUF_H;
		break;
	case 'g':
		seg->conv = n == 2 ? FMT_GFP : FMT_STR;
		break;
	default:
		seg->conv = FMT_STR;
		break;
	}
	return i + n;
}

static void add_text(struct arena *a, struct fmt *f, const char *s, size_t n)
{
	if (!n)
		return;
	struct fmt_seg *seg = &f->segs[f->nsegs++];
	memset(seg, 0, sizeof(*seg));
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

	/* the text between conversions, verbatim but for "%%" (or "%5%":
	 * any spec of '%') which is one '%' */
	struct strbuf text = STRBUF_INIT;
	size_t p = 0;
	while (p < len) {
		struct fmt_seg conv;
		size_t end;
		if (s[p] != '%' || !(end = match_spec(a, s, len, p, &conv))) {
			sb_putc(&text, s[p++]);
			continue;
		}
		if (!strcmp(conv.name, "%")) {
			sb_putc(&text, '%');
			p = end;
			continue;
		}
		add_text(a, f, text.buf, text.len);
		sb_reset(&text);
		conv.is_conv = true;
		conv.text = arena_strndup(a, s + p, end - p);
		conv.len = end - p;
		conv.arg = f->nconv++;
		f->segs[f->nsegs++] = conv;
		p = end;
	}
	add_text(a, f, text.buf, text.len);
	sb_free(&text);
	return f;
}

/* What the integer specifiers take: integers, booleans and pointers. */
static bool is_integer(const struct type *t)
{
	return t->kind == TY_INT || t->kind == TY_PTR || t->kind == TY_BOOL;
}

int fmt_check(struct arena *a, const struct fmt *f, const char *fn,
	      const struct type *const *args, uint32_t n,
	      struct fmt_error *err)
{
	(void)fn;
	if (n != f->nconv) {
		err->msg = arena_printf(
			a, "%s arguments for format string (%u supplied, %u expected)",
			n < f->nconv ? "not enough" : "too many", n, f->nconv);
		err->arg = n < f->nconv ? FMT_AT_FORMAT : (int)f->nconv;
		return -EINVAL;
	}
	for (uint32_t i = 0; i < f->nsegs; i++) {
		const struct fmt_seg *seg = &f->segs[i];
		if (!seg->is_conv)
			continue;
		const struct type *t = args[seg->arg];
		if (t->kind == TY_NONE || t->kind == TY_VOID) {
			err->arg = (int)seg->arg;
			err->msg = arena_printf(a, "unable to print none type "
						"for specifier: %s", seg->name);
			return -EINVAL;
		}
		bool ok;
		if (strchr("eEfFgGaAn", seg->name[0]) && seg->conv != FMT_GFP) {
			err->arg = (int)seg->arg;
			err->msg = arena_printf(a, "unsupported format "
						"specifier: %s", seg->name);
			return -EINVAL;
		}
		switch (seg->conv) {
		case FMT_STR:
			ok = true;
			break;
		case FMT_BUF: case FMT_BUF_X: case FMT_BUF_H:
			ok = t->kind == TY_BUF;
			break;
		default:
			ok = is_integer(t);
			break;
		}
		if (!ok) {
			err->arg = (int)seg->arg;
			struct strbuf sb = STRBUF_INIT;
			type_describe(t, &sb);
			err->msg = arena_printf(a, "unsupported format specifier "
						"for type '%s': %s", sb_str(&sb),
						seg->name);
			sb_free(&sb);
			return -EINVAL;
		}
	}
	return 0;
}
