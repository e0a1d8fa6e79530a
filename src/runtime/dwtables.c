/* The unwind tables of one run (dwtables.h). */
#include "runtime/dwtables.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/compiled.h"
#include "model/limits.h"
#include "model/unwind.h"
#include "runtime/mmap_events.h"
#include "runtime/uwtables.h"
#include "util/xalloc.h"

struct dwtables {
	struct uwtables *u;
	struct mmap_events *mm;
	bool all;        /* every process (ustack_unwind = dwarf, no pid) */
	pid_t pids[3];   /* --dwarf-pid, -p, -c; 0: none */
	FILE *err;
};

static int map_index(const struct compiled *c, const char *name)
{
	for (uint32_t i = 0; i < c->nmaps; i++)
		if (c->maps[i].name && !strcmp(c->maps[i].name, name))
			return (int)i;
	return -1;
}

static bool wanted(void *ctx, int32_t pid)
{
	const struct dwtables *d = ctx;
	if (d->all)
		return true;
	for (int i = 0; i < 3; i++)
		if (d->pids[i] && d->pids[i] == pid)
			return true;
	return false;
}

static void add(struct dwtables *d, pid_t pid)
{
	int err = uwt_add_pid(d->u, pid);
	if (err)
		fprintf(d->err, "sonde: no unwind tables for pid %d: %s\n",
			(int)pid, strerror(-err));
}

int dwt_open(struct dwtables **out, const struct compiled *c,
	     const int *map_fds, pid_t pid, pid_t child,
	     struct mmap_events *mm, FILE *err)
{
	*out = NULL;
	int rows = map_index(c, UW_ROWS_MAP), procs = map_index(c, UW_PROCS_MAP);
	if (rows < 0 || procs < 0)
		return 0;
	struct dwtables *d = xcalloc(1, sizeof(*d));
	d->u = uwt_open(map_fds[rows], map_fds[procs]);
	if (!d->u) {
		int e = errno ? -errno : -ENOMEM;
		free(d);
		return e;
	}
	d->err = err;
	d->mm = mm;
	d->pids[0] = limits.dwarf_pid;
	d->pids[1] = pid;
	d->pids[2] = child;
	d->all = limits.ustack_dwarf == UNWIND_DWARF && !limits.dwarf_pid &&
		 !pid && !child;
	/* the child is loaded as it execs (dwt_child_exec): before, it is
	 * a copy of sonde waiting */
	for (int i = 0; i < 2; i++)
		if (d->pids[i] && (i == 0 || d->pids[i] != d->pids[0]))
			add(d, d->pids[i]);
	if (d->all) {
		int e = uwt_add_all(d->u);
		if (e)
			fprintf(err, "sonde: unwind tables: %s\n", strerror(-e));
	}
	if (mm)
		mmapev_feed_uwtables(mm, d->u, wanted, d);
	*out = d;
	return 0;
}

void dwt_child_exec(struct dwtables *d)
{
	if (!d || !d->pids[2])
		return;
	/* the exec's records first (its comm record reloads the image),
	 * then the new image as /proc shows it, records or not */
	if (d->mm)
		mmapev_consume(d->mm);
	add(d, d->pids[2]);
}

void dwt_close(struct dwtables *d)
{
	if (!d)
		return;
	if (d->mm)
		mmapev_feed_uwtables(d->mm, NULL, NULL, NULL);
	/* what did not fit: those frames ended [truncated]; say why */
	struct uwt_stats st;
	uwt_stats(d->u, &st);
	if (st.rows_dropped)
		fprintf(d->err, "WARNING: the unwind tables had no room for "
			"%zu binaries (%u rows in all): their frames ended "
			"the stacks, marked [truncated]\n", st.rows_dropped,
			UW_ROWS_MAX);
	if (st.maps_dropped)
		fprintf(d->err, "WARNING: %zu executable mappings were past "
			"a process's %u: their frames ended the stacks, "
			"marked [truncated]\n", st.maps_dropped, UW_MAPS_MAX);
	uwt_close(d->u);
	free(d);
}
