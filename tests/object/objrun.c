/*
 * Test driver for object mode: the command line src/main.c is to grow,
 *   objrun [--prog NAME]... [--set VAR=VALUE]... [--perf-event NAME:FREQ]
 *          [-f text|json] [-o FILE] [-v] [-c CMD | -p PID] FILE.bpf.o
 * and how -c hands its child to obj_run: fork now, let it exec in the
 * ready() hook (so nothing it does is missed), stop when it exits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "object/object.h"

#define MAX_ARGS 32

static int child_go = -1; /* write end: closing it lets the child exec */

static int release_child(void *ctx)
{
	(void)ctx;
	close(child_go);
	child_go = -1;
	return 0;
}

/* Splits cmd on spaces (as bpftrace does) and forks a child that waits
 * for release_child() before it execs. */
static pid_t spawn(char *cmd)
{
	char *argv[MAX_ARGS];
	int argc = 0;
	for (char *t = strtok(cmd, " "); t && argc < MAX_ARGS - 1;
	     t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	int p[2];
	if (!argc || pipe(p))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(p[1]);
		if (read(p[0], &c, 1) < 0)
			_exit(127);
		close(p[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "objrun: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(p[0]);
	child_go = p[1];
	return pid;
}

int main(int argc, char **argv)
{
	const char *progs[MAX_ARGS], *sets[MAX_ARGS];
	struct obj_opts o = { .progs = progs, .sets = sets };
	char *cmd = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-v")) {
			o.verbose = true;
			continue;
		}
		if (*a != '-') {
			o.path = a;
			continue;
		}
		if (!v) {
			fprintf(stderr, "objrun: %s needs a value\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--prog") && o.nprogs < MAX_ARGS)
			progs[o.nprogs++] = v;
		else if (!strcmp(a, "--set") && o.nsets < MAX_ARGS)
			sets[o.nsets++] = v;
		else if (!strcmp(a, "--perf-event"))
			o.perf_event = v;
		else if (!strcmp(a, "-f"))
			o.format = v;
		else if (!strcmp(a, "-o") && !(o.out = fopen(v, "w"))) {
			perror(v);
			return 1;
		} else if (!strcmp(a, "-c"))
			cmd = strdup(v);
		else if (!strcmp(a, "-p"))
			o.stop_pid = atoi(v);
		else if (strcmp(a, "-o")) {
			fprintf(stderr, "objrun: unknown option %s\n", a);
			return 2;
		}
	}
	if (!o.path) {
		fprintf(stderr, "objrun: no object file\n");
		return 2;
	}
	if (cmd) {
		o.stop_pid = spawn(cmd);
		if (o.stop_pid < 0)
			return 1;
		o.stop_pid_is_child = true;
		o.ready = release_child;
	}
	int err = obj_run(&o);
	if (child_go >= 0) { /* never released: the child must not run */
		kill(o.stop_pid, SIGKILL);
		close(child_go);
		waitpid(o.stop_pid, NULL, 0);
	}
	if (o.out)
		fclose(o.out);
	free(cmd);
	return err ? 1 : 0;
}
