/*
 * Interning: byte strings -> ids, by open addressing (FNV-1a hashes) over
 * a power-of-two table. The first time a key is seen it gets the id the
 * caller offers; later it gets that id back. Keys are copied (each stored
 * with a NUL after it, so string keys stay C strings).
 */
#ifndef SONDE_INTERN_H
#define SONDE_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vec.h"

struct intern_ent {
	uint64_t hash;
	size_t off;   /* in bytes */
	uint32_t len;
	uint64_t id;
};

struct intern {
	VEC(char) bytes;              /* the keys, back to back */
	VEC(struct intern_ent) ents;  /* in order of first sight */
	uint32_t *slots;              /* ents index + 1; 0: empty */
	size_t nslots;
};

/* The id of key; when new, *fresh is set and it gets next_id. */
uint64_t intern(struct intern *t, const void *key, size_t len,
		uint64_t next_id, bool *fresh);
/* The key of the i-th entry (in order of first sight). */
static inline const char *intern_key(const struct intern *t, size_t i)
{
	return t->bytes.data + t->ents.data[i].off;
}
void intern_free(struct intern *t);

#endif
