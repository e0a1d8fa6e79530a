/* printf-style formats: formatting each record. See fmt.h. */
#include "fmt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/types.h"
#include "util/arena.h"
#include "util/strbuf.h"

/* Reads an integer argument widened to 64 bits by its signedness. */
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

/* The bytes a buffer argument holds: struct { u32 len; u8 data[]; }. */
static void buf_render(struct strbuf *sb, enum fmt_conv c, const struct type *t,
		       const unsigned char *p)
{
	uint32_t n;
	memcpy(&n, p, 4);
	if (n > t->size - 4)
		n = t->size - 4;
	for (uint32_t i = 0; i < n; i++) {
		unsigned char b = p[4 + i];
		if (c == FMT_BUF && b >= 0x20 && b <= 0x7e)
			sb_putc(sb, (char)b);
		else if (c == FMT_BUF_H)
			sb_printf(sb, i ? " %02x" : "%02x", b);
		else
			sb_printf(sb, "\\x%02x", b);
	}
}

/* The text a %s argument prints, NUL-terminated in tmp. */
static const char *str_arg(struct strbuf *tmp, const struct type *t,
			   const unsigned char *p, fmt_value_fn value,
			   void *ctx)
{
	sb_reset(tmp);
	if (t->kind == TY_STRING || t->kind == TY_ARRAY)
		sb_appendn(tmp, (const char *)p, strnlen((const char *)p, t->size));
	else if (value)
		value(tmp, t, p, ctx);
	return sb_str(tmp);
}

/* One conversion, through C printf as bpftrace does. */
static void format_conv(struct strbuf *out, struct strbuf *tmp,
			const struct fmt_seg *seg, const struct type *t,
			const unsigned char *p, fmt_value_fn value, void *ctx)
{
	size_t start = out->len;
	uint64_t v;
	char c = seg->text[seg->len - 1];
	switch (seg->conv) {
	case FMT_INT:
		v = read_int(t, p);
		/* The C type the length modifier names, as a 64-bit value
		 * passed to C printf would be read. */
		if (seg->length == FMT_LEN_LONG && c == 'd')
			sb_printf(out, seg->cspec, (long long)v);
		else if (seg->length == FMT_LEN_LONG)
			sb_printf(out, seg->cspec, (unsigned long long)v);
		else if (c == 'd')
			sb_printf(out, seg->cspec, (int)v);
		else
			sb_printf(out, seg->cspec, (unsigned)v);
		break;
	case FMT_CHAR:
		sb_printf(out, seg->cspec, (int)read_int(t, p));
		break;
	case FMT_PTR:
		sb_printf(out, seg->cspec, (void *)(uintptr_t)read_int(t, p));
		break;
	case FMT_STR:
		sb_printf(out, seg->cspec, str_arg(tmp, t, p, value, ctx));
		break;
	case FMT_BUF:
	case FMT_BUF_X:
	case FMT_BUF_H:
		/* bpftrace only substitutes a bare %r; anything else reaches
		 * C printf as an unknown conversion, which prints itself. */
		if (seg->len == (seg->conv == FMT_BUF ? 2u : 3u))
			buf_render(out, seg->conv, t, p);
		else
			sb_appendn(out, seg->text, seg->len);
		break;
	}
	/* bpftrace prints each piece as a C string: a NUL ends it. */
	out->len = start + strlen(out->buf + start);
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
		else if (!seg->dead)
			format_conv(out, &tmp, seg, args[seg->arg],
				    (const unsigned char *)record +
					    offsets[seg->arg],
				    value, ctx);
	}
	sb_free(&tmp);
	return 0;
}
