/*
 * The caller's frame in a user stack taken by a uprobe at a function's
 * entry (ucaller.c).
 *
 * At a function's first instruction the function has not pushed its frame
 * yet: the frame pointer still holds its caller's frame, so a frame-pointer
 * walk goes from the probed address straight to the caller's caller, and
 * the caller's return address (at [sp] on x86_64) is left out. Linux 6.11
 * ("perf,x86: avoid missing caller address in stack traces captured in
 * uprobe", backported to some stable kernels: Debian's 6.1 has it, its 5.10
 * not) adds it when the probed instruction is `push %rbp` or `endbr64`.
 * Where the kernel does not, sonde's program adds it by the same rule
 * (codegen/fpstack.c), so a stack prints the same frames on every kernel.
 * On arm64 no kernel adds it: the caller is in the link register (x30)
 * there, and sonde adds it from that at a prologue's first instruction.
 */
#ifndef SONDE_UCALLER_H
#define SONDE_UCALLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/arch.h"

/* Whether this kernel's user stacks at a uprobe on a function's entry hold
 * the caller: a uprobe on a function of sonde's own, called once, and its
 * sample's callchain read back. Writes why (or how it was found) to why.
 * Asked on x86_64 and aarch64 (whose kernels do not add it yet); false
 * elsewhere. */
bool ucaller_kernel_adds(char *why, size_t n);

/* Whether the kernel's rule calls the instruction at file offset off of
 * path a function's entry (`push %rbp`, or `endbr64`): the uprobes there
 * are the ones whose stacks the kernel fixes. On arm64, sonde's own rule
 * (a prologue's first instruction: paciasp, bti c, or the push of the
 * frame record). False for any other instruction, on other
 * architectures, and when the file cannot be read. */
bool ucaller_entry_insn(const char *path, uint64_t off);
/* The same rule for the n first bytes of an instruction of architecture
 * a. */
bool ucaller_is_entry(enum arch a, const unsigned char *b, size_t n);

#endif
