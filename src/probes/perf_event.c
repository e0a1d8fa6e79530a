/* software:EVENT[:COUNT] (alias s) and hardware:EVENT[:COUNT] (alias h):
 * a perf counter on every online CPU that runs the program every COUNT
 * events (bpftrace's default periods when COUNT is left out). They count
 * system-wide, -c notwithstanding; under -p the program returns at once
 * in other processes (pid_in_program), which follows all of its threads
 * where a per-process counter would follow one. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "kernel/features.h"
#include "kernel/glob.h"
#include "kernel/perf.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

/* defined at the end of this file */
extern const struct provider probe_hardware_prov, probe_software_prov;

static uint32_t perf_type(const struct provider *p)
{
	return p == &probe_hardware_prov ? PERF_TYPE_HARDWARE :
					   PERF_TYPE_SOFTWARE;
}

static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	const struct provider *p = probe_provider(a->provider);
	const char *kind = p->name;
	if (a->nparts < 1 || a->nparts > 2 || !a->parts[0][0]) {
		diag_error(env->diag, a->span, "%s probe type requires 1 or 2 "
			   "arguments (EVENT[:COUNT])", kind);
		return -1;
	}
	const struct perf_event_name *e =
		perf_event_by_name(perf_type(p), a->parts[0]);
	if (!e) {
		diag_error(env->diag, a->span, "%s is not a %s probe (see "
			   "sonde -l '%s:*')", a->parts[0], kind, kind);
		return -1;
	}
	/* 1e6, 1_000 ... as bpftrace 0.26 reads them; 0 or *: the
	 * default */
	uint64_t count = 0;
	char why[200];
	if (a->nparts == 2 && strcmp(a->parts[1], "*") &&
	    probe_parse_part(env, a->parts[1], &count, why, sizeof(why))) {
		diag_error(env->diag, a->span, "Invalid count for %s probe: %s",
			   kind, why);
		return -1;
	}
	bool given = count != 0;
	if (!count)
		count = e->default_period;
	if (p == &probe_hardware_prov &&
	    probe_refuse(env, a, FEAT_HW_EVENTS,
			 "software:cpu-clock or profile:hz"))
		return -1;
	struct probe_target *t = probe_target_add(env->arena, out, n);
	t->prov = p;
	/* As written, as bpftrace's `probe` prints it. */
	t->name = given ?
		arena_printf(env->arena, "%s:%s:%llu", kind, a->parts[0],
			     (unsigned long long)count) :
		arena_printf(env->arena, "%s:%s", kind, a->parts[0]);
	t->u.perf.config = e->config;
	t->in_attach_order = p == &probe_software_prov &&
			     (e->config == PERF_COUNT_SW_CPU_CLOCK ||
			      e->config == PERF_COUNT_SW_TASK_CLOCK);
	t->u.perf.period = count;
	t->layout = CTXL_PERF;
	t->features = CTX_REGS;
	return 0;
}

static int open_on(const struct probe_target *t, int cpu)
{
	return perf_open_counter(perf_type(t->prov), t->u.perf.config,
				 t->u.perf.period, false, -1, cpu);
}

static int attach(const struct probe_target *t, int prog_fd,
		  struct probe_attachment *att)
{
	return probe_attach_cpus(t, prog_fd, att, open_on);
}

/* Lines as bpftrace lists its software/hardware probe tables,
 * "software:cpu-clock:" (the empty part is the count): each event, and
 * its alias too ("software:cpu:"), as bpftrace 0.26. */
static int list_type(uint32_t type, const char *kind, const char *pattern,
		     FILE *out)
{
	for (const struct perf_event_name *e = perf_event_names(type);
	     e && e->name; e++) {
		probe_list_empty_part(out, pattern, kind, e->name);
		if (e->alias)
			probe_list_empty_part(out, pattern, kind, e->alias);
	}
	return 0;
}

static int list_sw(const char *pattern, bool verbose, FILE *out)
{
	return list_type(PERF_TYPE_SOFTWARE, "software", pattern, out);
}

static int list_hw(const char *pattern, bool verbose, FILE *out)
{
	return list_type(PERF_TYPE_HARDWARE, "hardware", pattern, out);
}

const struct provider probe_software_prov = {
	.pid_in_program = true,
	.name = "software",
	.aliases = (const char *const[]){ "s", NULL },
	.prog_type = BPF_PROG_TYPE_PERF_EVENT,
	.expand = expand,
	.attach = attach,
	.attach_reversed = true,
	.list = list_sw,
};

const struct provider probe_hardware_prov = {
	.pid_in_program = true,
	.name = "hardware",
	.aliases = (const char *const[]){ "h", NULL },
	.prog_type = BPF_PROG_TYPE_PERF_EVENT,
	.expand = expand,
	.attach = attach,
	.list = list_hw,
};
