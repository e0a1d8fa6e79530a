/* cputime [-t SECS] [-o FILE] -- CMD [ARGS...]
 *
 * Runs CMD, waits for it with wait4() and writes one line:
 *   wall_s user_s sys_s maxrss_kb exit
 * maxrss is the peak RSS of CMD (and of descendants it waited for); exit is
 * the exit code, "sigN", or "timeout" when it ran past SECS (then it gets
 * SIGINT, and SIGKILL 2 s later). The line goes to FILE, or stderr. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static double tv(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv)
{
	double limit = 0;
	const char *out = NULL;
	int opt;
	while ((opt = getopt(argc, argv, "+t:o:")) != -1) {
		if (opt == 't') limit = atof(optarg);
		else if (opt == 'o') out = optarg;
		else return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: cputime [-t SECS] [-o FILE] -- CMD [ARGS...]\n");
		return 2;
	}
	double t0 = now();
	pid_t pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "cputime: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	struct rusage ru;
	int st = 0, timed_out = 0, sent = 0;
	for (;;) {
		pid_t r = wait4(pid, &st, limit > 0 ? WNOHANG : 0, &ru);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return perror("wait4"), 1;
		double el = now() - t0;
		if (limit > 0 && el > limit && sent == 0) {
			kill(pid, SIGINT);
			timed_out = sent = 1;
		} else if (limit > 0 && el > limit + 2 && sent == 1) {
			kill(pid, SIGKILL);
			sent = 2;
		}
		if (limit > 0)
			usleep(1000);
	}
	double wall = now() - t0;
	char ex[32];
	if (timed_out)
		snprintf(ex, sizeof(ex), "timeout");
	else if (WIFSIGNALED(st))
		snprintf(ex, sizeof(ex), "sig%d", WTERMSIG(st));
	else
		snprintf(ex, sizeof(ex), "%d", WEXITSTATUS(st));
	FILE *f = out ? fopen(out, "w") : stderr;
	if (!f)
		return perror(out), 1;
	fprintf(f, "%.6f %.6f %.6f %ld %s\n", wall, tv(ru.ru_utime), tv(ru.ru_stime), ru.ru_maxrss, ex);
	if (f != stderr)
		fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
