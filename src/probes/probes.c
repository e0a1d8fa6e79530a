/* The provider table and what every provider shares. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "kernel/glob.h"
#include "kernel/perf.h"
#include "model/limits.h"
#include "model/serial.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/strbuf.h"

/* Every probe type, by the name of its provider, probe_NAME_prov, defined
 * in its own file: a new type is that file and one line here. */
#define PROVIDERS(X) \
	X(begin) X(end) X(tracepoint) X(rawtracepoint) \
	X(kprobe) X(kretprobe) X(kfunc) X(kretfunc) \
	X(uprobe) X(uretprobe) X(usdt) \
	X(interval) X(profile) X(software) X(hardware) \
	X(watchpoint) X(asyncwatchpoint) X(self) X(iter) X(bench) X(test)

#define DECLARE(n) extern const struct provider probe_##n##_prov;
PROVIDERS(DECLARE)
#define ENTRY(n) &probe_##n##_prov,
static const struct provider *const builtin[] = { PROVIDERS(ENTRY) };
#define NBUILTIN (sizeof(builtin) / sizeof(*builtin))

static const struct provider *registered[8];
static size_t nregistered;

/* Probe types of bpftrace that sonde has no provider for, with their
 * aliases: known, so that a script naming one is told it is unsupported
 * rather than unknown (none now: the list ends at its empty entry). */
static const char *const unsupported[][2] = {
	{ "", "" },
};

const struct provider *probe_provider_at(size_t i)
{
	if (i < NBUILTIN)
		return builtin[i];
	i -= NBUILTIN;
	return i < nregistered ? registered[i] : NULL;
}

const struct provider *probe_provider(const char *canonical_name)
{
	const struct provider *p;
	for (size_t i = 0; (p = probe_provider_at(i)); i++)
		if (!strcmp(p->name, canonical_name))
			return p;
	return NULL;
}

static int cmp(const char *a, const char *b, int nocase)
{
	return nocase ? strcasecmp(a, b) : strcmp(a, b);
}

static bool has_alias(const struct provider *p, const char *name,
		      int nocase)
{
	for (const char *const *a = p->aliases; a && *a; a++)
		if (!cmp(*a, name, nocase))
			return true;
	return false;
}

/* Probe types in any case (begin, BEGIN, Interval), as bpftrace 0.26
 * lowers the name before it looks it up. */
const char *probe_type_canonical(const char *name)
{
	/* as written first: "U" is usdt, "u" uprobe */
	for (int nocase = 0; nocase < 2; nocase++) {
		const struct provider *p;
		for (size_t i = 0; (p = probe_provider_at(i)); i++)
			if (!cmp(p->name, name, nocase) ||
			    has_alias(p, name, nocase))
				return p->name;
		for (size_t i = 0;
		     i < sizeof(unsupported) / sizeof(*unsupported) &&
		     unsupported[i][0][0]; i++)
			if (!cmp(unsupported[i][0], name, nocase) ||
			    !cmp(unsupported[i][1], name, nocase))
				return unsupported[i][0];
	}
	return NULL;
}

int probe_register(const struct provider *p)
{
	if (probe_type_canonical(p->name))
		return -EEXIST;
	for (const char *const *a = p->aliases; a && *a; a++)
		if (probe_type_canonical(*a))
			return -EEXIST;
	if (nregistered == sizeof(registered) / sizeof(*registered))
		return -ENOSPC;
	registered[nregistered++] = p;
	return 0;
}

int probe_expand(struct probe_env *env, const struct attach_point *a,
		 struct probe_target **out, uint32_t *n)
{
	if (env->over_limit)
		return -1; /* said once: more would only repeat it */
	const struct provider *p = probe_provider(a->provider);
	if (!p) {
		diag_error(env->diag, a->span,
			   "%s probes are not supported yet", a->provider);
		return -1;
	}
	/* bpftrace 0.26 runs an iterator as the one probe ("Iterator probe
	 * can't be mixed with any other probe, not even another iterator") */
	bool iter = p->iterate != NULL;
	if (p->run == PROBE_RUN_ATTACHED &&
	    (iter ? env->niter || env->nevents : env->niter)) {
		diag_error(env->diag, a->span, iter && env->niter ?
			   "iter probe only supports one attach point." :
			   "an iter probe can't be mixed with any other probe "
			   "(but begin and end)");
		return -1;
	}
	if (p->run == PROBE_RUN_ATTACHED)
		*(iter ? &env->niter : &env->nevents) += 1;
	uint32_t before = *n;
	env->nunbuilt = 0;
	int rc = p->expand(env, a, out, n);
	if (rc < 0)
		return rc;
	bool wild = false;
	for (uint32_t i = 0; i < a->nparts; i++)
		wild |= glob_has_wildcard(a->parts[i]);
	for (uint32_t i = before; i < *n; i++) {
		(*out)[i].wild = wild;
		(*out)[i].label = a->name;
	}
	/* Checked as each attach point expands, before sema and codegen
	 * spend time and memory on every target. */
	env->nexpanded += *n - before + env->nunbuilt;
	/* BPFTRACE_MAX_PROBES (model/limits.h: read and checked at start) */
	uint64_t max = limits.max_probes;
	if (env->nexpanded <= max)
		return rc;
	env->over_limit = true;
	if (max)
		diag_error(env->diag, a->span, "Can't attach to %llu probes "
			   "because it exceeds the current limit of %llu "
			   "probes. You can increase the limit through the "
			   "BPFTRACE_MAX_PROBES environment variable, but BE "
			   "CAREFUL since a high number of probes attached can "
			   "cause your system to crash.",
			   (unsigned long long)env->nexpanded,
			   (unsigned long long)max);
	return -1;
}

/* "PROVIDER TARGET:FUNC" of a, as bpftrace 0.26 names an attach point in
 * its missing-probe messages. */
static const char *ap_words(struct probe_env *env, const struct attach_point *a)
{
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "%s ", a->provider);
	for (uint32_t i = 0; i < a->nparts; i++)
		sb_printf(&sb, "%s%s", i ? ":" : "", a->parts[i]);
	const char *w = arena_strdup(env->arena, sb_str(&sb));
	sb_free(&sb);
	return w;
}

int probe_missing(struct probe_env *env, const struct attach_point *a)
{
	/* A wildcard that matches nothing here is no mistake (dcsnoop.bt's
	 * lookup_fast.constprop.* exists on some kernels only): bpftrace
	 * drops it, and an empty probe is judged by probe_expand_probe. */
	for (uint32_t i = 0; i < a->nparts; i++)
		if (glob_has_wildcard(a->parts[i]))
			return 0;
	switch (limits.missing_probes) {
	case MISSING_ERROR:
		diag_error(env->diag, a->span, "No matches for %s.",
			   ap_words(env, a));
		return -1;
	case MISSING_WARN:
		diag_warning(env->diag, a->span, "No matches for %s. Skipping.",
			     ap_words(env, a));
		return 0;
	}
	return 0;
}

int probe_attach_refused(struct probe_env *env, const struct attach_point *a,
			 const char *fmt, ...)
{
	if (limits.missing_probes == MISSING_IGNORE)
		return 0;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	const char *name = ap_words(env, a);
	/* "PROVIDER T:F" as the probe's name "PROVIDER:T:F" */
	char *full = arena_strdup(env->arena, name);
	full[strlen(a->provider)] = ':';
	struct span none = { 0 };
	if (limits.missing_probes == MISSING_ERROR) {
		diag_error(env->diag, none, "%s", msg);
		diag_error(env->diag, none, "Unable to attach probe: %s. If this "
			   "is expected, set the 'missing_probes' config "
			   "variable to 'warn'.", full);
	} else {
		diag_warning(env->diag, none, "%s", msg);
		diag_warning(env->diag, none, "Unable to attach probe: %s. "
			     "Skipping.", full);
	}
	return limits.missing_probes == MISSING_ERROR ? -1 : 0;
}

int probe_expand_probe(struct probe_env *env, const struct attach_point *att,
		       uint32_t nattach, struct probe_target **out,
		       uint32_t *n)
{
	int rc = 0;
	for (uint32_t k = 0; k < nattach; k++)
		if (probe_expand(env, &att[k], out, n) < 0)
			rc = -1;
	if (rc < 0 || *n || !nattach)
		return rc;
	/* Nothing of the probe exists here: bpftrace 0.26's ProbePrune. */
	struct span sp = span_join(att[0].span, att[nattach - 1].span);
	switch (limits.missing_probes) {
	case MISSING_ERROR:
		diag_error(env->diag, sp, "Probe has no valid attach points. "
			   "If this is expected, set the 'missing_probes' "
			   "config variable to 'warn'.");
		return -1;
	case MISSING_WARN:
		diag_warning(env->diag, sp, "Probe has no valid attach points. "
			     "It is being removed which may cause issues with "
			     "program behavior.");
		break;
	}
	return 1;
}

bool probe_refuse(struct probe_env *env, const struct attach_point *a,
		  enum feat_id f, const char *alt)
{
	if (feat_has(f) || env->no_attach)
		return false;
	diag_error(env->diag, a->span, "%s probes cannot run here: %s; use %s "
		   "instead", a->provider, feat_reason(f), alt);
	return true;
}

struct probe_target *probe_target_add(struct arena *a,
				      struct probe_target **arr, uint32_t *n)
{
	/* Capacity is implicit: 4, then doubled whenever n reaches a power
	 * of two. The old array is abandoned in the arena, which costs little
	 * for the handful of targets a script has. */
	uint32_t k = *n;
	if (k == 0 || (k >= 4 && (k & (k - 1)) == 0)) {
		uint32_t cap = k ? 2 * k : 4;
		struct probe_target *na = arena_alloc(a, sizeof(*na) * cap);
		if (k)
			memcpy(na, *arr, sizeof(*na) * k);
		*arr = na;
	}
	struct probe_target *t = &(*arr)[(*n)++];
	memset(t, 0, sizeof(*t));
	return t;
}

int probe_att_push(struct probe_attachment *att, int fd)
{
	if (att->nfds == att->cap) {
		uint32_t cap = att->cap ? att->cap * 2 : 4;
		int *fds = realloc(att->fds, sizeof(*fds) * cap);
		if (!fds) {
			close(fd);
			return -ENOMEM;
		}
		att->fds = fds;
		att->cap = cap;
	}
	att->fds[att->nfds++] = fd;
	return 0;
}

void probe_detach(struct probe_attachment *att)
{
	if (att->release)
		att->release(att);
	att->release = NULL;
	att->service = NULL;
	att->unwatch = NULL;
	att->missed = NULL;
	att->priv = NULL;
	while (att->nfds)
		close(att->fds[--att->nfds]);
	free(att->fds);
	att->fds = NULL;
	att->cap = 0;
}

struct detach_job {
	struct probe_attachment *atts;
	uint32_t from, to;
	_Atomic uint32_t *done;
};

/* Detaches atts[i]; counts it in *done when it held something. */
static void detach_counted(struct probe_attachment *att,
			   _Atomic uint32_t *done)
{
	bool held = att->nfds > 0;
	probe_detach(att);
	if (held)
		atomic_fetch_add(done, 1);
}

static void *detach_range(void *arg)
{
	struct detach_job *j = arg;
	for (uint32_t i = j->to; i-- > j->from;)
		detach_counted(&j->atts[i], j->done);
	return NULL;
}

void probe_detach_all(struct probe_attachment *atts, uint32_t n,
		      void (*tick)(void *ctx, uint32_t done), void *ctx)
{
	/* Enough threads that even 2,000 probes wait only a few grace
	 * periods each; a small stack, since each only calls close(). */
	enum { MAX_THREADS = 128, PER_THREAD_MIN = 2 };
	uint32_t nt = n / PER_THREAD_MIN;
	if (nt > MAX_THREADS)
		nt = MAX_THREADS;
	_Atomic uint32_t done = 0;
	uint32_t held = 0;
	for (uint32_t i = 0; i < n; i++)
		held += atts[i].nfds > 0;
	pthread_t tids[MAX_THREADS];
	struct detach_job jobs[MAX_THREADS];
	pthread_attr_t attr;
	bool threads = nt > 1 && pthread_attr_init(&attr) == 0;
	if (threads)
		pthread_attr_setstacksize(&attr, 64 * 1024);
	uint32_t started = 0;
	for (uint32_t t = 0; threads && t < nt; t++) {
		jobs[t] = (struct detach_job){ atts, (uint32_t)((uint64_t)n * t / nt),
					       (uint32_t)((uint64_t)n * (t + 1) / nt),
					       &done };
		if (pthread_create(&tids[t], &attr, detach_range, &jobs[t]))
			break;
		started++;
	}
	/* What no thread took (none could start, or too few probes), here,
	 * one at a time, telling how far it got. */
	for (uint32_t i = n; i-- > (started ? jobs[started - 1].to : 0);) {
		detach_counted(&atts[i], &done);
		if (tick)
			tick(ctx, atomic_load(&done));
	}
	/* The kernel may serialise the threads' closes (uprobes: ~0.1 s
	 * each): say how far they are, every 100 ms. */
	while (tick && atomic_load(&done) < held) {
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
		tick(ctx, atomic_load(&done));
	}
	for (uint32_t t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	if (threads)
		pthread_attr_destroy(&attr);
}

int probe_attach_perf(int pfd, int prog_fd, struct probe_attachment *att)
{
	if (pfd < 0)
		return pfd;
	int err = probe_att_push(att, pfd);
	if (err)
		return err;
	int link = perf_attach_bpf(pfd, prog_fd);
	if (link < 0)
		return link;
	/* 0: attached without a link; closing the perf fd detaches. */
	return link > 0 ? probe_att_push(att, link) : 0;
}

uint32_t probe_target_hash(const struct probe_target *t)
{
	/* little-endian words, so that the hash is the same on any host */
	uint32_t w[6] = { (uint32_t)(t->prog_type ? t->prog_type :
						    t->prov->prog_type),
			  (uint32_t)t->attach_type, t->features,
			  (uint32_t)t->layout, t->nargs, 0 };
	uint8_t b[sizeof(w)];
	for (size_t i = 0; i < sizeof(w) / 4; i++)
		for (int k = 0; k < 4; k++)
			b[i * 4 + k] = (uint8_t)(w[i] >> (8 * k));
	uint32_t crc = serial_crc(0, t->name, strlen(t->name) + 1);
	crc = serial_crc(crc, t->prov->name, strlen(t->prov->name) + 1);
	if (t->func)
		crc = serial_crc(crc, t->func, strlen(t->func) + 1);
	crc = serial_crc(crc, b, sizeof(b));
	crc = serial_type_hash(t->args, crc);
	return serial_type_hash(t->retval, crc);
}
