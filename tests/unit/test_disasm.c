/* Back end without the kernel: disassembly, IR dumps and error reports. */
#include "check.h"

#include <errno.h>
#include <stdlib.h>

#include "backend/disasm.h"
#include "backend/ir.h"
#include "util/strbuf.h"

/* Compiles ir (and frees it); returns the disassembly (caller frees). */
static char *compile_text(struct ir *ir)
{
	struct bpf_code p;
	struct strbuf sb = STRBUF_INIT;
	if (ir_compile(ir, &p))
		sb_printf(&sb, "error: %s\n", ir_error(ir));
	else
		disasm_prog(p.insns, p.ninsns, &sb);
	bpf_code_free(&p);
	ir_free(ir);
	char *s = strdup(sb_str(&sb));
	sb_free(&sb);
	return s;
}

/* The example in ir.h's header comment. */
TEST(disasm_of_the_header_example)
{
	struct ir *ir = ir_new();
	ir_reg len = ir_reg_new(ir);
	ir_load(ir, 4, len, ir_ctx(ir), 0);
	ir_label big = ir_label_new(ir);
	ir_jmpi(ir, BPF_JGT, len, 5, big);
	ir_exiti(ir, 0);
	ir_label_bind(ir, big);
	ir_exiti(ir, 1);
	char *s = compile_text(ir);
	CHECK_STR(s,
		  "   0: r1 = *(u32 *)(r1 +0)\n"
		  "   1: if r1 > 0x5 goto +2 <4>\n"
		  "   2: r0 = 0\n"
		  "   3: exit\n"
		  "   4: r0 = 1\n"
		  "   5: exit\n");
	free(s);
}

/* @[ctx->len] += 1 on a hash map, with a bounded retry loop: map loads,
 * stack keys, helper calls, a back edge and values across calls. */
TEST(disasm_of_a_map_update_loop)
{
	struct ir *ir = ir_new();
	ir_slot key = ir_slot_new(ir, 4, 4), one = ir_slot_new(ir, 8, 8);
	ir_reg len = ir_reg_new(ir), i = ir_const(ir, 0);
	ir_load(ir, 4, len, ir_ctx(ir), 0);
	ir_store_slot(ir, 4, key, 0, len);
	ir_label again = ir_label_here(ir), done = ir_label_new(ir);
	ir_reg m = ir_reg_new(ir), kp = ir_reg_new(ir), p = ir_reg_new(ir);
	ir_ld_map(ir, m, 3);
	ir_slot_addr(ir, kp, key, 0);
	ir_call(ir, p, BPF_FUNC_map_lookup_elem, (ir_reg[]){ m, kp }, 2);
	ir_jlist miss = ir_jmpi(ir, BPF_JEQ, p, 0, IR_NOLABEL);
	ir_reg c = ir_const(ir, 1);
	ir_atomic_add(ir, 8, p, 0, c);
	ir_ja(ir, done);
	ir_jlist_patch_here(ir, miss);
	ir_storei_slot(ir, 8, one, 0, 1);
	ir_reg m2 = ir_reg_new(ir), kp2 = ir_reg_new(ir), vp = ir_reg_new(ir);
	ir_ld_map(ir, m2, 3);
	ir_slot_addr(ir, kp2, key, 0);
	ir_slot_addr(ir, vp, one, 0);
	ir_call(ir, IR_NOREG, BPF_FUNC_map_update_elem,
		(ir_reg[]){ m2, kp2, vp, ir_const(ir, BPF_NOEXIST) }, 4);
	ir_alui(ir, BPF_ADD, i, 1);
	ir_jmpi(ir, BPF_JLT, i, 2, again);
	ir_label_bind(ir, done);
	ir_exiti(ir, 0);
	char *s = compile_text(ir);
	CHECK_STR(s,
		  "   0: r6 = 0\n"
		  "   1: r1 = *(u32 *)(r1 +0)\n"
		  "   2: *(u32 *)(r10 -12) = r1\n"
		  "   3: r1 = map[3]\n"
		  "   5: r2 = r10\n"
		  "   6: r2 += -12\n"
		  "   7: call bpf_map_lookup_elem#1\n"
		  "   8: if r0 == 0x0 goto +3 <12>\n"
		  "   9: r1 = 1\n"
		  "  10: lock *(u64 *)(r0 +0) += r1\n"
		  "  11: goto +11 <23>\n"
		  "  12: *(u64 *)(r10 -8) = 1\n"
		  "  13: r1 = map[3]\n"
		  "  15: r2 = r10\n"
		  "  16: r2 += -12\n"
		  "  17: r3 = r10\n"
		  "  18: r3 += -8\n"
		  "  19: r4 = 1\n"
		  "  20: call bpf_map_update_elem#2\n"
		  "  21: r6 += 1\n"
		  "  22: if r6 < 0x2 goto -20 <3>\n"
		  "  23: r0 = 0\n"
		  "  24: exit\n");
	free(s);
}

TEST(disasm_of_every_instruction_form)
{
	struct bpf_insn in[] = {
		{ .code = BPF_ALU | BPF_ADD | BPF_X, .dst_reg = 1, .src_reg = 2 },
		{ .code = BPF_ALU64 | BPF_ARSH | BPF_K, .dst_reg = 3, .imm = -4 },
		{ .code = BPF_ALU64 | BPF_NEG, .dst_reg = 5 },
		{ .code = BPF_ALU | BPF_NEG, .dst_reg = 5 },
		{ .code = BPF_ALU64 | BPF_DIV | BPF_X, .dst_reg = 1, .src_reg = 2,
		  .off = 1 },
		{ .code = BPF_ALU64 | BPF_MOD | BPF_K, .dst_reg = 1, .imm = 7 },
		{ .code = BPF_ALU | BPF_END | BPF_TO_BE, .dst_reg = 4, .imm = 16 },
		{ .code = BPF_ALU | BPF_END | BPF_TO_LE, .dst_reg = 4, .imm = 64 },
		{ .code = BPF_ALU | BPF_MOV | BPF_K, .dst_reg = 0, .imm = -1 },
		{ .code = BPF_LDX | BPF_MEM | BPF_H, .dst_reg = 2, .src_reg = 6,
		  .off = -6 },
		{ .code = BPF_ST | BPF_MEM | BPF_B, .dst_reg = 10, .off = -1,
		  .imm = 65 },
		{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = 10,
		  .src_reg = 7, .off = -16 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_W, .dst_reg = 1,
		  .src_reg = 2, .off = 4, .imm = BPF_ADD },
		{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 1,
		  .imm = 0x89abcdef },
		{ .imm = 0x1234567 },
		{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 2,
		  .src_reg = BPF_PSEUDO_MAP_VALUE, .imm = 5 },
		{ .imm = 24 },
		{ .code = BPF_JMP32 | BPF_JSLT | BPF_K, .dst_reg = 3, .off = -3,
		  .imm = -2 },
		{ .code = BPF_JMP | BPF_JSET | BPF_X, .dst_reg = 3, .src_reg = 4,
		  .off = 1 },
		{ .code = BPF_JMP | BPF_JA, .off = 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = 9999 },
		{ .code = 0xff },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct strbuf sb = STRBUF_INIT;
	disasm_prog(in, sizeof(in) / sizeof(*in), &sb);
	CHECK_STR(sb_str(&sb),
		  "   0: w1 += w2\n"
		  "   1: r3 s>>= -4\n"
		  "   2: r5 = -r5\n"
		  "   3: w5 = -w5\n"
		  "   4: r1 s/= r2\n"
		  "   5: r1 %= 7\n"
		  "   6: r4 = be16 r4\n"
		  "   7: r4 = le64 r4\n"
		  "   8: w0 = -1\n"
		  "   9: r2 = *(u16 *)(r6 -6)\n"
		  "  10: *(u8 *)(r10 -1) = 65\n"
		  "  11: *(u64 *)(r10 -16) = r7\n"
		  "  12: lock *(u32 *)(r1 +4) += r2\n"
		  "  13: r1 = 0x123456789abcdef ll\n"
		  "  15: r2 = map_value[5]+24\n"
		  "  17: if w3 s< -0x2 goto -3 <15>\n"
		  "  18: if r3 & r4 goto +1 <20>\n"
		  "  19: goto +0 <20>\n"
		  "  20: call unknown#9999\n"
		  "  21: (ff) unknown\n"
		  "  22: exit\n");
	sb_free(&sb);
}

TEST(ir_dump_text)
{
	struct ir *ir = ir_new();
	ir_slot s = ir_slot_new(ir, 16, 8);
	ir_reg a = ir_const(ir, 5), p = ir_reg_new(ir);
	ir_label l = ir_label_here(ir);
	ir_alu32i(ir, BPF_LSH, a, 2);
	ir_sdiv(ir, a, a);
	ir_store_slot(ir, 8, s, 8, a);
	ir_slot_addr(ir, p, s, 0);
	ir_call(ir, IR_NOREG, BPF_FUNC_trace_printk, (ir_reg[]){ p, a }, 2);
	ir_jmp32i(ir, BPF_JSGT, a, -1, l);
	ir_exit(ir, a);
	ir_set_cpu_v4(ir, true);
	struct strbuf sb = STRBUF_INIT;
	ir_dump(ir, &sb);
	CHECK_STR(sb_str(&sb),
		  "$0: stack[16] align 8\n"
		  "    %1 = ctx\n"
		  "    %2 = 5\n"
		  "L0:\n"
		  "    w%2 <<= 2\n"
		  "    %4 = %2\n"
		  "    %5 = 0\n"
		  "    if %2 s>= 0 goto L1\n"
		  "    %2 = -%2\n"
		  "    %5 = 1\n"
		  "L1:\n"
		  "    if %4 s>= 0 goto L2\n"
		  "    %4 = -%4\n"
		  "    %5 ^= 1\n"
		  "L2:\n"
		  "    %2 /= %4\n"
		  "    if %5 == 0 goto L3\n"
		  "    %2 = -%2\n"
		  "L3:\n"
		  "    *(u64 *)($0 +8) = %2\n"
		  "    %3 = &$0 +0\n"
		  "    call bpf_trace_printk(%3, %2)\n"
		  "    if w%2 s> -1 goto L0\n"
		  "    exit %2\n");
	sb_free(&sb);
	ir_free(ir);
}

static const char *compile_error(struct ir *ir, int *err)
{
	struct bpf_code p;
	static char msg[256];
	*err = ir_compile(ir, &p);
	snprintf(msg, sizeof(msg), "%s", ir_error(ir) ? ir_error(ir) : "");
	bpf_code_free(&p);
	ir_free(ir);
	return msg;
}

TEST(malformed_ir_is_reported)
{
	int err;
	struct ir *ir = ir_new();
	ir_ja(ir, ir_label_new(ir));
	CHECK(strstr(compile_error(ir, &err), "never bound"));
	CHECK(err == -EINVAL);

	ir = ir_new();
	ir_jmpi(ir, BPF_JEQ, ir_ctx(ir), 0, IR_NOLABEL);
	ir_exiti(ir, 0);
	CHECK(strstr(compile_error(ir, &err), "never patched"));

	ir = ir_new();
	ir_reg x = ir_const(ir, 1);
	ir_jmpi(ir, BPF_JEQ, x, 0, ir_label_here(ir));
	CHECK(strstr(compile_error(ir, &err), "without exit"));

	ir = ir_new();
	ir_exit(ir, ir_reg_new(ir));
	CHECK(strstr(compile_error(ir, &err), "read before it is set"));
	CHECK(err == -EINVAL);

	ir = ir_new();
	ir_slot s = ir_slot_new(ir, 4, 4);
	ir_storei_slot(ir, 8, s, 0, 0);
	ir_exiti(ir, 0);
	CHECK(strstr(compile_error(ir, &err), "beyond stack slot"));

	ir = ir_new();
	ir_alu(ir, BPF_ADD, ir_ctx(ir), 99);
	ir_exiti(ir, 0);
	CHECK(strstr(compile_error(ir, &err), "invalid virtual register 99"));

	ir = ir_new();
	ir_label l = ir_label_here(ir);
	ir_label_bind(ir, l);
	ir_exiti(ir, 0);
	CHECK(strstr(compile_error(ir, &err), "bound twice"));
}

/* Code after an exit that nobody jumps to would be rejected by the
 * verifier as unreachable, so it is dropped; so are dead computations. */
TEST(unreachable_and_dead_code_are_dropped)
{
	struct ir *ir = ir_new();
	ir_reg dead = ir_const(ir, 42);
	ir_alui(ir, BPF_MUL, dead, 3);
	ir_exiti(ir, 2);
	ir_reg x = ir_const(ir, 7);
	ir_exit(ir, x);
	char *s = compile_text(ir);
	CHECK_STR(s, "   0: r0 = 2\n"
		     "   1: exit\n");
	free(s);
}

int main(void)
{
	RUN(disasm_of_the_header_example);
	RUN(disasm_of_a_map_update_loop);
	RUN(disasm_of_every_instruction_form);
	RUN(ir_dump_text);
	RUN(malformed_ir_is_reported);
	RUN(unreachable_and_dead_code_are_dropped);
	return check_done();
}
