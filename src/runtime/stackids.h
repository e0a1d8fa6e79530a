/*
 * Map keys stored with stack ids (model/stackids.h) read back whole: each
 * id is looked up in the stack table of its type, so that every reader of
 * mapdump (printing, flame graphs, pprof, metrics) gets the keys a kernel
 * with big hash keys would have given it. An entry holding a stack its
 * table had no room for is left out; stackids_report() tells how many
 * stacks were lost so at exit.
 */
#ifndef SONDE_RUNTIME_STACKIDS_H
#define SONDE_RUNTIME_STACKIDS_H

#include <stdint.h>
#include <stdio.h>

struct compiled;
struct mapdump_entries;
struct mapdump_map;

/* The r->n entries read from m (m->ids_prog set) with stored keys of
 * r->ksize bytes, rewritten with whole keys (r->ksize grows); entries
 * with a lost stack are dropped. 0, or -errno (r is then freed and
 * empty). */
int stackids_expand_entries(const struct mapdump_map *m,
			    struct mapdump_entries *r);
/* At exit, a warning for each stack table of c (its maps' fds) that had
 * no room for some stacks. */
void stackids_report(const struct compiled *c, const int *map_fds,
		     FILE *err);

#endif
