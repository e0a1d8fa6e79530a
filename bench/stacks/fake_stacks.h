/*
 * Made-up user stacks for the stack benchmarks: frames are addresses
 * spread deterministically over this binary's own code, so that each one
 * symbolises to a real function of a real mapping. Included by one
 * program each (everything is static).
 */
#ifndef BENCH_FAKE_STACKS_H
#define BENCH_FAKE_STACKS_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define FRAMES 10

static uint64_t text_lo, text_hi;

/* frame i of stack id */
static uint64_t frame(uint32_t id, uint32_t i)
{
	uint64_t h = (uint64_t)id * 2654435761u + i * 40503u + 7;
	return text_lo + h % (text_hi - text_lo);
}

/* [text_lo, text_hi): the mapping holding this code */
static void find_text(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t self = (uint64_t)(uintptr_t)&find_text;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		if (sscanf(line, "%llx-%llx", &s, &e) == 2 && s <= self &&
		    self < e) {
			text_lo = s;
			text_hi = e;
		}
	}
	if (f)
		fclose(f);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
