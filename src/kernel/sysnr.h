/*
 * Syscall numbers by name, per architecture (the table scripts/gen-sysnr.sh
 * writes from the kernel's headers): the architecture's ABI, which the
 * kernel keeps stable. A name that a
 * newer kernel added, or whose syscall tracepoint is named after another
 * entry point (sys_enter_newstat for stat), is not found; callers then
 * use the tracepoint itself.
 */
#ifndef SONDE_SYSNR_H
#define SONDE_SYSNR_H

#include "kernel/arch.h"

/* The number of syscall name (as in syscalls:sys_enter_NAME), or -1. */
int sysnr_lookup(const char *name);
/* The name of syscall nr, or NULL (syscall_name()). */
const char *sysnr_name(int nr);
/* The same for architecture a (the two above: the build's). */
int sysnr_lookup_arch(enum arch a, const char *name);
const char *sysnr_name_arch(enum arch a, int nr);

#endif
