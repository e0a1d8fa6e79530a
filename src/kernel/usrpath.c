#define _GNU_SOURCE
#include "kernel/usrpath.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool usrpath_lib_matches(const char *name, const char *so)
{
	if (!strcmp(name, so))
		return true;
	size_t n = strlen(name);
	if (!strncmp(so, name, n) && !strncmp(so + n, ".so", 3))
		return true;
	return !strncmp(so, "lib", 3) && !strncmp(so + 3, name, n) &&
	       !strncmp(so + 3 + n, ".so", 3);
}

static int put(char *out, size_t len, const char *dir, const char *file)
{
	int n = dir ? snprintf(out, len, "%s/%s", dir, file) :
		      snprintf(out, len, "%s", file);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool is_file(const char *path, int mode)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, mode);
}

/* The mapped files of pid (the lines of /proc/PID/maps with a path). */
static int from_maps(const char *name, int pid, char *out, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	char line[4096];
	int err = -ENOENT;
	while (err == -ENOENT && fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/');
		if (!file)
			continue;
		file[strcspn(file, "\n")] = 0;
		const char *base = strrchr(file, '/') + 1;
		if (usrpath_lib_matches(name, base))
			err = put(out, len, NULL, file);
	}
	fclose(f);
	return err;
}

/* glibc's ld.so.cache, "new" format (possibly after an old-format
 * table): a header, then entries whose key (soname) and value (path) are
 * offsets from the start of the new table. */
#define CACHE_MAGIC "glibc-ld.so.cache1.1"
struct cache_head {
	char magic[sizeof(CACHE_MAGIC) - 1];
	uint32_t nlibs, len_strings;
	uint8_t flags, pad[3];
	uint32_t extension_offset, unused[3];
};
struct cache_entry {
	int32_t flags;
	uint32_t key, value, osversion;
	uint64_t hwcap;
};

#if defined(__x86_64__)
#define CACHE_ARCH 0x0303 /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
#elif defined(__aarch64__)
#define CACHE_ARCH 0x0a03 /* FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64 */
#else
#define CACHE_ARCH 0
#endif

static int from_cache_image(const char *name, const char *img, size_t size,
			    char *out, size_t len)
{
	const char *p = memmem(img, size, CACHE_MAGIC, sizeof(CACHE_MAGIC) - 1);
	if (!p)
		return -ENOENT;
	size_t base = (size_t)(p - img);
	struct cache_head h;
	if (size - base < sizeof(h))
		return -ENOENT;
	memcpy(&h, p, sizeof(h));
	size_t ents = base + sizeof(h);
	if (h.nlibs > (size - ents) / sizeof(struct cache_entry))
		return -ENOENT;
	for (uint32_t i = 0; i < h.nlibs; i++) {
		struct cache_entry e;
		memcpy(&e, img + ents + i * sizeof(e), sizeof(e));
		if (CACHE_ARCH && e.flags != CACHE_ARCH)
			continue;
		if (e.key >= size - base || e.value >= size - base)
			continue;
		const char *key = p + e.key, *val = p + e.value;
		if (!memchr(key, 0, size - base - e.key) ||
		    !memchr(val, 0, size - base - e.value))
			continue;
		if (usrpath_lib_matches(name, key))
			return put(out, len, NULL, val);
	}
	return -ENOENT;
}

static int from_cache(const char *name, char *out, size_t len)
{
	FILE *f = fopen("/etc/ld.so.cache", "r");
	if (!f)
		return -ENOENT;
	char *img = NULL;
	size_t size = 0, cap = 0, n;
	do {
		if (size == cap) {
			char *ni = realloc(img, cap = cap ? 2 * cap : 65536);
			if (!ni)
				break;
			img = ni;
		}
		n = fread(img + size, 1, cap - size, f);
		size += n;
	} while (n);
	fclose(f);
	int err = img ? from_cache_image(name, img, size, out, len) : -ENOMEM;
	free(img);
	return err;
}

static int from_dir(const char *name, const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	if (!d)
		return -ENOENT;
	int err = -ENOENT;
	struct dirent *e;
	while (err == -ENOENT && (e = readdir(d)))
		if (usrpath_lib_matches(name, e->d_name)) {
			err = put(out, len, dir, e->d_name);
			if (!err && !is_file(out, R_OK))
				err = -ENOENT;
		}
	closedir(d);
	return err;
}

static const char *const lib_dirs[] = {
#if defined(__x86_64__)
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
	"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
#endif
	"/lib64", "/usr/lib64", "/lib", "/usr/lib",
};

static int from_path(const char *name, char *out, size_t len)
{
	const char *env = getenv("PATH");
	char *paths = strdup(env ? env : "/usr/local/bin:/usr/bin:/bin");
	if (!paths)
		return -ENOMEM;
	int err = -ENOENT;
	char *save = NULL;
	for (char *dir = strtok_r(paths, ":", &save); dir && err == -ENOENT;
	     dir = strtok_r(NULL, ":", &save)) {
		err = put(out, len, dir, name);
		if (!err && !is_file(out, X_OK))
			err = -ENOENT;
	}
	free(paths);
	return err;
}

int usrpath_resolve(const char *name, int pid, char *out, size_t len)
{
	if (strchr(name, '/'))
		return put(out, len, NULL, name);
	int err = pid > 0 ? from_maps(name, pid, out, len) : -ENOENT;
	if (err == -ENOENT)
		err = from_cache(name, out, len);
	for (size_t i = 0; err == -ENOENT && i < sizeof(lib_dirs) /
						     sizeof(*lib_dirs); i++)
		err = from_dir(name, lib_dirs[i], out, len);
	if (err == -ENOENT)
		err = from_path(name, out, len);
	return err;
}
