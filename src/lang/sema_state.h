/*
 * The checker's state, shared by every part of sema: the maps and
 * variables, the scopes, the probe being checked and where errors go.
 * A leaf: it names no other part of sema. An expression is checked with
 * sema_expr(), which calls the walker through the state, so that the
 * typing rules the walker calls can check their arguments without
 * depending on it.
 */
#ifndef SONDE_SEMA_STATE_H
#define SONDE_SEMA_STATE_H

#include "lang/builtins.h"
#include "lang/namedopt.h"
#include "lang/scope.h"
#include "lang/sema.h"
#include "util/vec.h"

struct var {
	const char *name;
	uint32_t probe;
	const struct type *type;
	const void *decl; /* the node declaring it: one variable per node */
	bool let;         /* declared by `let` */
	bool typed;       /* `let $x: type`: the type is fixed */
	bool flex;        /* holds only non-negative literals so far (its
			     integer type's sign is flexible, as in 0.26) */
	bool assigned;    /* in the walk so far */
	bool used_unassigned; /* warned about already */
	bool assigned_ever;
};

/* A for loop being checked: the variables of outer scopes it uses. */
struct sema_for {
	struct ast_stmt *st;
	uint32_t level; /* scope depth of its body */
	VEC(int32_t) captures;
};

struct sema {
	struct arena *arena;
	struct diag *diag;
	struct diag muted;
	struct diag *report; /* diag or &muted, per pass */
	const struct sema_opts *opts;
	const struct sema_kernel *kernel; /* the machine's facts */
	struct ast_program *prog;
	const struct sema_probe *probes;
	VEC(struct sema_map) maps;
	VEC(struct var) vars;
	struct scopes scopes;
	VEC(struct sema_for) fors;
	int pass;
	uint32_t probe;              /* index of the probe being checked */
	const struct probe_target *tgt;
	int loop_depth;
	bool uses_ringbuf;
	struct ctypes *ct; /* type names, with the script's definitions */
	/* per probe: the target whose context the AST is annotated for */
	const struct probe_target **annotated;
	struct namedopts named; /* getopt()'s options */
	bool warned_dw_ustack;  /* 0.26's unstable-feature warning, said
				   once a run (sema_stack.c) */
	/* The expression walker (sema_expr.c), which sema_check() installs:
	 * every part of sema checks an expression through sema_expr(),
	 * never by naming the walker, so none depends back on it. */
	const struct type *(*walk)(struct sema *s, struct ast_expr *e);
};

void sema_err(struct sema *s, struct span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Type names for messages, in bpftrace's spelling. */
const char *sema_tname(struct sema *s, const struct type *t);
/* Whether the context being checked offers feature (CTX_*). */
bool sema_tgt_has(struct sema *s, unsigned feature);
/* Whether the kernel has feature f (features.h); when not, the error
 * "WHAT needs HELPER (Linux V); this kernel is R" at sp (what: the
 * construct, "for over a map"; helper: what it needs, named as the
 * kernel names it). Asked in the passes that report (s->pass > 0);
 * earlier, true. */
bool sema_need_feat(struct sema *s, struct span sp, int f, const char *what,
		    const char *helper);
/* The probe type being checked, for messages ("tracepoint"). */
const char *sema_probe_kind(struct sema *s);
/* After errors inside a macro's copy (printed_before: the errors
 * printed until then): the calls it came through. */
void sema_name_expansion(struct sema *s, const struct ast_expansion *x,
			 int printed_before);

/* Types and annotates e; returns its type (type_none after an error). */
static inline const struct type *sema_expr(struct sema *s, struct ast_expr *e)
{
	return s->walk(s, e);
}

static inline bool sema_is_int(const struct type *t)
{
	return t->kind == TY_INT;
}

static inline bool sema_is_intlike(const struct type *t)
{
	return t->kind == TY_INT || t->kind == TY_PTR;
}

/* What a condition, !, && and || take, and arithmetic too (a bool counts
 * as 0 or 1), as bpftrace 0.26 has it: integers, pointers and bools. */
static inline bool sema_is_scalar(const struct type *t)
{
	return t->kind == TY_INT || t->kind == TY_PTR || t->kind == TY_BOOL;
}

#endif
