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
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/child.h"

/* What the child reads from its eventfd. */
enum { CHILD_GO = 1, CHILD_GIVE_UP = 2, CHILD_GO_STOPPED = 3 };

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
		ssize_t got;
		do
			got = read(go, &v, sizeof(v));
		while (got < 0 && errno == EINTR);
		if (got == sizeof(v) && v == CHILD_GIVE_UP)
			_exit(0); /* sonde gave up before starting us */
		if (got != sizeof(v) ||
		    (v != CHILD_GO && v != CHILD_GO_STOPPED)) {
			/* never silently: the run would look like one
			 * whose command did nothing */
			fprintf(stderr, "sonde: the command was not started: "
				"its start signal %s\n", got < 0 ?
				strerror(errno) : "was garbled");
			_exit(127);
		}
		close(go);
		/* traced by sonde: the exec stops before the new image's
		 * first instruction (child_start_stopped) */
		if (v == CHILD_GO_STOPPED)
			ptrace(PTRACE_TRACEME, 0, NULL, NULL);
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

static int go(struct child *ch, uint64_t v)
{
	if (ch->go_fd < 0)
		return -EINVAL;
	int err = write(ch->go_fd, &v, sizeof(v)) == sizeof(v) ? 0 : -errno;
	close(ch->go_fd);
	ch->go_fd = -1;
	ch->started = !err;
	return err;
}

int child_start(struct child *ch)
{
	return go(ch, CHILD_GO);
}

/* The pid of the process tracing pid (0: none), from /proc. */
static pid_t tracer_of(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	long t = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %ld", &t) == 1)
			break;
	if (f)
		fclose(f);
	return (pid_t)t;
}

int child_start_stopped(struct child *ch)
{
	/* traced already (sonde under strace -f): its PTRACE_TRACEME would
	 * fail and no stop come; it runs as child_start lets it */
	if (tracer_of(ch->pid))
		return child_start(ch);
	int err = go(ch, CHILD_GO_STOPPED);
	if (err)
		return err;
	pid_t r;
	do
		r = waitpid(ch->pid, &ch->status, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (WIFSTOPPED(ch->status)) {
		ch->stopped = true;
		return 0;
	}
	ch->reaped = true; /* the exec failed: it said so and exited */
	return 0;
}

#if defined(__x86_64__)
/* The new image's entry point (AT_ENTRY), or 0. */
static uint64_t entry_point(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	Elf64_auxv_t a;
	uint64_t entry = 0;
	while (read(fd, &a, sizeof(a)) == sizeof(a) && a.a_type != AT_NULL)
		if (a.a_type == AT_ENTRY)
			entry = a.a_un.a_val;
	close(fd);
	return entry;
}

/* How long the dynamic loader may take to reach the entry point (it runs
 * the libraries' constructors first, which may wait on anything). */
#define ENTRY_WAIT_MS 3000

/* The child's next stop, passing on signals other than SIGTRAP and
 * SIGSTOP. Returns the stop's signal, or 0 once the child is gone. With
 * a time limit (ms > 0), a child still running then is stopped (SIGSTOP),
 * so that its breakpoint can be taken out. */
static int next_stop(struct child *ch, int ms, bool *sent_stop)
{
	for (int waited = 0;;) {
		pid_t r = waitpid(ch->pid, &ch->status, ms > 0 ? WNOHANG : 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) { /* still running */
			if (++waited >= ms) {
				kill(ch->pid, SIGSTOP);
				*sent_stop = true;
				ms = 0;
			} else {
				usleep(1000);
			}
			continue;
		}
		if (r < 0 || !WIFSTOPPED(ch->status)) {
			ch->reaped = r > 0;
			ch->stopped = false;
			return 0;
		}
		int sig = WSTOPSIG(ch->status);
		if (sig == SIGTRAP || sig == SIGSTOP)
			return sig;
		ptrace(PTRACE_CONT, ch->pid, NULL, (void *)(intptr_t)sig);
	}
}

void child_run_to_entry(struct child *ch)
{
	if (!ch->stopped)
		return;
	uint64_t entry = entry_point(ch->pid);
	if (!entry)
		return;
	errno = 0;
	long word = ptrace(PTRACE_PEEKTEXT, ch->pid, (void *)entry, NULL);
	/* a breakpoint there already (a uprobe on the entry would take
	 * ours): the libraries are left to the mmap records */
	if (errno || (word & 0xff) == 0xcc)
		return;
	if (ptrace(PTRACE_POKETEXT, ch->pid, (void *)entry,
		   (void *)((word & ~0xffL) | 0xcc)))
		return;
	if (ptrace(PTRACE_CONT, ch->pid, NULL, NULL))
		return;
	bool sent_stop = false;
	int sig = next_stop(ch, ENTRY_WAIT_MS, &sent_stop);
	if (!sig)
		return;
	/* a SIGSTOP still pending (the trap came first) would stop it once
	 * detached: a SIGCONT discards it */
	ch->cont_after = sent_stop;
	ptrace(PTRACE_POKETEXT, ch->pid, (void *)entry, (void *)word);
	/* stopped before the entry (its SIGSTOP is not delivered: detached
	 * with none), or at our breakpoint: back onto the instruction */
	struct user_regs_struct regs;
	if (sig == SIGTRAP && !ptrace(PTRACE_GETREGS, ch->pid, NULL, &regs) &&
	    regs.rip == entry + 1) {
		regs.rip = entry; /* back onto the restored instruction */
		ptrace(PTRACE_SETREGS, ch->pid, NULL, &regs);
	}
}
#else
void child_run_to_entry(struct child *ch)
{
	(void)ch;
}
#endif

void child_resume(struct child *ch)
{
	if (!ch->stopped)
		return;
	/* the exec's SIGTRAP is not delivered */
	ptrace(PTRACE_DETACH, ch->pid, NULL, NULL);
	if (ch->cont_after)
		kill(ch->pid, SIGCONT);
	ch->stopped = ch->cont_after = false;
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
	child_resume(ch);
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
