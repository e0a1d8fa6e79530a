#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static void sb_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t nc = sb->cap ? sb->cap : 64;
	while (nc < sb->len + extra + 1)
		nc *= 2;
	sb->buf = xrealloc(sb->buf, nc);
	sb->cap = nc;
}

void sb_appendn(struct strbuf *sb, const char *s, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
}

void sb_append(struct strbuf *sb, const char *s)
{
	sb_appendn(sb, s, strlen(s));
}

void sb_hex(struct strbuf *sb, const unsigned char *bytes, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	sb_grow(sb, 2 * n);
	for (size_t i = 0; i < n; i++) {
		sb->buf[sb->len++] = digits[bytes[i] >> 4];
		sb->buf[sb->len++] = digits[bytes[i] & 15];
	}
	sb->buf[sb->len] = 0;
}

void sb_putc(struct strbuf *sb, char c)
{
	sb_appendn(sb, &c, 1);
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb_grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = 0;
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

const char *sb_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}
