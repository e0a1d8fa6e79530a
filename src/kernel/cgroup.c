/* Cgroup ids from file handles (kernel/cgroup.h). */
#define _GNU_SOURCE /* name_to_handle_at */
#include "kernel/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

/* A cgroup's id is its kernfs node id, which name_to_handle_at() gives
 * as an 8-byte handle for a path on a cgroup mount (as bpftrace reads
 * it). A handle of another size is some other file system's, whose bytes
 * are no id. */
int kcgroup_id(const char *path, uint64_t *id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h;
	int mount_id;
	h.fh.handle_bytes = sizeof(h.id);
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0)
		return -errno;
	if (h.fh.handle_bytes != sizeof(h.id))
		return -EOVERFLOW;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}
