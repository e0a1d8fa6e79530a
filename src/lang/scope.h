/*
 * Block scopes of scratch variables, as bpftrace 0.22+ defines them: a
 * variable lives in the block that declares it (its first assignment or
 * its `let`) and in the blocks inside that one. Sema keeps one scope
 * stack per probe body it walks; the variables themselves (their types)
 * are sema's, named here by id.
 */
#ifndef SONDE_SCOPE_H
#define SONDE_SCOPE_H

#include <stdbool.h>
#include <stdint.h>

#include "util/vec.h"

struct scope_entry {
	const char *name;
	int32_t id;
};

struct scopes {
	VEC(struct scope_entry) entries; /* open scopes' variables, in order */
	VEC(uint32_t) marks;  /* per open scope: its first entry */
	VEC(const char *) gone; /* names of variables whose scope closed */
};

/* Forgets everything: a new probe body. */
void scope_reset(struct scopes *sc);
void scope_push(struct scopes *sc);
void scope_pop(struct scopes *sc);
/* The id of name in the innermost open scope that has it, or -1;
 * *level (may be NULL) gets that scope's depth (0: the probe's block). */
int32_t scope_find(const struct scopes *sc, const char *name,
		   uint32_t *level);
/* Declares name as id in the innermost scope. */
void scope_add(struct scopes *sc, const char *name, int32_t id);
/* The number of open scopes. */
uint32_t scope_depth(const struct scopes *sc);
/* Whether a variable name was declared in a scope closed since the
 * probe body began: bpftrace before 0.22 would have read it. */
bool scope_was_closed(const struct scopes *sc, const char *name);
void scope_free(struct scopes *sc);

#endif
