/* BPF disassembler: struct bpf_insn[] -> verifier-style text. */
#include "backend/disasm.h"

#include <stdbool.h>
#include <stdint.h>

#include "util/strbuf.h"

/* Names from the uapi header, so new helpers appear with a header update.
 * The variadic parameter absorbs the extra columns newer headers carry. */
#define DISASM_HELPER_NAME(x, ...) [BPF_FUNC_##x] = "bpf_" #x
static const char *const helper_names[] = {
	__BPF_FUNC_MAPPER(DISASM_HELPER_NAME)
};
#undef DISASM_HELPER_NAME

const char *disasm_helper_name(int id)
{
	if (id < 0 || (size_t)id >= sizeof(helper_names) / sizeof(*helper_names) ||
	    !helper_names[id])
		return "unknown";
	return helper_names[id];
}

const char *disasm_cond_str(int cond)
{
	switch (cond) {
	case BPF_JEQ: return "==";
	case BPF_JNE: return "!=";
	case BPF_JGT: return ">";
	case BPF_JGE: return ">=";
	case BPF_JLT: return "<";
	case BPF_JLE: return "<=";
	case BPF_JSGT: return "s>";
	case BPF_JSGE: return "s>=";
	case BPF_JSLT: return "s<";
	case BPF_JSLE: return "s<=";
	case BPF_JSET: return "&";
	}
	return "?";
}

const char *disasm_alu_str(int op)
{
	switch (op) {
	case BPF_ADD: return "+=";
	case BPF_SUB: return "-=";
	case BPF_MUL: return "*=";
	case BPF_DIV: return "/=";
	case BPF_OR: return "|=";
	case BPF_AND: return "&=";
	case BPF_LSH: return "<<=";
	case BPF_RSH: return ">>=";
	case BPF_MOD: return "%=";
	case BPF_XOR: return "^=";
	case BPF_MOV: return "=";
	case BPF_ARSH: return "s>>=";
	}
	return "?=";
}

static int size_bits(int sz)
{
	switch (sz) {
	case BPF_B: return 8;
	case BPF_H: return 16;
	case BPF_W: return 32;
	default: return 64;
	}
}

static void mem(struct strbuf *sb, const struct bpf_insn *in, int reg)
{
	sb_printf(sb, "*(u%d *)(r%d %+d)", size_bits(BPF_SIZE(in->code)), reg,
		  in->off);
}

/* Jump immediates in hex as the verifier prints them, sign kept readable. */
static void hex_imm(struct strbuf *sb, int32_t imm)
{
	if (imm < 0)
		sb_printf(sb, "-0x%x", -(uint32_t)imm);
	else
		sb_printf(sb, "0x%x", imm);
}

/* Returns false for opcodes that are not ALU operations. */
static bool alu(struct strbuf *sb, const struct bpf_insn *in)
{
	int is64 = BPF_CLASS(in->code) == BPF_ALU64;
	char r = is64 ? 'r' : 'w';
	int op = BPF_OP(in->code);
	if (op > BPF_END)
		return false;
	if (op == BPF_END) {
		if (is64)
			sb_printf(sb, "r%d = bswap%d r%d", in->dst_reg, in->imm,
				  in->dst_reg);
		else
			sb_printf(sb, "r%d = %s%d r%d", in->dst_reg,
				  BPF_SRC(in->code) == BPF_TO_BE ? "be" : "le",
				  in->imm, in->dst_reg);
		return true;
	}
	if (op == BPF_NEG) {
		sb_printf(sb, "%c%d = -%c%d", r, in->dst_reg, r, in->dst_reg);
		return true;
	}
	sb_printf(sb, "%c%d %s%s ", r, in->dst_reg,
		  in->off == 1 && (op == BPF_DIV || op == BPF_MOD) ? "s" : "",
		  disasm_alu_str(op));
	if (BPF_SRC(in->code) == BPF_X)
		sb_printf(sb, "%c%d", r, in->src_reg);
	else
		sb_printf(sb, "%d", in->imm);
	return true;
}

static void jmp(struct strbuf *sb, const struct bpf_insn *in, size_t pc)
{
	int op = BPF_OP(in->code);
	long target = (long)pc + 1 + in->off;
	if (op == BPF_CALL) {
		if (in->src_reg == BPF_PSEUDO_KFUNC_CALL)
			sb_printf(sb, "call kfunc#%d", in->imm);
		else
			sb_printf(sb, "call %s#%d", disasm_helper_name(in->imm),
				  in->imm);
		return;
	}
	if (op == BPF_EXIT) {
		sb_append(sb, "exit");
		return;
	}
	if (op != BPF_JA) {
		char r = BPF_CLASS(in->code) == BPF_JMP ? 'r' : 'w';
		sb_printf(sb, "if %c%d %s ", r, in->dst_reg,
			  disasm_cond_str(op));
		if (BPF_SRC(in->code) == BPF_X)
			sb_printf(sb, "%c%d", r, in->src_reg);
		else
			hex_imm(sb, in->imm);
		sb_putc(sb, ' ');
	}
	sb_printf(sb, "goto %+d <%ld>", in->off, target);
}

int disasm_insn(const struct bpf_insn *insns, size_t n, size_t pc,
		struct strbuf *sb)
{
	const struct bpf_insn *in = &insns[pc];
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		if (!alu(sb, in))
			break;
		return 1;
	case BPF_JMP:
	case BPF_JMP32:
		jmp(sb, in, pc);
		return 1;
	case BPF_LDX:
		if (BPF_MODE(in->code) != BPF_MEM)
			break;
		sb_printf(sb, "r%d = ", in->dst_reg);
		mem(sb, in, in->src_reg);
		return 1;
	case BPF_ST:
		if (BPF_MODE(in->code) != BPF_MEM)
			break;
		mem(sb, in, in->dst_reg);
		sb_printf(sb, " = %d", in->imm);
		return 1;
	case BPF_STX:
		if (BPF_MODE(in->code) == BPF_MEM) {
			mem(sb, in, in->dst_reg);
			sb_printf(sb, " = r%d", in->src_reg);
			return 1;
		}
		if (BPF_MODE(in->code) == BPF_ATOMIC && in->imm == BPF_ADD) {
			sb_append(sb, "lock ");
			mem(sb, in, in->dst_reg);
			sb_printf(sb, " += r%d", in->src_reg);
			return 1;
		}
		break;
	case BPF_LD:
		if (in->code != (BPF_LD | BPF_IMM | BPF_DW) || pc + 1 >= n)
			break;
		if (in->src_reg == BPF_PSEUDO_MAP_FD)
			sb_printf(sb, "r%d = map[%d]", in->dst_reg, in->imm);
		else if (in->src_reg == BPF_PSEUDO_BTF_ID)
			sb_printf(sb, "r%d = btf_var[%d]", in->dst_reg, in->imm);
		else if (in->src_reg == BPF_PSEUDO_MAP_VALUE)
			sb_printf(sb, "r%d = map_value[%d]+%d", in->dst_reg,
				  in->imm, in[1].imm);
		else
			sb_printf(sb, "r%d = %#llx ll", in->dst_reg,
				  (unsigned long long)(uint32_t)in->imm |
				  (unsigned long long)(uint32_t)in[1].imm << 32);
		return 2;
	}
	sb_printf(sb, "(%02x) unknown", in->code);
	return 1;
}

void disasm_prog(const struct bpf_insn *insns, size_t n, struct strbuf *sb)
{
	for (size_t pc = 0; pc < n;) {
		sb_printf(sb, "%4zu: ", pc);
		pc += disasm_insn(insns, n, pc, sb);
		sb_putc(sb, '\n');
	}
}
