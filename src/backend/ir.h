/*
 * IR: the interface between codegen and the BPF back end.
 *
 * Codegen lowers one probe into a linear list of eBPF-shaped instructions
 * over unlimited 64-bit *virtual registers* (vregs), then ir_compile() does
 * register allocation (with spilling), peephole and encoding into
 * struct bpf_insn[]. The operations mirror eBPF one to one so that codegen
 * stays in control of the code shape; only registers, stack layout and jump
 * offsets are left to the back end.
 *
 * Conventions:
 *  - ALU ops are two-address like eBPF: ir_alu(ir, BPF_ADD, d, s) is d += s.
 *    Write `t = ir_copy(ir, a); ir_alu(ir, BPF_ADD, t, b)` for t = a + b; the
 *    allocator coalesces the copy when a dies there.
 *  - Opcodes are the <linux/bpf.h> ones: BPF_ADD .. BPF_ARSH, BPF_MOV,
 *    BPF_NEG for ALU; BPF_JEQ .. BPF_JSLE, BPF_JSET for conditions; sizes
 *    are in bytes (1, 2, 4, 8).
 *  - 32-bit immediates of 64-bit ALU ops and compares are sign-extended, as
 *    in eBPF: ir_alui(ir, BPF_AND, d, -1) keeps all 64 bits.
 *  - Unsigned BPF_DIV/BPF_MOD are native. Signed division is not in the base
 *    ISA: use ir_sdiv()/ir_smod() (a short branchy sequence, or the native
 *    cpu-v4 instruction after ir_set_cpu_v4()).
 *  - Stack memory is asked for as *slots* (size, alignment); the back end
 *    lays out the frame. To pass a pointer to a helper, take the slot's
 *    address with ir_slot_addr() into a vreg and pass that vreg.
 *  - Helper calls: ir_call() takes the argument vregs; the back end moves
 *    them into R1..R5 and the result out of R0, and keeps values that live
 *    across the call in R6..R9 or on the stack. Constants are best passed
 *    as ir_const() vregs: they are loaded straight into the argument
 *    register.
 *  - Maps are referenced by *index* (codegen's numbering). The compiled
 *    program lists every map load in bpf_code.relocs; the loader creates the
 *    maps and sets insns[reloc.insn].imm = fd before bpf_prog_load().
 *  - Jumps go to labels. A label may be bound before (back edge) or after
 *    (forward) the jump. Like Lua's luaK_patchlist, a jump may also be left
 *    open (IR_NOLABEL) and collected in a jump list to be patched later,
 *    which is how && and || chains are built.
 *  - Builder errors are sticky: the first one is kept and ir_compile()
 *    returns -EINVAL; ir_error() gives the message. Compile errors (jump
 *    offset overflow, stack > 512 bytes) return -E2BIG with a message.
 *
 * A complete tiny program: `return ctx->len > 5 ? 1 : 0` over a socket
 * filter's __sk_buff:
 *
 *	struct ir *ir = ir_new();
 *	ir_reg len = ir_reg_new(ir);
 *	ir_load(ir, 4, len, ir_ctx(ir), 0);
 *	ir_label big = ir_label_new(ir);
 *	ir_jmpi(ir, BPF_JGT, len, 5, big);
 *	ir_exiti(ir, 0);
 *	ir_label_bind(ir, big);
 *	ir_exiti(ir, 1);
 *	struct bpf_code p;
 *	if (ir_compile(ir, &p) < 0)
 *		report(ir_error(ir));
 *	... bpf_prog_load(..., p.insns, p.ninsns, ...); bpf_code_free(&p);
 *	ir_free(ir);
 */
#ifndef SONDE_IR_H
#define SONDE_IR_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/bytecode.h"

struct strbuf;
struct ir;

typedef uint32_t ir_reg;   /* virtual register; IR_NOREG is "none" */
typedef uint32_t ir_slot;  /* stack slot */
typedef int32_t ir_label;  /* jump target */
typedef int32_t ir_jlist;  /* list of open jumps; IR_NOJUMP is empty */

#define IR_NOREG 0u
#define IR_NOLABEL (-1)
#define IR_NOJUMP (-1)
#define IR_MAX_ARGS 5
#define IR_STACK_MAX 512
/* Instructions the kernel loads in one program with CAP_BPF or
 * CAP_SYS_ADMIN, which tracing needs (BPF_COMPLEXITY_LIMIT_INSNS, since
 * 5.2; older kernels took 4096, but they lack the ring buffer, 5.8). */
#define IR_MAX_INSNS 1000000

struct ir *ir_new(void);
void ir_free(struct ir *ir);
/* Allow cpu-v4 instructions (native signed div/mod). Off by default so the
 * output loads on older kernels. */
void ir_set_cpu_v4(struct ir *ir, bool on);
/* First builder or compile error, or NULL. */
const char *ir_error(const struct ir *ir);
/* The program grew past what sonde compiles (the error is set): codegen
 * stops adding to it. */
bool ir_full(const struct ir *ir);

/* --- values --- */
ir_reg ir_reg_new(struct ir *ir);
/* The program's context pointer (R1 at entry). Always the same vreg. */
ir_reg ir_ctx(struct ir *ir);
/* d = imm. Picks the shortest encoding (mov, mov32 or ld_imm64). */
void ir_movi(struct ir *ir, ir_reg d, int64_t imm);
void ir_mov(struct ir *ir, ir_reg d, ir_reg s);
/* New vreg holding imm / a copy of s. */
ir_reg ir_const(struct ir *ir, int64_t imm);
ir_reg ir_copy(struct ir *ir, ir_reg s);

/* --- arithmetic: d op= s (64-bit); the 32 forms zero the upper half --- */
void ir_alu(struct ir *ir, int op, ir_reg d, ir_reg s);
void ir_alui(struct ir *ir, int op, ir_reg d, int32_t imm);
void ir_alu32(struct ir *ir, int op, ir_reg d, ir_reg s);
void ir_alu32i(struct ir *ir, int op, ir_reg d, int32_t imm);
void ir_neg(struct ir *ir, ir_reg d);
/* Signed 64-bit d /= s and d %= s with C semantics (truncate toward zero,
 * remainder has the dividend's sign); x/0 == 0 and x%0 == x as in eBPF. */
void ir_sdiv(struct ir *ir, ir_reg d, ir_reg s);
void ir_smod(struct ir *ir, ir_reg d, ir_reg s);
/* Byte swap: d = to_big ? htobe<bits>(d) : htole<bits>(d); bits 16/32/64.
 * Also truncates to `bits`, so le16 is a cheap zero-extension. */
void ir_endian(struct ir *ir, ir_reg d, int bits, bool to_big);

/* --- memory: size is 1, 2, 4 or 8 bytes; loads zero-extend --- */
void ir_load(struct ir *ir, int size, ir_reg d, ir_reg base, int16_t off);
void ir_store(struct ir *ir, int size, ir_reg base, int16_t off, ir_reg s);
void ir_storei(struct ir *ir, int size, ir_reg base, int16_t off,
	       int32_t imm);
/* Atomic *(size *)(base + off) += s; size 4 or 8. */
void ir_atomic_add(struct ir *ir, int size, ir_reg base, int16_t off,
		   ir_reg s);

/* --- stack slots --- */
/* size bytes, align 1/2/4/8. Uninitialised: the verifier rejects reads of
 * bytes never written, so zero (or fill) what you read. */
ir_slot ir_slot_new(struct ir *ir, uint32_t size, uint32_t align);
/* Slots made from now on are for origin (opaque to the IR: codegen passes
 * the expression or variable that needs them), so that a frame too big
 * for BPF's stack can name what takes the space. Returns the old one. */
const void *ir_set_origin(struct ir *ir, const void *origin);
/* After the frame layout failed for lack of stack: the origin of the
 * biggest slot live where the frame is deepest (NULL: none known) and
 * the bytes it takes. */
const void *ir_stack_culprit(const struct ir *ir, uint32_t *size);
void ir_load_slot(struct ir *ir, int size, ir_reg d, ir_slot sl,
		  uint32_t off);
void ir_store_slot(struct ir *ir, int size, ir_slot sl, uint32_t off,
		   ir_reg s);
void ir_storei_slot(struct ir *ir, int size, ir_slot sl, uint32_t off,
		    int32_t imm);
/* d = address of slot + off, e.g. a key pointer for bpf_map_lookup_elem. */
void ir_slot_addr(struct ir *ir, ir_reg d, ir_slot sl, uint32_t off);

/* --- maps --- */
/* d = the map (for helpers' `map` arguments). */
void ir_ld_map(struct ir *ir, ir_reg d, uint32_t map_idx);
/* d = pointer to byte `off` of an array map's value 0 (global data). */
void ir_ld_map_value(struct ir *ir, ir_reg d, uint32_t map_idx,
		     uint32_t off);
/* d = the kernel variable of vmlinux BTF id btf_id (a per-CPU one, for
 * bpf_this_cpu_ptr/bpf_per_cpu_ptr): ld_imm64 BPF_PSEUDO_BTF_ID. */
void ir_ld_btf_var(struct ir *ir, ir_reg d, uint32_t btf_id);

/* --- calls and exit --- */
/* d = helper fn(args...); d may be IR_NOREG. Args go to R1..R5. */
void ir_call(struct ir *ir, ir_reg d, int fn, const ir_reg *args, int nargs);
/* d = kernel function btf_id(args...) (a kfunc of vmlinux). */
void ir_kfunc_call(struct ir *ir, ir_reg d, int32_t btf_id,
		   const ir_reg *args, int nargs);
void ir_exit(struct ir *ir, ir_reg s);
void ir_exiti(struct ir *ir, int32_t imm);

/* --- control flow --- */
ir_label ir_label_new(struct ir *ir);
/* Binds l to the next instruction. Each label is bound exactly once. */
void ir_label_bind(struct ir *ir, ir_label l);
/* New label bound here: a loop head for back edges. */
ir_label ir_label_here(struct ir *ir);
/* if (a cond b) goto l. l may be IR_NOLABEL: the jump is then open, and the
 * returned handle is a one-element jump list to patch later. */
ir_jlist ir_jmp(struct ir *ir, int cond, ir_reg a, ir_reg b, ir_label l);
ir_jlist ir_jmpi(struct ir *ir, int cond, ir_reg a, int32_t imm, ir_label l);
/* 32-bit compares (only the low halves are compared). */
ir_jlist ir_jmp32(struct ir *ir, int cond, ir_reg a, ir_reg b, ir_label l);
ir_jlist ir_jmp32i(struct ir *ir, int cond, ir_reg a, int32_t imm,
		   ir_label l);
ir_jlist ir_ja(struct ir *ir, ir_label l);
/* Appends list b to list *a. */
void ir_jlist_concat(struct ir *ir, ir_jlist *a, ir_jlist b);
/* Points every jump of the list at l / at the next instruction. */
void ir_jlist_patch(struct ir *ir, ir_jlist list, ir_label l);
void ir_jlist_patch_here(struct ir *ir, ir_jlist list);
/* The condition with the opposite outcome (BPF_JSET has none: returns -1). */
int ir_cond_negate(int cond);

/* --- functions (callbacks of bpf_loop, bpf_for_each_map_elem) --- */
/* A callback is an IR of its own, compiled by itself and linked after the
 * program (ir_link). Its R1 at entry is ir_ctx() until ir_set_ctx()
 * names another vreg as the context codegen reads (the probe's context,
 * passed through memory). */
/* Rn (1..5) at entry: call these first, before any other instruction. */
ir_reg ir_arg(struct ir *ir, int n);
void ir_set_ctx(struct ir *ir, ir_reg r);
/* d = the address of function fn: the fn-th code given to ir_link(). */
void ir_ld_func(struct ir *ir, ir_reg d, uint32_t fn);
/* Appends fns[0..n) (compiled callbacks, which may load each other) to
 * prog and resolves every function load; the functions' map loads join
 * prog's relocations. stack_size becomes the deepest chain's. Returns 0
 * or -E2BIG (message in err) when a chain of frames outgrows the
 * 512 bytes the kernel gives all frames of a call chain together. */
int ir_link(struct bpf_code *prog, const struct bpf_code *fns, uint32_t n,
	    char *err, size_t errlen);

/* --- output --- */
/* The output is a struct bpf_code (model/bytecode.h). */

/* Allocates registers, lays out the stack, runs the peephole and encodes.
 * Rewrites the IR (spill code), so call it once. Returns 0, -EINVAL for a
 * malformed IR or -E2BIG when the program exceeds a BPF limit; the message
 * is in ir_error(). */
int ir_compile(struct ir *ir, struct bpf_code *out);

/* Text of the IR (sonde -d ir): one instruction per line. */
void ir_dump(const struct ir *ir, struct strbuf *sb);

#endif
