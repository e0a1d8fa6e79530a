#include "kernel/regs.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NELEMS(a) (sizeof(a) / sizeof(*(a)))

/*
 * x86_64: arch/x86/include/uapi/asm/ptrace.h's struct pt_regs, 8 bytes a
 * field in this order (tests/unit/test_arch.c checks them against
 * offsetof on an x86_64 host).
 */
enum x86_reg {
	X_R15, X_R14, X_R13, X_R12, X_BP, X_BX, X_R11, X_R10, X_R9, X_R8,
	X_AX, X_CX, X_DX, X_SI, X_DI, X_ORIG_AX, X_IP, X_CS, X_FLAGS, X_SP,
	X_SS
};
#define X(r) ((uint32_t)(X_##r * 8))

/* bpftrace's names: the kernel's pt_regs field names. */
static const struct regs_name x86_names[] = {
	{ "r15", X(R15) }, { "r14", X(R14) }, { "r13", X(R13) },
	{ "r12", X(R12) }, { "bp", X(BP) },   { "bx", X(BX) },
	{ "r11", X(R11) }, { "r10", X(R10) }, { "r9", X(R9) },
	{ "r8", X(R8) },   { "ax", X(AX) },   { "cx", X(CX) },
	{ "dx", X(DX) },   { "si", X(SI) },   { "di", X(DI) },
	{ "orig_ax", X(ORIG_AX) }, { "ip", X(IP) }, { "cs", X(CS) },
	{ "flags", X(FLAGS) }, { "sp", X(SP) }, { "ss", X(SS) },
	{ "pc", X(IP) }, /* bpftrace's development branch: ip's alias on
			  * every architecture */
};

/* The legacy registers' 64-, 32-, 16- and low 8-bit names. */
static const struct {
	const char *q, *d, *w, *b;
	uint32_t off;
} x86_legacy[] = {
	{ "rax", "eax", "ax", "al", X(AX) },
	{ "rbx", "ebx", "bx", "bl", X(BX) },
	{ "rcx", "ecx", "cx", "cl", X(CX) },
	{ "rdx", "edx", "dx", "dl", X(DX) },
	{ "rsi", "esi", "si", "sil", X(SI) },
	{ "rdi", "edi", "di", "dil", X(DI) },
	{ "rbp", "ebp", "bp", "bpl", X(BP) },
	{ "rsp", "esp", "sp", "spl", X(SP) },
};

/* r8..r15 and their d, w, b, l forms */
static int x86_numbered(const char *name)
{
	if (name[0] != 'r' || name[1] < '0' || name[1] > '9')
		return -ENOENT;
	char *end;
	long n = strtol(name + 1, &end, 10);
	if (n < 8 || n > 15 || !(!*end || (!end[1] && strchr("dwbl", *end))))
		return -ENOENT;
	static const uint32_t offs[] = { X(R8),  X(R9),  X(R10), X(R11),
					 X(R12), X(R13), X(R14), X(R15) };
	return (int)offs[n - 8];
}

static int x86_asm_offset(const char *name)
{
	if (!strcmp(name, "rip"))
		return (int)X(IP);
	for (size_t i = 0; i < NELEMS(x86_legacy); i++)
		if (!strcmp(name, x86_legacy[i].q) ||
		    !strcmp(name, x86_legacy[i].d) ||
		    !strcmp(name, x86_legacy[i].w) ||
		    !strcmp(name, x86_legacy[i].b))
			return (int)x86_legacy[i].off;
	return x86_numbered(name);
}

/*
 * aarch64: arch/arm64/include/uapi/asm/ptrace.h's struct user_pt_regs
 * (the start of the kernel's pt_regs): regs[31] (x0..x30), sp, pc,
 * pstate, 8 bytes each.
 */
#define A_SP (31 * 8)
#define A_PC (32 * 8)
#define A_PSTATE (33 * 8)

/* bpftrace's names (src/arch/aarch64.cpp: r0..r30, sp, pc, pstate) and
 * the assembler's x0..x30, which a64_names() adds. */
static const struct regs_name a64_fixed[] = {
	{ "sp", A_SP }, { "pc", A_PC }, { "pstate", A_PSTATE },
};

/* xN or wN (w is x's low half: the same slot, read little-endian) with N
 * 0..30 and no leading zero; prefixes lists the letters accepted. */
static int a64_numbered(const char *name, const char *prefixes)
{
	if (!name[0] || !strchr(prefixes, name[0]) || name[1] < '0' ||
	    name[1] > '9' || (name[1] == '0' && name[2]))
		return -ENOENT;
	char *end;
	long n = strtol(name + 1, &end, 10);
	if (*end || n > 30)
		return -ENOENT;
	return (int)(n * 8);
}

static int a64_asm_offset(const char *name)
{
	if (!strcmp(name, "sp"))
		return A_SP;
	return a64_numbered(name, "xw");
}

static const struct regs_abi abis[ARCH_COUNT] = {
	[ARCH_X86_64] = {
		.names = x86_names, .nnames = NELEMS(x86_names),
		.asm_offset = x86_asm_offset,
		.nargs = 6,
		.args = { X(DI), X(SI), X(DX), X(CX), X(R8), X(R9) },
		.retval = X(AX), .pc = X(IP), .sp = X(SP), .stack_args = 8,
		.link = -1,
	},
	[ARCH_AARCH64] = {
		.names = a64_fixed, .nnames = NELEMS(a64_fixed),
		.asm_offset = a64_asm_offset,
		.nargs = 8,
		.args = { 0, 8, 16, 24, 32, 40, 48, 56 },
		.retval = 0, .pc = A_PC, .sp = A_SP, .stack_args = 0,
		.link = 30 * 8,
	},
};
#undef X

const struct regs_abi *regs_abi(enum arch a)
{
	return &abis[a];
}

int regs_abi_offset(const struct regs_abi *abi, const char *name)
{
	for (uint32_t i = 0; i < abi->nnames; i++)
		if (!strcmp(abi->names[i].name, name))
			return (int)abi->names[i].off;
	if (abi == &abis[ARCH_AARCH64])
		return a64_numbered(name, "rx");
	return -ENOENT;
}

static const struct regs_abi *build(void)
{
	return regs_abi(arch_build());
}

int regs_offset(const char *name)
{
	return regs_abi_offset(build(), name);
}

int regs_asm_offset(const char *name)
{
	return build()->asm_offset(name);
}

uint32_t regs_nargs(void)
{
	return build()->nargs;
}

uint32_t regs_arg_offset(uint32_t i)
{
	return build()->args[i];
}

uint32_t regs_retval_offset(void)
{
	return build()->retval;
}

uint32_t regs_pc_offset(void)
{
	return build()->pc;
}

uint32_t regs_sp_offset(void)
{
	return build()->sp;
}

uint32_t regs_stack_args(void)
{
	return build()->stack_args;
}

int regs_link_offset(void)
{
	return build()->link;
}
