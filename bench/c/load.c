/* load SECS [RATE]: calls getppid() as fast as it can (or RATE times a
 * second) for SECS seconds, then prints "calls N secs S pid P". The probe
 * under test is sys_enter_getppid. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1, t0 = now(), t;
	double rate = argc > 2 ? atof(argv[2]) : 0;
	unsigned long long n = 0;
	if (rate > 0) {
		/* Paced: catch up to rate * elapsed every 100 us, so the calls
		 * come in small bursts at an even average rate. */
		struct timespec tick = { 0, 100000 };
		while ((t = now() - t0) < secs) {
			unsigned long long due = (unsigned long long)(rate * t);
			for (; n < due; n++)
				syscall(SYS_getppid);
			nanosleep(&tick, NULL);
		}
	} else {
		do {
			for (int i = 0; i < 1000; i++)
				syscall(SYS_getppid);
			n += 1000;
		} while ((t = now() - t0) < secs);
	}
	printf("calls %llu secs %.6f pid %d\n", n, t, getpid());
	return 0;
}
