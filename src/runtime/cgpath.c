/* cgroup ids to paths, as bpftrace's cgroup_path: in each mounted
 * hierarchy whose name matches the glob ("unified" for cgroup2, the mount
 * directory's name for a v1 one: "cpu", "memory", "systemd"...), the
 * directory whose id is the id; "unified:/a,cpu:/b", unified first, then
 * by name, hierarchies without one left out. Ids are compared as file
 * handles, which are the kernfs ids bpf_get_current_cgroup_id() returns.
 * A v1 hierarchy numbers its own directories, so a v1 id (cgroupid() of a
 * v1 path) is found in its hierarchy, as in bpftrace. */
#define _GNU_SOURCE
#include "runtime/cgpath.h"

#include <errno.h>
#include <stdbool.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cgroup.h"
#include "kernel/glob.h"

struct hierarchy {
	char root[4096];
	bool unified; /* cgroup2; else named by root's last part */
};

static const char *hname(const struct hierarchy *h)
{
	const char *slash = strrchr(h->root, '/');
	return h->unified ? "unified" : slash ? slash + 1 : h->root;
}

static uint64_t want;
static size_t root_len;
static char found[4096];

/* The id of the directory at path, 0 when it has none. */
static uint64_t handle_id(const char *path)
{
	uint64_t id;
	return kcgroup_id(path, &id) < 0 ? 0 : id;
}

static int visit(const char *path, const struct stat *st, int flag,
		 struct FTW *ftw)
{
	if (flag != FTW_D || handle_id(path) != want)
		return 0;
	snprintf(found, sizeof(found), "%s", path + root_len);
	return 1;
}

static int cmp_hierarchy(const void *a, const void *b)
{
	const struct hierarchy *x = a, *y = b;
	if (x->unified != y->unified)
		return x->unified ? -1 : 1;
	return strcmp(hname(x), hname(y));
}

/* The cgroup mounts of /proc/mounts, named; *n of them (at most max). */
static int hierarchies(struct hierarchy *h, size_t max, size_t *n)
{
	FILE *f = fopen("/proc/mounts", "r");
	char dev[256], dir[4096], type[64];
	if (!f)
		return -errno;
	*n = 0;
	while (*n < max &&
	       fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		bool v2 = !strcmp(type, "cgroup2");
		if (!v2 && strcmp(type, "cgroup"))
			continue;
		memcpy(h[*n].root, dir, sizeof(dir));
		h[*n].unified = v2;
		(*n)++;
	}
	fclose(f);
	qsort(h, *n, sizeof(*h), cmp_hierarchy);
	return 0;
}

int cgpath_resolve(void *ctx, uint64_t id, const char *glob,
		   struct strbuf *sb)
{
	struct hierarchy h[32];
	size_t n = 0;
	int err = hierarchies(h, sizeof(h) / sizeof(h[0]), &n);
	if (err)
		return err;
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		if (glob && !glob_match(glob, hname(&h[i])))
			continue;
		want = id;
		found[0] = 0;
		root_len = strlen(h[i].root);
		if (nftw(h[i].root, visit, 16, FTW_PHYS | FTW_MOUNT) != 1)
			continue;
		sb_printf(sb, "%s%s:%s", any ? "," : "", hname(&h[i]),
			  found[0] ? found : "/");
		any = true;
	}
	return 0;
}
