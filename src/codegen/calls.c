/* Code generation of function calls. Sema has checked every call. */
#include <string.h>

#include "codegen/cg.h"
#include "lang/sema.h"
#include "runtime/fmt.h"
#include "util/arena.h"

static struct val none(void)
{
	struct val v = { .kind = V_NONE, .type = &type_void };
	return v;
}

static struct ast_expr *arg(struct ast_expr *e, uint32_t i)
{
	return e->u.call.args.items[i];
}

static struct val fmt_event(struct cg *g, struct ast_expr *e,
			    enum event_kind kind)
{
	struct ast_expr *f = arg(e, 0);
	struct cevent proto;
	memset(&proto, 0, sizeof(proto));
	proto.fmt = fmt_parse(g->arena, f->u.str.bytes, f->u.str.len);
	proto.map = -1;
	cg_event(g, kind, e->u.call.args.items + 1, e->u.call.args.n - 1,
		 &proto);
	return none();
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
	return none();
}

static struct val str_call(struct cg *g, struct ast_expr *e)
{
	struct ast_expr *src = arg(e, 0);
	if (src->type->kind == TY_STRING)
		return cg_to_mem(g, cg_expr(g, src));
	uint32_t size = e->type->size;
	ir_reg p = cg_int(g, src);
	ir_slot s = ir_slot_new(g->ir, size, 8);
	cg_zero(g, s, 0, size);
	ir_reg len = IR_NOREG;
	if (e->u.call.args.n == 2 && arg(e, 1)->kind != E_INT) {
		/* a run-time length: clamp it to the buffer */
		len = ir_copy(g->ir, cg_int(g, arg(e, 1)));
		ir_alui(g->ir, BPF_ADD, len, 1);
		ir_jlist ok = ir_jmpi(g->ir, BPF_JLE, len, (int32_t)size,
				      IR_NOLABEL);
		ir_movi(g->ir, len, size);
		ir_jlist_patch_here(g->ir, ok);
	} else {
		len = ir_const(g->ir, size);
	}
	ir_reg dst = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, dst, s, 0);
	bool user = src->type->kind == TY_PTR && src->type->is_user;
	cg_call(g, user ? BPF_FUNC_probe_read_user_str :
			  BPF_FUNC_probe_read_kernel_str,
		3, dst, len, p);
	struct val v = { .kind = V_MEM, .type = e->type, .slot = s };
	return v;
}

struct val cg_call_expr(struct cg *g, struct ast_expr *e)
{
	const char *n = e->u.call.name;
	if (!strcmp(n, "printf"))
		return fmt_event(g, e, EV_PRINTF);
	if (!strcmp(n, "system"))
		return fmt_event(g, e, EV_SYSTEM);
	if (!strcmp(n, "cat"))
		return fmt_event(g, e, EV_CAT);
	if (!strcmp(n, "time")) {
		struct cevent proto;
		memset(&proto, 0, sizeof(proto));
		proto.map = -1;
		if (e->u.call.args.n)
			proto.text = arena_strndup(g->arena,
						   arg(e, 0)->u.str.bytes,
						   arg(e, 0)->u.str.len);
		cg_event(g, EV_TIME, NULL, 0, &proto);
		return none();
	}
	if (!strcmp(n, "exit")) {
		struct cevent proto;
		memset(&proto, 0, sizeof(proto));
		proto.map = -1;
		cg_event(g, EV_EXIT, NULL, 0, &proto);
		return none();
	}
	if (!strcmp(n, "print")) {
		struct ast_expr *a0 = arg(e, 0);
		if (a0->kind == E_MAP && !a0->u.map.has_brackets)
			return map_event(g, e, EV_PRINT_MAP);
		struct cevent proto;
		memset(&proto, 0, sizeof(proto));
		proto.map = -1;
		cg_event(g, EV_PRINT_VALUE, e->u.call.args.items, 1, &proto);
		return none();
	}
	if (!strcmp(n, "clear"))
		return map_event(g, e, EV_CLEAR);
	if (!strcmp(n, "zero"))
		return map_event(g, e, EV_ZERO);
	if (!strcmp(n, "delete")) {
		cg_map_delete(g, arg(e, 0));
		return none();
	}
	if (!strcmp(n, "str"))
		return str_call(g, e);
	if (!strcmp(n, "bswap")) {
		ir_reg r = ir_copy(g->ir, cg_int(g, arg(e, 0)));
		uint32_t size = arg(e, 0)->type->size;
		ir_endian(g->ir, r, (int)(size < 2 ? 16 : size * 8), true);
		if (size == 1)
			ir_alui(g->ir, BPF_RSH, r, 8);
		struct val v = { .kind = V_REG, .type = e->type, .reg = r };
		return v;
	}
	if (!strcmp(n, "kptr") || !strcmp(n, "uptr")) {
		struct val v = cg_expr(g, arg(e, 0));
		struct val r = { .kind = V_REG, .type = e->type,
				 .reg = cg_to_reg(g, v) };
		return r;
	}
	if (!strcmp(n, "kstack") || !strcmp(n, "ustack")) {
		cg_error(g, e->span, "%s is not supported yet", n);
		return none();
	}
	cg_error(g, e->u.call.name_span, "%s() is not supported by the code "
		 "generator yet", n);
	return none();
}
