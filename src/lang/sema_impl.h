/*
 * Internal to sema: the checker's state and the helpers that sema.c (the
 * walk over statements and expressions) shares with sema_builtins.c (the
 * typing rules of the builtin registry).
 */
#ifndef SONDE_SEMA_IMPL_H
#define SONDE_SEMA_IMPL_H

#include "lang/builtins.h"
#include "lang/scope.h"
#include "lang/namedopt.h"
#include "lang/sema.h"
#include "util/vec.h"

struct var {
	const char *name;
	uint32_t probe;
	const struct type *type;
	const void *decl; /* the node declaring it: one variable per node */
	bool let;         /* declared by `let` */
	bool typed;       /* `let $x: type`: the type is fixed */
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
};

void sema_err(struct sema *s, struct span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Type names for messages, in bpftrace's spelling. */
const char *sema_tname(struct sema *s, const struct type *t);
/* Types and annotates e; returns its type (type_none after an error). */
const struct type *sema_expr(struct sema *s, struct ast_expr *e);
struct sema_map *sema_find_map(struct sema *s, const char *name);
/* The key type of a map access: NULL without [], the (widened) key for
 * one key, a tuple of them for several. */
const struct type *sema_map_key_type(struct sema *s, struct ast_expr *e);
/* Records the key used for map m at e, unifying with earlier uses. */
bool sema_use_map_key(struct sema *s, struct sema_map *m, struct ast_expr *e,
		      const struct type *key);
/* Turns e into the integer literal v. */
const struct type *sema_fold_const(struct ast_expr *e, uint64_t v);
/* Constant integer value of e (literals, folded unary minus, positional
 * parameters), or false. */
bool sema_const_int(struct sema *s, struct ast_expr *e, int64_t *v);
/* str($N) and str($N + k): whether a (str()'s argument) is such a
 * parameter; if so the call into becomes the string literal of the
 * parameter (from byte k), whatever it holds, as in bpftrace, or stays a
 * call after a located error (k past the end). */
bool sema_positional_str(struct sema *s, struct ast_expr *a,
			 struct ast_expr *into);
/* Whether the context being checked offers feature (CTX_*). */
bool sema_tgt_has(struct sema *s, unsigned feature);
/* sema_iter.c: printf f of call e in an iterator probe, as the kernel
 * formats it (false after a located error) */
struct fmt;
bool sema_iter_printf_ok(struct sema *s, struct ast_expr *e,
			 const struct fmt *f);
/* The probe type being checked, for messages ("tracepoint"). */
const char *sema_probe_kind(struct sema *s);
/* Types a call through the registry (target: the map it is assigned to). */
const struct type *sema_call(struct sema *s, struct ast_expr *e,
			     struct ast_expr *target);
/* Types a builtin variable through the registry. */
const struct type *sema_builtin_var(struct sema *s, struct ast_expr *e);

/* Typing rules of sema_stdlib.c (0.26's standard library). */
const struct type *sema_ty_getopt(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target);
const struct type *sema_ty_task_rel(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target);
const struct type *sema_ty_ncpus(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target);
const struct type *sema_ty_usermode(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target);
const struct type *sema_ty_pid_ns(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target);
const struct type *sema_ty_nsecs(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target);
/* A call without arguments of a builtin variable that 0.26 takes as one
 * (comm()): e becomes the variable. */
bool sema_var_call(struct sema *s, struct ast_expr *e);
const struct type *sema_ty_name_of(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target);
const struct type *sema_ty_strlen(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target);
const struct type *sema_ty_is_err(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target);
const struct type *sema_ty_is_kind(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target);
const struct type *sema_ty_probetype(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target);
const struct type *sema_ty_has_cpid(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target);
const struct type *sema_ty_kfunc_exist(struct sema *s, struct ast_expr *e,
				       struct ast_expr *target);
const struct type *sema_ty_write_user(struct sema *s, struct ast_expr *e,
				      struct ast_expr *target);
const struct type *sema_ty_percpu_kaddr(struct sema *s, struct ast_expr *e,
					struct ast_expr *target);
const struct type *sema_ty_socket_cookie(struct sema *s, struct ast_expr *e,
					 struct ast_expr *target);
const struct type *sema_ty_comm_of(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target);
const struct type *sema_ty_probe_name(struct sema *s, struct ast_expr *e,
				      struct ast_expr *target);
/* e of type t, where a string is wanted: `probe` becomes its name as a
 * string (its type returned); any other e keeps t. */
const struct type *sema_probe_string(struct sema *s, struct ast_expr *e,
				     const struct type *t);
const struct type *sema_ty_strstr(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target);
const struct type *sema_ty_fail(struct sema *s, struct ast_expr *e,
				struct ast_expr *target);
const struct type *sema_ty_static_assert(struct sema *s, struct ast_expr *e,
					 struct ast_expr *target);
const struct type *sema_ty_assert(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target);

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
