/*
 * DWARF packages (-gsplit-dwarf, then dwp or llvm-dwp: the .dwo files of
 * a program in one file, PROGRAM.dwp beside it). libdw before 0.191 does
 * not read them, so this module does what its dwarf_cu_dwp_section_info
 * does: it finds a split unit's contributions to each section through the
 * package's .debug_cu_index (DWARF 5's version 5, or the GNU version 2 of
 * DWARF 4), and copies them into a small ELF image of their own, with the
 * package's string section mapped after them, that libdw reads as that
 * unit's .dwo file. 64-bit packages of the host's byte order only.
 */
#ifndef SONDE_DWP_H
#define SONDE_DWP_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dwp;

/* One section's contribution of a unit: its DW_SECT_* column id (as the
 * index's version numbers them), offset and size in that section. */
struct dwp_contrib {
	uint32_t sect;
	uint32_t off, size;
};

#define DWP_MAX_COLS 8

/* The row of unit id in the .debug_cu_index bytes idx: its contributions
 * (at most DWP_MAX_COLS) in out, their number returned, and the index's
 * version (2 or 5) in *version. Returns 0 when id is not in the index, or
 * -EINVAL when the index is malformed. */
int dwp_index_find(const uint8_t *idx, size_t len, uint64_t id,
		   struct dwp_contrib *out, uint32_t *version);

/* The package at path (NULL: no such file, or no package). */
struct dwp *dwp_open(const char *path);
void dwp_close(struct dwp *p);

/* The unit DIE whose children are unit cu's, in *split: a skeleton
 * unit's split unit (-gsplit-dwarf), from its .dwo file (libdw finds it
 * by DW_AT_dwo_name) or else from the package PATH.dwp beside the ELF
 * file path, which *pkg keeps (opened on first need, *tried); cu itself
 * when it is no skeleton or its split unit is nowhere. A unit from a
 * .dwo file has its addresses (libdw links it to its skeleton), one from
 * a package has none: pkg NULL asks for .dwo files only. */
Dwarf_Die *dwp_split_die(struct dwp **pkg, bool *tried, const char *path,
			 Dwarf_Die *cu, Dwarf_Die *split);

#endif
