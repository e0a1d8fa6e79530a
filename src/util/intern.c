#include "intern.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static uint64_t hash_bytes(const void *k, size_t n)
{
	const unsigned char *s = k;
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}

static void grow(struct intern *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 256;
	free(t->slots);
	t->slots = xcalloc(n, sizeof(*t->slots));
	t->nslots = n;
	for (size_t i = 0; i < t->ents.len; i++) {
		size_t s = t->ents.data[i].hash & (n - 1);
		while (t->slots[s])
			s = (s + 1) & (n - 1);
		t->slots[s] = (uint32_t)i + 1;
	}
}

uint64_t intern(struct intern *t, const void *key, size_t len,
		uint64_t next_id, bool *fresh)
{
	if (2 * (t->ents.len + 1) > t->nslots)
		grow(t);
	uint64_t h = hash_bytes(key, len);
	size_t s = h & (t->nslots - 1);
	for (; t->slots[s]; s = (s + 1) & (t->nslots - 1)) {
		const struct intern_ent *e = &t->ents.data[t->slots[s] - 1];
		if (e->hash == h && e->len == len &&
		    !memcmp(t->bytes.data + e->off, key, len)) {
			*fresh = false;
			return e->id;
		}
	}
	struct intern_ent e = { h, t->bytes.len, (uint32_t)len, next_id };
	vec_reserve(&t->bytes, len + 1);
	if (len)
		memcpy(t->bytes.data + t->bytes.len, key, len);
	t->bytes.len += len;
	t->bytes.data[t->bytes.len++] = 0;
	vec_push(&t->ents, e);
	t->slots[s] = (uint32_t)t->ents.len;
	*fresh = true;
	return next_id;
}

void intern_free(struct intern *t)
{
	vec_free(&t->bytes);
	vec_free(&t->ents);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
