/*
 * Decoding of ring buffer records: each starts with struct event_hdr,
 * whose id selects the compiled.events entry that says what the payload
 * means (printf, system, cat, time, exit, print, clear, zero, join).
 */
#ifndef SONDE_EVENTS_H
#define SONDE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/strbuf.h"

struct compiled;
struct out;

struct events {
	const struct compiled *c;
	const int *map_fds;  /* per compiled.maps */
	struct out *o;
	FILE *err;           /* messages (stderr) */
	bool unsafe;         /* system() may run */
	bool exit_requested; /* an exit() record was seen */
	/* the records lost before the first exit() (its record says) */
	bool exit_lost_known;
	uint64_t lost_before_exit;
	int exit_code;       /* the first exit(CODE)'s code, else 0 */
	unsigned nbad;       /* malformed records (reported once) */
	struct strbuf sb;    /* scratch */
	/* unwatch(addr): disarms the watchpoints on addr */
	void (*unwatch)(void *ctx, uint64_t addr);
	void *unwatch_ctx;
};

/* Handles one record. Never fails the run: problems are reported to
 * e->err. Returns 0 (the ring_buffer_sample_fn contract: keep going). */
int events_handle(struct events *e, const void *data, size_t size);
void events_fini(struct events *e);

#endif
