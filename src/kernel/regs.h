/*
 * The registers saved in struct pt_regs, by name, per architecture:
 * reg("name") names them as bpftrace does ("ip", "sp", "di" on x86_64;
 * "r0".."r30", "sp", "pc", "pstate" on aarch64), USDT argument specs as
 * the assembler does ("rax", "r8d"; "x0", "w1", "sp"), and argN and retval
 * are the calling convention's registers. The regs_* functions answer for
 * the build's architecture, regs_abi() for any (the unit tests check every
 * table against the kernel's own headers).
 */
#ifndef SONDE_REGS_H
#define SONDE_REGS_H

#include <stdint.h>

#include "kernel/arch.h"

struct regs_name {
	const char *name;
	uint32_t off;
};

struct regs_abi {
	/* bpftrace's reg() names */
	const struct regs_name *names;
	uint32_t nnames;
	/* an assembler operand's register (without '%'), or -ENOENT */
	int (*asm_offset)(const char *name);
	uint32_t nargs;        /* arguments passed in registers */
	uint32_t args[8];      /* their offsets */
	uint32_t retval;       /* the return value's */
	uint32_t pc, sp;       /* the instruction and stack pointers' */
	/* At a function's entry, how far above sp its first stack argument
	 * is: 8 on x86_64 (the return address is at sp), 0 on aarch64 (it
	 * is in x30). */
	uint32_t stack_args;
	/* Where the return address is at a function's entry: the link
	 * register's offset (aarch64's x30), or -1 where the call pushed it
	 * at sp (x86_64). */
	int link;
};

const struct regs_abi *regs_abi(enum arch a);
/* The offset of a register by bpftrace's name in abi, or -ENOENT. */
int regs_abi_offset(const struct regs_abi *abi, const char *name);

/* The pt_regs offset of a register named as bpftrace's reg() accepts it,
 * or -ENOENT. */
int regs_offset(const char *name);
/* The pt_regs offset of the full register an assembler operand names
 * (without '%'; "eax", "ax" and "al" are all rax; "w3" is x3), or -ENOENT.
 * Sub-registers that are not the low bits of their register (x86's "ah")
 * are unknown. */
int regs_asm_offset(const char *name);

/* How many arguments the calling convention passes in registers. */
uint32_t regs_nargs(void);
/* The pt_regs offset of argument i (< regs_nargs()). */
uint32_t regs_arg_offset(uint32_t i);
/* The pt_regs offset of the return value. */
uint32_t regs_retval_offset(void);
/* The instruction pointer's and the stack pointer's. */
uint32_t regs_pc_offset(void);
uint32_t regs_sp_offset(void);
/* sp + this = the first stack argument at a function's entry. */
uint32_t regs_stack_args(void);
/* The link register's offset (the return address at a function's entry),
 * or -1 where the return address is at sp instead. */
int regs_link_offset(void);

#endif
