/*
 * Checked output streams. stdio keeps only a flag when a write fails
 * (ENOSPC, EPIPE, EIO), drops the buffer with it and loses the errno, so
 * the run writes its output through a stream of ours (fopencookie) that
 * passes each of its buffers on to the wrapped stream at once and keeps
 * the first failure. After it nothing more is written: the run reports
 * it once (sink_report), stops cleanly and exits non-zero.
 */
#ifndef SONDE_RUNTIME_SINK_H
#define SONDE_RUNTIME_SINK_H

#include <stdbool.h>
#include <stdio.h>

struct sink {
	FILE *f;          /* what the run writes to; NULL: not open */
	FILE *under;      /* the wrapped stream, written and flushed at once */
	const char *name; /* "stdout", or the -o file's path */
	int err;          /* the first write error (-errno); 0: none */
	bool reported;
};

/* Flushes under (what it holds comes first) and opens s->f over it,
 * buffered as mode/size say (setvbuf's). Returns 0 or -errno. */
int sink_open(struct sink *s, FILE *under, const char *name, int mode,
	      size_t size);
/* Flushes s->f and returns the first write error (-errno), or 0. */
int sink_flush(struct sink *s);
/* The first write error on err, once ("sonde: cannot write to NAME:
 * strerror"). Returns s->err. */
int sink_report(struct sink *s, FILE *err);
/* Flushes and closes s->f (not the wrapped stream). Returns the first
 * write error, or 0. */
int sink_close(struct sink *s);

#endif
