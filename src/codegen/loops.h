/* for loops (loops.c). */
#ifndef SONDE_CODEGEN_LOOPS_H
#define SONDE_CODEGEN_LOOPS_H

#include "codegen/cg.h"

/* for ($x : @map) and for ($x : a..b): the body is a callback. */
void cg_for(struct cg *g, struct ast_stmt *s);

#endif
