/* The script's maps (maps.c): declared, read and written. */
#ifndef SONDE_CODEGEN_MAPS_H
#define SONDE_CODEGEN_MAPS_H

#include "codegen/cg.h"

/* Makes the compiled maps of the script's (g->user_maps). */
void cg_maps_declare(struct cg *g);
/* The compiled map index of map expression map, and that map. */
int32_t cg_map_index(struct cg *g, const struct ast_expr *map);
const struct cmap *cg_map(struct cg *g, int32_t idx);
/* @m[k]'s value (0 or zeros for a missing key). */
struct val cg_map_read(struct cg *g, struct ast_expr *map);
/* @m[k] = v, v already evaluated; a full map counts the failure. */
void cg_map_store(struct cg *g, struct ast_expr *map, struct val v);
/* @m++ / ++@m / @m-- / --@m: the old (post) or new (pre) value. */
ir_reg cg_map_incdec(struct cg *g, struct ast_expr *map, int delta,
		     bool post);
/* The number of elements of map mi: what bpf_for_each_map_elem visits
 * with a callback that goes on at each (e names the call in errors). */
ir_reg cg_count_elems(struct cg *g, struct ast_expr *e, int32_t mi);

#endif
