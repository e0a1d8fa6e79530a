/*
 * The unwind tables of one run (runtime/uwtables.h) for a program whose
 * user stacks are unwound in the kernel (model/unwind.h): which processes
 * get tables, and keeping them as processes exec, map libraries and exit
 * (the kernel's mmap records, runtime/mmap_events.h). A program without
 * the .uw_procs map costs nothing: dwt_open makes no tables.
 */
#ifndef SONDE_RUNTIME_DWTABLES_H
#define SONDE_RUNTIME_DWTABLES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct compiled;
struct mmap_events;
struct dwtables;

/* The run's tables, or *out = NULL when the program unwinds no stack
 * this way. pid: -p's (0: none); child: -c's pid (0: none), loaded by
 * dwt_child_exec once it has exec'd. Processes: --dwarf-pid's, -p's and
 * the child; with ustack_unwind = dwarf and none of them, every process.
 * mm: the mmap records (NULL: none; processes then keep the mappings
 * they had when loaded). Returns 0 or -errno. */
int dwt_open(struct dwtables **out, const struct compiled *c,
	     const int *map_fds, pid_t pid, pid_t child,
	     struct mmap_events *mm, FILE *err);
/* The -c child stopped at its exec (child_start_stopped): its tables, so
 * that its first samples are unwound. */
void dwt_child_exec(struct dwtables *d);
void dwt_close(struct dwtables *d);

#endif
