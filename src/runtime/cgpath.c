/* cgroup ids to paths: a walk of the cgroup2 mount comparing file
 * handles, as bpftrace's cgroup_path does for its "unified" hierarchy. */
#define _GNU_SOURCE
#include "runtime/cgpath.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>

static uint64_t want;
static char found[4096], root[4096];

/* The cgroup2 mount point (/sys/fs/cgroup or .../unified). */
static int find_root(void)
{
	FILE *f = fopen("/proc/mounts", "r");
	char dev[256], dir[4096], type[64];
	int rc = -ENOENT;
	if (!f)
		return -errno;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(root, sizeof(root), "%s", dir);
			rc = 0;
			break;
		}
	fclose(f);
	return rc;
}

static uint64_t handle_id(const char *path)
{
	struct { struct file_handle fh; uint64_t id; } h;
	int mount_id;
	h.fh.handle_bytes = sizeof(h.id);
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0 ||
	    h.fh.handle_bytes != sizeof(h.id))
		return 0;
	uint64_t id;
	memcpy(&id, h.fh.f_handle, sizeof(id));
	return id;
}

static int visit(const char *path, const struct stat *st, int flag,
		 struct FTW *ftw)
{
	if (flag != FTW_D || handle_id(path) != want)
		return 0;
	snprintf(found, sizeof(found), "%s", path + strlen(root));
	return 1;
}

int cgpath_resolve(void *ctx, uint64_t id, struct strbuf *sb)
{
	want = id;
	found[0] = 0;
	if (find_root() < 0)
		return -ENOENT;
	if (nftw(root, visit, 16, FTW_PHYS | FTW_MOUNT) != 1)
		return -ENOENT;
	sb_printf(sb, "unified:%s", found[0] ? found : "/");
	return 0;
}
