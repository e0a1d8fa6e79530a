#include "runtime/progress.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void progress_start(struct progress *p, FILE *f, bool enabled,
		    const char *what, uint64_t total)
{
	*p = (struct progress){ .what = what, .total = total };
	if (!enabled || !f || !isatty(fileno(f)))
		return;
	const char *d = getenv("SONDE_PROGRESS_DELAY_MS");
	char *end;
	long ms = d ? strtol(d, &end, 10) : 1000;
	if (!d || *end || ms < 0)
		ms = 1000;
	p->f = f;
	p->delay_ns = (uint64_t)ms * 1000000ull;
	p->start_ns = now_ns();
}

void progress_step(struct progress *p, uint64_t done)
{
	if (!p->f)
		return;
	uint64_t t = now_ns();
	if (t - p->start_ns < p->delay_ns ||
	    (p->shown && t - p->last_ns < 100000000ull && done < p->total))
		return;
	fprintf(p->f, "\r%s: %llu/%llu", p->what, (unsigned long long)done,
		(unsigned long long)p->total);
	fflush(p->f);
	p->shown = true;
	p->last_ns = t;
}

void progress_end(struct progress *p)
{
	if (p->f && p->shown) {
		fputs("\r\033[K", p->f);
		fflush(p->f);
	}
	p->f = NULL;
}
