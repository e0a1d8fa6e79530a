/*
 * Iterator probes (iter:task ...): printf writes into the iterator's
 * seq_file with bpf_seq_printf, as bpftrace 0.26 does, so that what an
 * iteration prints is read with the iterator (all of it, whatever the
 * ring buffer holds) and the kernel formats it; and a pointer read from
 * ctx (ctx.task) is checked: the kernel ends each iteration with a call
 * whose pointers are NULL, which ends the action.
 */
#include <string.h>

#include "codegen/emit.h"
#include "codegen/iter.h"
#include "codegen/values.h"
#include "codegen/walk.h"
#include "model/fmt.h"
#include "probes/provider.h"
#include "util/strbuf.h"

bool cg_iter_ctx_field(struct cg *g, const struct ast_expr *base)
{
	return g->tgt && g->tgt->layout == CTXL_ITER &&
	       base->kind == E_BUILTIN && base->builtin == BI_CTX;
}

struct val cg_iter_checked(struct cg *g, struct val v)
{
	ir_reg r = cg_to_reg(g, v);
	ir_jlist_concat(g->ir, &g->bail, ir_jmpi(g->ir, BPF_JEQ, r, 0,
						 IR_NOLABEL));
	return cg_reg_val(v.type, r);
}

/* sema refused what the kernel's bprintf cannot take (lang/sema_iter.c):
 * the format is the script's, conversions as written. */
struct val cg_iter_printf(struct cg *g, struct ast_expr *e)
{
	const struct fmt *f = e->u.call.fmt;
	uint32_t nargs = e->u.call.args.n - 1;
	/* The format for the kernel: text with '%' doubled again */
	struct strbuf sb = STRBUF_INIT;
	for (uint32_t i = 0; i < f->nsegs; i++) {
		const struct fmt_seg *s = &f->segs[i];
		if (s->is_conv) {
			sb_append(&sb, s->text);
			continue;
		}
		for (size_t k = 0; k < s->len; k++) {
			if (s->text[k] == '%')
				sb_putc(&sb, '%');
			sb_putc(&sb, s->text[k]);
		}
	}
	uint32_t flen = (uint32_t)sb.len + 1;
	ir_slot fs = ir_slot_new(g->ir, (flen + 7) & ~7u, 8);
	const unsigned char *b = (const unsigned char *)sb_str(&sb);
	for (uint32_t i = 0; i < flen; i += 4) {
		uint32_t w = 0;
		for (uint32_t k = 0; k < 4 && i + k < flen; k++)
			if (i + k < sb.len)
				w |= (uint32_t)b[i + k] << (8 * k);
		ir_storei_slot(g->ir, 4, fs, i, (int32_t)w);
	}
	sb_free(&sb);
	/* the arguments, a u64 each: integers, or a string's address */
	ir_slot ds = ir_slot_new(g->ir, nargs ? 8 * nargs : 8, 8);
	for (uint32_t i = 0; i < nargs; i++) {
		struct ast_expr *a = e->u.call.args.items[1 + i];
		if (a->type->kind == TY_STRING) {
			struct val m = cg_to_mem(g, cg_expr(g, a));
			ir_reg p = ir_reg_new(g->ir);
			ir_slot_addr(g->ir, p, m.slot, m.off);
			ir_store_slot(g->ir, 8, ds, 8 * i, p);
		} else {
			ir_store_slot(g->ir, 8, ds, 8 * i, cg_int(g, a));
		}
	}
	/* ctx->meta->seq: direct loads, which leave the verifier the BTF
	 * type bpf_seq_printf checks its first argument against */
	ir_reg seq = ir_reg_new(g->ir);
	ir_load(g->ir, 8, seq, ir_ctx(g->ir), 0);
	ir_load(g->ir, 8, seq, seq, 0);
	ir_reg fa = ir_reg_new(g->ir), da = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, fa, fs, 0);
	if (nargs)
		ir_slot_addr(g->ir, da, ds, 0);
	else
		ir_movi(g->ir, da, 0);
	cg_call(g, BPF_FUNC_seq_printf, 5, seq, fa, ir_const(g->ir, flen), da,
		ir_const(g->ir, 8 * nargs));
	return cg_no_val();
}
