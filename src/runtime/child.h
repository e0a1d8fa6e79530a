/*
 * The traced command of -c. It is forked and paused *before* compilation,
 * because codegen bakes its pid in as the constant `cpid`; it execs only
 * when child_start() is called, after the probes are attached and BEGIN
 * has run. The run loop watches child.pidfd and stops when it exits.
 */
#ifndef SONDE_CHILD_H
#define SONDE_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

struct child {
	pid_t pid;     /* 0: none */
	int go_fd;     /* write end of the pipe the child waits on; -1 */
	int pidfd;     /* readable once the child exits; -1 */
	bool started, reaped;
	bool stopped;  /* at its exec, traced (child_start_stopped) */
	bool cont_after; /* sonde stopped it (SIGSTOP): SIGCONT once resumed */
	int status;    /* waitpid status once reaped */
};

/* Forks argv (argv[0] looked up in PATH) and leaves it waiting. Returns
 * 0, or -ENOENT/-EACCES when argv[0] cannot be run, or another -errno. */
int child_spawn(struct child *ch, char *const argv[]);
/* The same for a command line split on blanks, as bpftrace's -c does. */
int child_spawn_cmd(struct child *ch, const char *cmd);
/* Lets the child exec. Returns 0 or -errno. */
int child_start(struct child *ch);
/* Lets the child exec, stopped (ptrace) before the new image's first
 * instruction, for sonde to read its mappings; child_resume lets it run.
 * Returns 0 (also when the exec failed: the child is then reaped) or
 * -errno. */
int child_start_stopped(struct child *ch);
void child_resume(struct child *ch);
/* The child stopped at its exec runs its dynamic loader (its libraries
 * mapped) and stops again at the program's entry point, where nothing of
 * the program has run yet (x86_64: a breakpoint put there and taken out;
 * elsewhere it stays at the exec). */
void child_run_to_entry(struct child *ch);
/* Reaps the child if it has exited (or, block, waits for it). Returns 1
 * when reaped, 0 when still running, or -errno. */
int child_reap(struct child *ch, bool block);
/* Kills a child that is still there (never started, or still running
 * when tracing stops), reaps it and closes everything. Safe to repeat. */
void child_release(struct child *ch);

#endif
