/*
 * Iterator probes (iter:task ...): printf writes into the iterator's
 * seq_file with bpf_seq_printf, as bpftrace 0.26 does, so that what an
 * iteration prints is read with the iterator (all of it, whatever the
 * ring buffer holds) and the kernel formats it; and a pointer read from
 * ctx (ctx.task) is checked: the kernel ends each iteration with a call
 * whose pointers are NULL, which ends the action.
 */
#include <string.h>

#include "codegen/cg.h"
#include "model/fmt.h"
#include "probes/provider.h"
#include "util/strbuf.h"

/* The kernel's bprintf takes at most this many arguments. */
#define SEQ_MAX_ARGS 12

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

/* The conversion as the kernel's bprintf takes it (flags 0 + - and
 * space, a width, l or ll, then d i u x X c s or p), or NULL. */
static const char *kernel_conv(const struct fmt_seg *s)
{
	if (s->alt || strchr(s->text, '.') || strchr(s->text, '*'))
		return NULL;
	if (strcmp(s->length, "") && strcmp(s->length, "l") &&
	    strcmp(s->length, "ll"))
		return NULL;
	static const char *const ok[] = { "d", "i", "u", "x", "X", "c", "s",
					  "p", NULL };
	for (const char *const *k = ok; *k; k++)
		if (!strcmp(s->name, *k))
			return s->text;
	return NULL;
}

static bool int_like(const struct type *t)
{
	return t->kind == TY_INT || t->kind == TY_PTR || t->kind == TY_BOOL;
}

struct val cg_iter_printf(struct cg *g, struct ast_expr *e)
{
	const struct fmt *f = e->u.call.fmt;
	uint32_t nargs = e->u.call.args.n - 1;
	if (nargs > SEQ_MAX_ARGS) {
		cg_error(g, e->span, "printf in iter probes takes at most %d "
			 "arguments (the kernel formats them)", SEQ_MAX_ARGS);
		return cg_no_val();
	}
	/* The format for the kernel: text with '%' doubled again */
	struct strbuf sb = STRBUF_INIT;
	for (uint32_t i = 0; i < f->nsegs; i++) {
		const struct fmt_seg *s = &f->segs[i];
		if (!s->is_conv) {
			for (size_t k = 0; k < s->len; k++) {
				if (!s->text[k]) {
					cg_error(g, e->span, "printf in iter "
						 "probes cannot print a NUL "
						 "byte");
					sb_free(&sb);
					return cg_no_val();
				}
				if (s->text[k] == '%')
					sb_putc(&sb, '%');
				sb_putc(&sb, s->text[k]);
			}
			continue;
		}
		const char *k = kernel_conv(s);
		const struct type *t = e->u.call.args.items[1 + s->arg]->type;
		bool str = !strcmp(s->name, "s");
		if (!k || (str ? t->kind != TY_STRING : !int_like(t))) {
			struct strbuf ty = STRBUF_INIT;
			type_describe(t, &ty);
			cg_error(g, e->span, "printf in iter probes takes only "
				 "%%d %%i %%u %%x %%X %%c and %%p of integers "
				 "and %%s of strings (the kernel formats "
				 "them), not %s of %s", s->text, sb_str(&ty));
			sb_free(&ty);
			sb_free(&sb);
			return cg_no_val();
		}
		sb_append(&sb, k);
	}
	uint32_t flen = (uint32_t)sb.len + 1;
	if (flen > 256) {
		cg_error(g, e->span, "printf in iter probes takes a format of "
			 "at most 255 bytes");
		sb_free(&sb);
		return cg_no_val();
	}
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
