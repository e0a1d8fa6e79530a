/*
 * Lengths of x86-64 instructions, to check that a uprobe at FUNC+OFFSET
 * lands on an instruction's first byte (a breakpoint in the middle of one
 * corrupts the traced program). Only lengths are decoded: prefixes, REX,
 * VEX/EVEX, the opcode maps, ModRM/SIB, displacements and immediates.
 */
#ifndef SONDE_X86INSN_H
#define SONDE_X86INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The length of the instruction at code (at most n bytes), or 0 when it
 * is not one this decoder knows (or is cut off). */
size_t x86insn_len(const uint8_t *code, size_t n);

enum x86insn_at {
	X86INSN_START,   /* off is the first byte of an instruction */
	X86INSN_MIDDLE,  /* off is inside one */
	X86INSN_UNKNOWN, /* an instruction before it could not be decoded */
};

/* Walks the instructions of code (a function's first n bytes) up to off. */
enum x86insn_at x86insn_boundary(const uint8_t *code, size_t n, size_t off);

/* Whether the kernel refuses a uprobe on the instruction at code for its
 * prefixes: LOCK, or an ES, CS, SS or DS segment override (notrack), as
 * arch/x86/kernel/uprobes.c's is_prefix_bad() does, on every kernel. */
bool x86insn_uprobe_bad_prefix(const uint8_t *code, size_t n);

#endif
