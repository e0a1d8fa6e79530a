/*
 * The unwind tables of the processes sonde unwinds user stacks of
 * (model/unwind.h): each binary's rows (kernel/ehframe.h) loaded once
 * into .uw_rows, and each process's executable mappings into .uw_procs,
 * from /proc/PID/maps as it starts and from the kernel's mmap records
 * (runtime/mmap_events.h) as processes exec and map libraries.
 */
#ifndef SONDE_RUNTIME_UWTABLES_H
#define SONDE_RUNTIME_UWTABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct uwtables;

/* rows_fd, procs_fd: the program's .uw_rows and .uw_procs maps. */
struct uwtables *uwt_open(int rows_fd, int procs_fd);
void uwt_close(struct uwtables *u);

/* Loads the tables of one process (its /proc/PID/maps). Returns 0, or
 * -errno (no such process; a map full). */
int uwt_add_pid(struct uwtables *u, pid_t pid);
/* Every process running now (system-wide unwinding). */
int uwt_add_all(struct uwtables *u);
/* A new executable mapping of pid (an mmap record); a process it has not
 * seen is loaded whole. */
void uwt_on_mmap(struct uwtables *u, pid_t pid, uint64_t start,
		 uint64_t len, uint64_t pgoff, const char *path);
/* pid exited: its entry goes. */
void uwt_on_exit(struct uwtables *u, pid_t pid);
/* pid exec'd (a COMM record with PERF_RECORD_MISC_COMM_EXEC): the old
 * image's mappings go, lest one cover new code (JIT) with another
 * binary's rows, and the new image is read from /proc. */
void uwt_on_exec(struct uwtables *u, pid_t pid);
/* A new process (a FORK record, pid != ppid) has its parent's mappings:
 * it gets its parent's entry, if the parent has one (a child that never
 * maps anything is otherwise never seen). */
void uwt_on_fork(struct uwtables *u, pid_t ppid, pid_t pid);

struct uwt_stats {
	size_t binaries, rows, procs;
	size_t row_bytes, proc_bytes; /* in the maps */
	size_t rows_dropped;          /* binaries that did not fit */
	size_t maps_dropped;          /* mappings past a process's
					 UW_MAPS_MAX (those without rows
					 go first) */
};
void uwt_stats(const struct uwtables *u, struct uwt_stats *s);

#endif
