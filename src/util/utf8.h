/* UTF-8 validation shared by the lexer and the diagnostics, so that both
 * agree on what one character (one column) is. */
#ifndef SONDE_UTF8_H
#define SONDE_UTF8_H

#include <stdint.h>

/* Length of the valid UTF-8 sequence at t[p] (t has n bytes), or 0 if it
 * is not valid: overlong forms, surrogates and truncation are invalid. */
int utf8_seq_len(const unsigned char *t, uint32_t n, uint32_t p);

#endif
