/*
 * The architectures sonde knows the ABI of. Everything that differs
 * between them (pt_regs offsets: kernel/regs.c; syscall numbers:
 * kernel/sysnr.c; USDT operand syntax: kernel/usdt.c) is a table per
 * architecture chosen by an enum arch, the build's own by default, so that
 * every table is tested on any host (tests/unit/test_arch.c).
 */
#ifndef SONDE_ARCH_H
#define SONDE_ARCH_H

#include <stdbool.h>

enum arch {
	ARCH_X86_64,
	ARCH_AARCH64,
	ARCH_COUNT
};

/* The architecture sonde was compiled for: the one it traces. */
enum arch arch_build(void);
/* uname -m's name: "x86_64", "aarch64". */
const char *arch_name(enum arch a);
/* The ELF e_machine of a's binaries (EM_X86_64, EM_AARCH64). */
unsigned arch_elf_machine(enum arch a);
/* What every instruction's address (and a uprobe's file offset) is a
 * multiple of: 1 on x86_64, 4 on aarch64 (the kernel refuses a uprobe
 * elsewhere with EINVAL). */
unsigned arch_insn_align(enum arch a);
/* The architecture of ELF machine m; false for one sonde does not know. */
bool arch_of_elf_machine(unsigned m, enum arch *out);

#endif
