/* kprobe:FUNC, kprobe:FUNC+OFFSET and kretprobe:FUNC through the kprobe
 * PMU (kretprobes through kprobe_events where it can be written: see
 * below), with wildcards over the traceable functions. Where kprobes cannot
 * attach but fentry can, kprobe:FUNC becomes fentry:FUNC by itself; where
 * neither can, the programs still load (so --verify checks them) and the
 * run stops before attaching anything, saying why. */
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "kernel/btf.h"
#include "kernel/features.h"
#include "kernel/glob.h"
#include "kernel/kallsyms.h"
#include "kernel/perf.h"
#include "kernel/regs.h"
#include "kernel/sysfs.h"
#include "kernel/tracefs.h"
#include "model/limits.h"
#include "model/types.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/intern.h"

/* the providers of this file, defined at its end */
extern const struct provider probe_kprobe_prov, probe_kretprobe_prov;

const char *probe_kprobe_fallback(bool kprobes, bool fentry,
				  const char *provider, const char *spec)
{
	if (kprobes || !fentry || strchr(spec, '+'))
		return NULL;
	return strcmp(provider, "kretprobe") ? "fentry" : "fexit";
}

/* Calls fn for each traceable kernel function matching pat, each name
 * once (kernel/kallsyms.h: available_filter_functions, or the text
 * symbols of kallsyms where it cannot be read), of module (NULL: any;
 * "vmlinux": the kernel's own). Stops when fn returns non-zero and
 * returns that; else 0, or -errno. */
static int each_function(const char *module, const char *pat,
			 int (*fn)(const char *name, void *ctx), void *ctx)
{
	const struct ksym_fn *fns;
	int n = ksyms_traceable(&fns);
	if (n < 0)
		return n;
	/* Duplicates (static functions of the same name) need not be
	 * adjacent. A kprobe by name attaches to the first of them, so a
	 * second target would count each event twice. */
	struct intern seen = { 0 };
	int rc = 0;
	for (int i = 0; !rc && i < n; i++) {
		const char *name = fns[i].name, *mod = fns[i].module;
		/* the kernel's own functions are module "vmlinux", so that
		 * kprobe:vmlinu*:vfs_read finds vfs_read */
		if (module && !glob_match(module, mod ? mod : "vmlinux"))
			continue;
		/* as bpftrace's wildcards: no .part. clones (6.1's vfs_*
		 * has two) nor the functions it keeps away from */
		if (!glob_match(pat, name) || !probe_kernel_func_listed(name))
			continue;
		bool fresh = false;
		intern(&seen, name, strlen(name), 0, &fresh);
		if (fresh)
			rc = fn(name, ctx);
	}
	intern_free(&seen);
	return rc;
}

struct adder {
	struct probe_env *env;
	const struct attach_point *a;
	const char *module; /* as written, or NULL */
	struct probe_target **out;
	uint32_t *n, before;
};

static int add(const char *spec, void *ctx)
{
	struct adder *ad = ctx;
	struct probe_env *env = ad->env;
	/* Past BPFTRACE_MAX_PROBES the run stops, saying how many matched:
	 * the rest are counted, not built. */
	if (env->nexpanded + (*ad->n - ad->before) >= limits.max_probes) {
		env->nunbuilt++;
		return 0;
	}
	struct arena *ar = env->arena;
	bool ret = !strcmp(ad->a->provider, "kretprobe");
	struct probe_target *t = probe_target_add(ar, ad->out, ad->n);
	t->prov = ret ? &probe_kretprobe_prov : &probe_kprobe_prov;
	t->name = ad->module ? arena_printf(ar, "%s:%s:%s", ad->a->provider,
					    ad->module, spec) :
			       arena_printf(ar, "%s:%s", ad->a->provider, spec);
	char *func = arena_strdup(ar, spec);
	char *plus = strchr(func, '+');
	if (plus) {
		*plus = 0;
		t->u.user.offset = strtoull(plus + 1, NULL, 0);
	}
	t->func = func;
	t->u.user.retprobe = ret;
	t->layout = CTXL_PT_REGS;
	t->features = CTX_KERNEL | CTX_REGS | CTX_FUNC |
		      (ret ? CTX_RETVAL : CTX_ARGN);
	t->nargs = ret ? 0 : regs_nargs();
	return 0;
}

/* Whether module (from kprobe:MODULE:FUNC) is loaded: a wildcard matches
 * the loaded modules' functions only, so only a plain name is checked. */
static bool module_loaded(const char *module)
{
	if (!strcmp(module, "vmlinux") || glob_has_wildcard(module))
		return true;
	char path[300];
	snprintf(path, sizeof(path), "/sys/module/%s", module);
	return access(path, F_OK) == 0;
}

/* kprobe:[MODULE:]FUNC[+OFFSET], kretprobe:[MODULE:]FUNC */
static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	bool ret = !strcmp(a->provider, "kretprobe");
	if (a->nparts < 1 || a->nparts > 2 || !a->parts[a->nparts - 1][0]) {
		diag_error(env->diag, a->span, "%s probe type requires 1 or 2 "
			   "arguments ([MODULE:]FUNCTION)", a->provider);
		return -1;
	}
	const char *spec = a->parts[a->nparts - 1];
	const char *module = a->nparts == 2 && a->parts[0][0] ? a->parts[0] :
								  NULL;
	/* (fentry asked about only without kprobes: on arm64 its test
	 * attaches, which costs the run a detach) */
	bool kprobes = feat_has(FEAT_KPROBE);
	bool fentry = !kprobes && feat_has(FEAT_FENTRY);
	const char *alt = probe_kprobe_fallback(kprobes, fentry, a->provider,
						spec);
	const struct provider *kf = alt ? probe_provider(alt) : NULL;
	if (kf) {
		struct attach_point fa = *a;
		fa.provider = alt;
		return kf->expand(env, &fa, out, n);
	}
	if (probe_refuse(env, a, FEAT_KPROBE, fentry ?
				 "fentry: or tracepoint: probes" :
				 "tracepoint: or rawtracepoint: probes"))
		return -1;
	if (module && !module_loaded(module)) {
		diag_error(env->diag, a->span, "specified module %s in probe "
			   "%s:%s:%s is not loaded.", module, a->provider,
			   module, spec);
		return -1;
	}
	const char *plus = strchr(spec, '+');
	if (plus) {
		char *end;
		strtoull(plus + 1, &end, 0);
		if (ret || !plus[1] || *end || glob_has_wildcard(spec)) {
			diag_error(env->diag, a->span, ret ?
				   "kretprobe probes cannot take an offset" :
				   "bad offset '%s'", plus + 1);
			return -1;
		}
	}
	struct adder ad = { env, a, module, out, n, *n };
	if (!glob_has_wildcard(spec) && !(module && glob_has_wildcard(module))) {
		char *func = arena_strdup(env->arena, spec);
		func[strcspn(func, "+")] = '\0';
		/* bpftrace 0.26: a function the kernel does not list as
		 * traceable (nor one known to make the system unstable) is
		 * warned about; with --unsafe it is still tried (the list may
		 * be missing or stale), else it is missing. */
		if (!ksyms_is_traceable(module, func) ||
		    probe_kernel_func_bad(func)) {
			if (limits.missing_probes != MISSING_IGNORE)
				diag_warning(env->diag, a->span, "%s is not "
					     "traceable (either non-existing, "
					     "inlined, or marked as \"notrace\"); "
					     "attaching to it will likely fail",
					     func);
			if (!env->unsafe)
				return probe_missing(env, a);
		}
		return add(spec, &ad);
	}
	uint32_t before = *n;
	int err = each_function(module, spec, add, &ad);
	if (err < 0) {
		diag_error(env->diag, a->span, "cannot list the kernel's "
			   "functions: %s", strerror(-err));
		return -1;
	}
	if (*n == before && !env->nunbuilt)
		return probe_missing(env, a);
	return 0;
}

/*
 * kretprobes through kprobe_events.
 *
 * A kretprobe keeps the return address of each call inside the function
 * in one of maxactive instances, taken at entry and given back at the
 * return; a call that finds none free is never seen returning (the kernel
 * only counts it, in nmissed). The kprobe PMU can neither set maxactive
 * nor read nmissed, so the kernel's default applies, silently: max(10,
 * 2 x CPUs) on a preemptible kernel, but only the number of CPUs on
 * another (Debian 11's 5.10): in a 1-CPU machine, one task asleep inside
 * vfs_read (a reader of sonde's output, woken by "Attached 1 probe") held
 * the only instance, and kretprobe:vfs_read saw no other return at all.
 * kprobe_events can do both: each kretprobe is made there as
 * "rN:sonde_PID/kretprobe_TOKEN_K FUNC", with room for every task there
 * is twice over, and attached through its event id; its misses are read
 * from kprobe_profile and reported. The event is removed when detached,
 * or, if sonde was killed first, by the next run that makes one. Where
 * kprobe_events cannot be written, the PMU.
 */
enum {
	KRET_MAXACTIVE_MAX = 4096, /* the kernel's KRETPROBE_MAXACTIVE_MAX */
	/* the instances (~64 bytes of kernel memory each) of one run's
	 * kretprobes together; past it each gets the preemptible default */
	KRET_BUDGET = 1 << 17,
};

static struct {
	int state; /* 0: not tried yet, 1: kprobe_events writable, -1: not */
	char group[32], token[16];
	uint32_t made;    /* events made, naming the next */
	uint64_t granted; /* their instances */
} kret;

struct kret_event {
	char event[64];
	uint32_t maxactive;
};

/* A group "sonde_PID" whose process is gone: a run killed before it
 * could remove its events. Removed unless in use (-EBUSY: a live run of
 * another pid namespace). */
static int remove_stale(const char *group, const char *event,
			const char *line, void *ctx)
{
	(void)line, (void)ctx;
	int pid;
	char end;
	if (sscanf(group, "sonde_%d%c", &pid, &end) != 1 || pid <= 0 ||
	    !(kill(pid, 0) < 0 && errno == ESRCH))
		return 0;
	char def[256];
	if ((size_t)snprintf(def, sizeof(def), "-:%s/%s", group, event) <
	    sizeof(def))
		(void)tracefs_kprobe_write(def);
	return 0;
}

/* Whether kretprobes can be made through kprobe_events (asked once). */
static bool kret_tracefs(void)
{
	if (kret.state)
		return kret.state > 0;
	kret.state = -1;
	char path[512];
	if (tracefs_path(path, sizeof(path), "kprobe_events"))
		return false;
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	kret.state = 1;
	snprintf(kret.group, sizeof(kret.group), "sonde_%d", (int)getpid());
	/* the pid alone may be another pid namespace's too */
	uint32_t rnd = 0;
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (uint32_t)time(NULL) ^ ((uint32_t)getpid() << 16);
	snprintf(kret.token, sizeof(kret.token), "%08x", rnd);
	char *text;
	if (sysfs_slurp(path, &text, NULL) == 0) {
		tracefs_kprobe_each(text, remove_stale, NULL);
		free(text);
	}
	return true;
}

/* Tasks on the system now (/proc/loadavg's "running/total"), or 0. */
static uint32_t tasks_now(void)
{
	char buf[128];
	unsigned running, total;
	if (sysfs_read("/proc/loadavg", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%*s %*s %*s %u/%u", &running, &total) != 2)
		return 0;
	return total;
}

/* The instances one more kretprobe gets: the preemptible kernels'
 * default at least, room for every task twice over (each could be inside
 * the function at once, and as many may start), within the kernel's
 * bound and the run's budget. */
static uint32_t kret_maxactive(void)
{
	int cpus = libbpf_num_possible_cpus();
	uint64_t lo = cpus > 5 ? 2 * (uint64_t)cpus : 10;
	uint64_t want = 2 * (uint64_t)tasks_now();
	uint64_t left = kret.granted < KRET_BUDGET ?
				KRET_BUDGET - kret.granted : 0;
	if (want > KRET_MAXACTIVE_MAX)
		want = KRET_MAXACTIVE_MAX;
	if (want > left)
		want = left;
	if (want < lo)
		want = lo;
	return (uint32_t)(want < KRET_MAXACTIVE_MAX ? want :
						       KRET_MAXACTIVE_MAX);
}

static void kret_release(struct probe_attachment *att)
{
	struct kret_event *e = att->priv;
	/* the event is busy while its perf event and link are open */
	while (att->nfds)
		close(att->fds[--att->nfds]);
	(void)tracefs_kprobe_remove(kret.group, e->event);
	free(e);
}

static uint64_t kret_missed(struct probe_attachment *att, char *why,
			    size_t n)
{
	struct kret_event *e = att->priv;
	char path[512], *text;
	uint64_t missed = 0;
	if (tracefs_path(path, sizeof(path), "kprobe_profile") == 0 &&
	    sysfs_slurp(path, &text, NULL) == 0) {
		(void)tracefs_profile_missed(text, e->event, &missed);
		free(text);
	}
	snprintf(why, n, "calls past the %u it tracks at once, its "
		 "maxactive, or hits inside another probe", e->maxactive);
	return missed;
}

/* The kretprobe t made through kprobe_events and attached: 0 or -errno
 * (on any error the caller tries the PMU). */
static int attach_kret_tracefs(const struct probe_target *t, int prog_fd,
			       struct probe_attachment *att)
{
	struct kret_event *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	snprintf(e->event, sizeof(e->event), "kretprobe_%s_%u", kret.token,
		 kret.made++);
	e->maxactive = kret_maxactive();
	char def[512];
	int err = (size_t)snprintf(def, sizeof(def), "r%u:%s/%s %s",
				   e->maxactive, kret.group, e->event,
				   t->func) < sizeof(def) ?
			  tracefs_kprobe_write(def) :
			  -ENAMETOOLONG;
	if (err) {
		free(e);
		return err;
	}
	kret.granted += e->maxactive;
	att->priv = e;
	att->release = kret_release;
	att->missed = kret_missed;
	int id = tracefs_event_id(kret.group, e->event);
	err = probe_attach_perf(id < 0 ? id : perf_open_tracepoint(id, -1, 0),
				prog_fd, att);
	if (err)
		probe_detach(att); /* the event removed: the PMU next */
	return err;
}

static int attach(const struct probe_target *t, int prog_fd,
		  struct probe_attachment *att)
{
	if (t->u.user.retprobe && kret_tracefs() &&
	    attach_kret_tracefs(t, prog_fd, att) == 0)
		return 0;
	/* cpu 0 with pid -1: the program runs on every CPU regardless */
	return probe_attach_perf(perf_open_kprobe(t->func, t->u.user.offset,
						  t->u.user.retprobe, 0),
				 prog_fd, att);
}

struct lister {
	const char *type;    /* "kprobe", "kretprobe" */
	const char *pattern; /* on the full name, or NULL: matched */
	bool verbose;
	FILE *out;
};

bool probe_kernel_func_bad(const char *name)
{
	static const char *const bad[] = { "arch_cpu_idle", "default_idle",
					   "bpf_dispatcher_xdp_func", NULL };
	if (!strncmp(name, "rcu_", 4) ||
	    !strncmp(name, "__ftrace_invalid_address__", 26))
		return true;
	for (const char *const *b = bad; *b; b++)
		if (!strcmp(name, *b))
			return true;
	return false;
}

bool probe_kernel_func_listed(const char *name)
{
	return !strstr(name, ".part.") && !probe_kernel_func_bad(name);
}

/* -lv, as bpftrace 0.26 reads a kprobe's BTF prototype: the arguments
 * as "TYPE argN", numbered past floating-point ones (which come in other
 * registers), or the return type as "TYPE retval" ("void"). Nothing for
 * a function BTF does not describe. */
static void print_args(const char *name, bool ret, FILE *out)
{
	struct arena a;
	arena_init(&a);
	struct kbtf_func f;
	if (kbtf_func_ctypes(&a, name, false, &f) == 0) {
		if (ret && f.ret->kind == TY_VOID)
			fputs("    void\n", out);
		else if (ret)
			fprintf(out, "    %s retval\n", f.ret_ctype);
		for (uint32_t i = 0, n = 0; !ret && i < f.nparams; i++) {
			const char *c = f.params[i].ctype;
			if (strcmp(c, "float") && strcmp(c, "double") &&
			    strcmp(c, "long double"))
				fprintf(out, "    %s arg%u\n", c, n++);
		}
	}
	arena_release(&a);
}

static int print_match(const char *name, void *ctx)
{
	struct lister *l = ctx;
	char full[512];
	snprintf(full, sizeof(full), "%s:%s", l->type, name);
	if (!probe_kernel_func_listed(name) || (l->pattern && !glob_match(l->pattern, full)))
		return 0;
	fprintf(l->out, "%s\n", full);
	if (l->verbose)
		print_args(name, !strcmp(l->type, "kretprobe"), l->out);
	return 0;
}

static int list_type(const char *type, const char *pattern, bool verbose,
		     FILE *out)
{
	if (!feat_has(FEAT_KPROBE))
		return 0;
	/* "TYPE:PAT" filters by function name as the functions are read */
	size_t tn = strlen(type);
	bool own = !strncmp(pattern, type, tn) && pattern[tn] == ':';
	struct lister l = { type, own ? NULL : pattern, verbose, out };
	int err = each_function(NULL, own ? pattern + tn + 1 : "*",
				print_match, &l);
	return err < 0 ? err : 0;
}

static int list(const char *pattern, bool verbose, FILE *out)
{
	return list_type("kprobe", pattern, verbose, out);
}

/* only asked for by name: no return probes in bpftrace's kernel list */
static int list_ret(const char *pattern, bool verbose, FILE *out)
{
	return list_type("kretprobe", pattern, verbose, out);
}

const struct provider probe_kprobe_prov = {
	.pid_in_program = true,
	.not_emittable = "it cannot be attached or tested on the "
			 "kernels sonde is tried on",
	.name = "kprobe",
	.aliases = (const char *const[]){ "k", NULL },
	.prog_type = BPF_PROG_TYPE_KPROBE,
	.expand = expand,
	.attach = attach,
	.attach_reversed = true,
	.list = list,
};

const struct provider probe_kretprobe_prov = {
	.pid_in_program = true,
	.not_emittable = "it cannot be attached or tested on the "
			 "kernels sonde is tried on",
	.name = "kretprobe",
	.aliases = (const char *const[]){ "kr", NULL },
	.prog_type = BPF_PROG_TYPE_KPROBE,
	.expand = expand,
	.attach = attach,
	.list = list_ret,
};
