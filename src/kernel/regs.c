#include "kernel/regs.h"

#include <errno.h>
#include <linux/ptrace.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NELEMS(a) (sizeof(a) / sizeof(*(a)))

struct reg_name {
	const char *name;
	uint32_t off;
};

#if defined(__x86_64__)
#define R(f) offsetof(struct pt_regs, f)

/* bpftrace's names: the kernel's pt_regs field names. */
static const struct reg_name names[] = {
	{ "r15", R(r15) }, { "r14", R(r14) }, { "r13", R(r13) },
	{ "r12", R(r12) }, { "bp", R(rbp) },  { "bx", R(rbx) },
	{ "r11", R(r11) }, { "r10", R(r10) }, { "r9", R(r9) },
	{ "r8", R(r8) },   { "ax", R(rax) },  { "cx", R(rcx) },
	{ "dx", R(rdx) },  { "si", R(rsi) },  { "di", R(rdi) },
	{ "orig_ax", R(orig_rax) }, { "ip", R(rip) }, { "cs", R(cs) },
	{ "flags", R(eflags) }, { "sp", R(rsp) }, { "ss", R(ss) },
	{ "pc", R(rip) }, /* bpftrace's development branch: ip's alias on
			   * every architecture */
};

/* The legacy registers' 64-, 32-, 16- and low 8-bit names. */
static const struct {
	const char *q, *d, *w, *b;
	uint32_t off;
} legacy[] = {
	{ "rax", "eax", "ax", "al", R(rax) },
	{ "rbx", "ebx", "bx", "bl", R(rbx) },
	{ "rcx", "ecx", "cx", "cl", R(rcx) },
	{ "rdx", "edx", "dx", "dl", R(rdx) },
	{ "rsi", "esi", "si", "sil", R(rsi) },
	{ "rdi", "edi", "di", "dil", R(rdi) },
	{ "rbp", "ebp", "bp", "bpl", R(rbp) },
	{ "rsp", "esp", "sp", "spl", R(rsp) },
};

/* r8..r15 in pt_regs order from r8 (r8 has the highest offset). */
static int numbered(const char *name)
{
	if (name[0] != 'r' || name[1] < '0' || name[1] > '9')
		return -ENOENT;
	char *end;
	long n = strtol(name + 1, &end, 10);
	if (n < 8 || n > 15 || !(!*end || (!end[1] && strchr("dwbl", *end))))
		return -ENOENT;
	static const uint32_t offs[] = { R(r8),  R(r9),  R(r10), R(r11),
					 R(r12), R(r13), R(r14), R(r15) };
	return (int)offs[n - 8];
}

int regs_asm_offset(const char *name)
{
	if (!strcmp(name, "rip"))
		return (int)R(rip);
	for (size_t i = 0; i < NELEMS(legacy); i++)
		if (!strcmp(name, legacy[i].q) || !strcmp(name, legacy[i].d) ||
		    !strcmp(name, legacy[i].w) || !strcmp(name, legacy[i].b))
			return (int)legacy[i].off;
	return numbered(name);
}

static const uint32_t args[] = { R(rdi), R(rsi), R(rdx),
				 R(rcx), R(r8),  R(r9) };
static const uint32_t retval = R(rax);
#undef R

#elif defined(__aarch64__)
/* user_pt_regs: x0..x30, sp, pc, pstate, 8 bytes each. */
static const struct reg_name names[] = {
	{ "sp", 31 * 8 }, { "pc", 32 * 8 }, { "pstate", 33 * 8 },
};

int regs_asm_offset(const char *name)
{
	if (name[0] != 'x' && name[0] != 'w')
		return -ENOENT;
	char *end;
	long n = strtol(name + 1, &end, 10);
	if (end == name + 1 || *end || n < 0 || n > 30)
		return -ENOENT;
	return (int)(n * 8);
}

static const uint32_t args[] = { 0, 8, 16, 24, 32, 40, 48, 56 };
static const uint32_t retval = 0;
#else
#error "pt_regs register offsets are not known for this architecture"
#endif

int regs_offset(const char *name)
{
	for (size_t i = 0; i < NELEMS(names); i++)
		if (!strcmp(names[i].name, name))
			return (int)names[i].off;
#if defined(__aarch64__)
	if (name[0] == 'x')
		return regs_asm_offset(name);
#endif
	return -ENOENT;
}

uint32_t regs_nargs(void)
{
	return NELEMS(args);
}

uint32_t regs_arg_offset(uint32_t i)
{
	return args[i];
}

uint32_t regs_retval_offset(void)
{
	return retval;
}
