/*
 * The .sonde section of an object --emit-elf writes: everything the run
 * loop needs that is not bytecode (maps and their printing types, events
 * and their formats, probe names, per program its attach points as
 * written), serialized so that `--object` can run the object later, on
 * another machine of the same byte order or not.
 *
 * Layout: "SONDE\0\0\0", u32 version, u32 payload length, u32 CRC-32 of
 * the payload, then the payload. Every integer is little-endian whatever
 * the host; strings are u32 length + bytes (0xffffffff: NULL). Types are
 * a table (a struct may point to itself), referenced by index.
 */
#ifndef SONDE_SERIAL_H
#define SONDE_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/attach.h"
#include "model/compiled.h"

struct arena;
struct strbuf;
struct type;

/* Bumped whenever the payload's layout changes: an older or newer sonde
 * refuses the object rather than misreading it. */
#define SERIAL_VERSION 7

/* A value known only when the object runs, patched into the code then. */
enum serial_patch_kind {
	SERIAL_PATCH_CPID,  /* 32-bit immediate: the -c child's pid */
	SERIAL_PATCH_START, /* ld_imm64 pair: monotonic ns at start */
};

struct serial_patch {
	uint32_t insn;
	uint32_t kind; /* enum serial_patch_kind */
};

/* A probe of the script: its attach points, expanded again at run time. */
struct serial_group {
	struct attach_point *attach;
	uint32_t nattach;
	bool want_args; /* the probe uses `args` (uprobes type it then) */
};

/* What a program needs beyond struct cprog. */
struct serial_prog {
	uint32_t group;      /* index into serial_object.groups */
	const char *section; /* ELF section holding the code */
	uint32_t offset;     /* of the code in that section, bytes */
	uint32_t code_crc;   /* CRC-32 of the code as written in the ELF */
	uint32_t context;    /* serial_target_hash() of its target then */
	struct serial_patch *patches;
	uint32_t npatches;
};

struct serial_object {
	/* progs[i].code: ninsns and stack_size only (the insns are in the
	 * ELF); progs[i].targets: NULL, progs[i].name: the target's name. */
	struct compiled c;
	struct serial_prog *progs; /* c.nprogs */
	struct serial_group *groups;
	uint32_t ngroups;
	bool uses_cpid;            /* emitted with -c: run it with -c */
};

/* Appends the section's bytes to out. */
void serial_write(const struct serial_object *o, struct strbuf *out);

/* Reads a section written by serial_write; everything lives in a.
 * Returns 0, -EPROTO (another version) or -EBADMSG (truncated, corrupt
 * or inconsistent), with one sentence in why. */
int serial_read(struct arena *a, const void *buf, size_t len,
		struct serial_object *o, char *why, size_t whylen);

/* A CRC-32 of type t's layout (all of its graph, BTF ids left out),
 * chained from crc: programs compiled against a context of one layout
 * must not run on another. */
uint32_t serial_type_hash(const struct type *t, uint32_t crc);

/* CRC-32 of n bytes (zlib's), chained from crc (0 to start). */
uint32_t serial_crc(uint32_t crc, const void *p, size_t n);

#endif
