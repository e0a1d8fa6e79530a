/*
 * The expression walker: one checker per expression kind, each in the
 * file of its concern, to which a switch on the kind dispatches. The walker
 * is the only part of sema that names them all; they check their
 * operands through sema_expr() (the state's callback to here).
 */
#include "lang/sema_expr.h"

#include "lang/sema_builtins.h"
#include "lang/sema_cast.h"
#include "lang/sema_comptime.h"
#include "lang/sema_const.h"
#include "lang/sema_field.h"
#include "lang/sema_maps.h"
#include "lang/sema_ops.h"
#include "lang/sema_state.h"
#include "lang/sema_stmt.h"
#include "util/diag.h"

/* The checker of e's kind. A switch rather than a table, so that the
 * compiler (-Wswitch) names a kind added to the AST without one. */
static const struct type *check_kind(struct sema *s, struct ast_expr *e)
{
	switch (e->kind) {
	case E_INT: return sema_check_int(s, e);
	case E_STRING: return sema_check_string(s, e);
	case E_BUILTIN: return sema_check_builtin_var(s, e);
	case E_IDENT: return sema_check_ident(s, e);
	case E_POSITIONAL: return sema_check_positional(s, e);
	case E_VAR: return sema_check_var(s, e);
	case E_MAP: return sema_check_map(s, e);
	case E_CALL: return sema_check_call(s, e);
	case E_UNARY: return sema_check_unary(s, e);
	case E_BINARY: return sema_check_binary(s, e);
	case E_TERNARY: return sema_check_ternary(s, e);
	case E_CAST: return sema_check_cast(s, e);
	case E_FIELD: return sema_check_field(s, e);
	case E_INDEX: return sema_check_index(s, e);
	case E_TUPLE: return sema_check_tuple(s, e);
	case E_TUPLE_INDEX: return sema_check_tuple_index(s, e);
	case E_SIZEOF: return sema_check_sizeof(s, e);
	case E_OFFSETOF: return sema_check_offsetof(s, e);
	case E_BLOCK: return sema_check_block_expr(s, e);
	case E_COMPTIME: return sema_check_comptime(s, e);
	case E_TYPEARG:
		/* a type no macro took (bpftrace's TypeArgCheck) */
		sema_err(s, e->span, "Typeof expression only valid for macro "
			 "calls that are expecting a type parameter");
		return &type_none;
	}
	return &type_none;
}

const struct type *sema_walk_expr(struct sema *s, struct ast_expr *e)
{
	int before = s->report->nerrors - s->report->nrepeats;
	e->type = check_kind(s, e);
	if (e->expansion)
		sema_name_expansion(s, e->expansion, before);
	return e->type;
}
