/* The standard streams' guard and the bounded reading of a named file. */
#include "util/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int files_guard_stdio(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* the lower fds are open by now, so open() returns fd */
		int n = open("/dev/null", (fd ? O_RDONLY : O_WRONLY));
		if (n < 0)
			return -errno;
		if (n != fd) {
			/* cannot happen unless another thread opened one */
			int rc = dup2(n, fd) < 0 ? -errno : 0;
			close(n);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int files_read(const char *path, size_t cap, char **text, size_t *len)
{
	/* stat first: opening a FIFO or a device can block or act (a tape
	 * rewinds); O_NONBLOCK in case it was swapped for one since, and
	 * fstat to judge what was opened */
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	int err = 0;
	char *buf = NULL;
	size_t n = 0, size = 0;
	if (fstat(fd, &st) < 0)
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	/* st_size is not trusted (a /proc file says 0): read to the end or
	 * one byte past cap, whichever comes first */
	while (!err) {
		if (n == size) {
			size_t want = size ? size * 2 : 65536;
			if (want > cap + 1)
				want = cap + 1;
			char *nb = realloc(buf, want + 1);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
			size = want;
		}
		ssize_t got = read(fd, buf + n, size - n);
		if (got < 0) {
			if (errno != EINTR)
				err = -errno;
			continue;
		}
		if (!got)
			break;
		n += (size_t)got;
		if (n > cap)
			err = -EFBIG;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	if (!buf && !(buf = malloc(1)))
		return -ENOMEM;
	buf[n] = 0;
	*text = buf;
	*len = n;
	return 0;
}

const char *files_err_str(int err, size_t cap)
{
	static __thread char why[64];
	if (err == -EINVAL)
		return "not a regular file";
	if (err == -EFBIG) {
		if (cap % (1u << 20) == 0)
			snprintf(why, sizeof(why), "larger than %zu MiB",
				 cap >> 20);
		else
			snprintf(why, sizeof(why), "larger than %zu bytes",
				 cap);
		return why;
	}
	return strerror(-err);
}
