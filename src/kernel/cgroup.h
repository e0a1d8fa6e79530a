/*
 * Cgroup ids: the kernfs node id of a cgroup directory, which is what
 * bpf_get_current_cgroup_id() returns and what cgroupid("/path") folds
 * to. Sema (through its kernel interface) and the runtime's cgroup_path
 * both ask here, so the two agree on what an id is.
 */
#ifndef SONDE_KCGROUP_H
#define SONDE_KCGROUP_H

#include <stdint.h>

/* The id of the cgroup directory at path: 0, or -errno (-EOVERFLOW when
 * the file system's handle is not a 64-bit kernfs id). */
int kcgroup_id(const char *path, uint64_t *id);

#endif
