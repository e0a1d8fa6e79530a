/*
 * GFP flags (the kernel's allocation flags) as printf's %gr prints them:
 * bpftrace 0.26's util/gfp_flags, itself the order of the kernel's
 * __def_gfpflag_names (include/trace/events/mmflags.h).
 */
#ifndef SONDE_GFP_H
#define SONDE_GFP_H

#include <stdint.h>

struct strbuf;

/* Appends "GFP_KERNEL|__GFP_ZERO", "0" for none; bits no name covers
 * come last in hex ("|0x200"). */
void gfp_format(struct strbuf *sb, uint64_t flags);

#endif
