/* watchpoint:ADDR:LEN:MODE (alias w) and asyncwatchpoint (aw): a hardware
 * breakpoint on LEN bytes at ADDR for MODE accesses (r, w, rw, x). As in
 * bpftrace, with -p or -c ADDR is an address in that process, watched in
 * it alone; without, it is a kernel address, watched on every CPU. The
 * FUNC+argN form (watch what an argument points to once FUNC is entered)
 * is in watchfunc.c. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/perf.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

/* A number in C syntax (0x...), or "$N" for a positional parameter. */
static int parse_u64(const struct probe_env *env, const char *s, uint64_t *out)
{
	if (s[0] == '$') {
		char *end;
		long i = strtol(s + 1, &end, 10);
		if (end == s + 1 || *end || i < 1 || i > env->nparams)
			return -EINVAL;
		s = env->params[i - 1];
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (*end || errno)
		return -EINVAL;
	*out = v;
	return 0;
}

static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	const char *kind = a->provider;
	if (a->nparts != 3) {
		diag_error(env->diag, a->span, "%s probe type requires 3 "
			   "arguments (ADDRESS:LENGTH:MODE)", kind);
		return -1;
	}
	if (probe_refuse(env, a, FEAT_BREAKPOINT_FIRES, "a uprobe or a "
			 "tracepoint on the code that makes the access"))
		return -1;
	uint64_t addr = 0, len;
	bool func = strchr(a->parts[0], '+') != NULL;
	if (!func && parse_u64(env, a->parts[0], &addr)) {
		diag_error(env->diag, a->span, "%s address should be a number, "
			   "not '%s'", kind, a->parts[0]);
		return -1;
	}
	if (parse_u64(env, a->parts[1], &len) ||
	    (len != 1 && len != 2 && len != 4 && len != 8)) {
		diag_error(env->diag, a->span, "%s length should be 1, 2, 4 or "
			   "8, not '%s'", kind, a->parts[1]);
		return -1;
	}
	if (perf_bp_mode_parse(a->parts[2]) < 0) {
		diag_error(env->diag, a->span, "%s mode should be r, w, rw or "
			   "x, not '%s' (execution cannot be watched together "
			   "with data)", kind, a->parts[2]);
		return -1;
	}
	if (func)
		return probe_watch_func_expand(env, a, (uint32_t)len, out, n);
	struct probe_target *t = probe_target_add(env->arena, out, n);
	t->prov = probe_provider(kind);
	t->name = arena_printf(env->arena, "%s:0x%llx:%llu:%s", kind,
			       (unsigned long long)addr,
			       (unsigned long long)len, a->parts[2]);
	t->u.watch.mode = a->parts[2];
	t->u.watch.addr = addr;
	t->u.watch.len = (uint32_t)len;
	t->pid = env->pid ? env->pid : env->cpid;
	t->layout = CTXL_PERF;
	t->features = CTX_REGS;
	return 0;
}

static int open_on(const struct probe_target *t, int cpu)
{
	return perf_open_breakpoint(t->u.watch.addr, t->u.watch.len,
				    perf_bp_mode_parse(t->u.watch.mode), -1, cpu);
}

/* A process's address: a task-bound breakpoint on each of its threads
 * (one follows its thread across CPUs, and takes a debug register only
 * while it runs), inherited by the threads they create. A thread gone
 * meanwhile is no error. */
static int attach_threads(const struct probe_target *t, int prog_fd,
			  struct probe_attachment *att)
{
	int mode = perf_bp_mode_parse(t->u.watch.mode), err = -ESRCH;
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)t->pid);
	DIR *d = opendir(dir);
	if (!d)
		return probe_attach_perf(
			perf_open_breakpoint_thread(t->u.watch.addr,
						    t->u.watch.len, mode,
						    t->pid),
			prog_fd, att);
	bool any = false;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		if (de->d_name[0] == '.' || *end || tid <= 0)
			continue;
		int e = probe_attach_perf(
			perf_open_breakpoint_thread(t->u.watch.addr,
						    t->u.watch.len, mode,
						    (int)tid),
			prog_fd, att);
		if (!e)
			any = true;
		else if (e != -ESRCH)
			err = e;
	}
	closedir(d);
	return any ? 0 : err;
}

static int attach(const struct probe_target *t, int prog_fd,
		  struct probe_attachment *att)
{
	if (t->u.watch.path)
		return probe_watch_func_attach(t, prog_fd, att);
	/* a kernel address needs one per CPU */
	if (t->pid > 0)
		return attach_threads(t, prog_fd, att);
	return probe_attach_cpus(t, prog_fd, att, open_on);
}

const struct provider probe_watchpoint_prov = {
	.not_emittable = "it needs its run's process",
	.name = "watchpoint",
	.aliases = (const char *const[]){ "w", NULL },
	.prog_type = BPF_PROG_TYPE_PERF_EVENT,
	.expand = expand,
	.attach = attach,
};

const struct provider probe_asyncwatchpoint_prov = {
	.not_emittable = "it needs its run's process",
	.name = "asyncwatchpoint",
	.aliases = (const char *const[]){ "aw", NULL },
	.prog_type = BPF_PROG_TYPE_PERF_EVENT,
	.expand = expand,
	.attach = attach,
};
