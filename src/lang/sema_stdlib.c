/*
 * Typing rules of bpftrace 0.26's standard library entries that sonde
 * resolves in sema (lang/builtins.def names them): getopt(), the
 * process builtins (ppid, pcomm, usermode, ncpus...), the modes of pid(),
 * tid() and nsecs(), and builtin variables called as functions.
 */
#include "sema_impl.h"

#include <bpf/libbpf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lang/namedopt.h"
#include "probes/provider.h"
#include "util/arena.h"

static struct ast_expr *arg(struct ast_expr *e, uint32_t i)
{
	return e->u.call.args.items[i];
}

static struct ast_expr *new_expr(struct sema *s, enum ast_expr_kind k,
				 struct span sp)
{
	struct ast_expr *e = arena_alloc(s->arena, sizeof(*e));
	e->kind = k;
	e->span = sp;
	e->type = &type_none;
	e->builtin = BI_NONE;
	return e;
}

/* `true` and `false`. */
static bool bool_literal(const struct ast_expr *e, uint64_t *v)
{
	if (e->kind != E_IDENT ||
	    (strcmp(e->u.name, "true") && strcmp(e->u.name, "false")))
		return false;
	*v = e->u.name[0] == 't';
	return true;
}

static const char *default_text(struct sema *s, const struct namedopt *o)
{
	switch (o->kind) {
	case NOPT_BOOL: return o->def_num ? "true" : "false";
	case NOPT_UINT:
		return arena_printf(s->arena, "%" PRIu64, o->def_num);
	case NOPT_INT:
		return arena_printf(s->arena, "%" PRId64, (int64_t)o->def_num);
	case NOPT_STRING: return o->def_str;
	}
	return "";
}

/* e becomes the value v, of bool type. */
static const struct type *fold_bool(struct ast_expr *e, uint64_t v)
{
	e->kind = E_INT;
	e->u.num.value = v;
	e->u.num.is_char = false;
	return &type_u8;
}

/* getopt("name" [, default [, "description"]]): the named program option,
 * whose type its default gives (none: bool), folded into its value. */
const struct type *sema_ty_getopt(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	uint32_t n = e->u.call.args.n;
	struct ast_expr *name = arg(e, 0);
	if (name->kind != E_STRING) {
		sema_err(s, name->span, "First argument to 'getopt' must be a "
			 "string literal.");
		return &type_none;
	}
	struct namedopt o = { .name = name->u.str.bytes, .description = "",
			      .kind = NOPT_BOOL, .def_str = "" };
	if (n == 3) {
		if (arg(e, 2)->kind != E_STRING) {
			sema_err(s, arg(e, 2)->span, "Function 'getopt' "
				 "requires the third parameter to be a string "
				 "literal.");
			return &type_none;
		}
		o.description = arg(e, 2)->u.str.bytes;
	}
	if (n >= 2) {
		struct ast_expr *d = arg(e, 1);
		if (d->kind == E_STRING) {
			o.kind = NOPT_STRING;
			o.def_str = d->u.str.bytes;
		} else if (bool_literal(d, &o.def_num)) {
			o.kind = NOPT_BOOL;
		} else if (d->kind == E_INT) {
			o.kind = NOPT_UINT;
			o.def_num = d->u.num.value;
		} else if (d->kind == E_UNARY && d->u.unary.op == OP_NEG &&
			   d->u.unary.operand->kind == E_INT) {
			o.kind = NOPT_INT;
			o.def_num = 0 - d->u.unary.operand->u.num.value;
		} else {
			sema_err(s, d->span, "Second argument to 'getopt' must "
				 "be a string literal, integer literal, or a "
				 "boolean literal.");
			return &type_none;
		}
	}
	struct namedopt *have = namedopt_find(&s->named, o.name);
	if (have) {
		if (have->kind != o.kind || have->def_num != o.def_num ||
		    strcmp(have->def_str, o.def_str)) {
			sema_err(s, e->span, "Command line option '%s' needs to "
				 "have the same default value in all places it "
				 "is used. Previous default value: %s", o.name,
				 default_text(s, have));
			return &type_none;
		}
		if (o.description[0] && have->description[0] &&
		    strcmp(o.description, have->description)) {
			sema_err(s, e->span, "Command line option '%s' must "
				 "have the same description in all places it's "
				 "used. Hint: You can wrap it in a macro", o.name);
			return &type_none;
		}
		if (o.description[0])
			have->description = o.description;
	} else {
		have = namedopt_add(s->arena, &s->named, &o,
				    s->opts->named, s->opts->nnamed);
	}
	switch (have->kind) {
	case NOPT_BOOL:
		return fold_bool(e, have->num);
	case NOPT_STRING:
		e->kind = E_STRING;
		e->u.str.bytes = have->str;
		e->u.str.len = (uint32_t)strlen(have->str);
		return sema_expr(s, e);
	case NOPT_UINT:
	case NOPT_INT: {
		/* (uint64)V or (int64)V: 0.26 types the option by the sign
		 * of its default, whatever its value. */
		struct ast_expr *v = new_expr(s, E_INT, e->span);
		v->u.num.value = have->num;
		e->kind = E_CAST;
		memset(&e->u.cast, 0, sizeof(e->u.cast));
		e->u.cast.to.span = e->span;
		e->u.cast.to.base = have->kind == NOPT_UINT ? "uint64" : "int64";
		e->u.cast.operand = v;
		return sema_expr(s, e);
	}
	}
	return &type_none;
}

/* ---- process builtins ---- */

/* A builtin variable read: curtask, ... */
static struct ast_expr *builtin_var(struct sema *s, const char *name,
				    struct span sp)
{
	struct ast_expr *v = new_expr(s, E_BUILTIN, sp);
	uint32_t n;
	v->u.name = name;
	v->builtin = (int16_t)builtin_var_lookup(name, &n);
	return v;
}

static struct ast_expr *field(struct sema *s, struct ast_expr *base,
			      const char *name, struct span sp)
{
	struct ast_expr *f = new_expr(s, E_FIELD, sp);
	f->u.field.base = base;
	f->u.field.name = name;
	f->u.field.name_span = sp;
	f->u.field.arrow = true;
	return f;
}

/* ppid, pcomm, leader_tid, leader_comm, bare or called (with a task, else
 * the current one): 0.26's macros for task->real_parent->pid and so on,
 * rewritten into those field reads. */
const struct type *sema_ty_task_rel(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target)
{
	const char *name = e->kind == E_CALL ? e->u.call.name : e->u.name;
	struct ast_expr *task = e->kind == E_CALL && e->u.call.args.n ?
		arg(e, 0) : builtin_var(s, "curtask", e->span);
	bool parent = !strcmp(name, "ppid") || !strcmp(name, "pcomm");
	bool is_comm = !strcmp(name, "pcomm") || !strcmp(name, "leader_comm");
	struct ast_expr *rel = field(s, task, parent ? "real_parent" :
				     "group_leader", e->span);
	struct ast_expr *f = field(s, rel, is_comm ? "comm" : "pid", e->span);
	*e = *f;
	return sema_expr(s, e);
}

/* ncpus: the possible CPUs, as 0.26 counts them. */
const struct type *sema_ty_ncpus(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target)
{
	int n = libbpf_num_possible_cpus();
	if (n < 0) {
		sema_err(s, e->span, "cannot count the possible CPUs");
		return &type_none;
	}
	sema_fold_const(e, (uint64_t)n);
	return &type_u64;
}

/* usermode: whether the probe fired in user mode, from the code segment
 * register's privilege level; BEGIN and END stand for points in sonde's
 * own code (0.26 runs them as uprobes on itself), so they are in user
 * mode. */
const struct type *sema_ty_usermode(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target)
{
#if defined(__x86_64__)
	const char *kind = sema_probe_kind(s);
	if (!strcmp(kind, "BEGIN") || !strcmp(kind, "END")) {
		sema_fold_const(e, 1);
		return &type_u8;
	}
	if (!sema_tgt_has(s, CTX_REGS)) {
		sema_err(s, e->span, "usermode is not available in %s probes "
			 "(their context holds no registers)", kind);
		return &type_none;
	}
	/* (reg("cs") & 3) == 3 */
	struct span sp = e->span;
	struct ast_expr *call = new_expr(s, E_CALL, sp);
	call->u.call.name = "reg";
	call->u.call.name_span = sp;
	struct ast_expr *cs = new_expr(s, E_STRING, sp);
	cs->u.str.bytes = "cs";
	cs->u.str.len = 2;
	call->u.call.args.items = arena_alloc(s->arena, sizeof(cs));
	call->u.call.args.items[0] = cs;
	call->u.call.args.n = 1;
	struct ast_expr *three = new_expr(s, E_INT, sp);
	three->u.num.value = 3;
	struct ast_expr *mask = new_expr(s, E_BINARY, sp);
	mask->u.binary.op = OP_BAND;
	mask->u.binary.left = call;
	mask->u.binary.right = three;
	e->kind = E_BINARY;
	e->u.binary.op = OP_EQ;
	e->u.binary.left = mask;
	e->u.binary.right = three;
	return sema_expr(s, e);
#else
	sema_err(s, e->span, "'usermode' builtin is only supported on x86_64");
	return &type_none;
#endif
}

/* An identifier argument of pid(), tid() or nsecs(), which codegen reads
 * again: one of words. */
static bool mode_arg(struct sema *s, struct ast_expr *e,
		     const char *const *words, const char *what)
{
	if (!e->u.call.args.n)
		return true;
	struct ast_expr *a = arg(e, 0);
	if (a->kind != E_IDENT) {
		if (!strcmp(what, "PID namespace mode"))
			sema_err(s, e->span, "%s() only supports curr_ns and "
				 "init as the argument", e->u.call.name);
		else
			sema_err(s, a->span, "%s() expects a timestamp mode "
				 "(monotonic, boot, tai or sw_tai)",
				 e->u.call.name);
		return false;
	}
	for (; *words; words++)
		if (!strcmp(a->u.name, *words))
			return true;
	if (!strcmp(what, "PID namespace mode"))
		sema_err(s, a->span, "Invalid PID namespace mode: %s (expects: "
			 "curr_ns or init)", a->u.name);
	else
		sema_err(s, a->span, "Invalid timestamp mode: %s", a->u.name);
	return false;
}

/* pid([curr_ns|init]), tid([curr_ns|init]) */
const struct type *sema_ty_pid_ns(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	static const char *const modes[] = { "curr_ns", "init", NULL };
	if (!mode_arg(s, e, modes, "PID namespace mode"))
		return &type_none;
	return &type_u64;
}

/* nsecs([monotonic|boot|tai|sw_tai]) */
const struct type *sema_ty_nsecs(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target)
{
	static const char *const modes[] = { "monotonic", "boot", "tai",
					     "sw_tai", NULL };
	if (!mode_arg(s, e, modes, "timestamp mode"))
		return &type_none;
	if (e->u.call.args.n && !strcmp(arg(e, 0)->u.name, "tai") &&
	    libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT,
				    BPF_FUNC_ktime_get_tai_ns, NULL) != 1) {
		sema_err(s, e->span, "Kernel does not support tai timestamp, "
			 "please try sw_tai");
		return &type_none;
	}
	return &type_u64;
}

/* Builtin variables that 0.26 also takes as calls without arguments
 * (its standard library defines them as macros): comm(), ppid(), ... */
static const char *const var_calls[] = {
	"cgroup", "comm", "cpid", "cpu", "curtask", "elapsed", "func", "gid",
	"jiffies", "ncpus", "numaid", "ppid", "leader_tid", "pcomm",
	"leader_comm", "probe", "rand", "retval", "uid", "usermode",
	"username", NULL,
};

bool sema_var_call(struct sema *s, struct ast_expr *e)
{
	if (e->u.call.args.n)
		return false;
	const char *name = e->u.call.name;
	for (const char *const *v = var_calls; *v; v++) {
		uint32_t n;
		if (strcmp(name, *v))
			continue;
		enum builtin_id id = builtin_var_lookup(name, &n);
		if (id == BI_NONE)
			return false;
		e->kind = E_BUILTIN;
		e->u.name = name;
		e->builtin = (int16_t)id;
		e->builtin_n = 0;
		return true;
	}
	return false;
}
