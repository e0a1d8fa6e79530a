/*
 * comptime: bpftrace 0.26's values known at compile time, and the
 * questions sonde answers about the kernel it compiles for.
 *
 * `comptime EXPR` is EXPR's value, which must be known at compile time;
 * `if comptime C { A } else { B }` keeps the branch C picks and drops the
 * other before it is typed, so that B may name a field, a function or a
 * tracepoint argument this kernel lacks. bpftrace folds literals and
 * retypes until it can; sonde decides each comptime where what it asks
 * is known:
 *
 *  - comptime_decide(), a pass before the probes are expanded: a probe
 *    whose predicate is `comptime C` with C known before any probe (a
 *    literal, probe_exist, kfunc_exist, field_exist of a type) is dropped
 *    when C is false, so that a probe this kernel lacks is never looked
 *    up, and keeps no predicate when true. probe_exist() is answered
 *    there everywhere (it is the same for every probe). The pass then
 *    records the owner of every other comptime: the if it decides, the
 *    probe whose predicate it is, or itself (an if whose value is used
 *    becomes one comptime node holding both branches).
 *  - sema (sema_comptime.c), for the rest, as it walks the probe: a copy
 *    of C is typed in the probe's context (so that is_str($x),
 *    field_exist(args, f) and sizeof work) and its value computed here
 *    (comptime_eval). The branch not taken is then cut from the if before
 *    sema reaches it; a C it cannot compute is "Unable to resolve
 *    comptime expression", as in bpftrace.
 *  - comptime_finish(), after sema: every comptime is replaced by what it
 *    decided (a literal, or the branch taken), so that codegen never sees
 *    one.
 *
 * A probe's body is one tree for all its attach points: a comptime whose
 * value differs between two of them is refused, located, rather than
 * decided for one and run for both.
 */
#ifndef SONDE_COMPTIME_H
#define SONDE_COMPTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "lang/ast.h"

struct arena;
struct ctypes;
struct diag;
struct probe_env;
struct probe_target;
struct type;

/* A value comptime computed: an integer (of int64's or uint64's range),
 * a bool, or a string. */
enum ct_kind { CT_INT, CT_BOOL, CT_STR };

struct ct_value {
	enum ct_kind kind;
	__int128 i;          /* CT_INT; CT_BOOL: 0 or 1 */
	const char *s;       /* CT_STR: the bytes, len of them */
	uint32_t len;
};

/* What a comptime decides, once sema decides it. */
enum ct_owner {
	CT_VALUE, /* itself: a value, or an if whose value is used */
	CT_IF,    /* the branches of the if statement it is the condition of */
	CT_PRED,  /* the body of the probe it is the predicate of */
};

struct ast_comptime {
	enum ct_owner owner;
	struct ast_stmt *stmt;       /* CT_IF: the if */
	/* as written: CT_IF's branches, CT_PRED's body */
	struct ast_block then;
	struct ast_stmt *otherwise;
	bool decided;
	struct ct_value v;
	/* the attach point it was decided for first (NULL: a probe with
	 * none, BEGIN's) */
	const struct probe_target *first;
};

/* A hook answering a call EXPR's value where it can (before sema: the
 * questions about the kernel); false: not known. */
typedef bool (*ct_call_fn)(const struct ast_expr *call, void *ctx,
			   struct ct_value *out);

/* e's value when it is made of literals, operators, ?:, tuple indexes of
 * literal tuples, blocks with only a value, comptimes sema decided and
 * calls call answers (call may be NULL): bpftrace 0.26's literal folding.
 * false: not known at compile time. a holds the strings it makes. */
bool comptime_eval(struct arena *a, const struct ast_expr *e,
		   ct_call_fn call, void *ctx, struct ct_value *out);
/* v as a condition: not 0, not false, not "" (bpftrace's eval_bool). */
bool comptime_truth(const struct ct_value *v);
/* A literal node of v, at sp (untyped). */
struct ast_expr *comptime_literal(struct arena *a, const struct ct_value *v,
				  struct span sp);
bool comptime_equal(const struct ct_value *a, const struct ct_value *b);
/* v as the script would write it, for messages. */
const char *comptime_spell(struct arena *a, const struct ct_value *v);

/* Records the owner of every comptime of e (an if whose value is used
 * becomes one comptime node): what sema needs before it types e. A copy
 * of a condition is linked so before it is typed. */
void comptime_link_expr(struct arena *a, struct ast_expr *e);

/* The pass before the probes are expanded (see above). env: the probe
 * environment the probes expand in, for probe_exist(). Errors go to d;
 * returns 0 or -1. */
int comptime_decide(struct arena *a, struct diag *d, struct ast_program *p,
		    const struct probe_env *env);

/* The pass after sema (see above): 0, or -1 after an internal error (a
 * comptime sema left undecided), reported to d. */
int comptime_finish(struct diag *d, struct ast_program *p);

/* field_exist()'s answer for type t, or for the type named `named` when
 * t is NULL (not known here): whether the path fields[0].fields[1]...
 * leads through t's members as '.' and '->' would (through pointers, the
 * script's definitions winning over the kernel's). A type this kernel
 * does not have has no fields (as libbpf's bpf_core_field_exists has it).
 * 1: it does, 0: it does not, -ENODATA: a record on the way is the
 * kernel's, whose BTF this kernel lacks (*which: its name). */
int comptime_field_exist(struct arena *a, const struct ctypes *ct,
			 const struct type *t, const char *named,
			 const char *const *fields, uint32_t nfields,
			 const char **which);

#endif
