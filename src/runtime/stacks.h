/*
 * Stacks at run time: reading stack ids back from the stack trace maps
 * codegen creates (one per frame limit, named by
 * stacks_map_name), symbolising their frames (kernel: kallsyms, user:
 * runtime/usyms.h), and the lost-sample counter.
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

/* The per-CPU array of one u64 counting lost samples. */
#define STACKS_LOST_MAP ".stack_lost"

/* ".stack127": the stack map of a frame limit, shared by kstack and ustack
 * as in bpftrace. */
void stacks_map_name(char *buf, size_t size, uint32_t limit);
/* Its slots: a stack that hashes to a taken slot is lost, so as many as
 * 32 MiB of frames hold (bpftrace takes 131072 slots, 133 MB and about
 * 150 ms to create for 127 frames; 32768 take a quarter). */
uint32_t stacks_map_entries(uint32_t limit);

struct stacks {
	const struct compiled *c;
	const int *map_fds;
	struct usyms *usyms;  /* NULL until a user address is resolved */
	struct mmap_events *mmaps; /* mappings as they are made, or NULL */
	int32_t watch[2];     /* pids snapshotted on every tick; 0: none */
	bool scan;            /* some user map holds ustack/usym values */
	uint64_t next_ms;     /* CLOCK_MONOTONIC of the next tick; 0: now */
	uint32_t ticks;
};

void stacks_init(struct stacks *s, const struct compiled *c,
		 const int *map_fds);
void stacks_fini(struct stacks *s);
/* A descriptor readable when stacks_consume() has work; -1: none. */
int stacks_poll_fd(const struct stacks *s);
/* Takes in the mappings made since the last call (before printing). */
void stacks_consume(struct stacks *s);
/* Fills the sym, module and stack hooks of res (ctx = s). */
void stacks_resolver(struct stacks *s, struct out_resolver *res);
/* Keeps pid's mappings fresh on every tick (the -c or -p process). */
void stacks_watch(struct stacks *s, int32_t pid);
/* Milliseconds until stacks_tick() has work to do (a timeout for the
 * poll loop); -1: never. */
int stacks_tick_ms(struct stacks *s);
/* Snapshots pids if due: often just after start, when the -c command
 * loads its libraries, then every 100 ms (every second when mappings are
 * recorded as they are made). Cheap when not due. */
void stacks_tick(struct stacks *s);
/* Samples lost so far (stack map collisions or a full map). */
uint64_t stacks_lost(const struct stacks *s);

#endif
