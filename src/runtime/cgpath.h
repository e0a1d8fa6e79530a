/* cgroup_path(): a cgroup id back to its path in each hierarchy. */
#ifndef SONDE_CGPATH_H
#define SONDE_CGPATH_H

#include <stdint.h>

#include "util/strbuf.h"

/* Appends "NAME:/PATH" for each mounted cgroup hierarchy whose name
 * matches glob (NULL: all; "unified" is cgroup2, a v1 one is named by its
 * mount directory) and has a directory whose id (its file handle, what
 * bpf_get_current_cgroup_id() returns for cgroup2) is id, joined by ','
 * with unified first, as bpftrace; nothing when none has it. Returns 0,
 * or -errno when /proc/mounts cannot be read. ctx is unused (an
 * out_resolver hook). */
int cgpath_resolve(void *ctx, uint64_t id, const char *glob,
		   struct strbuf *sb);

#endif
