/* The program's tables (program.h). */
#include <stdlib.h>
#include <string.h>

#include "codegen/program.h"
#include "model/limits.h"
#include "util/arena.h"
#include "util/xalloc.h"

bool cg_expansion_enter(struct cg *g, const struct ast_expansion *x)
{
	if (!x || g->nexpanding >= CG_EXPANSION_MAX ||
	    (g->nexpanding && g->expanding[g->nexpanding - 1] == x))
		return false;
	g->expanding[g->nexpanding++] = x;
	return true;
}

void cg_expansion_leave(struct cg *g, bool entered)
{
	if (entered)
		g->nexpanding--;
}

const struct span *cg_expansion_sites(struct cg *g, uint32_t *n)
{
	*n = g->nexpanding;
	if (!*n)
		return NULL;
	struct span *s = arena_alloc(g->arena, sizeof(*s) * *n);
	for (uint32_t i = 0; i < *n; i++)
		s[i] = g->expanding[*n - 1 - i]->site;
	return s;
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* The hash slot of name: its entry, or the free slot for it. */
static uint32_t *name_slot(struct cg *g, const char *name)
{
	const char **names = g->out->probe_names;
	uint32_t i = name_hash(name) & (g->name_cap - 1);
	while (g->name_slots[i] && strcmp(names[g->name_slots[i] - 1], name))
		i = (i + 1) & (g->name_cap - 1);
	return &g->name_slots[i];
}

uint32_t cg_name_index(struct cg *g, const char *name)
{
	struct compiled *c = g->out;
	uint32_t k = c->nprobe_names;
	/* Keep the table at most half full. */
	if (2 * (k + 1) > g->name_cap) {
		uint32_t cap = g->name_cap ? 2 * g->name_cap : 64;
		free(g->name_slots);
		g->name_slots = xcalloc(cap, sizeof(*g->name_slots));
		g->name_cap = cap;
		for (uint32_t i = 0; i < k; i++)
			*name_slot(g, c->probe_names[i]) = i + 1;
	}
	uint32_t *slot = name_slot(g, name);
	if (*slot)
		return *slot - 1;
	/* The array doubles when k reaches a power of two (from 4); the old
	 * one is left in the arena. */
	if (k == 0 || (k >= 4 && (k & (k - 1)) == 0)) {
		uint32_t cap = k ? 2 * k : 4;
		const char **n = arena_alloc(g->arena, sizeof(*n) * cap);
		if (k)
			memcpy(n, c->probe_names, sizeof(*n) * k);
		c->probe_names = n;
	}
	c->probe_names[k] = name;
	*slot = k + 1;
	return c->nprobe_names++;
}

int32_t cg_add_map(struct cg *g, const char *name, enum bpf_map_type t,
		   uint32_t ks, uint32_t vs, uint32_t n)
{
	struct cmap m;
	memset(&m, 0, sizeof(m));
	m.name = name;
	m.type = t;
	m.key_size = ks;
	m.value_size = vs;
	m.max_entries = n;
	vec_push(&g->maps, m);
	return (int32_t)g->maps.len - 1;
}

int32_t cg_ringbuf(struct cg *g)
{
	if (g->ringbuf < 0) {
		g->ringbuf = cg_add_map(g, ".events", BPF_MAP_TYPE_RINGBUF, 0, 0,
				     limits_ringbuf_bytes());
		g->lost = cg_add_counter(g, ".lost");
	}
	return g->ringbuf;
}

int32_t cg_add_counter(struct cg *g, const char *name)
{
	return cg_add_map(g, name, BPF_MAP_TYPE_ARRAY, 4, 8, 1);
}

uint32_t cg_add_event(struct cg *g, const struct cevent *ev)
{
	vec_push(&g->events, *ev);
	return (uint32_t)g->events.len - 1;
}
