/* "Attaching probes: 120/361" on a terminal while a long attach runs.
 * Nothing until the work has taken SONDE_PROGRESS_DELAY_MS (default 1000:
 * short runs stay quiet), nothing when the stream is not a terminal; the
 * caller leaves it off for -q and JSON output. The line is redrawn in
 * place (\r) at most ten times a second and erased when done. */
#ifndef SONDE_RUNTIME_PROGRESS_H
#define SONDE_RUNTIME_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct progress {
	FILE *f;            /* NULL: off */
	const char *what;   /* "Attaching probes" */
	uint64_t total;
	uint64_t start_ns, delay_ns, last_ns;
	bool shown;
};

/* enabled: what the caller allows (not -q, not JSON); the terminal check
 * is made here. */
void progress_start(struct progress *p, FILE *f, bool enabled,
		    const char *what, uint64_t total);
void progress_step(struct progress *p, uint64_t done);
/* Erases the line if it was shown. */
void progress_end(struct progress *p);

#endif
