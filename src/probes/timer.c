/* interval:UNIT:N fires on one CPU; profile:UNIT:N on every online CPU
 * (also interval:N, N in nanoseconds: interval:100ms).
 * Both are cpu-clock software perf events sampling at a period (ns) or,
 * for profile:hz, at a frequency. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/perf.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

/* the providers of this file, defined at its end */
extern const struct provider probe_interval_prov, probe_profile_prov;

#define MAX_CPUS 4096

static const struct {
	const char *unit;
	uint64_t ns; /* 0: hz */
} units[] = {
	{ "s", 1000000000ull }, { "ms", 1000000ull }, { "us", 1000ull },
	{ "hz", 0 },
};

/* interval:UNIT:N, interval:N (N nanoseconds, or with a duration suffix:
 * interval:1s, named interval:us:1000000 as in bpftrace 0.26), likewise
 * profile. */
static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	bool profile = !strcmp(a->provider, "profile");
	const char *unit;
	uint64_t count;
	char why[200];
	if (a->nparts == 1) {
		if (probe_parse_part(env, a->parts[0], &count, why,
				     sizeof(why))) {
			diag_error(env->diag, a->span,
				   "Invalid rate of %s probe: %s", a->provider,
				   why);
			return -1;
		}
		if (count < 1000) {
			diag_error(env->diag, a->span,
				   "Invalid rate of %s probe. Minimum is 1000 "
				   "or 1us. Found: %llu nanoseconds",
				   a->provider, (unsigned long long)count);
			return -1;
		}
		unit = "us";
		count /= 1000;
	} else if (a->nparts == 2) {
		unit = a->parts[0];
		if (probe_parse_part(env, a->parts[1], &count, why,
				     sizeof(why))) {
			diag_error(env->diag, a->span,
				   "Invalid rate of %s probe: %s", a->provider,
				   why);
			return -1;
		}
	} else {
		diag_error(env->diag, a->span, "%s probe type requires 1 or 2 "
			   "arguments, found %u", a->provider, a->nparts);
		return -1;
	}
	size_t u = 0;
	while (u < sizeof(units) / sizeof(*units) && strcmp(units[u].unit, unit))
		u++;
	if (u == sizeof(units) / sizeof(*units)) {
		diag_error(env->diag, a->span,
			   "%s is not an accepted unit of time", unit);
		return -1;
	}
	if (!count) {
		diag_error(env->diag, a->span,
			   "%s frequency should be a positive integer",
			   a->provider);
		return -1;
	}
	uint64_t period;
	bool freq = false;
	if (!units[u].ns) {
		if (count > 1000000000ull) {
			diag_error(env->diag, a->span,
				   "%s frequency is too high: %llu Hz",
				   a->provider, (unsigned long long)count);
			return -1;
		}
		/* profile samples by frequency, as bpftrace does; interval
		 * needs an exact period for its one CPU. */
		freq = profile;
		period = profile ? count : 1000000000ull / count;
	} else {
		if (count > UINT64_MAX / units[u].ns) {
			diag_error(env->diag, a->span, "%s period is too long",
				   a->provider);
			return -1;
		}
		period = count * units[u].ns;
	}
	struct probe_target *t = probe_target_add(env->arena, out, n);
	t->prov = profile ? &probe_profile_prov : &probe_interval_prov;
	t->name = arena_printf(env->arena, "%s:%s:%llu", a->provider,
			       units[u].unit, (unsigned long long)count);
	t->u.timer.unit = units[u].unit;
	t->u.timer.period = period;
	t->u.timer.freq = freq;
	t->layout = CTXL_PERF;
	t->features = CTX_REGS;
	return 0;
}

static int open_on(const struct probe_target *t, int cpu)
{
	return perf_open_counter(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				 t->u.timer.period, t->u.timer.freq, -1, cpu);
}

static int attach_interval(const struct probe_target *t, int prog_fd,
			   struct probe_attachment *att)
{
	int cpu;
	int n = perf_online_cpus(&cpu, 1);
	if (n < 0)
		return n;
	if (n == 0)
		return -ENODEV;
	return probe_attach_perf(open_on(t, cpu), prog_fd, att);
}

int probe_attach_cpus(const struct probe_target *t, int prog_fd,
		      struct probe_attachment *att,
		      int (*open)(const struct probe_target *t, int cpu))
{
	int *cpus = malloc(sizeof(*cpus) * MAX_CPUS);
	if (!cpus)
		return -ENOMEM;
	int n = perf_online_cpus(cpus, MAX_CPUS);
	int err = n < 0 ? n : 0;
	for (int i = 0; i < n && i < MAX_CPUS && !err; i++)
		err = probe_attach_perf(open(t, cpus[i]), prog_fd, att);
	free(cpus);
	return err;
}

static int attach_profile(const struct probe_target *t, int prog_fd,
			  struct probe_attachment *att)
{
	return probe_attach_cpus(t, prog_fd, att, open_on);
}

/* "interval:ms:" ... as bpftrace 0.26 lists its time units (sorted);
 * the empty part is the period. Only asked for by name. */
static int list_units(const char *type, const char *pattern, FILE *out)
{
	static const char *const units[] = { "hz", "ms", "s", "us", NULL };
	for (const char *const *u = units; *u; u++)
		probe_list_empty_part(out, pattern, type, *u);
	return 0;
}

static int list_interval(const char *pattern, bool verbose, FILE *out)
{
	return list_units("interval", pattern, out);
}

static int list_profile(const char *pattern, bool verbose, FILE *out)
{
	return list_units("profile", pattern, out);
}

const struct provider probe_interval_prov = {
	.name = "interval",
	.aliases = (const char *const[]){ "i", NULL },
	.prog_type = BPF_PROG_TYPE_PERF_EVENT,
	.expand = expand,
	.attach = attach_interval,
	.list = list_interval,
};

const struct provider probe_profile_prov = {
	.pid_in_program = true,
	.name = "profile",
	.aliases = (const char *const[]){ "p", NULL },
	.prog_type = BPF_PROG_TYPE_PERF_EVENT,
	.expand = expand,
	.attach = attach_profile,
	.list = list_profile,
};
