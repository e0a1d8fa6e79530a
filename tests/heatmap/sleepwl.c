/* Workload of the heatmap and metrics layers: known latencies.
 *   sleepwl [-p PAUSE_MS] PAIRS...
 * For each PAIRS argument: PAIRS times a 1 ms then an 8 ms nanosleep
 * (the nanosleep syscall itself: glibc's nanosleep() is clock_nanosleep),
 * then one getppid() (the scripts print on it), then a pause of PAUSE_MS
 * (default 300) in poll(), which is no nanosleep, so that the print of a
 * phase happens before the next phase starts. */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void snooze(long ns)
{
	struct timespec t = { 0, ns };
	syscall(SYS_nanosleep, &t, NULL);
}

int main(int argc, char **argv)
{
	int pause_ms = 300, a = 1;
	if (argc > 2 && !strcmp(argv[1], "-p")) {
		pause_ms = atoi(argv[2]);
		a = 3;
	}
	for (; a < argc; a++) {
		for (int i = atoi(argv[a]); i > 0; i--) {
			snooze(1000000);
			snooze(8000000);
		}
		getppid();
		poll(NULL, 0, pause_ms);
	}
	return 0;
}
