/* printf-style formats: formatting each record. See fmt.h. */
#include "fmt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/types.h"
#include "runtime/gfp.h"
#include "util/strbuf.h"

/* An integer argument, widened to 64 bits by its own signedness. */
static uint64_t read_int(const struct type *t, const unsigned char *p)
{
	int8_t s8; int16_t s16; int32_t s32; uint8_t u8; uint16_t u16;
	uint32_t u32; uint64_t u64;
	bool sg = t->kind == TY_INT && t->is_signed;
	switch (t->size) {
	case 1:
		if (sg)
			return memcpy(&s8, p, 1), (uint64_t)(int64_t)s8;
		return memcpy(&u8, p, 1), u8;
	case 2:
		if (sg)
			return memcpy(&s16, p, 2), (uint64_t)(int64_t)s16;
		return memcpy(&u16, p, 2), u16;
	case 4:
		if (sg)
			return memcpy(&s32, p, 4), (uint64_t)(int64_t)s32;
		return memcpy(&u32, p, 4), u32;
	default:
		return memcpy(&u64, p, 8), u64;
	}
}

/* The C type the length modifier names, as bpftrace casts to it
 * (as_signed_integer): int without one, or with one it does not know. */
static int64_t as_signed(uint64_t v, const char *len)
{
	if (!strcmp(len, "hh"))
		return (signed char)v;
	if (!strcmp(len, "h"))
		return (short)v;
	if (!strcmp(len, "l") || !strcmp(len, "ll") || !strcmp(len, "j") ||
	    !strcmp(len, "z") || !strcmp(len, "t"))
		return (int64_t)v;
	return (int)v;
}

/* ... and as_unsigned_integer: unsigned int without one. */
static uint64_t as_unsigned(uint64_t v, const char *len)
{
	if (!strcmp(len, "hh"))
		return (unsigned char)v;
	if (!strcmp(len, "h"))
		return (unsigned short)v;
	if (!strcmp(len, "l") || !strcmp(len, "ll") || !strcmp(len, "j") ||
	    !strcmp(len, "z") || !strcmp(len, "t"))
		return v;
	return (unsigned)v;
}

/* s[0..n) in the spec's width: the fill (' ', or '0' with the 0 flag)
 * before it, or after it with '-', as a C++ stream pads (a sign or 0x
 * gets no special place: "%05d" of -5 is "000-5"). */
static void pad(struct strbuf *out, const struct fmt_seg *seg, const char *s,
		size_t n)
{
	size_t w = seg->width > 0 ? (size_t)seg->width : 0;
	char fill = seg->zero ? '0' : ' ';
	for (size_t i = n; !seg->left && i < w; i++)
		sb_putc(out, fill);
	sb_appendn(out, s, n);
	for (size_t i = n; seg->left && i < w; i++)
		sb_putc(out, fill);
}

/* d i u o x X through a C++ stream: '+' signs signed numbers only, '#'
 * puts 0x (0X) or 0 before a hex or octal number that is not 0. */
static void put_integer(struct strbuf *out, struct strbuf *tmp,
			const struct fmt_seg *seg, uint64_t v)
{
	char c = seg->name[0];
	sb_reset(tmp);
	if (c == 'd' || c == 'i') {
		int64_t x = as_signed(v, seg->length);
		sb_printf(tmp, seg->plus ? "%+" PRId64 : "%" PRId64, x);
	} else {
		uint64_t x = as_unsigned(v, seg->length);
		if (c == 'u')
			sb_printf(tmp, "%" PRIu64, x);
		else if (c == 'o')
			sb_printf(tmp, seg->alt && x ? "0%" PRIo64 : "%" PRIo64,
				  x);
		else if (c == 'x')
			sb_printf(tmp, seg->alt && x ? "0x%" PRIx64 :
						       "%" PRIx64, x);
		else
			sb_printf(tmp, seg->alt && x ? "0X%" PRIX64 :
						       "%" PRIX64, x);
	}
	pad(out, seg, tmp->buf, tmp->len);
}

/* A buffer argument, struct { u32 len; u8 data[]; }. */
static void put_buf(struct strbuf *out, struct strbuf *tmp,
		    const struct fmt_seg *seg, const struct type *t,
		    const unsigned char *p)
{
	uint32_t n;
	memcpy(&n, p, 4);
	if (t->size < 4)
		n = 0;
	else if (n > t->size - 4)
		n = t->size - 4;
	sb_reset(tmp);
	for (uint32_t i = 0; i < n; i++) {
		unsigned char b = p[4 + i];
		if (seg->conv == FMT_BUF && b >= 0x20 && b <= 0x7e)
			sb_putc(tmp, (char)b);
		else if (seg->conv == FMT_BUF_H)
			sb_printf(tmp, i ? " %02x" : "%02x", b);
		else
			sb_printf(tmp, "\\x%02x", b);
	}
	pad(out, seg, tmp->buf ? tmp->buf : "", tmp->len);
}

/* One conversion, as bpftrace 0.26's FormatSpec::apply. */
static void format_conv(struct strbuf *out, struct strbuf *tmp,
			const struct fmt_seg *seg, const struct type *t,
			const unsigned char *p, fmt_value_fn value, void *ctx)
{
	switch (seg->conv) {
	case FMT_INT:
		put_integer(out, tmp, seg, read_int(t, p));
		break;
	case FMT_CHAR: {
		/* the byte, a NUL too */
		char ch = (char)as_signed(read_int(t, p), seg->length);
		pad(out, seg, &ch, 1);
		break;
	}
	case FMT_PTR: {
		/* a C++ stream's void *: 0x and hex, "0" for NULL */
		uint64_t v = read_int(t, p);
		sb_reset(tmp);
		sb_printf(tmp, v ? "0x%" PRIx64 : "0", v);
		pad(out, seg, tmp->buf, tmp->len);
		break;
	}
	case FMT_GFP:
		sb_reset(tmp);
		gfp_format(tmp, read_int(t, p));
		pad(out, seg, tmp->buf, tmp->len);
		break;
	case FMT_BUF:
	case FMT_BUF_X:
	case FMT_BUF_H:
	case FMT_STR:
		/* a buffer's bytes; anything else as %s prints it */
		if (seg->conv != FMT_STR && t->kind == TY_BUF) {
			put_buf(out, tmp, seg, t, p);
			break;
		}
		sb_reset(tmp);
		if (value)
			value(tmp, t, p, ctx);
		pad(out, seg, tmp->buf ? tmp->buf : "", tmp->len);
		break;
	}
}

int fmt_format(struct strbuf *out, const struct fmt *f,
	       const struct type *const *args, const void *record,
	       size_t rec_len, const uint32_t *offsets, fmt_value_fn value,
	       void *ctx)
{
	for (uint32_t i = 0; i < f->nconv; i++)
		if (offsets[i] > rec_len || args[i]->size > rec_len - offsets[i])
			return -EINVAL;
	struct strbuf tmp = STRBUF_INIT;
	sb_append(out, ""); /* out->buf is valid from here on */
	for (uint32_t i = 0; i < f->nsegs; i++) {
		const struct fmt_seg *seg = &f->segs[i];
		if (!seg->is_conv)
			sb_appendn(out, seg->text, seg->len);
		else
			format_conv(out, &tmp, seg, args[seg->arg],
				    (const unsigned char *)record +
					    offsets[seg->arg],
				    value, ctx);
	}
	sb_free(&tmp);
	return 0;
}
