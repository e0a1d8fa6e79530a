/*
 * `--object FILE` for an object --emit-elf wrote (one with a .sonde
 * section): rebuilds the struct compiled the script compiled to, with the
 * programs' code read from their ELF sections and relocations, so that
 * runtime/run.h runs it exactly as it would have run the script.
 *
 * The attach points are expanded again through the providers, here and
 * now; an object whose probes now reach other targets, or targets whose
 * context (args layout, program type) differs from when it was emitted,
 * is refused rather than run with code compiled for another layout.
 */
#ifndef SONDE_EMITTED_H
#define SONDE_EMITTED_H

#include <stdint.h>
#include <stdio.h>

struct arena;
struct serial_object;

/* 1 when path is an ELF file with a .sonde section, 0 when it is another
 * file (a clang-built object), -errno when it cannot be read. */
int emitted_detect(const char *path);

/* Reads path into o (everything in a). Returns 0, or -errno after one
 * sentence to err. */
int emitted_open(struct arena *a, const char *path, struct serial_object *o,
		 FILE *err);

/* What the run supplies: -p, the -c child's pid (0: none) and the start
 * time `elapsed` counts from. */
struct emitted_env {
	int pid, cpid;
	const char *cmd;
	uint64_t start_ns;
};

/* Expands the attach points again and checks them against the object,
 * sets each program's targets, and patches cpid and the start time into
 * the code. Returns 0, or -1 after reporting (located) to err. */
int emitted_resolve(struct arena *a, struct serial_object *o,
		    const struct emitted_env *env, FILE *err);

#endif
