/* Allocation that cannot fail: out-of-memory aborts with a message. */
#ifndef SONDE_XALLOC_H
#define SONDE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* realloc to n*size elements, aborting on multiplication overflow */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);

#endif
