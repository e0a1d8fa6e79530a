/*
 * The kernel's record of executable mappings as they are made: a dummy
 * software perf event per CPU with mmap/comm/task tracking (as perf record
 * uses), fed into runtime/usyms.h. Without it a process that exits before
 * sonde reads its /proc/PID/maps would print bare addresses.
 */
#ifndef SONDE_MMAP_EVENTS_H
#define SONDE_MMAP_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct mmap_events;
struct usyms;
struct uwtables;

/* Starts recording into u. prompt: the descriptor is readable as soon
 * as a record is waiting (the unwind tables need a new process's
 * mappings before its samples); else only once many are. Returns 0 or
 * -errno (e.g. -EACCES). */
int mmapev_open(struct mmap_events **out, struct usyms *u, bool prompt);
/* Readable when records are waiting. */
int mmapev_fd(const struct mmap_events *m);
/* Applies every waiting record. */
void mmapev_consume(struct mmap_events *m);
void mmapev_close(struct mmap_events *m);
/* Also keeps u's unwind tables (runtime/uwtables.h) of the processes
 * want(ctx, pid) accepts: their new executable mappings, their forks,
 * execs and exits. */
void mmapev_feed_uwtables(struct mmap_events *m, struct uwtables *u,
			  bool (*want)(void *ctx, int32_t pid), void *ctx);

#endif
