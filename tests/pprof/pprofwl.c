/*
 * Workload of the pprof tests, built with -O2 -g and frame pointers.
 *   pprofwl inline N     N rounds of outer(), where the hot loop is an
 *                        always-inline function, hot(): its samples are at
 *                        addresses whose DWARF says "hot, inlined in outer"
 *   pprofwl phases A B M alpha() spins for A seconds, then M (a file) is
 *                        created and beta() spins for B seconds: a profile
 *                        of a window after M exists holds beta, not alpha
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile unsigned long sink;

static inline __attribute__((always_inline)) void hot(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i * 3;
}

/* a call after the loop keeps outer a frame of its own */
__attribute__((noinline)) void tick(void)
{
	sink++;
}

__attribute__((noinline)) void outer(long n)
{
	hot(n);
	tick();
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void alpha(double until)
{
	while (now() < until)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i;
}

__attribute__((noinline)) void beta(double until)
{
	while (now() < until)
		for (int i = 0; i < 100000; i++)
			sink ^= (unsigned long)i;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "inline")) {
		long rounds = atol(argv[2]);
		for (long i = 0; i < rounds; i++)
			outer(100000);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "phases")) {
		double t = now();
		alpha(t + atof(argv[2]));
		FILE *m = fopen(argv[4], "w");
		if (m)
			fclose(m);
		beta(now() + atof(argv[3]));
		return 0;
	}
	fprintf(stderr, "usage: pprofwl inline N | phases A B MARKER\n");
	return 2;
}
