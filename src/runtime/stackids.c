/* Keys stored with stack ids, read back whole. See stackids.h. */
#include "runtime/stackids.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/compiled.h"
#include "model/maplayout.h"
#include "model/stackids.h"
#include "model/types.h"
#include "runtime/loader.h"
#include "runtime/mapdump.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* The fd of the stack table of stack type t in m's program, or -1. */
static int table_fd(const struct mapdump_map *m, const struct type *t)
{
	const struct compiled *c = m->ids_prog;
	for (uint32_t i = 0; i < c->nmaps; i++)
		if (c->maps[i].stack_table && type_equal(c->maps[i].value, t))
			return m->ids_fds[i];
	return -1;
}

/* ctx: the fds of the key's parts' tables */
static bool fetch(void *ctx, uint32_t i, const struct stackids_part *p,
		  uint64_t id, uint8_t *dst)
{
	int fd = ((const int *)ctx)[i];
	/* an even id: a stack its table had no room for */
	return (id & 1) && fd >= 0 && !bpf_map_lookup_elem(fd, &id, dst);
}

int stackids_expand_entries(const struct mapdump_map *m,
			    struct mapdump_entries *r)
{
	uint32_t n = stackids_parts(m->key, NULL, 0);
	struct stackids_part *parts = xcalloc(n ? n : 1, sizeof(*parts));
	int *fds = xcalloc(n ? n : 1, sizeof(*fds));
	stackids_parts(m->key, parts, n);
	for (uint32_t i = 0; i < n; i++)
		fds[i] = table_fd(m, parts[i].stack);
	uint32_t ksize = maplayout_key_size(m->key, m->value);
	uint8_t *keys = xreallocarray(NULL, r->n ? r->n : 1, ksize);
	size_t kept = 0;
	for (size_t i = 0; i < r->n; i++) {
		if (!stackids_expand(m->key, m->value, r->keys + i * r->ksize,
				     keys + kept * ksize, fetch, fds))
			continue;
		if (kept != i)
			memmove(r->vals + kept * r->vsize,
				r->vals + i * r->vsize, r->vsize);
		kept++;
	}
	free(r->keys);
	r->keys = keys;
	r->ksize = ksize;
	r->n = kept;
	r->cap = r->n ? r->n : 1;
	free(fds);
	free(parts);
	return 0;
}

void stackids_report(const struct compiled *c, const int *map_fds,
		     FILE *err)
{
	for (uint32_t i = 0; i < c->nmaps; i++) {
		const struct cmap *t = &c->maps[i];
		if (!t->stack_table || t->full_counter <= 0)
			continue;
		uint64_t n = loader_counter_read_at(map_fds[t->full_counter],
						    t->full_off);
		if (!n)
			continue;
		struct strbuf sb = STRBUF_INIT;
		type_describe(t->value, &sb);
		fprintf(err, "WARNING: the table of %s stacks in map keys is "
			"full (%u entries): %llu stacks could not be kept, and "
			"the map entries that hold them are not printed. This "
			"kernel refuses hash map keys over %u bytes (Linux %s "
			"takes them), so stacks in keys are kept apart, in a "
			"table as big as the max_map_keys of the maps that use "
			"it\n", sb_str(&sb), t->max_entries,
			(unsigned long long)n, STACKIDS_KEY_MAX, STACKIDS_SINCE);
		sb_free(&sb);
	}
}
