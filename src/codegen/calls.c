/* Code generation of builtin function calls (the cg_bi_* emitters of
 * lang/builtins.def). Sema has checked every call. */
#include <string.h>

#include "codegen/bigstr.h"
#include "codegen/emit.h"
#include "codegen/emitters.h"
#include "codegen/events.h"
#include "codegen/iter.h"
#include "codegen/maps.h"
#include "codegen/program.h"
#include "codegen/values.h"
#include "codegen/walk.h"
#include "lang/sema.h"
#include "model/fmt.h"
#include "util/arena.h"

static struct ast_expr *arg(struct ast_expr *e, uint32_t i)
{
	return e->u.call.args.items[i];
}

static struct val fmt_event(struct cg *g, struct ast_expr *e,
			    enum event_kind kind)
{
	struct cevent proto;
	memset(&proto, 0, sizeof(proto));
	proto.fmt = e->u.call.fmt;
	proto.map = -1;
	cg_event(g, kind, e->u.call.args.items + 1, e->u.call.args.n - 1,
		 &proto);
	return cg_no_val();
}

static struct val map_event(struct cg *g, struct ast_expr *e,
			    enum event_kind kind)
{
	struct cevent proto;
	memset(&proto, 0, sizeof(proto));
	proto.map = cg_map_index(g, arg(e, 0));
	if (kind == EV_PRINT_MAP) {
		if (e->u.call.args.n > 1)
			proto.top = (uint32_t)arg(e, 1)->u.num.value;
		if (e->u.call.args.n > 2)
			proto.div = (uint32_t)arg(e, 2)->u.num.value;
	}
	cg_event(g, kind, NULL, 0, &proto);
	return cg_no_val();
}

static struct val bytes_of(struct cg *g, struct ast_expr *a,
			   const struct type *t, uint32_t n, uint32_t off);

struct val cg_bi_str(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	struct ast_expr *src = arg(e, 0);
	uint32_t size = e->type->size;
	if (src->type->kind == TY_STRING && size < src->type->size) {
		/* str(s, n) of a string: its first n - 1 bytes, then NULs */
		return bytes_of(g, src, e->type, size - 1, 0);
	}
	if (src->type->kind == TY_STRING)
		return cg_big_str(src->type) ? cg_expr(g, src) :
					       cg_to_mem(g, cg_expr(g, src));
	if (cg_big_str(e->type)) /* read where it is stored */
		return (struct val){ .kind = V_STR, .type = e->type, .expr = e };
	ir_reg p = cg_int(g, src);
	/* one byte more than the type for the NUL of a cut string */
	ir_slot s = ir_slot_new(g->ir, size + (e->u.call.args.n == 1), 8);
	cg_str_read(g, e, p, cg_slot_mem(s), 0, size);
	struct val v = { .kind = V_MEM, .type = e->type, .slot = s };
	return v;
}

/* A value of type t whose first n bytes (at off in it) come from the
 * bytes of a (a pointer to read, or an array/string value); the rest of
 * t is zero. */
static struct val bytes_of(struct cg *g, struct ast_expr *a,
			   const struct type *t, uint32_t n, uint32_t off)
{
	ir_slot s = ir_slot_new(g->ir, t->size, 8);
	cg_zero(g, s, 0, t->size);
	const struct type *at = a->type;
	if (cg_big_str(at)) {
		/* a long string, in the scratch: its first n bytes */
		if (n > at->size)
			n = at->size;
		ir_reg dst = ir_reg_new(g->ir);
		ir_slot_addr(g->ir, dst, s, off);
		cg_call(g, BPF_FUNC_probe_read_kernel, 3, dst,
			ir_const(g->ir, n), cg_big_ptr(g, cg_expr(g, a)));
	} else if (at->kind == TY_ARRAY || at->kind == TY_STRING) {
		/* bytes past the value's own are the slot's zeros */
		if (n > at->size)
			n = at->size;
		struct val src = cg_to_mem(g, cg_expr(g, a));
		struct val piece = src;
		struct type *pt = type_new(g->arena, TY_ARRAY, n);
		pt->elem = &type_u8;
		pt->count = n;
		pt->align = 1;
		piece.type = pt;
		cg_store_val_slot(g, s, off, pt, piece);
	} else {
		ir_reg p = cg_int(g, a);
		ir_reg dst = ir_reg_new(g->ir);
		ir_slot_addr(g->ir, dst, s, off);
		cg_call(g, cg_read_fn(g, at, false), 3, dst,
			ir_const(g->ir, n), p);
	}
	struct val v = { .kind = V_MEM, .type = t, .slot = s };
	return v;
}

/* buf(p, len): struct { u32 len; u8 data[]; } */
struct val cg_bi_buf(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	const struct type *t = e->type;
	uint32_t max = t->size - 4;
	struct ast_expr *a = arg(e, 0);
	if (a->type->kind == TY_ARRAY || a->type->kind == TY_STRING ||
	    e->u.call.args.n < 2 || arg(e, 1)->kind == E_INT) {
		struct val v = bytes_of(g, a, t, max, 4);
		ir_storei_slot(g->ir, 4, v.slot, 0, (int32_t)max);
		return v;
	}
	/* a run-time length, clamped so the verifier sees a bound */
	ir_slot s = ir_slot_new(g->ir, t->size, 8);
	cg_zero(g, s, 0, t->size);
	ir_reg len = ir_copy(g->ir, cg_int(g, arg(e, 1)));
	ir_jlist ok = ir_jmpi(g->ir, BPF_JLE, len, (int32_t)max, IR_NOLABEL);
	ir_movi(g->ir, len, max);
	ir_jlist_patch_here(g->ir, ok);
	ir_store_slot(g->ir, 4, s, 0, len);
	ir_reg dst = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, dst, s, 4);
	cg_call(g, cg_read_fn(g, a->type, false), 3, dst, len, cg_int(g, a));
	struct val v = { .kind = V_MEM, .type = t, .slot = s };
	return v;
}

/* ntop([af,] addr): struct { u64 af; u8 addr[16]; } */
struct val cg_bi_ntop(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	struct ast_expr *a = arg(e, e->u.call.args.n - 1);
	const struct type *t = e->type;
	bool v6 = a->type->size == 16;
	struct val v;
	if (a->type->kind == TY_INT) {
		ir_slot s = ir_slot_new(g->ir, t->size, 8);
		cg_zero(g, s, 0, t->size);
		ir_store_slot(g->ir, 4, s, 8, cg_int(g, a));
		v = (struct val){ .kind = V_MEM, .type = t, .slot = s };
	} else {
		v = bytes_of(g, a, t, v6 ? 16 : 4, 8);
	}
	if (e->u.call.args.n == 2)
		ir_store_slot(g->ir, 8, v.slot, 0, cg_int(g, arg(e, 0)));
	else
		ir_storei_slot(g->ir, 8, v.slot, 0, v6 ? 10 : 2);
	return v;
}

/* strncmp(a, b, n): 0 when the first n bytes (up to a NUL) match. */
struct val cg_bi_strncmp(struct cg *g, struct ast_expr *e,
			 struct ast_expr *tg)
{
	if (cg_big_str(arg(e, 0)->type) || cg_big_str(arg(e, 1)->type)) {
		/* a long string: compared in the scratch, in a loop */
		ir_reg pa = cg_big_ptr(g, cg_expr(g, arg(e, 0)));
		ir_reg pb = cg_big_ptr(g, cg_expr(g, arg(e, 1)));
		uint64_t n = arg(e, 2)->u.num.value;
		if (n > arg(e, 0)->type->size)
			n = arg(e, 0)->type->size;
		if (n > arg(e, 1)->type->size)
			n = arg(e, 1)->type->size;
		ir_reg r = ir_reg_new(g->ir);
		ir_movi(g->ir, r, 1);
		ir_jlist ne = cg_big_str_ne(g, pa, pb, (uint32_t)n);
		ir_movi(g->ir, r, 0);
		ir_jlist_patch_here(g->ir, ne);
		return cg_reg_val(e->type, r);
	}
	struct val a = cg_to_mem(g, cg_expr(g, arg(e, 0)));
	struct val b = cg_to_mem(g, cg_expr(g, arg(e, 1)));
	uint64_t n = arg(e, 2)->u.num.value;
	if (n > a.type->size)
		n = a.type->size;
	if (n > b.type->size)
		n = b.type->size;
	ir_reg r = ir_reg_new(g->ir);
	ir_movi(g->ir, r, 1);
	ir_reg x = ir_reg_new(g->ir), y = ir_reg_new(g->ir);
	ir_jlist ne = IR_NOJUMP;
	ir_label equal = ir_label_new(g->ir);
	for (uint64_t i = 0; i < n; i++) {
		ir_load_slot(g->ir, 1, x, a.slot, a.off + (uint32_t)i);
		ir_load_slot(g->ir, 1, y, b.slot, b.off + (uint32_t)i);
		ir_jlist_concat(g->ir, &ne,
				ir_jmp(g->ir, BPF_JNE, x, y, IR_NOLABEL));
		ir_jmpi(g->ir, BPF_JEQ, x, 0, equal);
	}
	ir_label_bind(g->ir, equal);
	ir_movi(g->ir, r, 0);
	ir_jlist_patch_here(g->ir, ne);
	struct val v = { .kind = V_REG, .type = e->type, .reg = r };
	return v;
}

struct val cg_bi_printf(struct cg *g, struct ast_expr *e,
			struct ast_expr *tg)
{
	if (g->tgt->layout == CTXL_ITER)
		return cg_iter_printf(g, e);
	return fmt_event(g, e, EV_PRINTF);
}

struct val cg_bi_system(struct cg *g, struct ast_expr *e,
			struct ast_expr *tg)
{
	return fmt_event(g, e, EV_SYSTEM);
}

/* static_assert(): checked by sema, nothing at run time */
struct val cg_bi_nothing(struct cg *g, struct ast_expr *e,
			 struct ast_expr *tg)
{
	return cg_no_val();
}

/* warnf(), errorf(): a printf whose text the runtime prints located at
 * the call. */
struct val cg_bi_warnf(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	struct cevent proto;
	memset(&proto, 0, sizeof(proto));
	proto.fmt = e->u.call.fmt;
	proto.map = -1;
	proto.at = e->span;
	proto.from = cg_expansion_sites(g, &proto.nfrom);
	cg_event(g, e->builtin == BI_ERRORF ? EV_ERRORF : EV_WARNF,
		 e->u.call.args.items + 1, e->u.call.args.n - 1, &proto);
	return cg_no_val();
}

struct val cg_bi_cat(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	return fmt_event(g, e, EV_CAT);
}

struct val cg_bi_time(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	struct cevent proto;
	memset(&proto, 0, sizeof(proto));
	proto.map = -1;
	if (e->u.call.args.n)
		proto.text = arena_strndup(g->arena, arg(e, 0)->u.str.bytes,
					   arg(e, 0)->u.str.len);
	cg_event(g, EV_TIME, NULL, 0, &proto);
	return cg_no_val();
}

struct val cg_bi_exit(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	cg_exit_event(g, e->u.call.args.n ? cg_int(g, arg(e, 0)) : IR_NOREG);
	/* exit() also ends the action, as in bpftrace */
	cg_end_probe(g);
	return cg_no_val();
}

/* A record of kind whose one argument is the call's first. */
static struct val first_arg_event(struct cg *g, struct ast_expr *e,
				  enum event_kind kind)
{
	struct cevent proto;
	memset(&proto, 0, sizeof(proto));
	proto.map = -1;
	cg_event(g, kind, e->u.call.args.items, 1, &proto);
	return cg_no_val();
}

struct val cg_bi_unwatch(struct cg *g, struct ast_expr *e,
			 struct ast_expr *tg)
{
	return first_arg_event(g, e, EV_UNWATCH);
}

struct val cg_bi_print(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	struct ast_expr *a0 = arg(e, 0);
	if (a0->kind == E_MAP && !a0->u.map.has_brackets)
		return map_event(g, e, EV_PRINT_MAP);
	return first_arg_event(g, e, EV_PRINT_VALUE);
}

struct val cg_bi_clear(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	return map_event(g, e, EV_CLEAR);
}

struct val cg_bi_zero(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	return map_event(g, e, EV_ZERO);
}

struct val cg_bi_bswap(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	ir_reg r = ir_copy(g->ir, cg_int(g, arg(e, 0)));
	uint32_t size = arg(e, 0)->type->size;
	ir_endian(g->ir, r, (int)(size < 2 ? 16 : size * 8), true);
	if (size == 1)
		ir_alui(g->ir, BPF_RSH, r, 8);
	return cg_reg_val(e->type, r);
}

/* kptr(), uptr(): the value, with the address space sema gave its type */
struct val cg_bi_addrspace(struct cg *g, struct ast_expr *e,
			   struct ast_expr *tg)
{
	return cg_reg_val(e->type, cg_to_reg(g, cg_expr(g, arg(e, 0))));
}

/* strftime(fmt, ns) and ksym(addr) carry the integer; the runtime
 * formats it. */
struct val cg_bi_strftime(struct cg *g, struct ast_expr *e,
			  struct ast_expr *tg)
{
	return cg_reg_val(e->type, cg_int(g, arg(e, 1)));
}

struct val cg_bi_ksym(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	return cg_reg_val(e->type, cg_int(g, arg(e, 0)));
}

struct val cg_bi_macaddr(struct cg *g, struct ast_expr *e,
			 struct ast_expr *tg)
{
	return bytes_of(g, arg(e, 0), e->type, 6, 0);
}

struct val cg_bi_signal(struct cg *g, struct ast_expr *e,
			struct ast_expr *tg)
{
	/* signal_thread(): the traced thread, not its process */
	cg_call(g, e->builtin == BI_SIGNAL_THREAD ? BPF_FUNC_send_signal_thread
						   : BPF_FUNC_send_signal,
		1, cg_int(g, arg(e, 0)));
	return cg_no_val();
}

struct val cg_bi_join(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	cg_join(g, e);
	return cg_no_val();
}
