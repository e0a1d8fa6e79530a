/* IR builder, operand queries and the -d ir dumper. */
#include "backend/ir_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/disasm.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

int ir_fail(struct ir *ir, int err, const char *fmt, ...)
{
	if (!ir->err[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ir->err, sizeof(ir->err), fmt, ap);
		va_end(ap);
	}
	return -err;
}

const char *ir_error(const struct ir *ir)
{
	return ir->err[0] ? ir->err : NULL;
}

/* Instructions before optimisation past which a program is refused: the
 * passes shrink code by far less than 4 times, and this bounds the
 * memory a script can make the compiler take (a few unrolls nested make
 * millions of statements from a line). */
#define IR_MAX_BUILT (4 * IR_MAX_INSNS)

/* The one place where instructions are appended. */
static size_t emit(struct ir *ir, struct ir_insn in)
{
	vec_push(&ir->insns, in);
	if (ir->insns.len == IR_MAX_BUILT + 1)
		ir_fail(ir, E2BIG, "the program is too large: over %d "
			"instructions before optimisation, and the kernel "
			"loads %d at most", IR_MAX_BUILT, IR_MAX_INSNS);
	return ir->insns.len - 1;
}

bool ir_full(const struct ir *ir)
{
	return ir->insns.len > IR_MAX_BUILT;
}

void ir_insert(struct ir *ir, size_t at, const struct ir_insn *in)
{
	vec_reserve(&ir->insns, 1);
	memmove(&ir->insns.data[at + 1], &ir->insns.data[at],
		(ir->insns.len - at) * sizeof(*in));
	ir->insns.data[at] = *in;
	ir->insns.len++;
	for (size_t i = 0; i < ir->label_pos.len; i++)
		if (ir->label_pos.data[i] >= (int32_t)at)
			ir->label_pos.data[i]++;
}

struct ir *ir_new(void)
{
	struct ir *ir = xcalloc(1, sizeof(*ir));
	/* The context arrives in R1 and R1 is clobbered by the first call,
	 * so it is copied out at entry; unused, the copy is dead code. */
	ir->culprit = -1;
	ir->ctx = ir->ctx0 = ir_reg_new(ir);
	emit(ir, (struct ir_insn){ .kind = IRK_CTX, .dst = ir->ctx });
	return ir;
}

void ir_free(struct ir *ir)
{
	if (!ir)
		return;
	vec_free(&ir->insns);
	vec_free(&ir->slots);
	vec_free(&ir->label_pos);
	free(ir);
}

void ir_set_cpu_v4(struct ir *ir, bool on)
{
	ir->cpu_v4 = on;
}

ir_reg ir_reg_new(struct ir *ir)
{
	return ++ir->nregs;
}

ir_reg ir_ctx(struct ir *ir)
{
	return ir->ctx;
}

static bool bad_reg(struct ir *ir, ir_reg r)
{
	if (r != IR_NOREG && r <= ir->nregs)
		return false;
	ir_fail(ir, EINVAL, "invalid virtual register %u", r);
	return true;
}

void ir_movi(struct ir *ir, ir_reg d, int64_t imm)
{
	if (bad_reg(ir, d))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_LDIMM, .dst = d, .imm = imm });
}

void ir_mov(struct ir *ir, ir_reg d, ir_reg s)
{
	ir_alu(ir, BPF_MOV, d, s);
}

ir_reg ir_const(struct ir *ir, int64_t imm)
{
	ir_reg r = ir_reg_new(ir);
	ir_movi(ir, r, imm);
	return r;
}

ir_reg ir_copy(struct ir *ir, ir_reg s)
{
	ir_reg r = ir_reg_new(ir);
	ir_mov(ir, r, s);
	return r;
}

static bool bad_alu_op(struct ir *ir, int op)
{
	switch (op) {
	case BPF_ADD: case BPF_SUB: case BPF_MUL: case BPF_DIV: case BPF_OR:
	case BPF_AND: case BPF_LSH: case BPF_RSH: case BPF_NEG: case BPF_MOD:
	case BPF_XOR: case BPF_MOV: case BPF_ARSH:
		return false;
	}
	ir_fail(ir, EINVAL, "invalid ALU op %#x", op);
	return true;
}

static void alu(struct ir *ir, int op, ir_reg d, ir_reg s, int32_t imm,
		uint8_t flags)
{
	if (op == BPF_NEG) {
		/* The verifier insists on zero operand fields for neg. */
		s = IR_NOREG;
		imm = 0;
		flags |= IRF_K;
	}
	if ((flags & IRF_K) && (op == BPF_DIV || op == BPF_MOD) && !imm) {
		/* The verifier refuses a zero immediate divisor ("div by
		 * zero"); a zero register is defined (x / 0 = 0, x % 0 = x),
		 * as when the divisor is zero at run time. */
		s = ir_const(ir, 0);
		flags &= (uint8_t)~IRF_K;
	}
	if (bad_alu_op(ir, op) || bad_reg(ir, d) ||
	    (!(flags & IRF_K) && bad_reg(ir, s)))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_ALU, .op = op, .flags = flags,
				   .dst = d, .src = s, .imm = imm });
}

void ir_alu(struct ir *ir, int op, ir_reg d, ir_reg s)
{
	alu(ir, op, d, s, 0, 0);
}

void ir_alui(struct ir *ir, int op, ir_reg d, int32_t imm)
{
	alu(ir, op, d, IR_NOREG, imm, IRF_K);
}

void ir_alu32(struct ir *ir, int op, ir_reg d, ir_reg s)
{
	alu(ir, op, d, s, 0, IRF_32);
}

void ir_alu32i(struct ir *ir, int op, ir_reg d, int32_t imm)
{
	alu(ir, op, d, IR_NOREG, imm, IRF_K | IRF_32);
}

void ir_neg(struct ir *ir, ir_reg d)
{
	alu(ir, BPF_NEG, d, IR_NOREG, 0, IRF_K);
}

/*
 * Without cpu v4, signed division goes through magnitudes:
 *   neg = (d < 0) ^ (s < 0)   [for mod: d < 0]
 *   d = |d| op |s|; if (neg) d = -d
 * |INT64_MIN| is 2^63 as an unsigned value, which gives the wrapped C
 * result (INT64_MIN / -1 == INT64_MIN), as the v4 instruction does.
 */
static void sdivmod(struct ir *ir, int op, ir_reg d, ir_reg s)
{
	if (bad_reg(ir, d) || bad_reg(ir, s))
		return;
	if (ir->cpu_v4) {
		alu(ir, op, d, s, 0, IRF_SIGNED);
		return;
	}
	ir_reg m = ir_copy(ir, s);
	ir_reg neg = ir_const(ir, 0);
	ir_label l1 = ir_label_new(ir), l2 = ir_label_new(ir);
	ir_label l3 = ir_label_new(ir);
	ir_jmpi(ir, BPF_JSGE, d, 0, l1);
	ir_neg(ir, d);
	ir_movi(ir, neg, 1);
	ir_label_bind(ir, l1);
	ir_jmpi(ir, BPF_JSGE, m, 0, l2);
	ir_neg(ir, m);
	if (op == BPF_DIV)
		ir_alui(ir, BPF_XOR, neg, 1);
	ir_label_bind(ir, l2);
	ir_alu(ir, op, d, m);
	ir_jmpi(ir, BPF_JEQ, neg, 0, l3);
	ir_neg(ir, d);
	ir_label_bind(ir, l3);
}

void ir_sdiv(struct ir *ir, ir_reg d, ir_reg s)
{
	sdivmod(ir, BPF_DIV, d, s);
}

void ir_smod(struct ir *ir, ir_reg d, ir_reg s)
{
	sdivmod(ir, BPF_MOD, d, s);
}

void ir_endian(struct ir *ir, ir_reg d, int bits, bool to_big)
{
	if (bad_reg(ir, d))
		return;
	if (bits != 16 && bits != 32 && bits != 64) {
		ir_fail(ir, EINVAL, "invalid byte swap width %d", bits);
		return;
	}
	emit(ir, (struct ir_insn){ .kind = IRK_ENDIAN, .dst = d, .size = bits,
				   .op = to_big ? BPF_TO_BE : BPF_TO_LE });
}

static bool bad_size(struct ir *ir, int size)
{
	if (size == 1 || size == 2 || size == 4 || size == 8)
		return false;
	ir_fail(ir, EINVAL, "invalid memory access size %d", size);
	return true;
}

static bool bad_slot(struct ir *ir, ir_slot sl, uint32_t off, int size)
{
	if (sl >= ir->slots.len) {
		ir_fail(ir, EINVAL, "invalid stack slot %u", sl);
		return true;
	}
	if ((uint64_t)off + (uint64_t)size > ir->slots.data[sl].size) {
		ir_fail(ir, EINVAL, "access at %u size %d beyond stack slot %u "
			"of %u bytes", off, size, sl, ir->slots.data[sl].size);
		return true;
	}
	return false;
}

void ir_load(struct ir *ir, int size, ir_reg d, ir_reg base, int16_t off)
{
	if (bad_size(ir, size) || bad_reg(ir, d) || bad_reg(ir, base))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_LOAD, .size = size, .dst = d,
				   .base = base, .off = off });
}

void ir_store(struct ir *ir, int size, ir_reg base, int16_t off, ir_reg s)
{
	if (bad_size(ir, size) || bad_reg(ir, base) || bad_reg(ir, s))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_STORE, .size = size,
				   .base = base, .src = s, .off = off });
}

void ir_storei(struct ir *ir, int size, ir_reg base, int16_t off,
	       int32_t imm)
{
	if (bad_size(ir, size) || bad_reg(ir, base))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_STORE, .size = size,
				   .flags = IRF_K, .base = base, .off = off,
				   .imm = imm });
}

void ir_atomic_add(struct ir *ir, int size, ir_reg base, int16_t off,
		   ir_reg s)
{
	if ((size != 4 && size != 8) || bad_reg(ir, base) || bad_reg(ir, s)) {
		ir_fail(ir, EINVAL, "invalid atomic add");
		return;
	}
	emit(ir, (struct ir_insn){ .kind = IRK_XADD, .size = size,
				   .base = base, .src = s, .off = off });
}

ir_slot ir_slot_new(struct ir *ir, uint32_t size, uint32_t align)
{
	if (align != 1 && align != 2 && align != 4 && align != 8) {
		ir_fail(ir, EINVAL, "invalid stack slot alignment %u", align);
		align = 8;
	}
	if (size == 0) {
		ir_fail(ir, EINVAL, "invalid stack slot size %u", size);
		size = 8;
	} else if (size > IR_STACK_MAX) {
		/* No frame can hold it: said now, at what needs it, before
		 * any pass runs (a 1 MB string used to reach them). */
		if (!ir->err[0])
			ir->culprit = (int32_t)ir->slots.len;
		ir_fail(ir, E2BIG, "program needs at least %u bytes of stack, "
			"more than the %d that BPF allows", size, IR_STACK_MAX);
	}
	vec_push(&ir->slots, ((struct ir_slotinfo){ size, align, 0,
						   ir->origin }));
	return ir->slots.len - 1;
}

const void *ir_set_origin(struct ir *ir, const void *origin)
{
	const void *old = ir->origin;
	ir->origin = origin;
	return old;
}

const void *ir_stack_culprit(const struct ir *ir, uint32_t *size)
{
	if (ir->culprit < 0 || (size_t)ir->culprit >= ir->slots.len)
		return NULL;
	*size = ir->slots.data[ir->culprit].size;
	return ir->slots.data[ir->culprit].origin;
}

void ir_load_slot(struct ir *ir, int size, ir_reg d, ir_slot sl,
		  uint32_t off)
{
	if (bad_size(ir, size) || bad_reg(ir, d) || bad_slot(ir, sl, off, size))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_LOAD, .size = size,
				   .flags = IRF_SLOT, .dst = d, .slot = sl,
				   .off = off });
}

void ir_store_slot(struct ir *ir, int size, ir_slot sl, uint32_t off,
		   ir_reg s)
{
	if (bad_size(ir, size) || bad_reg(ir, s) || bad_slot(ir, sl, off, size))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_STORE, .size = size,
				   .flags = IRF_SLOT, .slot = sl, .src = s,
				   .off = off });
}

void ir_storei_slot(struct ir *ir, int size, ir_slot sl, uint32_t off,
		    int32_t imm)
{
	if (bad_size(ir, size) || bad_slot(ir, sl, off, size))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_STORE, .size = size,
				   .flags = IRF_SLOT | IRF_K, .slot = sl,
				   .off = off, .imm = imm });
}

void ir_slot_addr(struct ir *ir, ir_reg d, ir_slot sl, uint32_t off)
{
	if (bad_reg(ir, d) || bad_slot(ir, sl, off, 0))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_SLOTADDR, .dst = d, .slot = sl,
				   .off = off });
}

void ir_ld_map(struct ir *ir, ir_reg d, uint32_t map_idx)
{
	if (bad_reg(ir, d))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_LDMAP, .dst = d,
				   .imm = map_idx });
}

void ir_ld_func(struct ir *ir, ir_reg d, uint32_t fn)
{
	if (bad_reg(ir, d))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_LDMAP, .flags = IRF_FUNC,
				   .dst = d, .imm = fn });
}

ir_reg ir_arg(struct ir *ir, int n)
{
	if (n <= 1)
		return ir->ctx0;
	if (n > 5) {
		ir_fail(ir, EINVAL, "there is no argument R%d", n);
		return ir->ctx0;
	}
	ir_reg r = ir_reg_new(ir);
	emit(ir, (struct ir_insn){ .kind = IRK_CTX, .dst = r, .imm = n });
	return r;
}

void ir_set_ctx(struct ir *ir, ir_reg r)
{
	ir->ctx = r;
}

void ir_ld_btf_var(struct ir *ir, ir_reg d, uint32_t btf_id)
{
	if (bad_reg(ir, d))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_LDMAP, .flags = IRF_BTFVAR,
				   .dst = d, .imm = btf_id });
}

void ir_ld_map_value(struct ir *ir, ir_reg d, uint32_t map_idx,
		     uint32_t off)
{
	if (bad_reg(ir, d))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_LDMAP, .flags = IRF_MAPVAL,
				   .dst = d, .imm = map_idx,
				   .off = (int32_t)off });
}

void ir_call(struct ir *ir, ir_reg d, int fn, const ir_reg *args, int nargs)
{
	if (nargs < 0 || nargs > IR_MAX_ARGS) {
		ir_fail(ir, EINVAL, "helper call with %d arguments", nargs);
		return;
	}
	struct ir_insn in = { .kind = IRK_CALL, .dst = d, .imm = fn,
			      .nargs = nargs };
	for (int i = 0; i < nargs; i++) {
		if (bad_reg(ir, args[i]))
			return;
		in.args[i] = args[i];
	}
	if (d != IR_NOREG && bad_reg(ir, d))
		return;
	emit(ir, in);
}

void ir_kfunc_call(struct ir *ir, ir_reg d, int32_t btf_id,
		   const ir_reg *args, int nargs)
{
	size_t at = ir->insns.len;
	ir_call(ir, d, btf_id, args, nargs);
	if (ir->insns.len > at)
		ir->insns.data[at].flags |= IRF_KFUNC;
}

void ir_exit(struct ir *ir, ir_reg s)
{
	if (bad_reg(ir, s))
		return;
	emit(ir, (struct ir_insn){ .kind = IRK_EXIT, .src = s });
}

void ir_exiti(struct ir *ir, int32_t imm)
{
	emit(ir, (struct ir_insn){ .kind = IRK_EXIT, .flags = IRF_K,
				   .imm = imm });
}

ir_label ir_label_new(struct ir *ir)
{
	vec_push(&ir->label_pos, -1);
	return ir->label_pos.len - 1;
}

void ir_label_bind(struct ir *ir, ir_label l)
{
	if (l < 0 || (size_t)l >= ir->label_pos.len ||
	    ir->label_pos.data[l] >= 0) {
		ir_fail(ir, EINVAL, "label %d is invalid or bound twice", l);
		return;
	}
	ir->label_pos.data[l] = emit(ir, (struct ir_insn){
		.kind = IRK_LABEL, .label = l });
}

ir_label ir_label_here(struct ir *ir)
{
	ir_label l = ir_label_new(ir);
	ir_label_bind(ir, l);
	return l;
}

static bool valid_cond(int cond)
{
	switch (cond) {
	case BPF_JEQ: case BPF_JNE: case BPF_JGT: case BPF_JGE: case BPF_JLT:
	case BPF_JLE: case BPF_JSGT: case BPF_JSGE: case BPF_JSLT:
	case BPF_JSLE: case BPF_JSET:
		return true;
	}
	return false;
}

static ir_jlist jump(struct ir *ir, struct ir_insn in, ir_label l)
{
	if (in.kind == IRK_JMP && !valid_cond(in.op)) {
		ir_fail(ir, EINVAL, "invalid jump condition %#x", in.op);
		return IR_NOJUMP;
	}
	if (l == IR_NOLABEL) {
		in.flags |= IRF_OPEN;
		in.label = IR_NOJUMP;
	} else if (l < 0 || (size_t)l >= ir->label_pos.len) {
		ir_fail(ir, EINVAL, "invalid label %d", l);
		return IR_NOJUMP;
	} else {
		in.label = l;
	}
	return (ir_jlist)emit(ir, in);
}

static ir_jlist jmp(struct ir *ir, int cond, ir_reg a, ir_reg b, int32_t imm,
		    uint8_t flags, ir_label l)
{
	if (bad_reg(ir, a) || (!(flags & IRF_K) && bad_reg(ir, b)))
		return IR_NOJUMP;
	return jump(ir, (struct ir_insn){ .kind = IRK_JMP, .op = cond,
					  .flags = flags, .dst = a, .src = b,
					  .imm = imm }, l);
}

ir_jlist ir_jmp(struct ir *ir, int cond, ir_reg a, ir_reg b, ir_label l)
{
	return jmp(ir, cond, a, b, 0, 0, l);
}

ir_jlist ir_jmpi(struct ir *ir, int cond, ir_reg a, int32_t imm, ir_label l)
{
	return jmp(ir, cond, a, IR_NOREG, imm, IRF_K, l);
}

ir_jlist ir_jmp32(struct ir *ir, int cond, ir_reg a, ir_reg b, ir_label l)
{
	return jmp(ir, cond, a, b, 0, IRF_32, l);
}

ir_jlist ir_jmp32i(struct ir *ir, int cond, ir_reg a, int32_t imm,
		   ir_label l)
{
	return jmp(ir, cond, a, IR_NOREG, imm, IRF_K | IRF_32, l);
}

ir_jlist ir_ja(struct ir *ir, ir_label l)
{
	return jump(ir, (struct ir_insn){ .kind = IRK_JA }, l);
}

static struct ir_insn *open_jump(struct ir *ir, ir_jlist j)
{
	if (j < 0 || (size_t)j >= ir->insns.len ||
	    !(ir->insns.data[j].flags & IRF_OPEN)) {
		ir_fail(ir, EINVAL, "%d is not an open jump", j);
		return NULL;
	}
	return &ir->insns.data[j];
}

void ir_jlist_concat(struct ir *ir, ir_jlist *a, ir_jlist b)
{
	if (b == IR_NOJUMP)
		return;
	if (*a == IR_NOJUMP) {
		*a = b;
		return;
	}
	struct ir_insn *in = open_jump(ir, *a);
	while (in && in->label != IR_NOJUMP)
		in = open_jump(ir, in->label);
	if (in)
		in->label = b;
}

void ir_jlist_patch(struct ir *ir, ir_jlist list, ir_label l)
{
	if (l < 0 || (size_t)l >= ir->label_pos.len) {
		ir_fail(ir, EINVAL, "invalid label %d", l);
		return;
	}
	while (list != IR_NOJUMP) {
		struct ir_insn *in = open_jump(ir, list);
		if (!in)
			return;
		list = in->label;
		in->label = l;
		in->flags &= ~IRF_OPEN;
	}
}

void ir_jlist_patch_here(struct ir *ir, ir_jlist list)
{
	if (list != IR_NOJUMP)
		ir_jlist_patch(ir, list, ir_label_here(ir));
}

int ir_cond_negate(int cond)
{
	switch (cond) {
	case BPF_JEQ: return BPF_JNE;
	case BPF_JNE: return BPF_JEQ;
	case BPF_JGT: return BPF_JLE;
	case BPF_JLE: return BPF_JGT;
	case BPF_JGE: return BPF_JLT;
	case BPF_JLT: return BPF_JGE;
	case BPF_JSGT: return BPF_JSLE;
	case BPF_JSLE: return BPF_JSGT;
	case BPF_JSGE: return BPF_JSLT;
	case BPF_JSLT: return BPF_JSGE;
	}
	return -1;
}

int ir_insn_uses(const struct ir_insn *in, ir_reg *uses)
{
	int n = 0;
	switch (in->kind) {
	case IRK_ALU:
		if (in->op != BPF_MOV)
			uses[n++] = in->dst;
		if (!(in->flags & IRF_K))
			uses[n++] = in->src;
		break;
	case IRK_ENDIAN:
		uses[n++] = in->dst;
		break;
	case IRK_LOAD:
		if (!(in->flags & IRF_SLOT))
			uses[n++] = in->base;
		break;
	case IRK_STORE:
	case IRK_XADD:
		if (!(in->flags & IRF_SLOT))
			uses[n++] = in->base;
		if (!(in->flags & IRF_K))
			uses[n++] = in->src;
		break;
	case IRK_JMP:
		uses[n++] = in->dst;
		if (!(in->flags & IRF_K))
			uses[n++] = in->src;
		break;
	case IRK_CALL:
		for (int i = 0; i < in->nargs; i++)
			uses[n++] = in->args[i];
		break;
	case IRK_EXIT:
		if (!(in->flags & IRF_K))
			uses[n++] = in->src;
		break;
	default:
		break;
	}
	return n;
}

ir_reg ir_insn_def(const struct ir_insn *in)
{
	switch (in->kind) {
	case IRK_CTX: case IRK_ALU: case IRK_LDIMM: case IRK_LDMAP:
	case IRK_ENDIAN: case IRK_LOAD: case IRK_SLOTADDR: case IRK_CALL:
		return in->dst;
	}
	return IR_NOREG;
}

bool ir_insn_pure(const struct ir_insn *in)
{
	switch (in->kind) {
	case IRK_CTX: case IRK_ALU: case IRK_LDIMM: case IRK_LDMAP:
	case IRK_ENDIAN: case IRK_LOAD: case IRK_SLOTADDR:
		return true;
	}
	return false;
}

/* --- dumper --- */

static void dump_mem(struct strbuf *sb, const struct ir_insn *in)
{
	if (in->flags & IRF_SLOT)
		sb_printf(sb, "*(u%d *)($%u +%d)", in->size * 8, in->slot,
			  in->off);
	else
		sb_printf(sb, "*(u%d *)(%%%u %+d)", in->size * 8, in->base,
			  in->off);
}

static void dump_src(struct strbuf *sb, const struct ir_insn *in)
{
	if (in->flags & IRF_K)
		sb_printf(sb, "%lld", (long long)in->imm);
	else
		sb_printf(sb, "%%%u", in->src);
}

static void dump_target(struct strbuf *sb, const struct ir_insn *in)
{
	if (in->flags & IRF_OPEN)
		sb_append(sb, "<open>");
	else
		sb_printf(sb, "L%d", in->label);
}

static void dump_insn(struct strbuf *sb, const struct ir_insn *in)
{
	const char *w = in->flags & IRF_32 ? "w" : "";
	switch (in->kind) {
	case IRK_LABEL:
		sb_printf(sb, "L%d:", in->label);
		return;
	case IRK_CTX:
		if (in->imm)
			sb_printf(sb, "%%%u = r%lld", in->dst, (long long)in->imm);
		else
			sb_printf(sb, "%%%u = ctx", in->dst);
		return;
	case IRK_ALU:
		if (in->op == BPF_NEG) {
			sb_printf(sb, "%s%%%u = -%%%u", w, in->dst, in->dst);
			return;
		}
		sb_printf(sb, "%s%%%u %s%s ", w, in->dst,
			  in->flags & IRF_SIGNED ? "s" : "", disasm_alu_str(in->op));
		dump_src(sb, in);
		return;
	case IRK_LDIMM:
		sb_printf(sb, "%%%u = %lld", in->dst, (long long)in->imm);
		return;
	case IRK_LDMAP:
		if (in->flags & IRF_FUNC)
			sb_printf(sb, "%%%u = func[%lld]", in->dst,
				  (long long)in->imm);
		else if (in->flags & IRF_BTFVAR)
			sb_printf(sb, "%%%u = btf_var[%lld]", in->dst,
				  (long long)in->imm);
		else if (in->flags & IRF_MAPVAL)
			sb_printf(sb, "%%%u = map_value[%lld]+%d", in->dst,
				  (long long)in->imm, in->off);
		else
			sb_printf(sb, "%%%u = map[%lld]", in->dst,
				  (long long)in->imm);
		return;
	case IRK_ENDIAN:
		sb_printf(sb, "%%%u = %s%d %%%u", in->dst,
			  in->op == BPF_TO_BE ? "be" : "le", in->size, in->dst);
		return;
	case IRK_LOAD:
		sb_printf(sb, "%%%u = ", in->dst);
		dump_mem(sb, in);
		return;
	case IRK_STORE:
		dump_mem(sb, in);
		sb_append(sb, " = ");
		dump_src(sb, in);
		return;
	case IRK_XADD:
		sb_append(sb, "lock ");
		dump_mem(sb, in);
		sb_printf(sb, " += %%%u", in->src);
		return;
	case IRK_SLOTADDR:
		sb_printf(sb, "%%%u = &$%u +%d", in->dst, in->slot, in->off);
		return;
	case IRK_JMP:
		sb_printf(sb, "if %s%%%u %s ", w, in->dst,
			  disasm_cond_str(in->op));
		dump_src(sb, in);
		sb_append(sb, " goto ");
		dump_target(sb, in);
		return;
	case IRK_JA:
		sb_append(sb, "goto ");
		dump_target(sb, in);
		return;
	case IRK_CALL:
		if (in->dst != IR_NOREG)
			sb_printf(sb, "%%%u = ", in->dst);
		if (in->flags & IRF_KFUNC)
			sb_printf(sb, "call kfunc#%lld(", (long long)in->imm);
		else
			sb_printf(sb, "call %s(", disasm_helper_name((int)in->imm));
		for (int i = 0; i < in->nargs; i++)
			sb_printf(sb, "%s%%%u", i ? ", " : "", in->args[i]);
		sb_putc(sb, ')');
		return;
	case IRK_EXIT:
		sb_append(sb, "exit ");
		dump_src(sb, in);
		return;
	}
}

void ir_dump(const struct ir *ir, struct strbuf *sb)
{
	for (size_t i = 0; i < ir->slots.len; i++)
		sb_printf(sb, "$%zu: stack[%u] align %u\n", i,
			  ir->slots.data[i].size, ir->slots.data[i].align);
	for (size_t i = 0; i < ir->insns.len; i++) {
		const struct ir_insn *in = &ir->insns.data[i];
		sb_append(sb, in->kind == IRK_LABEL ? "" : "    ");
		dump_insn(sb, in);
		sb_putc(sb, '\n');
	}
}
