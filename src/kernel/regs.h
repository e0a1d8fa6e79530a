/*
 * The registers saved in struct pt_regs, by name, for this architecture:
 * reg("name") names them as bpftrace does ("ip", "sp", "di"), USDT
 * argument specs as the assembler does ("%rax", "%r8d"), and argN and
 * retval are the calling convention's registers.
 */
#ifndef SONDE_REGS_H
#define SONDE_REGS_H

#include <stdint.h>

/* The pt_regs offset of a register named as bpftrace's reg() accepts it,
 * or -ENOENT. */
int regs_offset(const char *name);
/* The pt_regs offset of the full register an assembler operand names
 * (without '%'; "eax", "ax" and "al" are all rax), or -ENOENT. Sub-registers
 * that are not the low bits of their register (x86's "ah") are unknown. */
int regs_asm_offset(const char *name);

/* How many arguments the calling convention passes in registers. */
uint32_t regs_nargs(void);
/* The pt_regs offset of argument i (< regs_nargs()). */
uint32_t regs_arg_offset(uint32_t i);
/* The pt_regs offset of the return value. */
uint32_t regs_retval_offset(void);

#endif
