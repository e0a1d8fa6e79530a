/*
 * The deterministic workload of the object tests (its comm is "objwl"):
 *   objwl writes   writes of known sizes to /dev/null (see below)
 *   objwl calls    objwl_target(n) called n times for n = 1, 2, 3
 *   objwl spin MS  burns CPU for MS milliseconds
 *   objwl usdt     USDT probe objwl:tick(n) hit n times for n = 1, 2, 3
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int objwl_target(int n)
{
	__asm__ volatile("" ::: "memory"); /* keep the call */
	return n * 2;
}

/* What <sys/sdt.h>'s STAP_PROBE1 emits (x86_64), which is not installed
 * here: a nop at the probe site and a .note.stapsdt entry naming it. */
__attribute__((noinline)) static void objwl_tick(int n)
{
	__asm__ __volatile__(
		"990: nop\n"
		".pushsection .note.stapsdt,\"?\",\"note\"\n"
		".balign 4\n"
		".4byte 992f-991f, 994f-993f, 3\n"
		"991: .asciz \"stapsdt\"\n"
		"992: .balign 4\n"
		"993: .8byte 990b\n"
		".8byte _.stapsdt.base\n"
		".8byte 0\n"
		".asciz \"objwl\"\n"
		".asciz \"tick\"\n"
		".asciz \"-4@%0\"\n"
		"994: .balign 4\n"
		".popsection\n"
		".ifndef _.stapsdt.base\n"
		".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n"
		".weak _.stapsdt.base\n"
		".hidden _.stapsdt.base\n"
		"_.stapsdt.base: .space 1\n"
		".size _.stapsdt.base, 1\n"
		".popsection\n"
		".endif\n"
		:: "nor"(n));
}

static char buf[8192];

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "writes")) {
		/* size x times: 0x1 1x1 2x2 3x3 8x4 100x5 4096x2 */
		static const struct { int size, times; } w[] = {
			{ 0, 1 }, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 8, 4 },
			{ 100, 5 }, { 4096, 2 },
		};
		int fd = open("/dev/null", O_WRONLY);
		for (size_t i = 0; i < sizeof(w) / sizeof(*w); i++)
			for (int t = 0; t < w[i].times; t++)
				if (write(fd, buf, (size_t)w[i].size) < 0)
					return 1;
		close(fd);
		return 0;
	}
	if (!strcmp(argv[1], "calls")) {
		int s = 0;
		for (int n = 1; n <= 3; n++)
			for (int t = 0; t < n; t++)
				s += objwl_target(n);
		return s == 28 ? 0 : 1;
	}
	if (!strcmp(argv[1], "usdt")) {
		for (int n = 1; n <= 3; n++)
			for (int t = 0; t < n; t++)
				objwl_tick(n);
		return 0;
	}
	if (!strcmp(argv[1], "spin") && argc > 2) {
		struct timespec a, b;
		long ms = atol(argv[2]);
		volatile unsigned long x = 0;
		clock_gettime(CLOCK_MONOTONIC, &a);
		do {
			for (int i = 0; i < 100000; i++)
				x += (unsigned long)i;
			clock_gettime(CLOCK_MONOTONIC, &b);
		} while ((b.tv_sec - a.tv_sec) * 1000 +
			 (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
		return 0;
	}
	return 2;
}
