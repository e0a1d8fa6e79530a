/* -c CMD: fork now, exec later. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/child.h"

/* What the child reads from its eventfd. */
enum { CHILD_GO = 1, CHILD_GIVE_UP = 2 };

/* Whether file can be executed, searching PATH for names without '/'. */
static int check_exec(const char *file)
{
	if (!*file)
		return -ENOENT;
	if (strchr(file, '/'))
		return access(file, X_OK) ? -errno : 0;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int err = -ENOENT;
	while (*path) {
		size_t n = strcspn(path, ":");
		char buf[4096];
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)n,
			     n ? path : ".", file) < (int)sizeof(buf)) {
			if (!access(buf, X_OK))
				return 0;
			if (errno == EACCES)
				err = -EACCES;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return err;
}

/* Waits (up to a second) until the child sleeps in its read of the go
 * signal. Its getppid() check then happened before any probe is attached,
 * so a script filtering on cpid sees only what bpftrace's child does. The
 * wait reads /proc, so the child itself makes no extra system call. */
static void wait_parked(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 20000; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = 0;
		const char *st = strrchr(buf, ')');
		/* 'S': asleep, and the read is the only place it sleeps
		 * before exec; 'Z'/'X': it already gave up. */
		if (!st || st[1] != ' ' || strchr("SZX", st[2]))
			return;
		usleep(50);
	}
}

int child_spawn(struct child *ch, char *const argv[])
{
	memset(ch, 0, sizeof(*ch));
	ch->go_fd = ch->pidfd = -1;
	int err = check_exec(argv[0]);
	if (err)
		return err;
	int go = eventfd(0, EFD_CLOEXEC);
	if (go < 0)
		return -errno;
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		err = -errno;
		close(go);
		return err;
	}
	if (pid == 0) {
		/* Die with sonde, even when it is SIGKILLed. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(0);
		/* Scripts filtering on cpid see what the child does once the
		 * probes are attached: one 8-byte read, a close and the exec,
		 * exactly as bpftrace's child does. */
		uint64_t v = 0;
		if (read(go, &v, sizeof(v)) != sizeof(v) || v != CHILD_GO)
			_exit(0); /* sonde gave up before starting us */
		close(go);
		execvp(argv[0], argv);
		fprintf(stderr, "sonde: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	ch->pid = pid;
	ch->go_fd = go;
	wait_parked(pid);
	ch->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (ch->pidfd < 0) {
		err = -errno;
		child_release(ch);
		return err;
	}
	return 0;
}

int child_spawn_cmd(struct child *ch, const char *cmd)
{
	char *copy = strdup(cmd);
	char **argv = calloc(strlen(cmd) / 2 + 2, sizeof(*argv));
	int err = -ENOMEM;
	if (copy && argv) {
		size_t n = 0;
		for (char *s = strtok(copy, " \t\n"); s;
		     s = strtok(NULL, " \t\n"))
			argv[n++] = s;
		err = n ? child_spawn(ch, argv) : -ENOENT;
	}
	free(argv);
	free(copy);
	return err;
}

int child_start(struct child *ch)
{
	if (ch->go_fd < 0)
		return -EINVAL;
	uint64_t v = CHILD_GO;
	int err = write(ch->go_fd, &v, sizeof(v)) == sizeof(v) ? 0 : -errno;
	close(ch->go_fd);
	ch->go_fd = -1;
	ch->started = !err;
	return err;
}

int child_reap(struct child *ch, bool block)
{
	if (!ch->pid || ch->reaped)
		return 1;
	pid_t r;
	do
		r = waitpid(ch->pid, &ch->status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	ch->reaped = true;
	return 1;
}

void child_release(struct child *ch)
{
	if (ch->go_fd >= 0) {
		/* Never started: it exits quietly. */
		uint64_t v = CHILD_GIVE_UP;
		(void)!write(ch->go_fd, &v, sizeof(v));
		close(ch->go_fd);
		ch->go_fd = -1;
	}
	if (ch->pid && !ch->reaped && child_reap(ch, false) == 0 &&
	    ch->started)
		kill(ch->pid, SIGTERM);
	if (ch->pid && !ch->reaped)
		child_reap(ch, true);
	if (ch->pidfd >= 0) {
		close(ch->pidfd);
		ch->pidfd = -1;
	}
}
