/*
 * Workload for the stack tests: main -> level1 -> level2 -> level3 -> spin,
 * built with frame pointers and no inlining or sibling calls, so that
 * every level is a frame. spin() burns CPU (for profile samples) and ends
 * with getppid() (a syscall the tracepoint tests catch at a known depth).
 * Before that, lseek(-1, &level2, SEEK_SET) hands the address of level2 to
 * a tracepoint (args->offset) for the usym() tests; it fails with EBADF.
 *   stackwl [N]   N rounds (default 1000, about 0.1 ms of CPU each)
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

volatile unsigned long sink;

void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i;
	getppid();
}

void level3(long n)
{
	spin(n);
	sink++;
}

void level2(long n)
{
	level3(n);
	sink++;
}

void level1(long n)
{
	level2(n);
	sink++;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000;
	lseek(-1, (off_t)(uintptr_t)level2, SEEK_SET);
	for (long i = 0; i < rounds; i++)
		level1(100000);
	return 0;
}
