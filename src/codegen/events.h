/* Records built from the script's values (events.c). */
#ifndef SONDE_CODEGEN_EVENTS_H
#define SONDE_CODEGEN_EVENTS_H

#include "codegen/cg.h"

/* exit()'s record (EV_EXIT), with the lost counter as it read it.
 * code: exit(CODE)'s value, or IR_NOREG (status 0). */
void cg_exit_event(struct cg *g, ir_reg code);
/* Sends a record of kind: the header id, then args laid out as a tuple
 * (proto gives the rest of its cevent). */
void cg_event(struct cg *g, enum event_kind kind, struct ast_expr **args,
	      uint32_t nargs, struct cevent *proto);
/* join(argv [, sep]), the call. */
void cg_join(struct cg *g, struct ast_expr *call);

#endif
