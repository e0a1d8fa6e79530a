/*
 * Maps and variables (sema_maps.c).
 */
#ifndef SONDE_SEMA_MAPS_H
#define SONDE_SEMA_MAPS_H

#include "lang/ast.h"
#include "lang/sema.h"

struct sema;
struct var;

struct sema_map *sema_find_map(struct sema *s, const char *name);
/* The map e names, made on its first use. */
struct sema_map *sema_get_map(struct sema *s, const struct ast_expr *e);
/* The variable declared by node decl, made on the first walk. */
int32_t sema_var_for_decl(struct sema *s, const void *decl, const char *name);
/* The variable e names in the open scopes (NULL after an error). */
struct var *sema_lookup_var(struct sema *s, struct ast_expr *e);
/* The variable an assignment to e stores into (made if need be). */
struct var *sema_target_var(struct sema *s, struct ast_expr *e);
/* The key type of a map access: NULL without [], the (widened) key for
 * one key, a tuple of them for several. */
const struct type *sema_map_key_type(struct sema *s, struct ast_expr *e);
/* Records the key used for map m at e, unifying with earlier uses. */
bool sema_use_map_key(struct sema *s, struct sema_map *m, struct ast_expr *e,
		      const struct type *key);
/* Stores a value val of type t into map m; at: the assignment, where
 * bpftrace 0.26 locates a mismatch. sema_store_var: into variable e
 * (val NULL for ++, -- and op=, whose 64-bit result the variable takes). */
void sema_store_map(struct sema *s, struct sema_map *m, struct ast_expr *val,
		    const struct type *t, struct span at);
void sema_store_var(struct sema *s, struct ast_expr *e,
		    const struct type *t, const struct ast_expr *val,
		    struct span at);
const struct type *sema_check_var(struct sema *s, struct ast_expr *e);
/* Whether the program may combine the CPUs' values of count/sum/min/max/
 * avg map m (read as a value, or by a for loop): true, marking the map
 * read_shared where the kernel can only do so with one shared value;
 * false after an error at sp. */
bool sema_agg_combined(struct sema *s, struct sema_map *m, struct span sp);
const struct type *sema_check_map(struct sema *s, struct ast_expr *e);

#endif
