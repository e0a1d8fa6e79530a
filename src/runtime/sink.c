#define _GNU_SOURCE
#include "runtime/sink.h"

#include <errno.h>
#include <string.h>

#include "util/errstr.h"

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct sink *s = cookie;
	/* after a failure nothing is written: the run is stopping, and a
	 * later write that succeeds would leave a hole in the output */
	if (s->err)
		return 0;
	/* the failed write(2) inside is the last call to set errno */
	errno = 0;
	size_t done = fwrite(buf, 1, size, s->under);
	if (done < size || fflush(s->under))
		s->err = errno ? -errno : -EIO;
	/* fopencookie: the bytes taken, 0 for an error */
	return (ssize_t)done;
}

int sink_open(struct sink *s, FILE *under, const char *name, int mode,
	      size_t size)
{
	*s = (struct sink){ .under = under, .name = name };
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
