/*
 * A binary's call frame information (.eh_frame, or .debug_frame where it
 * has no .eh_frame) reduced to the rows of model/unwind.h, for the walker
 * that codegen/dwunwind.h emits. Read with libdw's CFI interface (the
 * DWARF machine is elfutils'; what is reduced here is only its answer for
 * each row).
 */
#ifndef SONDE_KERNEL_EHFRAME_H
#define SONDE_KERNEL_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

#include "model/unwind.h"

struct eh_rows {
	struct uw_row *rows; /* sorted by addr; the last a UW_GAP */
	size_t n;
	/* rows of each kind, for --info-style reports and tests */
	size_t nstop, nplt;
};

/* Reads path's CFI into out. Returns 0 (out->n may be 0: no unwind
 * data), or -errno (the file cannot be read, or is no ELF). */
int ehframe_rows(const char *path, struct eh_rows *out);
void ehframe_rows_free(struct eh_rows *r);

#endif
