/*
 * The typing rules of the builtin registry (lang/builtins.def): one ty_*
 * function per rule, each checking a builtin's arguments and the probe's
 * context and returning its type. Calls get their arity checked from the
 * registry before their rule runs.
 */
#include "lang/sema_builtins.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/btf.h"
#include "kernel/features.h"
#include "kernel/regs.h"
#include "lang/fmt_parse.h"
#include "lang/sema_const.h"
#include "lang/sema_iter.h"
#include "lang/sema_maps.h"
#include "lang/sema_stack.h"
#include "lang/sema_state.h"
#include "lang/sema_stdlib.h"
#include "model/limits.h"
#include "util/arena.h"
#include "util/diag.h"

static bool nargs_ok(struct sema *s, struct ast_expr *e, uint32_t min,
		     uint32_t max)
{
	uint32_t n = e->u.call.args.n;
	if (n >= min && n <= max)
		return true;
	if (min == max)
		sema_err(s, e->span, "%s() takes %u argument%s (%u given)",
		    e->u.call.name, min, min == 1 ? "" : "s", n);
	else if (n < min)
		sema_err(s, e->span, "%s() takes at least %u argument%s (%u given)",
		    e->u.call.name, min, min == 1 ? "" : "s", n);
	else
		sema_err(s, e->span, "%s() takes at most %u argument%s (%u given)",
		    e->u.call.name, max, max == 1 ? "" : "s", n);
	return false;
}

static struct ast_expr *arg(struct ast_expr *e, uint32_t i)
{
	return e->u.call.args.items[i];
}

static const struct type *agg(struct sema *s, enum type_kind k)
{
	struct type *t = type_new(s->arena, k, 8);
	if (k == TY_MIN || k == TY_MAX || k == TY_AVG || k == TY_STATS)
		t->size = 16;
	t->is_signed = true;
	return t;
}

/* An aggregation may only be the whole value stored in a map. */
static bool agg_target(struct sema *s, struct ast_expr *e,
		       struct ast_expr *target)
{
	if (target && target->kind == E_MAP)
		return true;
	sema_err(s, e->span, "%s() must be assigned directly to a map, as in "
		"@x = %s(...)", e->u.call.name, e->u.call.name);
	return false;
}

static bool want_int_arg(struct sema *s, struct ast_expr *e, uint32_t i)
{
	const struct type *t = sema_expr(s, arg(e, i));
	if (t->kind == TY_NONE)
		return false;
	if (!sema_is_intlike(t)) {
		sema_err(s, arg(e, i)->span, "%s() expects an integer, not %s",
		    e->u.call.name, sema_tname(s, t));
		return false;
	}
	return true;
}

static bool want_map_arg(struct sema *s, struct ast_expr *e, uint32_t i,
			 bool allow_key)
{
	struct ast_expr *m = arg(e, i);
	if (m->kind != E_MAP || (!allow_key && m->u.map.has_brackets)) {
		sema_err(s, m->span, "%s() expects a map%s", e->u.call.name,
		    allow_key ? "" : " (without a key)");
		return false;
	}
	struct sema_map *sm = sema_find_map(s, m->u.map.name);
	if (!sm) {
		if (s->pass > 0)
			sema_err(s, m->span, "Undefined map: %s", m->u.map.name);
		return false;
	}
	m->aux = (int32_t)sm->index;
	m->type = sm->value;
	if (allow_key && m->u.map.has_brackets) {
		const struct type *k = sema_map_key_type(s, m);
		return sema_use_map_key(s, sm, m, k);
	}
	return true;
}

/* printf(), cat(): a literal format and the arguments it accepts. */
static const struct type *ty_format(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target)
{
	const char *fn = e->u.call.name;
	uint32_t n = e->u.call.args.n;
	if (n < 1) {
		sema_err(s, e->span, "%s() needs a format string", fn);
		return &type_none;
	}
	struct ast_expr *f = arg(e, 0);
	if (f->kind != E_STRING) {
		sema_err(s, f->span, "%s()'s first argument must be a string "
			"literal", fn);
		sema_expr(s, f);
		return &type_none;
	}
	f->type = type_string(s->arena, f->u.str.len + 1);
	if (n - 1 > FMT_MAX_ARGS) {
		sema_err(s, e->span, "%s() takes at most %d arguments (%u given)",
		    fn, FMT_MAX_ARGS + 1, n);
		return &type_none;
	}
	const struct type **types = arena_alloc(s->arena,
						sizeof(*types) * n);
	bool ok = true;
	for (uint32_t i = 1; i < n; i++) {
		types[i - 1] = sema_expr(s, arg(e, i));
		if (types[i - 1]->kind == TY_NONE)
			ok = false;
		else if (type_is_aggregation(types[i - 1])) {
			sema_err(s, arg(e, i)->span, "%s() cannot print %s: use "
				"print() for maps", fn, sema_tname(s, types[i - 1]));
			ok = false;
		}
	}
	if (!ok)
		return &type_none;
	const struct fmt *parsed = fmt_parse(s->arena, f->u.str.bytes,
					     f->u.str.len);
	struct fmt_error fe;
	if (fmt_check(s->arena, parsed, fn, types, n - 1, &fe) < 0) {
		sema_err(s, fe.arg == FMT_AT_FORMAT ? e->span :
			   arg(e, (uint32_t)fe.arg + 1)->span, "%s", fe.msg);
		return &type_none;
	}
	if (e->builtin == BI_PRINTF && s->tgt &&
	    s->tgt->layout == CTXL_ITER && !sema_iter_printf_ok(s, e, parsed))
		return &type_none;
	e->u.call.fmt = parsed;
	s->uses_ringbuf = true;
	return &type_void;
}

/* uaddr("sym"): the address of a symbol of the probe's binary, typed as a
 * user pointer to an unsigned integer of the symbol's size (1, 2, 4 or 8
 * bytes), as bpftrace types it. In an executable it is the link-time
 * address, folded here. A PIE or library is mapped where only the run
 * knows: codegen adds the symbol's distance from the probed instruction to
 * the instruction pointer at the probe (cg_bi_uaddr), which a uretprobe
 * does not have (its ip is in the caller). */
static const struct type *ty_uaddr(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target)
{
	if (arg(e, 0)->kind != E_STRING) {
		sema_err(s, arg(e, 0)->span, "uaddr() expects a string literal");
		return &type_none;
	}
	if (!s->tgt || !s->tgt->binary) {
		sema_err(s, e->span, "uaddr() is only available in uprobe, "
			"uretprobe and usdt probes, not %s probes",
			sema_probe_kind(s));
		return &type_none;
	}
	const char *name = arg(e, 0)->u.str.bytes;
	uint64_t addr, size;
	bool dyn;
	if (s->kernel->usym(s->tgt->binary, name, &addr, &size, &dyn) < 0) {
		sema_err(s, arg(e, 0)->span, "no symbol %s in %s", name, s->tgt->binary);
		return &type_none;
	}
	static const char *const uint_names[] = { "uint64", "uint8", "uint16",
						  NULL, "uint32" };
	int w = size == 1 || size == 2 || size == 4 ? (int)size : 0;
	if (dyn) {
		if (s->tgt->u.user.retprobe) {
			sema_err(s, e->span, "uaddr() of %s, which is "
				 "position-independent, needs the probe's place "
				 "in it, which a uretprobe does not have (use a "
				 "uprobe)", s->tgt->binary);
			return &type_none;
		}
		static const struct type *const uints[] = {
			&type_u64, &type_u8, &type_u16, NULL, &type_u32
		};
		return type_ptr(s->arena, uints[w], true);
	}
	/* Folded into `(uintW *)ADDR`: later passes (and each target's)
	 * keep the pointer type, where a bare constant would become an
	 * integer. */
	struct ast_expr *num = arena_alloc(s->arena, sizeof(*num));
	*num = *e;
	sema_fold_const(num, addr);
	e->kind = E_CAST;
	e->u.cast.to = (struct ast_typespec){ .span = e->span,
					      .base = uint_names[w],
					      .ptr_depth = 1 };
	e->u.cast.operand = num;
	return sema_expr(s, e);
}

/* Signal names for signal("SIGUSR1"), with or without the SIG prefix. */
static int signal_number(const char *name)
{
	static const struct {
		const char *name;
		int num;
	} sigs[] = {
		{ "HUP", 1 },   { "INT", 2 },   { "QUIT", 3 },  { "ILL", 4 },
		{ "TRAP", 5 },  { "ABRT", 6 },  { "BUS", 7 },   { "FPE", 8 },
		{ "KILL", 9 },  { "USR1", 10 }, { "SEGV", 11 }, { "USR2", 12 },
		{ "PIPE", 13 }, { "ALRM", 14 }, { "TERM", 15 }, { "CHLD", 17 },
		{ "CONT", 18 }, { "STOP", 19 }, { "TSTP", 20 }, { "TTIN", 21 },
		{ "TTOU", 22 }, { "URG", 23 },  { "XCPU", 24 }, { "XFSZ", 25 },
		{ "VTALRM", 26 }, { "PROF", 27 }, { "WINCH", 28 }, { "IO", 29 },
		{ "PWR", 30 },  { "SYS", 31 },
	};
	if (!strncmp(name, "SIG", 3))
		name += 3;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		if (!strcmp(name, sigs[i].name))
			return sigs[i].num;
	return -1;
}

/* ---- variables ---- */

static const struct type *ty_u64(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target)
{
	return &type_u64;
}

static const struct type *ty_u32(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target)
{
	return &type_u32;
}

static const struct type *ty_comm(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	return type_string(s->arena, 16);
}

static const struct type *ty_username(struct sema *s, struct ast_expr *e,
				      struct ast_expr *target)
{
	return type_new(s->arena, TY_USERNAME, 8);
}

static const struct type *ty_probe(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target)
{
	return type_new(s->arena, TY_PROBE, 8);
}

static const struct type *ty_cpid(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	if (!s->opts->cpid) {
		sema_err(s, e->span, "cpid is only available with -c CMD");
		return &type_none;
	}
	return &type_u64;
}

static const struct type *ty_curtask(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target)
{
	const struct type *t = kbtf_type_by_name(s->arena,
						 "struct task_struct");
	return t ? type_ptr(s->arena, t, false) : &type_u64;
}

static const struct type *ty_args(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	if (!sema_tgt_has(s, CTX_ARGS) || !s->tgt->args) {
		sema_err(s, e->span, "args is not available in %s probes",
			 sema_probe_kind(s));
		return &type_none;
	}
	return s->tgt->args;
}

/* ctx: the probe's context, as bpftrace types it: the tracepoint's record
 * or struct pt_regs, read as kernel memory. */
static const struct type *ty_ctx(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target)
{
	/* As bpftrace 0.17: the program type's context struct; a
	 * tracepoint's record is `args`. */
	const struct type *rec = NULL;
	if (s->tgt && s->tgt->layout == CTXL_TRACEPOINT) {
		sema_err(s, e->span, "use args instead of ctx in tracepoint "
			 "probes");
		return &type_none;
	} else if (s->tgt && s->tgt->layout == CTXL_PT_REGS) {
		rec = kbtf_type_by_name(s->arena, "struct pt_regs");
	} else if (s->tgt && s->tgt->layout == CTXL_PERF) {
		rec = kbtf_type_by_name(s->arena,
					"struct bpf_perf_event_data");
	} else if (s->tgt && s->tgt->layout == CTXL_ITER) {
		/* struct bpf_iter__NAME, as bpftrace 0.26 types it */
		rec = s->tgt->args;
	}
	if (!rec) {
		sema_err(s, e->span, "ctx is not available in %s probes",
			 sema_probe_kind(s));
		return &type_none;
	}
	return type_ptr(s->arena, rec, false);
}

static const struct type *ty_retval(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target)
{
	if (!sema_tgt_has(s, CTX_RETVAL)) {
		sema_err(s, e->span, "retval is not available in %s probes "
			 "(only in return probes)", sema_probe_kind(s));
		return &type_none;
	}
	return s->tgt->retval ? s->tgt->retval : &type_u64;
}

static const struct type *ty_func(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	if (!sema_tgt_has(s, CTX_FUNC)) {
		sema_err(s, e->span, "func is not available in %s probes",
			 sema_probe_kind(s));
		return &type_none;
	}
	/* a name known per target, printed from a table as `probe` */
	if (s->tgt->func)
		return type_new(s->arena, TY_PROBE, 8);
	return type_new(s->arena, TY_KSYM, 8);
}

/* argN, sargN */
static const struct type *ty_argn(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	if (!sema_tgt_has(s, CTX_ARGN) || e->builtin_n >= s->tgt->nargs) {
		sema_err(s, e->span, "%s is not available in %s probes",
			 e->u.name, sema_probe_kind(s));
		return &type_none;
	}
	return e->builtin == BI_SARGN ? &type_s64 : &type_u64;
}

/* ---- aggregations ---- */

static const struct type *ty_agg(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target)
{
	static const enum type_kind kinds[BI__COUNT] = {
		[BI_COUNT] = TY_COUNT, [BI_SUM] = TY_SUM, [BI_MIN] = TY_MIN,
		[BI_MAX] = TY_MAX, [BI_AVG] = TY_AVG, [BI_STATS] = TY_STATS,
		[BI_HIST] = TY_HIST,
	};
	if (!agg_target(s, e, target))
		return &type_none;
	if (e->builtin != BI_COUNT && !want_int_arg(s, e, 0))
		return &type_none;
	struct type *t = (struct type *)agg(s, kinds[e->builtin]);
	if (e->builtin == BI_HIST && e->u.call.args.n == 2) {
		/* 0.26: a literal (its pre-type check's words) */
		int64_t k;
		struct ast_expr *b = arg(e, 1);
		if (!sema_const_int(s, b, &k) || k < 0) {
			sema_err(s, b->span, "hist: invalid bits value, need "
				 "integer literal");
			return &type_none;
		}
		if (k > 5) {
			sema_err(s, e->span, "hist: bits %lld must be 0..5",
				 (long long)k);
			return &type_none;
		}
		b->type = &type_s64;
		t->hbits = (uint32_t)k;
	}
	/* 0.26 (CreateSum/Min/Max/Avg/Stats(type.IsSigned())): the sign of
	 * the argument, so max((uint64)x) compares and prints unsigned */
	if (e->builtin != BI_COUNT && e->builtin != BI_HIST)
		t->is_signed = arg(e, 0)->type->is_signed ||
			       arg(e, 0)->type->kind != TY_INT;
	return t;
}

static const struct type *ty_lhist(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target)
{
	if (!agg_target(s, e, target) || !want_int_arg(s, e, 0))
		return &type_none;
	int64_t p[3];
	for (int i = 0; i < 3; i++) {
		if (!sema_const_int(s, arg(e, (uint32_t)i + 1), &p[i])) {
			sema_err(s, arg(e, (uint32_t)i + 1)->span,
				 "lhist()'s %s must be a constant",
				 i == 0 ? "min" : i == 1 ? "max" : "step");
			return &type_none;
		}
		arg(e, (uint32_t)i + 1)->type = &type_s64;
	}
	if (p[0] < 0 || p[1] <= p[0] || p[2] <= 0 ||
	    (p[1] - p[0]) / p[2] > 1000) {
		sema_err(s, e->span, "lhist() needs 0 <= min < max, step > "
			 "0 and at most 1000 buckets");
		return &type_none;
	}
	struct type *t = (struct type *)agg(s, TY_LHIST);
	t->lmin = p[0];
	t->lmax = p[1];
	t->lstep = p[2];
	return t;
}

/* tseries(v, interval, n[, agg]): v's value per interval of interval
 * ns (a duration literal, 100ms), the last n of them, each interval the
 * last value or its avg/max/min/sum; the words of 0.26's checks. */
static const struct type *ty_tseries(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target)
{
	static const char *const aggs[] = { "avg", "max", "min", "sum" };
	if (!agg_target(s, e, target) || !want_int_arg(s, e, 0))
		return &type_none;
	int64_t iv, n;
	if (!sema_const_int(s, arg(e, 1), &iv)) {
		sema_err(s, arg(e, 1)->span, "tseries: invalid interval_ns value "
			 "(must be non-negative literal)");
		return &type_none;
	}
	if (!sema_const_int(s, arg(e, 2), &n)) {
		sema_err(s, arg(e, 2)->span, "tseries: invalid num_intervals "
			 "value (must be non-negative literal)");
		return &type_none;
	}
	if (iv <= 0) {
		sema_err(s, arg(e, 1)->span, "tseries() interval_ns must be >= 1 "
			 "(%lld provided)", (long long)iv);
		return &type_none;
	}
	if (n <= 0) {
		sema_err(s, arg(e, 2)->span, "tseries() num_intervals must be >= "
			 "1 (%lld provided)", (long long)n);
		return &type_none;
	}
	if (n > 1000000) {
		sema_err(s, arg(e, 2)->span, "tseries() num_intervals must be < "
			 "1000000 (%lld provided)", (long long)n);
		return &type_none;
	}
	arg(e, 1)->type = arg(e, 2)->type = &type_s64;
	int agg = TSERIES_LAST;
	if (e->u.call.args.n == 4) {
		struct ast_expr *a = arg(e, 3);
		if (a->kind != E_STRING) {
			sema_err(s, a->span, "tseries()'s aggregation must be a "
				 "string literal");
			return &type_none;
		}
		a->type = &type_void;
		for (int i = 0; i < 4; i++)
			if (!strcmp(a->u.str.bytes, aggs[i]))
				agg = i + 1;
		if (agg == TSERIES_LAST) {
			sema_err(s, e->span, "tseries() expects one of the "
				 "following aggregation functions: avg, max, min, "
				 "sum (\"%s\" provided)", a->u.str.bytes);
			return &type_none;
		}
	}
	/* its clock: CLOCK_TAI (Linux 6.1), else the boot clock (5.8) plus
	 * the offset to wall-clock time (codegen's tseries_now), unless a
	 * map stands for it */
	if (s->pass > 0 && !getenv("BPFTRACE_DUMMY_TS_MAP") &&
	    !feat_has(FEAT_KTIME_TAI) && !feat_has(FEAT_BOOT_NS)) {
		sema_err(s, e->span, "tseries() needs the kernel's "
			 "bpf_ktime_get_boot_ns helper (Linux %s): %s",
			 feat_since(FEAT_BOOT_NS), feat_reason(FEAT_BOOT_NS));
		return &type_none;
	}
	struct type *t = type_new(s->arena, TY_TSERIES, 24);
	t->align = 8;
	t->lmin = iv;
	t->lmax = n;
	t->lstep = agg;
	t->is_signed = arg(e, 0)->type->kind != TY_INT ||
		       arg(e, 0)->type->is_signed;
	return t;
}

/* ---- maps ---- */

/* Whether map m is a scalar map (typed, and used without a key). */
static bool scalar_map(const struct sema_map *m)
{
	return !m->key && m->value->kind != TY_NONE;
}

/* has_key(@m, k), delete(@m, k): the access @m[k] they stand for, typed
 * as a use of @m (a key of the wrong type is refused as any access of
 * @m with it is); k a tuple (k1, k2) for a map of several keys. fn names
 * the call for 0.26's message about scalar maps. */
static bool keyed_access(struct sema *s, struct ast_expr *e, const char *fn)
{
	if (!want_map_arg(s, e, 0, false))
		return false;
	struct ast_expr *m = arg(e, 0), *k = arg(e, 1);
	struct sema_map *sm = &s->maps.data[m->aux];
	if (scalar_map(sm)) {
		sema_err(s, e->span, "call to %s expects a map with explicit keys "
			 "(non-scalar map)", fn);
		return false;
	}
	struct ast_expr *acc = e->u.call.map_key;
	if (!acc) {
		acc = arena_alloc(s->arena, sizeof(*acc));
		*acc = *m;
		acc->span = k->span;
		acc->u.map.has_brackets = true;
		if (k->kind == E_TUPLE) {
			acc->u.map.keys = k->u.list;
		} else {
			acc->u.map.keys.n = 1;
			acc->u.map.keys.items = arena_alloc(
				s->arena, sizeof(*acc->u.map.keys.items));
			acc->u.map.keys.items[0] = k;
		}
		e->u.call.map_key = acc;
	}
	acc->aux = m->aux;
	const struct type *key = sema_map_key_type(s, acc);
	if (!sema_use_map_key(s, sm, acc, key))
		return false;
	acc->type = sm->value;
	/* A histogram's key holds its bucket: one key of it is many. */
	if (sm->value->kind == TY_HIST || sm->value->kind == TY_LHIST ||
	    sm->value->kind == TY_TSERIES) {
		sema_err(s, e->span, "%s() of one key of a histogram is not "
			 "supported", e->u.call.name);
		return false;
	}
	return true;
}

/* delete(@m, k), delete(@m) of a scalar map, and the deprecated
 * delete(@m[k]): true (1) when the key was there, as in bpftrace 0.26. */
static const struct type *ty_delete(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target)
{
	/* delete(@m, key): the key as @m[key] has it, a tuple literal its
	 * parts, as @m[(1, "a")] is @m[1, "a"] (bpftrace 0.26) */
	if (e->u.call.args.n == 2) {
		if (!keyed_access(s, e, "delete() with two arguments"))
			return &type_none;
		s->maps.data[arg(e, 0)->aux].deleted = true;
		return &type_bool;
	}
	if (!want_map_arg(s, e, 0, true))
		return &type_none;
	struct ast_expr *a0 = arg(e, 0);
	struct sema_map *m = &s->maps.data[a0->aux];
	if (!a0->u.map.has_brackets && m->key) {
		sema_err(s, e->span, "call to delete() with a single argument "
			 "expects a map without explicit keys (scalar map)");
		return &type_none;
	}
	m->deleted = true;
	/* A histogram's key holds its bucket: one delete cannot remove a
	 * key's buckets (the value is typed by the last pass). */
	if (m->value->kind == TY_HIST || m->value->kind == TY_LHIST ||
	    m->value->kind == TY_TSERIES) {
		sema_err(s, arg(e, 0)->span, "delete() of one key of a "
			 "histogram is not supported: use clear()");
		return &type_none;
	}
	return &type_bool;
}

/* has_key(@m, k): whether @m holds key k, a bool as 0.26 types it. */
static const struct type *ty_has_key(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target)
{
	if (!keyed_access(s, e, "has_key()"))
		return &type_none;
	return &type_bool;
}

/* find(@m, key, $v) (bpftrace 0.26's stdlib): whether key is in @m,
 * which then stores its value in $v, with one lookup. */
static const struct type *ty_find(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	struct ast_expr *v = arg(e, 2);
	if (v->kind != E_VAR) {
		/* bpftrace's words for its macro's $var parameter */
		sema_err(s, v->span, "Mismatched arg. find() expects a variable "
			 "for arg $var but got %s.",
			 v->kind == E_MAP ? "a map" : "an expression");
		return &type_none;
	}
	if (!keyed_access(s, e, "find"))
		return &type_none;
	const struct type *vt = s->maps.data[arg(e, 0)->aux].value;
	if (type_is_aggregation(vt)) {
		/* one CPU's share is no value to give */
		sema_err(s, e->span, "find() of a map of %s is not supported: "
			 "read @map[key] instead", sema_tname(s, vt));
		return &type_none;
	}
	sema_store_var(s, v, vt, NULL, e->span);
	v->type = sema_target_var(s, v)->type;
	return &type_bool;
}

/* len(@m): the number of keys of a map with keys, which the kernel
 * counts (the bpf_map_sum_elem_count kfunc of Linux 6.6, as bpftrace
 * 0.26 uses where it exists, else an iteration of the map); len(stack):
 * its number of frames. */
/* len(@m) where the map cannot be iterated (no bpf_for_each_map_elem,
 * before 5.13): the program counts the keys it inserts and deletes
 * (sema_map.counted). Not a map that keeps a key per bucket (hist,
 * lhist, tseries): refused, as is an LRU map's (its keys are evicted
 * unseen), once its declaration is read (sema.c's check_mapdecls). */
static bool len_counted(struct sema *s, struct sema_map *m, struct ast_expr *e)
{
	enum type_kind k = m->value->kind;
	if (k == TY_HIST || k == TY_LHIST || k == TY_TSERIES)
		return sema_need_feat(s, e->span, FEAT_FOR_EACH_MAP,
				      "len() of a histogram or tseries map",
				      "bpf_for_each_map_elem");
	if (!m->counted)
		m->len_at = e->span;
	m->counted = true;
	return true;
}

static const struct type *ty_len(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target)
{
	struct ast_expr *a0 = arg(e, 0);
	if (a0->kind == E_MAP && !a0->u.map.has_brackets) {
		if (!want_map_arg(s, e, 0, false))
			return &type_none;
		if (scalar_map(&s->maps.data[a0->aux])) {
			sema_err(s, e->span, "call to len() expects a map with "
				 "explicit keys (non-scalar map)");
			return &type_none;
		}
		/* without that kfunc codegen counts by iterating the map
		 * (bpf_for_each_map_elem, Linux 5.13), as bpftrace 0.26
		 * falls back */
		if (s->pass > 0 && !feat_has(FEAT_FOR_EACH_MAP) &&
		    !len_counted(s, &s->maps.data[a0->aux], e))
			return &type_none;
		return &type_s64;
	}
	const struct type *t = sema_expr(s, a0);
	if (t->kind == TY_NONE)
		return t;
	if (t->kind != TY_KSTACK && t->kind != TY_USTACK) {
		sema_err(s, e->span, "call to len() expects a map, ustack, or "
			 "kstack");
		return &type_none;
	}
	return &type_s64;
}

/* clear(@m), zero(@m) */
static const struct type *ty_map_event(struct sema *s, struct ast_expr *e,
				       struct ast_expr *target)
{
	if (!want_map_arg(s, e, 0, false))
		return &type_none;
	s->uses_ringbuf = true;
	return &type_void;
}

/* print(@m [, top [, div]]) or print(value) */
static const struct type *ty_print(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target)
{
	s->uses_ringbuf = true;
	struct ast_expr *a0 = arg(e, 0);
	if (a0->kind == E_MAP && !a0->u.map.has_brackets) {
		if (!want_map_arg(s, e, 0, false))
			return &type_none;
		for (uint32_t i = 1; i < e->u.call.args.n; i++) {
			int64_t v;
			if (!sema_const_int(s, arg(e, i), &v) || v < 0) {
				sema_err(s, arg(e, i)->span, "print()'s %s "
					 "must be a non-negative constant",
					 i == 1 ? "top" : "div");
				return &type_none;
			}
			arg(e, i)->type = &type_s64;
		}
		/* bpftrace 0.26's words (and spelling) */
		if (s->loop_depth && s->report != &s->muted)
			diag_warning(s->report, e->span, "Due to it's "
				     "asynchronous nature using 'print()' in a "
				     "loop can lead to unexpected behavior. The "
				     "map will likely be updated before the "
				     "runtime can 'print' it.");
		return &type_void;
	}
	if (e->u.call.args.n > 1) {
		sema_err(s, e->span, "print() of a value takes one argument");
		return &type_none;
	}
	const struct type *t = sema_expr(s, a0);
	if (t->kind == TY_NONE)
		return t;
	if (type_is_aggregation(t)) {
		sema_err(s, a0->span, "print() of one element of an "
			 "aggregation map is not supported: print the map");
		return &type_none;
	}
	return &type_void;
}

/* ---- output and control ---- */

/* system() and signal() act on the system: only with --unsafe. */
static bool unsafe_allowed(struct sema *s, struct ast_expr *e)
{
	if (s->opts->unsafe)
		return true;
	sema_err(s, e->span, "%s() is unsafe: run sonde with --unsafe to "
		 "allow it", e->u.call.name);
	return false;
}

/* An optional argument i that must be a string literal (what: its role),
 * kept for codegen rather than evaluated. */
static bool literal_arg(struct sema *s, struct ast_expr *e, uint32_t i,
			const char *what)
{
	if (e->u.call.args.n <= i)
		return true;
	if (arg(e, i)->kind != E_STRING) {
		sema_err(s, arg(e, i)->span, "%s()'s %s must be a string "
			 "literal", e->u.call.name, what);
		return false;
	}
	arg(e, i)->type = &type_void;
	return true;
}

static const struct type *ty_system(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target)
{
	if (!unsafe_allowed(s, e))
		return &type_none;
	return ty_format(s, e, target);
}

static const struct type *ty_time(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	if (!literal_arg(s, e, 0, "format"))
		return &type_none;
	s->uses_ringbuf = true;
	return &type_void;
}

static const struct type *ty_join(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	if (!want_int_arg(s, e, 0) || !literal_arg(s, e, 1, "separator"))
		return &type_none;
	s->uses_ringbuf = true;
	return &type_void;
}

static const struct type *ty_exit(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	/* exit(CODE): sonde's exit status */
	if (e->u.call.args.n && !want_int_arg(s, e, 0))
		return &type_none;
	s->uses_ringbuf = true;
	return &type_void;
}

/* unwatch(ADDR): user space disarms the watchpoints on ADDR. */
static const struct type *ty_unwatch(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target)
{
	if (!want_int_arg(s, e, 0))
		return &type_none;
	s->uses_ringbuf = true;
	return &type_void;
}

static const struct type *ty_signal(struct sema *s, struct ast_expr *e,
				    struct ast_expr *target)
{
	if (!unsafe_allowed(s, e))
		return &type_none;
	struct ast_expr *a0 = arg(e, 0);
	if (a0->kind == E_STRING) {
		int sig = signal_number(a0->u.str.bytes);
		if (sig < 0) {
			sema_err(s, a0->span, "unknown signal %s",
				 a0->u.str.bytes);
			return &type_none;
		}
		sema_fold_const(a0, (uint64_t)sig);
		a0->type = &type_s64;
	} else if (!want_int_arg(s, e, 0)) {
		return &type_none;
	}
	return &type_void;
}

/* ---- values ---- */

/* A constant length argument i of str() or buf(), 1..1024, in *len;
 * a run-time one only needs to be an integer. */
static bool length_arg(struct sema *s, struct ast_expr *e, uint32_t i,
		       uint32_t *len)
{
	int64_t v;
	if (!sema_const_int(s, arg(e, i), &v))
		return want_int_arg(s, e, i);
	if (v < 1 || v > 1024) {
		sema_err(s, arg(e, i)->span, "%s() length must be between 1 "
			 "and 1024", e->u.call.name);
		return false;
	}
	*len = (uint32_t)v;
	arg(e, i)->type = &type_s64;
	return true;
}

static const struct type *ty_str(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target)
{
	if (e->u.call.args.n == 1 && sema_positional_str(s, arg(e, 0), e))
		return e->kind == E_STRING ? type_string(s->arena,
							 e->u.str.len + 1) :
					     &type_none;
	const struct type *t = sema_expr(s, arg(e, 0));
	if (t->kind == TY_STRING && e->u.call.args.n == 2) {
		/* a string cut to n - 1 characters: n must be known here */
		uint32_t n;
		if (arg(e, 1)->kind != E_INT) {
			sema_err(s, arg(e, 1)->span, "str() of a string takes a "
				 "literal length");
			return &type_none;
		}
		if (!length_arg(s, e, 1, &n))
			return &type_none;
		return n && n < t->size ? type_string(s->arena, n) : t;
	}
	if (t->kind == TY_NONE || t->kind == TY_STRING)
		return t;
	if (!sema_is_intlike(t)) {
		sema_err(s, arg(e, 0)->span, "str() expects a pointer, not %s",
			 sema_tname(s, t));
		return &type_none;
	}
	/* str(p, n): n bytes with the NUL, n - 1 characters at most, as
	 * bpftrace 0.26 counts (0.17: n characters) */
	uint32_t size = limits.strlen, len = 0;
	if (e->u.call.args.n == 2) {
		if (!length_arg(s, e, 1, &len))
			return &type_none;
		if (len && len < limits.strlen)
			size = len;
	}
	return type_string(s->arena, size);
}

static const struct type *ty_buf(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target)
{
	const struct type *t = sema_expr(s, arg(e, 0));
	if (t->kind == TY_NONE)
		return t;
	uint32_t len = limits.strlen;
	if (t->kind == TY_ARRAY || t->kind == TY_STRING) {
		len = t->size;
	} else if (!sema_is_intlike(t)) {
		sema_err(s, arg(e, 0)->span, "buf() expects a pointer or an "
			 "array, not %s", sema_tname(s, t));
		return &type_none;
	} else if (e->u.call.args.n < 2) {
		sema_err(s, e->span, "buf() of a pointer needs a length");
		return &type_none;
	}
	if (e->u.call.args.n == 2 && !length_arg(s, e, 1, &len))
		return &type_none;
	struct type *b = type_new(s->arena, TY_BUF, 4 + len);
	b->align = 4;
	return b;
}

static const struct type *ty_bswap(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target)
{
	if (!want_int_arg(s, e, 0))
		return &type_none;
	return type_int((int)arg(e, 0)->type->size, false);
}

/* kptr(p), uptr(p): p, read from kernel or user memory. */
static const struct type *ty_addrspace(struct sema *s, struct ast_expr *e,
				       struct ast_expr *target)
{
	if (!want_int_arg(s, e, 0))
		return &type_none;
	const struct type *t = arg(e, 0)->type;
	bool user = e->builtin == BI_UPTR;
	if (t->kind == TY_PTR)
		return type_ptr(s->arena, t->elem, user);
	/* an integer (arg1 of a kprobe) becomes an address of that space,
	 * which str() and casts then read from */
	return type_int_addr(s->arena, t, user ? AS_USER : AS_KERNEL);
}

static const struct type *ty_strncmp(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target)
{
	for (uint32_t i = 0; i < 2; i++) {
		const struct type *t = sema_expr(s, arg(e, i));
		if (t->kind != TY_NONE && t->kind != TY_STRING) {
			sema_err(s, arg(e, i)->span, "strncmp() compares "
				 "strings, not %s", sema_tname(s, t));
			return &type_none;
		}
	}
	int64_t v;
	if (!sema_const_int(s, arg(e, 2), &v) || v < 0) {
		sema_err(s, arg(e, 2)->span, "strncmp()'s length must be a "
			 "non-negative constant");
		return &type_none;
	}
	arg(e, 2)->type = &type_s64;
	return &type_u64;
}

/* pton("1.2.3.4") / pton("::1"): the address's bytes, as bpftrace's
 * uint8[4] or uint8[16]; the argument is a literal, checked here. */
static const struct type *ty_pton(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	if (arg(e, 0)->kind != E_STRING)
		return literal_arg(s, e, 0, "address"), &type_none;
	const struct ast_expr *a = arg(e, 0);
	char text[64];
	uint8_t bytes[16];
	int af = memchr(a->u.str.bytes, ':', a->u.str.len) ? AF_INET6 : AF_INET;
	if (a->u.str.len >= sizeof(text) ||
	    (snprintf(text, sizeof(text), "%.*s", (int)a->u.str.len,
		      a->u.str.bytes), inet_pton(af, text, bytes) != 1)) {
		sema_err(s, a->span, "pton() expects an IPv4 or IPv6 address, "
			 "not \"%.*s\"", (int)a->u.str.len, a->u.str.bytes);
		return &type_none;
	}
	struct type *t = type_new(s->arena, TY_ARRAY, af == AF_INET ? 4 : 16);
	t->elem = &type_u8;
	t->count = t->size;
	t->align = 1;
	arg(e, 0)->type = &type_void; /* codegen stores the bytes */
	return t;
}

/* strcontains(haystack, needle): whether needle occurs in haystack (a
 * bool, as 0.26 types it). */
static const struct type *ty_strcontains(struct sema *s, struct ast_expr *e,
					 struct ast_expr *target)
{
	for (uint32_t i = 0; i < 2; i++) {
		const struct type *t = sema_probe_string(s, arg(e, i),
						 sema_expr(s, arg(e, i)));
		if (t->kind != TY_NONE && t->kind != TY_STRING) {
			sema_err(s, arg(e, i)->span, "strcontains() expects "
				 "strings, not %s", sema_tname(s, t));
			return &type_none;
		}
	}
	return &type_bool;
}

/* strerror(n) / cgroup_path(id [, "hierarchies"]): a u64, named when
 * printed; cgroup_path's glob picks the hierarchies by name ("unified"
 * for cgroup2, the mount directory's name for a v1 one: "cpu"...). */
static const struct type *ty_named_u64(struct sema *s, struct ast_expr *e,
				       struct ast_expr *target)
{
	if (!want_int_arg(s, e, 0) || !literal_arg(s, e, 1, "filter"))
		return &type_none;
	struct type *t = type_new(s->arena, e->builtin == BI_STRERROR ?
						    TY_STRERROR :
						    TY_CGROUP_PATH, 8);
	if (e->u.call.args.n > 1)
		t->name = arg(e, 1)->u.str.bytes;
	return t;
}

static const struct type *ty_strftime(struct sema *s, struct ast_expr *e,
				      struct ast_expr *target)
{
	if (!literal_arg(s, e, 0, "format") || !want_int_arg(s, e, 1))
		return &type_none;
	struct type *t = type_new(s->arena, TY_TIMESTAMP, 8);
	t->name = arena_strndup(s->arena, arg(e, 0)->u.str.bytes,
				arg(e, 0)->u.str.len);
	return t;
}

static const struct type *ty_ntop(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	struct ast_expr *a = arg(e, e->u.call.args.n - 1);
	if (e->u.call.args.n == 2 && !want_int_arg(s, e, 0))
		return &type_none;
	const struct type *t = sema_expr(s, a);
	if (t->kind == TY_NONE)
		return t;
	bool ok = sema_is_int(t) ||
		  ((t->kind == TY_ARRAY || t->kind == TY_STRING) &&
		   (t->size == 4 || t->size == 16));
	if (!ok) {
		sema_err(s, a->span, "ntop() expects an integer or an array "
			 "of 4 or 16 bytes, not %s", sema_tname(s, t));
		return &type_none;
	}
	return type_new(s->arena, TY_INET, 24);
}

static const struct type *ty_macaddr(struct sema *s, struct ast_expr *e,
				     struct ast_expr *target)
{
	const struct type *t = sema_expr(s, arg(e, 0));
	if (t->kind == TY_NONE)
		return t;
	if (!sema_is_intlike(t) && !((t->kind == TY_ARRAY ||
				      t->kind == TY_STRING) && t->size >= 6)) {
		sema_err(s, arg(e, 0)->span, "macaddr() expects a pointer or "
			 "an array of 6 bytes, not %s", sema_tname(s, t));
		return &type_none;
	}
	struct type *m = type_new(s->arena, TY_MACADDR, 6);
	m->align = 1;
	return m;
}

static const struct type *ty_ksym(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	if (!want_int_arg(s, e, 0))
		return &type_none;
	return type_new(s->arena, TY_KSYM, 8);
}

static const struct type *ty_usym(struct sema *s, struct ast_expr *e,
				  struct ast_expr *target)
{
	if (!want_int_arg(s, e, 0))
		return &type_none;
	return type_new(s->arena, TY_USYM, 16);
}

static const struct type *ty_reg(struct sema *s, struct ast_expr *e,
				 struct ast_expr *target)
{
	if (!sema_tgt_has(s, CTX_REGS)) {
		sema_err(s, e->span, "reg() is not available in %s probes "
			 "(only in kprobe and uprobe probes)",
			 sema_probe_kind(s));
		return &type_none;
	}
	if (arg(e, 0)->kind != E_STRING) {
		sema_err(s, arg(e, 0)->span, "reg() expects a string literal");
		return &type_none;
	}
	if (regs_offset(arg(e, 0)->u.str.bytes) < 0) {
		sema_err(s, e->span, "'%s' is not a valid register on this "
			 "architecture", arg(e, 0)->u.str.bytes);
		return &type_none;
	}
	return &type_u64;
}

/* kaddr("sym") and cgroupid("path"): constants found at compile time. */
static const struct type *ty_resolved(struct sema *s, struct ast_expr *e,
				      bool kernel)
{
	if (arg(e, 0)->kind == E_CALL) /* str($1) is a literal */
		sema_expr(s, arg(e, 0));
	if (arg(e, 0)->kind != E_STRING) {
		sema_err(s, arg(e, 0)->span, "%s() expects a string literal",
			 e->u.call.name);
		return &type_none;
	}
	uint64_t val;
	const char *what = arg(e, 0)->u.str.bytes;
	if (kernel ? s->kernel->ksym_addr(what, &val) < 0 :
		     s->kernel->cgroup_id(what, &val) < 0) {
		sema_err(s, e->span, kernel ? /* at the call, as 0.26 */
			 "Failed to resolve kernel symbol: %s" :
			 "cannot find the cgroup %s", what);
		return &type_none;
	}
	sema_fold_const(e, val);
	return &type_u64;
}

static const struct type *ty_kaddr(struct sema *s, struct ast_expr *e,
				   struct ast_expr *target)
{
	return ty_resolved(s, e, true);
}

static const struct type *ty_cgroupid(struct sema *s, struct ast_expr *e,
				      struct ast_expr *target)
{
	return ty_resolved(s, e, false);
}

/* ---- dispatch ---- */

typedef const struct type *(*typing_fn)(struct sema *, struct ast_expr *,
					 struct ast_expr *);

static const typing_fn typing[BI__COUNT] = {
#define BUILTIN_VAR(id, name, ty, cg) [BI_##id] = ty,
#define BUILTIN_VARN(id, name, ty, cg) [BI_##id] = ty,
#define BUILTIN_FN(id, name, min, max, ty, cg) [BI_##id] = ty,
#include "lang/builtins.def"
#undef BUILTIN_VAR
#undef BUILTIN_VARN
#undef BUILTIN_FN
};

bool sema_builtin_has_typing(int id)
{
	return id >= 0 && id < BI__COUNT && typing[id];
}

const struct type *sema_check_builtin_var(struct sema *s, struct ast_expr *e)
{
	/* bpftrace 0.26 passes no probe arguments to a for body's
	 * callback */
	if (s->fors.len && (e->builtin == BI_ARGN ||
			    e->builtin == BI_SARGN ||
			    e->builtin == BI_RETVAL ||
			    e->builtin == BI_ARGS ||
			    e->builtin == BI_CTX)) {
		sema_err(s, e->span, "'%s' builtin is not allowed in a "
			 "for-loop", e->u.name);
		return &type_none;
	}
	return typing[e->builtin](s, e, NULL);
}

/* Builtin variables that 0.26 also takes as calls without arguments
 * (its standard library defines them as macros): comm(), ppid(), ... */
static const char *const var_calls[] = {
	"cgroup", "comm", "cpid", "cpu", "curtask", "elapsed", "func", "gid",
	"jiffies", "ncpus", "numaid", "probe", "probetype", "rand", "retval",
	"uid", "usermode", "username", "has_cpid", NULL,
};

/* A call without arguments of a builtin variable that 0.26 takes as one
 * (comm()): e becomes the variable. */
static bool var_call(struct ast_expr *e)
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

const struct type *sema_call(struct sema *s, struct ast_expr *e,
			     struct ast_expr *target)
{
	e->type = &type_none;
	enum builtin_id id = builtin_fn_lookup(e->u.call.name);
	if (id == BI_NONE && var_call(e))
		return sema_expr(s, e);
	if (id == BI_NONE) {
		sema_err(s, e->u.call.name_span, "unknown function %s()",
			 e->u.call.name);
		for (uint32_t i = 0; i < e->u.call.args.n; i++)
			sema_expr(s, arg(e, i));
		return &type_none;
	}
	e->builtin = (int16_t)id;
	const struct builtin_info *b = &builtin_info[id];
	if (b->max_args != BUILTIN_VARIADIC &&
	    !nargs_ok(s, e, b->min_args, b->max_args))
		return &type_none;
	return typing[id](s, e, target);
}

const struct type *sema_check_call(struct sema *s, struct ast_expr *e)
{
	const struct type *t = sema_call(s, e, NULL);
	if (type_is_aggregation(t))
		return &type_none;
	return t;
}
