/*
 * The tables of the program being compiled that every file adds to: its
 * internal maps and counters, the ring buffer, the kinds of its records,
 * the probe names `probe` indexes, and the macro expansions being
 * compiled (whose calls errors and warnings name). Emits no code.
 */
#ifndef SONDE_CODEGEN_PROGRAM_H
#define SONDE_CODEGEN_PROGRAM_H

#include "codegen/cg.h"

/* An internal map (not printed); returns its index. */
int32_t cg_add_map(struct cg *g, const char *name, enum bpf_map_type t,
		   uint32_t ks, uint32_t vs, uint32_t n);
/* Counters: one u64 in an array, incremented atomically (emit.h's
 * cg_counter_inc), read with loader_counter_read(). */
int32_t cg_add_counter(struct cg *g, const char *name);
/* The ring buffer's map index (made, with the lost counter, when first
 * needed). */
int32_t cg_ringbuf(struct cg *g);
/* A kind of record the runtime decodes; returns its id. */
uint32_t cg_add_event(struct cg *g, const struct cevent *ev);
/* The index of name in the table `probe` values index. */
uint32_t cg_name_index(struct cg *g, const char *name);

/* Enters (returns true) or leaves a macro's copy, x its call (NULL:
 * none, as the same copy met again). */
bool cg_expansion_enter(struct cg *g, const struct ast_expansion *x);
void cg_expansion_leave(struct cg *g, bool entered);
/* The spans of the macro calls being compiled, innermost first, for an
 * event (in the arena); *n their number. */
const struct span *cg_expansion_sites(struct cg *g, uint32_t *n);

#endif
