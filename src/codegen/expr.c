/*
 * The expression walker: lowering of expressions to IR. Builtins go to
 * their emitters through the registry; what the value becomes where it is
 * used is the value library's (values.h).
 */
#include <string.h>

#include "codegen/bigstr.h"
#include "codegen/emit.h"
#include "codegen/expr.h"
#include "codegen/iter.h"
#include "codegen/maps.h"
#include "codegen/program.h"
#include "codegen/registry.h"
#include "codegen/stacks.h"
#include "codegen/values.h"
#include "codegen/vars.h"
#include "codegen/walk.h"

/* ---- fields, indexing ---- */

/* A bitfield's storage unit is read whole, then shifted and masked. */
static struct val bitfield(struct cg *g, struct val unit,
			   const struct type_field *f)
{
	ir_reg r = cg_to_reg(g, unit);
	if (f->bit_off)
		ir_alui(g->ir, BPF_RSH, r, f->bit_off);
	if (f->bit_size < 32)
		ir_alui(g->ir, BPF_AND, r, (int32_t)((1u << f->bit_size) - 1));
	else if (f->bit_size < 64)
		ir_alu(g->ir, BPF_AND, r,
		       ir_const(g->ir, (int64_t)((1ull << f->bit_size) - 1)));
	return cg_reg_val(f->type, r);
}

static struct val field(struct cg *g, struct ast_expr *e)
{
	struct val b = cg_expr(g, e->u.field.base);
	const struct type *rec = b.type;
	/* a pointer to a pointer: read each on the way (sema lets '.' go
	 * through any number of them) */
	while (rec->kind == TY_PTR && rec->elem->kind == TY_PTR) {
		ir_reg p = cg_to_reg(g, b);
		b = (struct val){ .kind = V_ADDR, .type = rec->elem, .reg = p,
				  .user = rec->is_user,
				  .any = type_addr_space(rec) == AS_MIXED };
		rec = rec->elem;
	}
	if (rec->kind == TY_PTR) {
		ir_reg p = cg_to_reg(g, b);
		rec = rec->elem;
		b = (struct val){ .kind = V_ADDR, .type = rec, .reg = p,
				  .user = b.type->is_user,
				  .any = type_addr_space(b.type) == AS_MIXED };
	}
	const struct type_field *f = e->u.field.resolved;
	struct val v = b;
	v.type = f->type;
	switch (b.kind) {
	case V_CTX:
		if (f->loc != FIELD_PLAIN) {
			/* a dynamic array: ctx + (loc & 0xffff) */
			ir_reg loc = ir_reg_new(g->ir);
			ir_load(g->ir, 4, loc, ir_ctx(g->ir),
				(int16_t)(b.ctx_off + f->offset));
			ir_alui(g->ir, BPF_AND, loc, 0xffff);
			if (f->loc == FIELD_REL_LOC)
				ir_alui(g->ir, BPF_ADD, loc,
					(int32_t)(b.ctx_off + f->offset + 4));
			ir_reg p = ir_copy(g->ir, ir_ctx(g->ir));
			ir_alu(g->ir, BPF_ADD, p, loc);
			return cg_reg_val(f->type, p);
		}
		v.ctx_off = b.ctx_off + f->offset;
		break;
	case V_MEM:
		v.off = b.off + f->offset;
		break;
	case V_ADDR:
		v.reg = ir_copy(g->ir, b.reg);
		if (f->offset)
			ir_alui(g->ir, BPF_ADD, v.reg, (int32_t)f->offset);
		break;
	default: {
		struct val m = cg_to_mem(g, b);
		v = m;
		v.type = f->type;
		v.off = m.off + f->offset;
	}
	}
	if (f->bit_size) {
		struct val unit = v;
		unit.type = type_int((int)f->type->size, false);
		return bitfield(g, unit, f);
	}
	if (f->type->kind == TY_PTR && cg_iter_ctx_field(g, e->u.field.base))
		return cg_iter_checked(g, v);
	if (v.type->kind == TY_PTR && b.type->is_user)
		v.user = true;
	/* sema's type: a pointer read from user memory is a user pointer */
	v.type = e->type;
	return v;
}

/* a[i] of an array (or string) held in the program, i known only when
 * it runs: the element, read from its place; past the end, 0 and 0.26's
 * warning (bpftrace reads on, into whatever follows: sonde does not) */
static struct val index_in_place(struct cg *g, struct val b,
				 struct ast_expr *e, uint32_t count)
{
	const struct type *et = e->type;
	struct val m = cg_to_mem(g, b);
	ir_reg i = ir_copy(g->ir, cg_int(g, e->u.index.index));
	ir_slot el = ir_slot_new(g->ir, 8, 8);
	ir_storei_slot(g->ir, 8, el, 0, 0);
	ir_jlist oob = ir_jmpi(g->ir, BPF_JGT, i, (int32_t)(count - 1),
			       IR_NOLABEL);
	ir_reg src = ir_reg_new(g->ir), dst = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, src, m.slot, m.off);
	if (et->size != 1)
		ir_alui(g->ir, BPF_MUL, i, (int32_t)et->size);
	ir_alu(g->ir, BPF_ADD, src, i);
	ir_slot_addr(g->ir, dst, el, 0);
	cg_call(g, BPF_FUNC_probe_read_kernel, 3, dst,
		ir_const(g->ir, et->size), src);
	ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
	ir_jlist_patch_here(g->ir, oob);
	cg_runtime_error(g, "Array access out of bounds. This can lead to "
			 "unexpected results.", e->span);
	ir_jlist_patch_here(g->ir, done);
	return cg_mem_val(et, el, 0);
}

static struct val index_expr(struct cg *g, struct ast_expr *e)
{
	struct val b = cg_expr(g, e->u.index.base);
	const struct type *et = e->type;
	int64_t k = -1;
	if (e->u.index.index->kind == E_INT)
		k = (int64_t)e->u.index.index->u.num.value;
	if (b.type->kind == TY_PTR) {
		ir_reg p = cg_to_reg(g, b);
		ir_reg i = cg_int(g, e->u.index.index);
		ir_reg a = ir_copy(g->ir, p);
		if (et->size != 1)
			ir_alui(g->ir, BPF_MUL, i, (int32_t)et->size);
		ir_alu(g->ir, BPF_ADD, a, i);
		struct val v = { .kind = V_ADDR, .type = et, .reg = a,
				 .user = b.type->is_user,
				 .any = type_addr_space(b.type) == AS_MIXED };
		return v;
	}
	/* arrays (and strings, of int8) in memory or the context need a
	 * constant index */
	uint32_t count = b.type->kind == TY_STRING ? b.type->size :
						     b.type->count;
	if (k < 0 || (uint64_t)k >= count) {
		if (b.kind == V_ADDR) {
			ir_reg i = cg_int(g, e->u.index.index);
			if (count && e->u.index.index->kind != E_INT) {
				/* read all the same, as bpftrace 0.26 does */
				ir_jlist in = ir_jmpi(g->ir, BPF_JLE, i,
						      (int32_t)(count - 1),
						      IR_NOLABEL);
				cg_runtime_error(g, "Array access out of bounds. "
						 "This can lead to unexpected "
						 "results.", e->span);
				ir_jlist_patch_here(g->ir, in);
			}
			ir_reg a = ir_copy(g->ir, b.reg);
			ir_alui(g->ir, BPF_MUL, i, (int32_t)et->size);
			ir_alu(g->ir, BPF_ADD, a, i);
			struct val v = { .kind = V_ADDR, .type = et, .reg = a,
					 .user = b.user, .any = b.any };
			return v;
		}
		if (count && e->u.index.index->kind != E_INT &&
		    cg_is_scalar(et) && cg_scalar_size_ok(et->size))
			return index_in_place(g, b, e, count);
		cg_error(g, e->u.index.index->span, "the index of this array "
			 "must be a constant between 0 and %u",
			 count ? count - 1 : 0);
		return cg_reg_val(et, ir_const(g->ir, 0));
	}
	uint32_t off = (uint32_t)k * et->size;
	struct val v = b;
	v.type = et;
	switch (b.kind) {
	case V_CTX: v.ctx_off += off; break;
	case V_MEM: v.off += off; break;
	case V_ADDR:
		v.reg = ir_copy(g->ir, b.reg);
		ir_alui(g->ir, BPF_ADD, v.reg, (int32_t)off);
		break;
	default: {
		struct val m = cg_to_mem(g, b);
		v = m;
		v.type = et;
		v.off += off;
	}
	}
	return v;
}

/* ---- operators ---- */

static bool both_signed(const struct ast_expr *a, const struct ast_expr *b)
{
	return a->type->kind == TY_INT && a->type->is_signed &&
	       b->type->kind == TY_INT && b->type->is_signed;
}

static int cmp_cond(enum ast_op op, bool sign)
{
	switch (op) {
	case OP_EQ: return BPF_JEQ;
	case OP_NE: return BPF_JNE;
	case OP_LT: return sign ? BPF_JSLT : BPF_JLT;
	case OP_LE: return sign ? BPF_JSLE : BPF_JLE;
	case OP_GT: return sign ? BPF_JSGT : BPF_JGT;
	default: return sign ? BPF_JSGE : BPF_JGE;
	}
}

/* string_ne of a string too long for the stack (bigstr.h), in the
 * scratch: against a literal (eb), byte by byte up to its NUL; else in a
 * loop over the shorter size. */
static ir_jlist big_string_ne(struct cg *g, struct ast_expr *ea,
			      struct ast_expr *eb)
{
	ir_reg pa = cg_big_ptr(g, cg_expr(g, ea));
	uint32_t n = ea->type->size < eb->type->size ? ea->type->size :
						       eb->type->size;
	if (eb->kind != E_STRING || cg_big_str(eb->type))
		return cg_big_str_ne(g, pa, cg_big_ptr(g, cg_expr(g, eb)), n);
	ir_jlist ne = IR_NOJUMP;
	ir_reg x = ir_reg_new(g->ir);
	if (n > eb->u.str.len + 1)
		n = eb->u.str.len + 1;
	for (uint32_t i = 0; i < n; i++) {
		unsigned char c = i < eb->u.str.len ?
			(unsigned char)eb->u.str.bytes[i] : 0;
		ir_load(g->ir, 1, x, pa, (int16_t)i);
		ir_jlist_concat(g->ir, &ne, ir_jmpi(g->ir, BPF_JNE, x, c,
						    IR_NOLABEL));
	}
	return ne;
}

/* Jumps to the returned list when strings a and b differ. Bytes are
 * compared up to the shorter size; a NUL in both ends the comparison. */
static ir_jlist string_ne(struct cg *g, struct ast_expr *ea,
			  struct ast_expr *eb)
{
	if (ea->kind == E_STRING) {
		struct ast_expr *t = ea;
		ea = eb;
		eb = t;
	}
	if (cg_big_str(ea->type) || cg_big_str(eb->type))
		return big_string_ne(g, ea, eb);
	struct val a = cg_to_mem(g, cg_expr(g, ea));
	ir_jlist ne = IR_NOJUMP;
	ir_label equal = ir_label_new(g->ir);
	ir_reg x = ir_reg_new(g->ir);
	if (eb->kind == E_STRING) {
		/* against a literal: compare with immediates */
		uint32_t n = eb->u.str.len + 1;
		if (n > a.type->size)
			n = a.type->size;
		for (uint32_t i = 0; i < n; i++) {
			unsigned char c = i < eb->u.str.len ?
				(unsigned char)eb->u.str.bytes[i] : 0;
			ir_load_slot(g->ir, 1, x, a.slot, a.off + i);
			ir_jlist_concat(g->ir, &ne,
					ir_jmpi(g->ir, BPF_JNE, x, c,
						IR_NOLABEL));
		}
		ir_label_bind(g->ir, equal);
		return ne;
	}
	struct val b = cg_to_mem(g, cg_expr(g, eb));
	uint32_t n = a.type->size < b.type->size ? a.type->size : b.type->size;
	ir_reg y = ir_reg_new(g->ir);
	for (uint32_t i = 0; i < n; i++) {
		ir_load_slot(g->ir, 1, x, a.slot, a.off + i);
		ir_load_slot(g->ir, 1, y, b.slot, b.off + i);
		ir_jlist_concat(g->ir, &ne,
				ir_jmp(g->ir, BPF_JNE, x, y, IR_NOLABEL));
		ir_jmpi(g->ir, BPF_JEQ, x, 0, equal);
	}
	ir_label_bind(g->ir, equal);
	return ne;
}

/* Jumps to the returned list when the first n bytes of a and b (in
 * memory) differ; compared in the widest aligned pieces. */
static ir_jlist bytes_ne(struct cg *g, struct val a, struct val b, uint32_t n)
{
	ir_jlist ne = IR_NOJUMP;
	ir_reg x = ir_reg_new(g->ir), y = ir_reg_new(g->ir);
	for (uint32_t i = 0, k; i < n; i += k) {
		k = cg_piece(n - i, a.off + i, b.off + i);
		ir_load_slot(g->ir, (int)k, x, a.slot, a.off + i);
		ir_load_slot(g->ir, (int)k, y, b.slot, b.off + i);
		ir_jlist_concat(g->ir, &ne,
				ir_jmp(g->ir, BPF_JNE, x, y, IR_NOLABEL));
	}
	return ne;
}

/* Jumps to the returned list when tuples (in memory) differ. */
static ir_jlist mem_ne(struct cg *g, struct val a, struct val b)
{
	ir_jlist ne = IR_NOJUMP;
	const struct type *t = a.type;
	for (uint32_t i = 0; i < t->nfields; i++) {
		const struct type *ft = t->fields[i].type;
		const struct type_field *bf = type_is_record(t) ?
			type_record_field(b.type, t->fields[i].name) :
			&b.type->fields[i];
		struct val fa = cg_mem_val(ft, a.slot,
					   a.off + t->fields[i].offset);
		struct val fb = cg_mem_val(bf->type, b.slot,
					   b.off + bf->offset);
		if (ft->kind == TY_TUPLE) { /* its fields may be laid out
					       * apart: of other widths */
			ir_jlist_concat(g->ir, &ne, mem_ne(g, fa, fb));
			continue;
		}
		if (ft->kind == TY_INT || ft->kind == TY_PTR ||
		    ft->kind == TY_BOOL) {
			ir_reg ra = cg_to_reg(g, fa), rb = cg_to_reg(g, fb);
			ir_jlist_concat(g->ir, &ne, ir_jmp(g->ir, BPF_JNE, ra,
							   rb, IR_NOLABEL));
			continue;
		}
		uint32_t n = ft->size < fb.type->size ? ft->size :
							 fb.type->size;
		ir_jlist_concat(g->ir, &ne, bytes_ne(g, fa, fb, n));
	}
	return ne;
}

/* Jumps to the returned list when the comparison e is false. */
static ir_jlist compare_false(struct cg *g, struct ast_expr *e)
{
	struct ast_expr *l = e->u.binary.left, *r = e->u.binary.right;
	enum ast_op op = e->u.binary.op;
	if (l->type->kind == TY_STRING) {
		ir_jlist ne = string_ne(g, l, r);
		if (op == OP_EQ)
			return ne;
		ir_jlist eq = ir_ja(g->ir, IR_NOLABEL);
		ir_jlist_patch_here(g->ir, ne);
		return eq;
	}
	enum type_kind k = l->type->kind;
	if (k == TY_TUPLE || k == TY_ARRAY || k == TY_BUF) {
		struct val a = cg_to_mem(g, cg_expr(g, l));
		struct val b = cg_to_mem(g, cg_expr(g, r));
		/* buffers: the lengths, then the bytes, zero past the length
		 * in both, up to the smaller one (sema: arrays of one type) */
		uint32_t n = a.type->size < b.type->size ? a.type->size :
							   b.type->size;
		ir_jlist ne = k == TY_TUPLE ? mem_ne(g, a, b) :
					      bytes_ne(g, a, b, n);
		if (op == OP_EQ)
			return ne;
		ir_jlist eq = ir_ja(g->ir, IR_NOLABEL);
		ir_jlist_patch_here(g->ir, ne);
		return eq;
	}
	ir_reg a = cg_int(g, l);
	int cond = ir_cond_negate(cmp_cond(op, e->u.binary.cmp_signed));
	if (r->kind == E_INT && r->u.num.value <= INT32_MAX)
		return ir_jmpi(g->ir, cond, a, (int32_t)r->u.num.value,
			       IR_NOLABEL);
	ir_reg b = cg_int(g, r);
	return ir_jmp(g->ir, cond, a, b, IR_NOLABEL);
}

ir_jlist cg_walk_cond_false(struct cg *g, struct ast_expr *e)
{
	if (e->kind == E_BINARY) {
		enum ast_op op = e->u.binary.op;
		if (op >= OP_EQ && op <= OP_GE)
			return compare_false(g, e);
		if (op == OP_LAND) {
			ir_jlist f = cg_cond_false(g, e->u.binary.left);
			ir_jlist_concat(g->ir, &f,
					cg_cond_false(g, e->u.binary.right));
			return f;
		}
		if (op == OP_LOR) {
			ir_jlist lf = cg_cond_false(g, e->u.binary.left);
			ir_jlist t = ir_ja(g->ir, IR_NOLABEL);
			ir_jlist_patch_here(g->ir, lf);
			ir_jlist f = cg_cond_false(g, e->u.binary.right);
			ir_jlist_patch_here(g->ir, t);
			return f;
		}
	}
	if (e->kind == E_UNARY && e->u.unary.op == OP_LNOT) {
		ir_jlist f = cg_cond_false(g, e->u.unary.operand);
		ir_jlist t = ir_ja(g->ir, IR_NOLABEL);
		ir_jlist_patch_here(g->ir, f);
		return t;
	}
	ir_reg r = cg_int(g, e);
	return ir_jmpi(g->ir, BPF_JEQ, r, 0, IR_NOLABEL);
}

/* 0 or 1 from a condition. */
static struct val bool_val(struct cg *g, struct ast_expr *e)
{
	ir_reg r = ir_reg_new(g->ir);
	ir_jlist f = cg_cond_false(g, e);
	ir_movi(g->ir, r, 1);
	ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
	ir_jlist_patch_here(g->ir, f);
	ir_movi(g->ir, r, 0);
	ir_jlist_patch_here(g->ir, done);
	return cg_reg_val(e->type, r);
}

/* The bytes one step of a pointer of type p moves (sema refuses 0). */
static int64_t ptr_step(const struct type *p)
{
	return type_ptr_step(p);
}

/* p + n, n + p, p - n: n counts elements of what p points to. p - 2 is
 * p + -8: the verifier refuses any subtraction from a stack pointer (a
 * variable's address, &$a), and adding the negative is the same sum. */
static struct val ptr_arith(struct cg *g, struct ast_expr *e)
{
	struct ast_expr *l = e->u.binary.left, *r = e->u.binary.right;
	struct ast_expr *pe = l->type->kind == TY_PTR ? l : r;
	struct ast_expr *ne = pe == l ? r : l;
	int64_t step = ptr_step(pe->type);
	bool sub = e->u.binary.op == OP_SUB;
	ir_reg a = ir_copy(g->ir, cg_int(g, pe));
	if (ne->kind == E_INT) {
		int64_t off = (int64_t)ne->u.num.value * step;
		if (sub)
			off = -off;
		if (off >= INT32_MIN && off <= INT32_MAX) {
			if (off)
				ir_alui(g->ir, BPF_ADD, a, (int32_t)off);
			return cg_reg_val(e->type, a);
		}
	}
	/* an offset the verifier cannot bound, on a stack pointer, is
	 * refused (before 6.x also a bounded one through a negation): the
	 * address goes as a number, read through as any other */
	if (g->addressed.len)
		a = cg_ptr_as_int(g, a);
	ir_reg n = ir_copy(g->ir, cg_int(g, ne));
	if (step != 1)
		ir_alui(g->ir, BPF_MUL, n, (int32_t)step);
	ir_alu(g->ir, sub ? BPF_SUB : BPF_ADD, a, n);
	return cg_reg_val(e->type, a);
}

static struct val binary(struct cg *g, struct ast_expr *e)
{
	enum ast_op op = e->u.binary.op;
	if ((op >= OP_EQ && op <= OP_GE) || op == OP_LAND || op == OP_LOR)
		return bool_val(g, e);
	if (e->type->kind == TY_PTR && (op == OP_ADD || op == OP_SUB))
		return ptr_arith(g, e);
	struct ast_expr *l = e->u.binary.left, *r = e->u.binary.right;
	/* division is signed when both sides are, as in C (the result of
	 * a - b is signed, as bpftrace 0.26 has it, but (a - b) / u is not
	 * a signed division) */
	bool sign = both_signed(l, r);
	ir_reg a = ir_copy(g->ir, cg_int(g, l));
	int bop = 0;
	switch (op) {
	case OP_ADD: bop = BPF_ADD; break;
	case OP_SUB: bop = BPF_SUB; break;
	case OP_MUL: bop = BPF_MUL; break;
	case OP_DIV: bop = BPF_DIV; break;
	case OP_MOD: bop = BPF_MOD; break;
	case OP_BAND: bop = BPF_AND; break;
	case OP_BOR: bop = BPF_OR; break;
	case OP_BXOR: bop = BPF_XOR; break;
	case OP_SHL: bop = BPF_LSH; break;
	case OP_SHR:
		bop = l->type->kind == TY_INT && l->type->is_signed ?
			      BPF_ARSH : BPF_RSH;
		break;
	default: break;
	}
	/* x % 0 by a literal 0 is 0 (BPF leaves x unchanged); so is a
	 * shift by a constant of 64 or more (the verifier rejects it). A
	 * divisor that is 0 at run time gives 1 and a warning, below. */
	if (r->kind == E_INT && ((op == OP_MOD && r->u.num.value == 0) ||
				 ((op == OP_SHL || op == OP_SHR) &&
				  r->u.num.value >= 64))) {
		ir_movi(g->ir, a, 0);
		return cg_reg_val(e->type, a);
	}
	if (r->kind == E_INT && r->u.num.value <= INT32_MAX &&
	    !((op == OP_DIV || op == OP_MOD) && sign)) {
		ir_alui(g->ir, bop, a, (int32_t)r->u.num.value);
		return cg_reg_val(e->type, a);
	}
	ir_reg b = cg_int(g, r);
	ir_jlist zero = IR_NOJUMP;
	if ((op == OP_MOD || op == OP_DIV) && r->kind != E_INT) {
		/* bpftrace 0.26: x / 0 and x % 0 are 1, with a warning */
		ir_jlist nonzero = ir_jmpi(g->ir, BPF_JNE, b, 0, IR_NOLABEL);
		ir_movi(g->ir, a, 1);
		cg_runtime_error(g, "Divide or modulo by 0 detected. This can "
				 "lead to unexpected results. 1 is being used "
				 "as the result.", e->span);
		zero = ir_ja(g->ir, IR_NOLABEL);
		ir_jlist_patch_here(g->ir, nonzero);
	}
	if (op == OP_DIV && sign)
		ir_sdiv(g->ir, a, b);
	else if (op == OP_MOD && sign)
		ir_smod(g->ir, a, b);
	else
		ir_alu(g->ir, bop, a, b);
	ir_jlist_patch_here(g->ir, zero);
	return cg_reg_val(e->type, a);
}

static struct val var_read(struct cg *g, struct ast_expr *e)
{
	struct cg_var *v = cg_find_var(g, e->aux);
	if (v) {
		struct val x = cg_var_val(g, v);
		/* a declared pointer or array holds memory of the space sema
		 * gave it where it was assigned (let $p: T *; $p = arg0) */
		if (e->type && e->type->kind == v->type->kind &&
		    e->type->size == v->type->size &&
		    (e->type->kind == TY_PTR || e->type->kind == TY_ARRAY))
			x.type = e->type;
		return x;
	}
	cg_error(g, e->span, "variable %s has no storage", e->u.name);
	return cg_reg_val(&type_u64, ir_const(g->ir, 0));
}

static struct val unary(struct cg *g, struct ast_expr *e)
{
	enum ast_op op = e->u.unary.op;
	struct ast_expr *x = e->u.unary.operand;
	switch (op) {
	case OP_LNOT:
		return bool_val(g, e);
	case OP_NEG: {
		ir_reg r = ir_copy(g->ir, cg_int(g, x));
		ir_neg(g->ir, r);
		return cg_reg_val(e->type, r);
	}
	case OP_BNOT: {
		ir_reg r = ir_copy(g->ir, cg_int(g, x));
		ir_alui(g->ir, BPF_XOR, r, -1);
		return cg_reg_val(e->type, r);
	}
	case OP_PLUS:
		return cg_reg_val(e->type, cg_int(g, x));
	case OP_DEREF: {
		ir_reg p = cg_int(g, x);
		enum addr_space as = type_addr_space(x->type);
		struct val v = { .kind = V_ADDR, .type = e->type, .reg = p,
				 .user = x->type->is_user ||
					 (x->type->kind == TY_INT && as == AS_USER),
				 .any = as == AS_MIXED };
		return v;
	}
	case OP_PREINC: case OP_PREDEC: case OP_POSTINC: case OP_POSTDEC: {
		int d = op == OP_PREINC || op == OP_POSTINC ? 1 : -1;
		bool post = op == OP_POSTINC || op == OP_POSTDEC;
		if (x->type->kind == TY_PTR)
			d *= (int)ptr_step(x->type);
		if (x->kind == E_MAP)
			return cg_reg_val(e->type,
					  cg_map_incdec(g, x, d, post));
		struct val v = var_read(g, x);
		if (v.kind != V_REG) {
			/* a variable kept in memory (its address is taken) */
			struct cg_var *cv = cg_find_var(g, x->aux);
			ir_reg old = ir_copy(g->ir, cg_to_reg(g, v));
			ir_reg nv = ir_copy(g->ir, old);
			ir_alui(g->ir, BPF_ADD, nv, d);
			cg_store_val(g, cv->mem, 0, cv->type,
				     cg_reg_val(cv->type, nv));
			return cg_reg_val(e->type, post ? old : nv);
		}
		ir_reg old = ir_copy(g->ir, v.reg);
		ir_alui(g->ir, BPF_ADD, v.reg, d);
		return cg_reg_val(e->type, post ? old : ir_copy(g->ir, v.reg));
	}
	case OP_ADDR: {
		struct cg_var *cv = cg_find_var(g, x->aux);
		if (!cv || cv->reg != IR_NOREG) {
			cg_error(g, e->span, "internal error: variable %s has "
				 "no address", x->u.name);
			return cg_reg_val(e->type, ir_const(g->ir, 0));
		}
		return cg_reg_val(e->type, cg_mem_addr(g, cv->mem, 0));
	}
	default:
		cg_error(g, e->span, "the '%s' operator is not supported",
			 ast_op_str(op));
		return cg_reg_val(e->type, ir_const(g->ir, 0));
	}
}

static struct val cast(struct cg *g, struct ast_expr *e)
{
	const struct type *to = e->type;
	struct val v = cg_expr(g, e->u.cast.operand);
	if (to->kind == TY_ARRAY) {
		struct val m = cg_to_mem(g, v);
		m.type = to;
		return m;
	}
	if (to->kind == TY_BOOL) {
		const struct type *from = e->u.cast.operand->type;
		if (from->kind == TY_BOOL)
			return v;
		/* a string is true when not empty: its first byte */
		if (from->kind == TY_STRING) {
			v = cg_to_mem(g, v);
			v.type = &type_u8;
		}
		ir_reg r = ir_reg_new(g->ir);
		ir_movi(g->ir, r, 0);
		ir_jlist zero = ir_jmpi(g->ir, BPF_JEQ, cg_to_reg(g, v), 0,
					IR_NOLABEL);
		ir_movi(g->ir, r, 1);
		ir_jlist_patch_here(g->ir, zero);
		return cg_reg_val(to, r);
	}
	ir_reg r = ir_copy(g->ir, cg_to_reg(g, v));
	if (to->kind == TY_INT && e->u.cast.operand->type->kind == TY_PTR &&
	    g->addressed.len)
		r = cg_ptr_as_int(g, r);
	if (to->kind == TY_INT)
		cg_extend(g, r, to->size, to->is_signed);
	return cg_reg_val(to, r);
}

static struct val string_lit(struct cg *g, struct ast_expr *e)
{
	return cg_string_const(g, e->span, e->type, e->u.str.bytes,
			       e->u.str.len);
}

static struct val tuple(struct cg *g, struct ast_expr *e)
{
	const struct type *t = e->type;
	if (cg_in_scratch(t)) /* built where it is stored */
		return (struct val){ .kind = V_TUPLE, .type = t, .expr = e };
	ir_slot s = ir_slot_new(g->ir, t->size ? t->size : 8, 8);
	cg_zero_gaps(g, cg_slot_mem(s), 0, t, t->size);
	for (uint32_t i = 0; i < e->u.list.n; i++)
		cg_store_val_slot(g, s, t->fields[i].offset, t->fields[i].type,
			 cg_expr(g, e->u.list.items[i]));
	return cg_mem_val(t, s, 0);
}

static struct val ternary(struct cg *g, struct ast_expr *e)
{
	ir_jlist f = cg_cond_false(g, e->u.ternary.cond);
	if (e->type->kind == TY_VOID) {
		/* c ? printf(..) : printf(..): run one branch for its effect */
		cg_expr(g, e->u.ternary.then);
		ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
		ir_jlist_patch_here(g->ir, f);
		cg_expr(g, e->u.ternary.otherwise);
		ir_jlist_patch_here(g->ir, done);
		return cg_no_val();
	}
	if (cg_is_scalar(e->type)) {
		ir_reg r = ir_reg_new(g->ir);
		ir_mov(g->ir, r, cg_int(g, e->u.ternary.then));
		ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
		ir_jlist_patch_here(g->ir, f);
		ir_mov(g->ir, r, cg_int(g, e->u.ternary.otherwise));
		ir_jlist_patch_here(g->ir, done);
		return cg_reg_val(e->type, r);
	}
	ir_slot s = ir_slot_new(g->ir, e->type->size, 8);
	cg_store_val_slot(g, s, 0, e->type, cg_expr(g, e->u.ternary.then));
	ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
	ir_jlist_patch_here(g->ir, f);
	cg_store_val_slot(g, s, 0, e->type, cg_expr(g, e->u.ternary.otherwise));
	ir_jlist_patch_here(g->ir, done);
	return cg_mem_val(e->type, s, 0);
}

struct val cg_compound(struct cg *g, struct ast_expr *target, enum ast_op op,
			struct ast_expr *value)
{
	struct ast_expr bin;
	memset(&bin, 0, sizeof(bin));
	bin.kind = E_BINARY;
	bin.span = value->span;
	bin.type = type_int(8, target->type->is_signed &&
				       value->type->kind == TY_INT &&
				       value->type->is_signed);
	if (target->type->kind == TY_PTR && (op == OP_ADD || op == OP_SUB))
		bin.type = target->type; /* p += n: steps, as p + n */
	bin.u.binary.op = op;
	bin.u.binary.left = target;
	bin.u.binary.right = value;
	return binary(g, &bin);
}

static struct val expr_of_kind(struct cg *g, struct ast_expr *e);

/* The stack slots made for e are e's (ir_set_origin), so that a frame
 * too deep for BPF can name the value that takes the space. */
struct val cg_walk_expr(struct cg *g, struct ast_expr *e)
{
	const void *outer = ir_set_origin(g->ir, e);
	g->at = e;
	struct val v = expr_of_kind(g, e);
	/* e's value may be read later (a field through a pointer is read
	 * where it is used): helper failures until the next expression
	 * are e's */
	g->at = e;
	ir_set_origin(g->ir, outer);
	return v;
}

static struct val expr_of_kind(struct cg *g, struct ast_expr *e)
{
	switch (e->kind) {
	case E_INT:
		return cg_reg_val(e->type,
				  ir_const(g->ir, (int64_t)e->u.num.value));
	case E_STRING:
		return string_lit(g, e);
	case E_BUILTIN:
		return cg_builtin(g, e, NULL);
	case E_VAR:
		return var_read(g, e);
	case E_MAP:
		return cg_map_read(g, e);
	case E_CALL:
		return cg_builtin(g, e, NULL);
	case E_UNARY:
		return unary(g, e);
	case E_BINARY:
		return binary(g, e);
	case E_TERNARY:
		return ternary(g, e);
	case E_CAST:
		return cast(g, e);
	case E_FIELD:
		return field(g, e);
	case E_INDEX:
		return index_expr(g, e);
	case E_TUPLE:
		return tuple(g, e);
	case E_TUPLE_INDEX: {
		struct val b = cg_expr(g, e->u.tindex.base);
		const struct type_field *f =
			&b.type->fields[e->u.tindex.index];
		if (b.kind == V_ADDR && cg_in_scratch(b.type)) {
			/* a tuple too big for the stack (it holds a stack or
			 * a long string):
			 * only the field is read */
			ir_reg a = ir_copy(g->ir, b.reg);
			ir_alui(g->ir, BPF_ADD, a, (int32_t)f->offset);
			b.reg = a;
			b.type = f->type;
			return b;
		}
		b = cg_to_mem(g, b);
		return cg_mem_val(f->type, b.slot, b.off + f->offset);
	}
	case E_BLOCK: {
		bool in = cg_expansion_enter(g, e->expansion);
		cg_block(g, &e->u.blockx.body);
		struct ast_expr *ve = e->u.blockx.value;
		struct val v = ve ? cg_expr(g, ve) :
				    cg_reg_val(&type_u64, ir_const(g->ir, 0));
		cg_expansion_leave(g, in);
		if (!ve)
			return v;
		if (ve->kind != E_VAR)
			return v;
		/* a macro's variable is shared by its expansions: the value
		 * is copied before another expansion (in the same statement,
		 * @[m(1)] = m(2)) assigns the variable again */
		if (v.kind == V_REG)
			return cg_reg_val(v.type, ir_copy(g->ir, v.reg));
		if (v.kind == V_MEM) {
			ir_slot s = ir_slot_new(g->ir, v.type->size, 8);
			cg_store_val_slot(g, s, 0, v.type, v);
			return cg_mem_val(v.type, s, 0);
		}
		return v;
	}
	case E_POSITIONAL: /* sema folds these into literals */
	case E_SIZEOF:
	case E_OFFSETOF:
	case E_TYPEARG: /* refused by sema */
	case E_COMPTIME: /* comptime_finish() puts in what it decided */
	case E_IDENT:
		break;
	}
	cg_error(g, e->span, "this expression is not supported by the code "
		 "generator yet");
	return cg_reg_val(&type_u64, ir_const(g->ir, 0));
}
