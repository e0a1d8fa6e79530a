/*
 * Stacks at run time: symbolising the frames that map keys, values and
 * records hold (kernel: kallsyms, user: runtime/usyms.h).
 *
 * User frames are symbolised when printed, often after the process has
 * exited, so mappings are kept while processes live: as they are made
 * (runtime/mmap_events.h), and in snapshots of /proc/PID/maps of the -c/-p
 * process and of every pid found in a map key or value holding a ustack or
 * usym, on each stacks_tick() while the program runs.
 */
#ifndef SONDE_STACKS_H
#define SONDE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct compiled;
struct mmap_events;
struct out_resolver;
struct usyms;

struct stacks {
	const struct compiled *c;
	const int *map_fds;
	struct usyms *usyms;  /* NULL until a user address is resolved */
	struct mmap_events *mmaps; /* mappings as they are made, or NULL */
	int32_t watch[2];     /* pids snapshotted on every tick; 0: none */
	bool scan;            /* some user map holds ustack/usym values */
	uint64_t next_ms;     /* CLOCK_MONOTONIC of the next tick; 0: now */
	uint32_t ticks;
	/* a record is being printed whose user addresses are not yet named
	 * against the mappings recorded up to now */
	bool behind;
};

void stacks_init(struct stacks *s, const struct compiled *c,
		 const int *map_fds);
void stacks_fini(struct stacks *s);
/* A descriptor readable when stacks_consume() has work; -1: none. */
int stacks_poll_fd(const struct stacks *s);
/* Takes in the mappings made since the last call (before printing). */
void stacks_consume(struct stacks *s);
/* A record of the programs is about to be printed: the mapping records
 * made before it are applied before its first user address is named
 * (they come through other buffers, and may be read after it). */
void stacks_new_record(struct stacks *s);
/* Fills the sym and module hooks of res (ctx = s). */
void stacks_resolver(struct stacks *s, struct out_resolver *res);
/* The user symbol tables (made on first use), for readers that need more
 * of a frame than its name (runtime/pprof.c). */
struct usyms *stacks_usyms(struct stacks *s);
/* Keeps pid's mappings fresh on every tick (the -c or -p process). */
void stacks_watch(struct stacks *s, int32_t pid);
/* Milliseconds until stacks_tick() has work to do (a timeout for the
 * poll loop); -1: never. */
int stacks_tick_ms(struct stacks *s);
/* Snapshots pids if due: often just after start, when the -c command
 * loads its libraries, then every 100 ms (every second when mappings are
 * recorded as they are made). Cheap when not due. */
void stacks_tick(struct stacks *s);

#endif
