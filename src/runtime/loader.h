/*
 * The loader: creates the maps of a compiled program, patches their fds
 * into the instructions and loads every program. One struct owns every fd;
 * loader_close() releases them in reverse order and is safe on a partly
 * loaded (or zeroed) loader.
 */
#ifndef SONDE_LOADER_H
#define SONDE_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct compiled;
struct mapdump_map;

struct loader {
	const struct compiled *c;
	int *map_fds;   /* per compiled.maps; -1 until created */
	int *prog_fds;  /* per compiled.progs; -1 until loaded, and once
			 * BEGIN or END has run */
};

struct loader_opts {
	FILE *err;    /* messages (stderr) */
	bool verbose; /* libbpf's messages and the verifier log on rejection */
};

/* Sets libbpf's print callback: silent unless verbose (then to err). */
void loader_libbpf_quiet(bool verbose, FILE *err);

/* Returns 0, or -errno after reporting to o->err, e.g.
 * "sonde: internal error: the kernel verifier rejected the program for
 * PROBE" (the log follows with verbose). Call loader_close() either way. */
int loader_load(struct loader *l, const struct compiled *c,
		const struct loader_opts *o);
void loader_close(struct loader *l);
/* A counter's value: key 0 of an array of one u64 (lost events,
 * inserts lost to a full map); 0 when it cannot be read. */
uint64_t loader_counter_read(int fd);
/* The script's own maps (@x), as mapdump reads them: an array of *n,
 * to free(); NULL only when out of memory. */
struct mapdump_map *loader_user_maps(const struct loader *l, size_t *n);
/* The u64 at byte off of such an array's entry (the .full counters). */
uint64_t loader_counter_read_at(int fd, uint32_t off);

#endif
