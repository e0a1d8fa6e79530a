/* The static layer's workload, linked statically (-static -g -O0) so that
 * it runs in the empty root beside sonde-static. `sprog MODE`:
 *   calls  three calls of pair_sum(struct pair *, int) (uprobe with DWARF
 *          args), each firing the USDT probe sprog:mark, five getpid()
 *          syscalls (raw tracepoint) and an openat() of a path that does
 *          not exist (tracepoint, and the opensnoop tool)
 *   spin   about 300 ms in spin() (profile, ustack) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct pair {
	int a;
	long b;
	char tag[8];
};

__attribute__((noinline)) long pair_sum(struct pair *p, int k)
{
	DTRACE_PROBE2(sprog, mark, p->a, k);
	return p->a + p->b + k;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long spin(double secs)
{
	volatile unsigned long x = 0;
	double end = now() + secs;
	while (now() < end)
		for (int i = 0; i < 10000; i++)
			x += i;
	return x;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "spin"))
		return spin(0.3) == 0;
	struct pair p[3] = { { 1, 10, "one" }, { 2, 20, "two" }, { 3, 30, "three" } };
	long t = 0;
	for (int i = 0; i < 3; i++)
		t += pair_sum(&p[i], 100 + i);
	for (int i = 0; i < 5; i++)
		syscall(SYS_getpid);
	int fd = open("/sonde-static-test/no-such-file", O_RDONLY);
	if (fd >= 0)
		close(fd);
	return t == 369 ? 0 : 1;
}
