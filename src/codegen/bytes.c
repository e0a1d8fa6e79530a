/*
 * Emitters of builtins whose value is made of bytes sonde writes itself:
 * pton()'s address, strerror() and cgroup_path()'s number (named when
 * printed), and strcontains()'s search.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "codegen/emit.h"
#include "codegen/emitters.h"
#include "codegen/values.h"
#include "codegen/walk.h"
#include "util/arena.h"

static struct ast_expr *arg(struct ast_expr *e, uint32_t i)
{
	return e->u.call.args.items[i];
}

/* Writes n constant bytes into a new slot, widest stores first. */
static struct val const_bytes(struct cg *g, const struct type *t,
			      const uint8_t *b, uint32_t n)
{
	ir_slot s = ir_slot_new(g->ir, n, 8);
	for (uint32_t i = 0; i < n;) {
		uint32_t w = cg_piece(n - i, i, 0);
		uint64_t v = 0;
		for (uint32_t k = 0; k < w; k++)
			v |= (uint64_t)b[i + k] << (8 * k);
		if (w == 8)
			ir_store_slot(g->ir, 8, s, i, ir_const(g->ir, (int64_t)v));
		else
			ir_storei_slot(g->ir, (int)w, s, i, (int32_t)v);
		i += w;
	}
	struct val r = { .kind = V_MEM, .type = t, .slot = s };
	return r;
}

struct val cg_bi_pton(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	const struct ast_expr *a = arg(e, 0);
	char text[64];
	uint8_t bytes[16];
	snprintf(text, sizeof(text), "%.*s", (int)a->u.str.len,
		 a->u.str.bytes);
	/* sema checked that it parses */
	inet_pton(e->type->size == 4 ? AF_INET : AF_INET6, text, bytes);
	return const_bytes(g, e->type, bytes, e->type->size);
}

/* strerror(n), cgroup_path(id): the number in an 8-byte slot. */
struct val cg_bi_u64_in_slot(struct cg *g, struct ast_expr *e,
			     struct ast_expr *tg)
{
	ir_slot s = ir_slot_new(g->ir, 8, 8);
	ir_store_slot(g->ir, 8, s, 0, cg_int(g, arg(e, 0)));
	struct val r = { .kind = V_MEM, .type = e->type, .slot = s };
	return r;
}

/*
 * strcontains(h, n): for each start i in h (until h's NUL), compare n's
 * bytes with h's from i; n's NUL (or its end) is a match. Unrolled: the
 * sizes are constants, and loops cost verifier states. strstr(h, n)
 * (index: true) is the same search, giving the start of the match or -1.
 */
static struct val search(struct cg *g, struct ast_expr *e, bool index)
{
	struct val h = cg_to_mem(g, cg_expr(g, arg(e, 0)));
	struct val n = cg_to_mem(g, cg_expr(g, arg(e, 1)));
	uint32_t hs = h.type->size, ns = n.type->size;
	ir_reg r = ir_reg_new(g->ir);
	ir_reg x = ir_reg_new(g->ir), y = ir_reg_new(g->ir);
	ir_jlist found = IR_NOJUMP, missing = IR_NOJUMP;
	/* an empty needle is found anywhere (at 0) */
	if (index)
		ir_movi(g->ir, r, 0);
	ir_load_slot(g->ir, 1, y, n.slot, n.off);
	ir_jlist_concat(g->ir, &found, ir_jmpi(g->ir, BPF_JEQ, y, 0,
					       IR_NOLABEL));
	for (uint32_t i = 0; i < hs; i++) {
		ir_jlist next = IR_NOJUMP;
		if (index && i)
			ir_movi(g->ir, r, i);
		ir_load_slot(g->ir, 1, x, h.slot, h.off + i);
		ir_jlist_concat(g->ir, &missing,
				ir_jmpi(g->ir, BPF_JEQ, x, 0, IR_NOLABEL));
		uint32_t j;
		for (j = 0; j < ns && i + j < hs; j++) {
			if (j) {
				ir_load_slot(g->ir, 1, y, n.slot, n.off + j);
				ir_jlist_concat(g->ir, &found,
						ir_jmpi(g->ir, BPF_JEQ, y, 0,
							IR_NOLABEL));
				ir_load_slot(g->ir, 1, x, h.slot,
					     h.off + i + j);
			}
			ir_jlist_concat(g->ir, &next,
					ir_jmp(g->ir, BPF_JNE, x, y,
					       IR_NOLABEL));
		}
		if (j < ns) {
			/* h ends first: a match only if n ends here too */
			ir_load_slot(g->ir, 1, y, n.slot, n.off + j);
			ir_jlist_concat(g->ir, &found,
					ir_jmpi(g->ir, BPF_JEQ, y, 0,
						IR_NOLABEL));
			ir_jlist_concat(g->ir, &next, ir_ja(g->ir, IR_NOLABEL));
		} else {
			ir_jlist_concat(g->ir, &found, ir_ja(g->ir, IR_NOLABEL));
		}
		ir_jlist_patch_here(g->ir, next);
		/* y must hold n[0] again for the next start */
		ir_load_slot(g->ir, 1, y, n.slot, n.off);
	}
	ir_jlist_patch_here(g->ir, missing);
	ir_movi(g->ir, r, index ? -1 : 0);
	ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
	ir_jlist_patch_here(g->ir, found);
	if (!index)
		ir_movi(g->ir, r, 1);
	ir_jlist_patch_here(g->ir, done);
	return cg_reg_val(e->type, r);
}

struct val cg_bi_strcontains(struct cg *g, struct ast_expr *e,
			     struct ast_expr *tg)
{
	return search(g, e, false);
}

struct val cg_bi_strstr(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	return search(g, e, true);
}
