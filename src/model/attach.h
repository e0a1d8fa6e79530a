/*
 * An attach point as the script wrote it: what the parser produces and the
 * probe providers expand. Kept here, below both, so that the providers do
 * not depend on the AST.
 */
#ifndef SONDE_ATTACH_H
#define SONDE_ATTACH_H

#include <stdint.h>

#include "util/diag.h"

/* One attach point as written, split on unquoted ':' after the provider. */
struct attach_point {
	struct span span;
	const char *text;     /* as written, quotes removed */
	const char *provider; /* canonical name: "tracepoint", "kprobe" ... */
	const char **parts;   /* the rest, split on ':' */
	uint32_t nparts;
	const char *name;     /* NAME=provider:...: what `probe` prints
				 (bpftrace 0.26's named probes), or NULL */
};

#endif
