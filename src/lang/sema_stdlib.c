/*
 * Typing rules of bpftrace 0.26's standard library entries that sonde
 * resolves in sema (lang/builtins.def names them): getopt(), the
 * process builtins (usermode, ncpus...), the modes of pid(), tid() and
 * nsecs(), and the questions answered at compile time (kfunc_exist()...).
 */
#include "lang/sema_stdlib.h"

#include <bpf/btf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kernel/arch.h"
#include "kernel/btf.h"
#include "kernel/features.h"
#include "lang/namedopt.h"
#include "lang/sema_const.h"
#include "lang/sema_state.h"
#include "model/limits.h"
#include "model/settings.h"
#include "probes/provider.h"
#include "util/arena.h"
#include "util/strbuf.h"

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

/* `true` and `false`: an identifier, or the literal a parser that knows
 * them makes (told apart from 1 and 0 by its text). */
static bool bool_literal(const struct ast_expr *e, uint64_t *v)
{
	if (e->kind == E_IDENT) {
		if (strcmp(e->u.name, "true") && strcmp(e->u.name, "false"))
			return false;
		*v = e->u.name[0] == 't';
		return true;
	}
	if (e->kind != E_INT || !e->span.file ||
	    e->span.off + e->span.len > e->span.file->len)
		return false;
	const char *t = e->span.file->text + e->span.off;
	if ((e->span.len == 4 && !memcmp(t, "true", 4)) ||
	    (e->span.len == 5 && !memcmp(t, "false", 5))) {
		*v = t[0] == 't';
		return true;
	}
	return false;
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

/* e becomes the value v as a comparison, v != 0, which is of the
 * language's truth type (bpftrace 0.26's bool). */
static const struct type *fold_bool(struct sema *s, struct ast_expr *e,
				    uint64_t v)
{
	struct ast_expr *l = new_expr(s, E_INT, e->span);
	struct ast_expr *r = new_expr(s, E_INT, e->span);
	l->u.num.value = v;
	e->kind = E_BINARY;
	e->u.binary.op = OP_NE;
	e->u.binary.left = l;
	e->u.binary.right = r;
	return sema_expr(s, e);
}

/* getopt("name" [, default [, "description"]]): the named program option,
 * whose type its default gives (none: bool), folded into its value. */
const struct type *sema_ty_getopt(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	uint32_t n = e->u.call.args.n;
	if (n < 1 || n > 3) {
		sema_err(s, e->span, "The 'getopt' function can take a maximum "
			 "of three arguments and a minimum of one argument.");
		return &type_none;
	}
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
		return fold_bool(s, e, have->num);
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

/* A read of builtin variable id (comm) */
static struct ast_expr *builtin_var(struct sema *s, enum builtin_id id,
				    struct span sp)
{
	struct ast_expr *v = new_expr(s, E_BUILTIN, sp);
	v->u.name = builtin_info[id].name;
	v->builtin = (int16_t)id;
	return v;
}

/* ncpus: the possible CPUs, as 0.26 counts them. */
const struct type *sema_ty_ncpus(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target)
{
	int n = s->kernel->ncpus();
	if (n < 0) {
		sema_err(s, e->span, "cannot count the possible CPUs");
		return &type_none;
	}
	sema_fold_const(e, (uint64_t)n);
	return &type_u64;
}

/* usermode: 1 when the probe fired in user mode (uint8, as 0.26 has it), from the code segment
 * register's privilege level; BEGIN and END stand for points in sonde's
 * own code (0.26 runs them as uprobes on itself), so they are in user
 * mode. */
const struct type *sema_ty_usermode(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target)
{
	if (arch_build() != ARCH_X86_64) {
		/* bpftrace's words: aarch64's pstate is not read as x86_64's
		 * cs is */
		sema_err(s, e->span, "'usermode' builtin is only supported on "
			 "x86_64");
		return &type_none;
	}
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
	/* (uint8)(... == 3): 0.26 types it uint8, and prints 1, not true */
	struct ast_expr *eq = new_expr(s, E_BINARY, sp);
	eq->u.binary.op = OP_EQ;
	eq->u.binary.left = mask;
	eq->u.binary.right = three;
	e->kind = E_CAST;
	memset(&e->u.cast, 0, sizeof(e->u.cast));
	e->u.cast.to.span = sp;
	e->u.cast.to.base = "uint8";
	e->u.cast.operand = eq;
	return sema_expr(s, e);
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
	    !feat_has(FEAT_KTIME_TAI)) {
		sema_err(s, e->span, "Kernel does not support tai timestamp, "
			 "please try sw_tai");
		return &type_none;
	}
	return &type_u64;
}

/* signal_name(n), syscall_name(n): the number, named when printed. */
const struct type *sema_ty_name_of(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target)
{
	const struct type *t = sema_expr(s, arg(e, 0));
	if (t->kind == TY_NONE)
		return &type_none;
	if (!sema_is_int(t)) {
		sema_err(s, arg(e, 0)->span, "%s() expects an integer, not %s",
			 e->u.call.name, sema_tname(s, t));
		return &type_none;
	}
	return type_new(s->arena, e->builtin == BI_SIGNAL_NAME ? TY_SIGNAME :
			TY_SYSCALL_NAME, 8);
}

/* Whether a (of type t) is one of 0.26's string-like values: a string,
 * a char array or a char pointer (assert_str's rule, and its words). */
static bool string_like(struct sema *s, struct ast_expr *a,
			const struct type *t)
{
	if (t->kind == TY_STRING)
		return true;
	if ((t->kind == TY_ARRAY || t->kind == TY_PTR) && t->elem &&
	    t->elem->kind == TY_INT && t->elem->size == 1)
		return true;
	if (t->kind == TY_ARRAY)
		sema_err(s, a->span, "string-like arrays must contain "
			 "a char-like type");
	else if (t->kind == TY_PTR)
		sema_err(s, a->span, "string-like pointers must point "
			 "to a char-like type");
	else
		sema_err(s, a->span, "string-like values must be either "
			 "strings, arrays or pointers");
	return false;
}

/* strlen(s): of a string, a char array or a char pointer (0.26's
 * string-like values). */
const struct type *sema_ty_strlen(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	const struct type *t = sema_expr(s, arg(e, 0));
	if (t->kind == TY_NONE || !string_like(s, arg(e, 0), t))
		return &type_none;
	return &type_u64;
}

/* str_concat(s1, s2): bpftrace's stdlib (strings.bt, PR #5265) builds
 * the two string-like values into a string[1024], whatever max_strlen
 * is; what does not fit is cut. */
const struct type *sema_ty_str_concat(struct sema *s, struct ast_expr *e,
				      struct ast_expr *target)
{
	bool ok = true;
	for (uint32_t i = 0; i < 2; i++) {
		const struct type *t =
			sema_probe_string(s, arg(e, i), sema_expr(s, arg(e, i)));
		if (t->kind == TY_NONE || !string_like(s, arg(e, i), t))
			ok = false;
	}
	return ok ? type_string(s->arena, SEMA_STR_CONCAT_SIZE) : &type_none;
}

/* ---- config ---- */

/* The value of a named setting now (the environment and the config block
 * applied) as a literal: a number, a bool or a word, as bpftrace's
 * __builtin_config gives them (src/ast/passes/builtins.cpp). */
static struct ast_expr *setting_value(struct sema *s, const struct setting *v,
				      struct span sp)
{
	static const char *const unstable_words[] = { "enable", "warn",
						      "error" };
	struct ast_expr *e = new_expr(s, E_INT, sp);
	const char *word = NULL;
	switch (v->kind) {
	case SK_NUM:
		e->u.num.value = v->u32 ? *v->u32 : v->u64 ? *v->u64 : 0;
		/* 0: sonde's default, its pages per CPU */
		if (v->u32 == &limits.perf_rb_pages && !e->u.num.value)
			e->u.num.value = limits_ringbuf_pages();
		break;
	case SK_BOOL:
		e->u.num.is_bool = true;
		e->u.num.value = v->flag ? *v->flag != v->inverted :
					   v->only == ONLY_TRUE;
		break;
	case SK_WORD:
		word = v->words[*v->word];
		break;
	case SK_UNSTABLE:
		/* the ones that gate nothing in sonde are enabled */
		word = unstable_words[v->word ? *v->word : UNSTABLE_ENABLE];
		break;
	case SK_CACHE:
		word = "PER_PID"; /* what sonde's caches give (settings.c) */
		break;
	case SK_LICENSE:
	case SK_STRING:
	case SK_FILE:
	case SK_DIR:
		word = *v->str ? *v->str : "";
		break;
	}
	if (word) {
		e->kind = E_STRING;
		e->u.str.bytes = word;
		e->u.str.len = (uint32_t)strlen(word);
	}
	return e;
}

/* config (config(), __builtin_config): a record of every config variable
 * (bpftrace's development branch, PR #5241), in bpftrace's order, then
 * sonde's own (ustack_unwind, cache_user_symbols); each is a literal of
 * the value the run uses, so the record is folded where it is read. */
const struct type *sema_ty_config(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	static const char *const order[] = {
		"cpp_demangle", "lazy_symbolication", "print_maps_on_exit",
		"use_blazesym", "show_debug_info", "log_size",
		"max_bpf_progs", "max_cat_bytes", "max_map_keys",
		"max_probes", "max_strlen", "on_stack_limit",
		"perf_rb_pages", "str_trunc_trailer",
		"unstable_import_statement", "unstable_tseries",
		"unstable_typeinfo", "unstable_dw_ustack", "missing_probes",
		"stack_mode", "license",
	};
	const size_t nord = sizeof(order) / sizeof(order[0]);
	size_t n = 0;
	const struct setting **rows = arena_alloc(s->arena,
						  nsettings * sizeof(*rows));
	for (size_t i = 0; i < nord; i++)
		if ((rows[n] = settings_find(order[i])))
			n++;
	for (size_t i = 0; i < nsettings; i++) {
		size_t k = 0;
		while (k < nord && settings[i].name &&
		       strcmp(order[k], settings[i].name))
			k++;
		if (settings[i].name && k == nord)
			rows[n++] = &settings[i];
	}
	struct ast_expr **items = arena_alloc(s->arena, n * sizeof(*items));
	const char **names = arena_alloc(s->arena, n * sizeof(*names));
	for (size_t i = 0; i < n; i++) {
		items[i] = setting_value(s, rows[i], e->span);
		names[i] = rows[i]->name;
	}
	e->kind = E_TUPLE;
	memset(&e->u, 0, sizeof(e->u));
	e->u.list.items = items;
	e->u.list.names = names;
	e->u.list.n = (uint32_t)n;
	e->builtin = BI_NONE;
	return sema_expr(s, e);
}

/* ---- compile-time checks and assertions ---- */

/* The value of e when the compiler knows it: literals, true/false,
 * positional parameters and the operators over them. */
static bool const_eval(struct sema *s, struct ast_expr *e, int64_t *v)
{
	uint64_t b;
	int64_t l, r;
	if (bool_literal(e, &b)) {
		*v = (int64_t)b;
		return true;
	}
	switch (e->kind) {
	case E_UNARY:
		if (!const_eval(s, e->u.unary.operand, &l))
			return false;
		switch (e->u.unary.op) {
		case OP_NEG: *v = -l; return true;
		case OP_LNOT: *v = !l; return true;
		case OP_BNOT: *v = ~l; return true;
		case OP_PLUS: *v = l; return true;
		default: return false;
		}
	case E_BINARY:
		if (!const_eval(s, e->u.binary.left, &l) ||
		    !const_eval(s, e->u.binary.right, &r))
			return false;
		switch (e->u.binary.op) {
		case OP_LOR: *v = l || r; return true;
		case OP_LAND: *v = l && r; return true;
		case OP_BOR: *v = l | r; return true;
		case OP_BXOR: *v = l ^ r; return true;
		case OP_BAND: *v = l & r; return true;
		case OP_EQ: *v = l == r; return true;
		case OP_NE: *v = l != r; return true;
		case OP_LT: *v = l < r; return true;
		case OP_LE: *v = l <= r; return true;
		case OP_GT: *v = l > r; return true;
		case OP_GE: *v = l >= r; return true;
		case OP_ADD: *v = (int64_t)((uint64_t)l + (uint64_t)r); return true;
		case OP_SUB: *v = (int64_t)((uint64_t)l - (uint64_t)r); return true;
		case OP_MUL: *v = (int64_t)((uint64_t)l * (uint64_t)r); return true;
		case OP_DIV: *v = r ? l / r : 0; return true;
		case OP_MOD: *v = r ? l % r : l; return true;
		default: return false;
		}
	default:
		return sema_const_int(s, e, v);
	}
}

/* A literal argument of fail(), as text for its format. */
static bool literal_text(struct sema *s, struct ast_expr *a, const char **str,
			 int64_t *num)
{
	uint64_t b;
	*str = NULL;
	if (a->kind == E_STRING) {
		*str = a->u.str.bytes;
		return true;
	}
	if (bool_literal(a, &b)) {
		*str = b ? "true" : "false";
		return true;
	}
	if (a->kind == E_INT) {
		*num = (int64_t)a->u.num.value;
		return true;
	}
	if (a->kind == E_UNARY && a->u.unary.op == OP_NEG &&
	    a->u.unary.operand->kind == E_INT) {
		*num = -(int64_t)a->u.unary.operand->u.num.value;
		return true;
	}
	return false;
}

/* fmt with each conversion replaced by the next argument (0.26 formats
 * fail()'s message at compile time, as printf would). */
static const char *format_literals(struct sema *s, const char *fmt,
				   struct ast_expr **args, uint32_t n)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t k = 0;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			sb_putc(&sb, *p);
			continue;
		}
		if (p[1] == '%') {
			sb_putc(&sb, '%');
			p++;
			continue;
		}
		const char *start = p++;
		while (*p && strchr("-+ #0123456789.", *p))
			p++;
		while (*p && strchr("hljzt", *p))
			p++;
		if (!*p)
			break;
		char spec[32];
		size_t w = (size_t)(p - start);
		if (w > sizeof(spec) - 4)
			w = sizeof(spec) - 4;
		memcpy(spec, start, w);
		spec[w] = 0;
		/* the length modifiers drop: the value is printed whole */
		char *m = spec + 1;
		while (*m && !strchr("hljzt", *m))
			m++;
		*m = 0;
		const char *str = "";
		int64_t num = 0;
		if (k < n)
			literal_text(s, args[k], &str, &num);
		k++;
		if (str || *p == 's') {
			strcat(spec, "s");
			sb_printf(&sb, spec, str ? str : "");
		} else {
			char conv[2] = { *p, 0 };
			strcat(spec, "ll");
			strcat(spec, conv);
			sb_printf(&sb, spec, (long long)num);
		}
	}
	const char *out = arena_strdup(s->arena, sb_str(&sb));
	sb_free(&sb);
	return out;
}

/* fail(fmt, literals...): a compile-time error where it is reached. */
const struct type *sema_ty_fail(struct sema *s, struct ast_expr *e,
				struct ast_expr *target)
{
	uint32_t n = e->u.call.args.n;
	bool ok = true;
	if (!n) {
		sema_err(s, e->span, "fail() needs a format string");
		return &type_none;
	}
	for (uint32_t i = 0; i < n; i++) {
		const char *str;
		int64_t num;
		if (!literal_text(s, arg(e, i), &str, &num)) {
			sema_err(s, e->span, "fail() arguments need to be "
				 "literals");
			ok = false;
		}
	}
	if (!ok)
		return &type_none;
	if (arg(e, 0)->kind != E_STRING) {
		sema_err(s, e->span, "first argument to fail() must be a "
			 "string literal");
		return &type_none;
	}
	sema_err(s, e->span, "%s", format_literals(s, arg(e, 0)->u.str.bytes,
						   e->u.call.args.items + 1,
						   n - 1));
	return &type_none;
}

/* static_assert(cond, msg): fail(msg) unless the compiler knows cond is
 * true. */
const struct type *sema_ty_static_assert(struct sema *s, struct ast_expr *e,
					 struct ast_expr *target)
{
	struct ast_expr *msg = arg(e, 1);
	if (msg->kind != E_STRING) {
		sema_err(s, msg->span, "static_assert()'s message must be a "
			 "string literal");
		return &type_none;
	}
	int64_t v;
	if (!const_eval(s, arg(e, 0), &v)) {
		sema_err(s, arg(e, 0)->span, "static_assert() needs a condition "
			 "known at compile time");
		return &type_none;
	}
	if (!v) {
		sema_err(s, e->span, "%s", msg->u.str.bytes);
		return &type_none;
	}
	return &type_void;
}

static bool is_literal(const struct ast_expr *a)
{
	uint64_t b;
	return a->kind == E_INT || a->kind == E_STRING ||
	       bool_literal(a, &b) ||
	       (a->kind == E_UNARY && a->u.unary.op == OP_NEG &&
		a->u.unary.operand->kind == E_INT);
}

/* is_str, is_ptr, is_array, is_integer, is_unsigned_integer, is_literal:
 * of the argument's type (which is not evaluated). */
const struct type *sema_ty_is_kind(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target)
{
	struct ast_expr *x = arg(e, 0);
	const char *fn = e->u.call.name;
	bool lit = is_literal(x);
	uint64_t b;
	const struct type *t = bool_literal(x, &b) ? &type_u8 : sema_expr(s, x);
	if (t->kind == TY_NONE)
		return &type_none;
	bool v;
	if (!strcmp(fn, "is_literal"))
		v = lit;
	else if (!strcmp(fn, "is_str"))
		v = t->kind == TY_STRING;
	else if (!strcmp(fn, "is_ptr"))
		v = t->kind == TY_PTR;
	else if (!strcmp(fn, "is_array"))
		v = t->kind == TY_ARRAY;
	else if (!strcmp(fn, "is_integer"))
		v = t->kind == TY_INT;
	else
		v = t->kind == TY_INT && !t->is_signed;
	return fold_bool(s, e, v);
}

/* probetype: the probe's type as 0.26 names it (BEGIN and END are
 * "special"). */
const struct type *sema_ty_probetype(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target)
{
	const char *k = sema_probe_kind(s);
	if (!strcmp(k, "BEGIN") || !strcmp(k, "END"))
		k = "special";
	else if (!strcmp(k, "kfunc"))
		k = "fentry";
	else if (!strcmp(k, "kretfunc"))
		k = "fexit";
	e->kind = E_STRING;
	e->u.str.bytes = k;
	e->u.str.len = (uint32_t)strlen(k);
	return sema_expr(s, e);
}

/* has_cpid: whether there is a -c child (0.26's documented meaning). */
const struct type *sema_ty_has_cpid(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target)
{
	return fold_bool(s, e, s->opts->cpid != 0);
}

/* kfunc_exist("name"): whether the kernel's BTF has the function. */
const struct type *sema_ty_kfunc_exist(struct sema *s, struct ast_expr *e,
				       struct ast_expr *target)
{
	struct ast_expr *x = arg(e, 0);
	if (x->kind != E_STRING) {
		sema_err(s, e->span, "kfunc_exist() accepts a string literal "
			 "only");
		return &type_none;
	}
	struct btf *b = kbtf_load() == 0 ? kbtf_vmlinux() : NULL;
	return fold_bool(s, e, b && btf__find_by_name_kind(b, x->u.str.bytes,
							 BTF_KIND_FUNC) > 0);
}

/* write_user(dst, src, len): --unsafe; src a value of the program
 * (string, array, buffer, integer), len a constant that fits in it. */
const struct type *sema_ty_write_user(struct sema *s, struct ast_expr *e,
				      struct ast_expr *target)
{
	if (!s->opts->unsafe) {
		sema_err(s, e->span, "write_user() is unsafe. To use you need "
			 "the --unsafe flag");
		return &type_none;
	}
	if (!feat_has(FEAT_WRITE_USER)) {
		sema_err(s, e->span, "write_user() is not available: %s",
			 feat_reason(FEAT_WRITE_USER));
		return &type_none;
	}
	const struct type *d = sema_expr(s, arg(e, 0));
	const struct type *v = sema_expr(s, arg(e, 1));
	if (d->kind == TY_NONE || v->kind == TY_NONE)
		return &type_none;
	if (!sema_is_intlike(d)) {
		sema_err(s, arg(e, 0)->span, "write_user()'s destination must "
			 "be a pointer, not %s", sema_tname(s, d));
		return &type_none;
	}
	if (v->kind != TY_STRING && v->kind != TY_ARRAY && v->kind != TY_BUF &&
	    v->kind != TY_INT) {
		sema_err(s, arg(e, 1)->span, "write_user() writes a string, an "
			 "array, a buffer or an integer, not %s",
			 sema_tname(s, v));
		return &type_none;
	}
	int64_t n;
	if (!const_eval(s, arg(e, 2), &n) || n < 1 || n > v->size) {
		sema_err(s, arg(e, 2)->span, "write_user()'s length must be a "
			 "constant from 1 to the %u bytes of its source",
			 v->size);
		return &type_none;
	}
	sema_fold_const(arg(e, 2), (uint64_t)n);
	arg(e, 2)->type = &type_u64;
	return &type_u8;
}

/* percpu_kaddr("name" [, cpu]): a per-CPU variable of the kernel's BTF
 * (kallsyms need not list it), as a uint64 * of the kernel. */
const struct type *sema_ty_percpu_kaddr(struct sema *s, struct ast_expr *e,
					struct ast_expr *target)
{
	struct ast_expr *name = arg(e, 0);
	if (name->kind != E_STRING) {
		sema_err(s, name->span, "percpu_kaddr() expects a string "
			 "literal");
		return &type_none;
	}
	if (e->u.call.args.n > 1) {
		const struct type *t = sema_expr(s, arg(e, 1));
		if (t->kind == TY_NONE)
			return &type_none;
		if (!sema_is_int(t)) {
			sema_err(s, arg(e, 1)->span, "percpu_kaddr()'s cpu must "
				 "be an integer, not %s", sema_tname(s, t));
			return &type_none;
		}
	}
	struct btf *b = kbtf_load() == 0 ? kbtf_vmlinux() : NULL;
	if (!b || btf__find_by_name_kind(b, name->u.str.bytes,
					 BTF_KIND_VAR) <= 0) {
		sema_err(s, e->span, "Could not resolve variable \"%s\" "
			 "from BTF", name->u.str.bytes);
		return &type_none;
	}
	/* the kernel finds the variable's address by its name in kallsyms,
	 * which lists data only with CONFIG_KALLSYMS_ALL */
	uint64_t addr;
	if (s->kernel->ksym_addr(name->u.str.bytes, &addr) < 0) {
		sema_err(s, name->span, "percpu_kaddr(): the kernel cannot "
			 "place %s: /proc/kallsyms does not list it (a kernel "
			 "without CONFIG_KALLSYMS_ALL)", name->u.str.bytes);
		return &type_none;
	}
	return type_ptr(s->arena, &type_u64, false);
}

/* A rawtracepoint probe whose socket_cookie() needs BTF-typed arguments:
 * its targets load as tp_btf programs (BPF_PROG_TYPE_TRACING, as in
 * bpftrace 0.26), whose context the verifier types from the tracepoint's
 * prototype. */
static enum bpf_prog_type raw_tp_as_tp_btf(struct sema *s)
{
	const struct sema_probe *sp = &s->probes[s->probe];
	for (uint32_t i = 0; i < sp->ntargets; i++)
		probe_rawtp_as_tp_btf(&sp->targets[i]);
	return BPF_PROG_TYPE_TRACING;
}

/* socket_cookie(sk): bpf_get_socket_cookie of a struct sock * argument of
 * the probe. The helper takes a pointer the verifier has typed from BTF,
 * which only fentry (kfunc) and tp_btf programs get from their context
 * (a rawtracepoint probe becomes one):
 * there the argument must be read straight from it (args.NAME). */
const struct type *sema_ty_socket_cookie(struct sema *s, struct ast_expr *e,
					 struct ast_expr *target)
{
	struct ast_expr *a = arg(e, 0);
	const struct type *t = sema_expr(s, a);
	if (t->kind == TY_NONE)
		return &type_none;
	if (t->kind != TY_PTR || !t->elem || t->elem->kind != TY_RECORD ||
	    !t->elem->name || strcmp(t->elem->name, "struct sock")) {
		sema_err(s, a->span, "socket_cookie() only supports 'struct "
			 "sock *' as the argument (%s provided)",
			 sema_tname(s, t));
		return &type_none;
	}
	enum bpf_prog_type pt = s->tgt ? (s->tgt->prog_type ?
		s->tgt->prog_type : s->tgt->prov->prog_type) :
		BPF_PROG_TYPE_UNSPEC;
	if (pt == BPF_PROG_TYPE_RAW_TRACEPOINT &&
	    (s->tgt->features & CTX_ARGS)) {
		if (!sema_need_feat(s, e->span, FEAT_TP_BTF, "socket_cookie() "
				    "in a rawtracepoint probe", "tp_btf programs"))
			return &type_none;
		if (s->tgt->u.raw.tp_btf_id)
			pt = raw_tp_as_tp_btf(s);
	}
	if (pt != BPF_PROG_TYPE_TRACING) {
		sema_err(s, e->span, "socket_cookie() needs a socket pointer "
			 "typed by BTF, which only fentry (kfunc) and rawtracepoint "
			 "probes pass; %s probes do not (and this kernel has %s)",
			 sema_probe_kind(s), feat_has(FEAT_FENTRY) ?
			 "fentry" : "no fentry");
		return &type_none;
	}
	if (a->kind != E_FIELD || a->u.field.base->kind != E_BUILTIN ||
	    a->u.field.base->builtin != BI_ARGS) {
		sema_err(s, a->span, "socket_cookie() takes the socket "
			 "argument as the probe passes it (args.NAME)");
		return &type_none;
	}
	return &type_u64;
}

/* comm(pid): the name of the process pid (bpf_task_from_pid), where the
 * kernel lets the probe's program type call that kfunc, as 0.26 asks;
 * comm() is the builtin. */
const struct type *sema_ty_comm_of(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target)
{
	if (!e->u.call.args.n) { /* comm(): the builtin */
		*e = *builtin_var(s, BI_COMM, e->span);
		return sema_expr(s, e);
	}
	const struct type *t = sema_expr(s, arg(e, 0));
	if (t->kind == TY_NONE)
		return &type_none;
	if (!sema_is_int(t)) {
		sema_err(s, arg(e, 0)->span, "Only integer supported for "
			 "comm()'s pid");
		return &type_none;
	}
	enum bpf_prog_type pt = s->tgt ? (s->tgt->prog_type ?
		s->tgt->prog_type : s->tgt->prov->prog_type) :
		BPF_PROG_TYPE_UNSPEC;
	if (!feat_kfunc_allowed("bpf_task_from_pid", pt) ||
	    !feat_kfunc_allowed("bpf_task_release", pt)) {
		sema_err(s, e->span, "Syntax comm(PID) is not supported in "
			 "this probe type yet. Type: %s", sema_probe_kind(s));
		return &type_none;
	}
	return type_string(s->arena, 16);
}

/* __probe_name: the name `probe` prints, as a string long enough for
 * the longest of the probe's targets (each program stores its own). */
const struct type *sema_ty_probe_name(struct sema *s, struct ast_expr *e,
				      struct ast_expr *target)
{
	const struct sema_probe *sp = &s->probes[s->probe];
	size_t n = 1;
	for (uint32_t k = 0; k < sp->ntargets; k++) {
		size_t l = strlen(probe_target_label(&sp->targets[k])) + 1;
		n = l > n ? l : n;
	}
	return type_string(s->arena, (uint32_t)n);
}

const struct type *sema_probe_string(struct sema *s, struct ast_expr *e,
				     const struct type *t)
{
	if (t->kind != TY_PROBE || e->kind != E_BUILTIN ||
	    e->builtin != BI_PROBE)
		return t;
	e->builtin = BI_PROBE_NAME;
	return sema_expr(s, e);
}

/* strstr(haystack, needle): the index of needle's first match, or -1. */
const struct type *sema_ty_strstr(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	for (uint32_t i = 0; i < 2; i++) {
		const struct type *t = sema_expr(s, arg(e, i));
		if (t->kind == TY_NONE)
			return &type_none;
		if (t->kind != TY_STRING) {
			sema_err(s, arg(e, i)->span, "strstr() expects strings, "
				 "not %s", sema_tname(s, t));
			return &type_none;
		}
	}
	return &type_s64;
}
