/* --emit-elf FILE: compile to a BPF object that --object runs later. */
#ifndef SONDE_DRIVER_EMITELF_H
#define SONDE_DRIVER_EMITELF_H

#include "driver/frontend.h"

/* Compiles f (twice, see emitelf.c) and writes o->emit_elf. Returns 0,
 * or 1 after errors. */
int emitelf_write(const struct options *o, const struct src_file *f,
		  struct diag *diag);

#endif
