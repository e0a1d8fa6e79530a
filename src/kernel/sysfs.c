#include "kernel/sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/xalloc.h"

int sysfs_read(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = 0;
	while (len + 1 < n) {
		ssize_t r = read(fd, buf + len, n - 1 - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int err = -errno;
			close(fd);
			return err;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	return (int)len;
}

int sysfs_slurp(const char *path, char **out, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Pseudo files report st_size 0, so grow as we go. */
	size_t cap = 8192, len = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (cap - len < 4096)
			buf = xrealloc(buf, cap *= 2);
		ssize_t r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int err = -errno;
			close(fd);
			free(buf);
			return err;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	if (lenp)
		*lenp = len;
	return 0;
}

int sysfs_read_u64(const char *path, uint64_t *val)
{
	char buf[64], *end;
	int n = sysfs_read(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);
	if (end == buf || errno)
		return -EINVAL;
	*val = v;
	return 0;
}
