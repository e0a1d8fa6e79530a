/* Bump allocator for the compile phase: everything is freed in one go. */
#ifndef SONDE_ARENA_H
#define SONDE_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head;
};

void arena_init(struct arena *a);
void arena_release(struct arena *a);
/* Zeroed memory; aborts on out-of-memory (compile phase only). */
void *arena_alloc(struct arena *a, size_t size);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
