/* Keys holding stacks, stored with stack ids. See stackids.h. */
#include "model/stackids.h"

#include <string.h>

#include "model/maplayout.h"
#include "model/types.h"

static bool is_stack(const struct type *t)
{
	return t->kind == TY_KSTACK || t->kind == TY_USTACK;
}

/* Adds the stacks of t (at off in the whole key) to parts from *n on;
 * *shrunk: the bytes the stacks before them lost, which gives their ids'
 * offsets. Fields are in order of offset, so the parts are too. */
static void collect(const struct type *t, uint32_t off, uint32_t *shrunk,
		    struct stackids_part *parts, uint32_t max, uint32_t *n)
{
	if (is_stack(t)) {
		if (*n < max)
			parts[*n] = (struct stackids_part){ off, off - *shrunk,
							    t };
		(*n)++;
		*shrunk += t->size - 8;
		return;
	}
	if (t->kind == TY_TUPLE)
		for (uint32_t i = 0; i < t->nfields; i++)
			collect(t->fields[i].type, off + t->fields[i].offset,
				shrunk, parts, max, n);
}

uint32_t stackids_parts(const struct type *key, struct stackids_part *parts,
			uint32_t max)
{
	uint32_t n = 0, shrunk = 0;
	if (key)
		collect(key, 0, &shrunk, parts, parts ? max : 0, &n);
	return n;
}

/* The bytes a key's stacks lose when stored as ids. */
static uint32_t shrinkage(const struct type *key)
{
	uint32_t n = 0, shrunk = 0;
	if (key)
		collect(key, 0, &shrunk, NULL, 0, &n);
	return shrunk;
}

bool stackids_needed(const struct type *key, const struct type *value)
{
	return stackids_parts(key, NULL, 0) &&
	       maplayout_key_size(key, value) > STACKIDS_KEY_MAX;
}

uint32_t stackids_key_size(const struct type *key, const struct type *value)
{
	return maplayout_key_size(key, value) - shrinkage(key);
}

uint32_t stackids_stored_off(const struct type *key, uint32_t off)
{
	uint32_t n = stackids_parts(key, NULL, 0);
	struct stackids_part parts[n ? n : 1];
	stackids_parts(key, parts, n);
	uint32_t at = off;
	for (uint32_t i = 0; i < n && parts[i].off < off; i++)
		at -= parts[i].stack->size - 8;
	return at;
}

bool stackids_expand(const struct type *key, const struct type *value,
		     const uint8_t *stored, uint8_t *whole,
		     stackids_fetch_fn fetch, void *ctx)
{
	uint32_t n = stackids_parts(key, NULL, 0);
	struct stackids_part parts[n ? n : 1];
	stackids_parts(key, parts, n);
	uint32_t size = maplayout_key_size(key, value);
	uint32_t from = 0, to = 0; /* the run of bytes after the last stack */
	for (uint32_t i = 0; i < n; i++) {
		const struct stackids_part *p = &parts[i];
		memcpy(whole + to, stored + from, p->off - to);
		uint64_t id;
		memcpy(&id, stored + p->id_off, 8);
		if (!fetch(ctx, i, p, id, whole + p->off))
			return false;
		from = p->id_off + 8;
		to = p->off + p->stack->size;
	}
	memcpy(whole + to, stored + from, size - to);
	return true;
}
