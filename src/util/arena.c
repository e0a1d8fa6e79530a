#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

#define ARENA_BLOCK_MIN (64 * 1024)

void arena_init(struct arena *a)
{
	a->head = NULL;
}

void arena_release(struct arena *a)
{
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
}

void *arena_alloc(struct arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	struct arena_block *b = a->head;
	if (!b || b->cap - b->used < size) {
		size_t cap = size > ARENA_BLOCK_MIN ? size : ARENA_BLOCK_MIN;
		b = xmalloc(sizeof(*b) + cap);
		b->used = 0;
		b->cap = cap;
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
