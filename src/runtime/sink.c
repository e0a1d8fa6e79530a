#define _GNU_SOURCE
#include "runtime/sink.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util/errstr.h"

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct sink *s = cookie;
	size_t done = 0;
	/* after a failure nothing is written: the run is stopping, and a
	 * later write that succeeds would leave a hole in the output */
	while (!s->err && done < size) {
		ssize_t n = write(s->fd, buf + done, size - done);
		if (n > 0)
			done += (size_t)n;
		else if (n == 0)
			s->err = -EIO;
		else if (errno != EINTR)
			s->err = -errno;
	}
	/* fopencookie: the bytes taken, 0 for an error */
	return (ssize_t)done;
}

int sink_open(struct sink *s, FILE *under, const char *name, int mode,
	      size_t size)
{
	*s = (struct sink){ .fd = fileno(under), .name = name };
	fflush(under);
	cookie_io_functions_t io = { .write = sink_write };
	s->f = fopencookie(s, "w", io);
	if (!s->f)
		return -errno;
	if (setvbuf(s->f, NULL, mode, size)) {
		fclose(s->f);
		s->f = NULL;
		return -ENOMEM;
	}
	return 0;
}

int sink_flush(struct sink *s)
{
	if (s->f)
		fflush(s->f);
	return s->err;
}

int sink_report(struct sink *s, FILE *err)
{
	if (s->err && !s->reported) {
		fprintf(err, "sonde: cannot write to %s: %s\n", s->name,
			err_str(-s->err));
		fflush(err);
		s->reported = true;
	}
	return s->err;
}

int sink_close(struct sink *s)
{
	if (s->f) {
		fclose(s->f);
		s->f = NULL;
	}
	return s->err;
}
