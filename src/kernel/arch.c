#include "kernel/arch.h"

#include <elf.h>

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "sonde knows the ABI of x86_64 and aarch64 only (kernel/arch.h)"
#endif

static const struct {
	const char *name;
	unsigned machine;
	unsigned insn_align;
} archs[ARCH_COUNT] = {
	[ARCH_X86_64] = { "x86_64", EM_X86_64, 1 },
	[ARCH_AARCH64] = { "aarch64", EM_AARCH64, 4 },
};

enum arch arch_build(void)
{
#if defined(__aarch64__)
	return ARCH_AARCH64;
#else
	return ARCH_X86_64;
#endif
}

const char *arch_name(enum arch a)
{
	return archs[a].name;
}

unsigned arch_elf_machine(enum arch a)
{
	return archs[a].machine;
}

unsigned arch_insn_align(enum arch a)
{
	return archs[a].insn_align;
}

bool arch_of_elf_machine(unsigned m, enum arch *out)
{
	for (int a = 0; a < ARCH_COUNT; a++)
		if (archs[a].machine == m) {
			*out = (enum arch)a;
			return true;
		}
	return false;
}
