/*
 * printf in iterator probes (sema_iter.c).
 */
#ifndef SONDE_SEMA_ITER_H
#define SONDE_SEMA_ITER_H

#include <stdbool.h>

#include "lang/ast.h"

struct fmt;
struct sema;

/* printf f of call e in an iterator probe, as the kernel formats it
 * (false after a located error). */
bool sema_iter_printf_ok(struct sema *s, struct ast_expr *e,
			 const struct fmt *f);

#endif
