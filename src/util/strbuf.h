/* Growable, always NUL-terminated string buffer. */
#ifndef SONDE_STRBUF_H
#define SONDE_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, cap;
};

#define STRBUF_INIT { NULL, 0, 0 }

void sb_append(struct strbuf *sb, const char *s);
void sb_appendn(struct strbuf *sb, const char *s, size_t n);
void sb_putc(struct strbuf *sb, char c);
void sb_printf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends n bytes as lowercase hex, two digits each (build ids). */
void sb_hex(struct strbuf *sb, const unsigned char *bytes, size_t n);
void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);
/* Returns the string ("" when empty); the buffer keeps ownership. */
const char *sb_str(const struct strbuf *sb);

#endif
