/* cgroup_path(): a cgroup v2 id back to its path. */
#ifndef SONDE_CGPATH_H
#define SONDE_CGPATH_H

#include <stdint.h>

#include "util/strbuf.h"

/* Appends "unified:/PATH" for the cgroup2 directory whose id (its file
 * handle, what bpf_get_current_cgroup_id() returns) is id. Returns 0, or
 * -ENOENT. ctx is unused (an out_resolver hook). */
int cgpath_resolve(void *ctx, uint64_t id, struct strbuf *sb);

#endif
