#include "kernel/perf.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel/sysfs.h"

int perf_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
	      unsigned long flags)
{
	attr->size = sizeof(*attr);
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd,
			  flags | PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

/* Events start disabled: perf_attach_bpf enables them once the program is
 * in place, so no sample is lost to an event with nothing attached. */
static void base_attr(struct perf_event_attr *attr, uint32_t type)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = type;
	attr->sample_period = 1;
	attr->disabled = 1;
}

int perf_open_tracepoint(int id, int pid, int cpu)
{
	struct perf_event_attr attr;
	if (id < 0)
		return -EINVAL;
	base_attr(&attr, PERF_TYPE_TRACEPOINT);
	attr.config = (uint64_t)id;
	return perf_open(&attr, pid, cpu, -1, 0);
}

/* Names, aliases and default periods as bpftrace has them. */
static const struct perf_event_name sw_events[] = {
	{ "alignment-faults", NULL, PERF_COUNT_SW_ALIGNMENT_FAULTS, 1 },
	{ "bpf-output", NULL, PERF_COUNT_SW_BPF_OUTPUT, 1 },
	{ "context-switches", "cs", PERF_COUNT_SW_CONTEXT_SWITCHES, 1000 },
	{ "cpu-clock", "cpu", PERF_COUNT_SW_CPU_CLOCK, 1000000 },
	{ "cpu-migrations", NULL, PERF_COUNT_SW_CPU_MIGRATIONS, 1 },
	{ "dummy", NULL, PERF_COUNT_SW_DUMMY, 1 },
	{ "emulation-faults", NULL, PERF_COUNT_SW_EMULATION_FAULTS, 1 },
	{ "major-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1 },
	{ "minor-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MIN, 100 },
	{ "page-faults", "faults", PERF_COUNT_SW_PAGE_FAULTS, 100 },
	{ "task-clock", NULL, PERF_COUNT_SW_TASK_CLOCK, 1 },
	{ NULL, NULL, 0, 0 },
};

static const struct perf_event_name hw_events[] = {
	{ "backend-stalls", NULL, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 1000000 },
	{ "branch-instructions", "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  100000 },
	{ "branch-misses", NULL, PERF_COUNT_HW_BRANCH_MISSES, 100000 },
	{ "bus-cycles", NULL, PERF_COUNT_HW_BUS_CYCLES, 100000 },
	{ "cache-misses", NULL, PERF_COUNT_HW_CACHE_MISSES, 1000000 },
	{ "cache-references", NULL, PERF_COUNT_HW_CACHE_REFERENCES, 1000000 },
	{ "cpu-cycles", "cycles", PERF_COUNT_HW_CPU_CYCLES, 1000000 },
	{ "frontend-stalls", NULL, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  1000000 },
	{ "instructions", NULL, PERF_COUNT_HW_INSTRUCTIONS, 1000000 },
	{ "ref-cycles", NULL, PERF_COUNT_HW_REF_CPU_CYCLES, 1000000 },
	{ NULL, NULL, 0, 0 },
};

const struct perf_event_name *perf_event_names(uint32_t type)
{
	return type == PERF_TYPE_SOFTWARE ? sw_events
		: type == PERF_TYPE_HARDWARE ? hw_events : NULL;
}

const struct perf_event_name *perf_event_by_name(uint32_t type,
						 const char *name)
{
	const struct perf_event_name *e = perf_event_names(type);
	for (; e && e->name; e++)
		if (!strcmp(e->name, name) || (e->alias && !strcmp(e->alias, name)))
			return e;
	return NULL;
}

int perf_open_counter(uint32_t type, uint64_t config, uint64_t period,
		      bool freq, int pid, int cpu)
{
	struct perf_event_attr attr;
	base_attr(&attr, type);
	attr.config = config;
	attr.freq = freq;
	attr.sample_period = period ? period : 1; /* union with sample_freq */
	return perf_open(&attr, pid, cpu, -1, 0);
}

int perf_pmu_type(const char *pmu)
{
	char path[256];
	uint64_t type;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 pmu);
	int err = sysfs_read_u64(path, &type);
	return err ? err : (int)type;
}

int perf_pmu_format_bit(const char *pmu, const char *field)
{
	char path[256], buf[64];
	snprintf(path, sizeof(path),
		 "/sys/bus/event_source/devices/%s/format/%s", pmu, field);
	int n = sysfs_read(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	int bit;
	if (sscanf(buf, "config:%d", &bit) != 1 || bit < 0 || bit > 63)
		return -EINVAL;
	return bit;
}

/* kprobe and uprobe PMUs share one attr layout: config1 names the
 * target (function or path), config2 the offset in it. */
static int open_probe(const char *pmu, const char *target, uint64_t offset,
		      bool retprobe, uint64_t ref_ctr_off, int pid, int cpu)
{
	int type = perf_pmu_type(pmu);
	if (type < 0)
		return type;
	struct perf_event_attr attr;
	base_attr(&attr, (uint32_t)type);
	if (retprobe) {
		int bit = perf_pmu_format_bit(pmu, "retprobe");
		if (bit < 0)
			return bit;
		attr.config |= 1ull << bit;
	}
	if (ref_ctr_off) {
		int bit = perf_pmu_format_bit(pmu, "ref_ctr_offset");
		if (bit < 0)
			return bit;
		attr.config |= ref_ctr_off << bit;
	}
	attr.config1 = (uint64_t)(unsigned long)target;
	attr.config2 = offset;
	return perf_open(&attr, pid, cpu, -1, 0);
}

int perf_open_uprobe(const char *path, uint64_t offset, bool retprobe,
		     uint64_t ref_ctr_off, int pid, int cpu)
{
	return open_probe("uprobe", path, offset, retprobe, ref_ctr_off, pid,
			  cpu);
}

int perf_open_kprobe(const char *func, uint64_t offset, bool retprobe, int cpu)
{
	return open_probe("kprobe", func, offset, retprobe, 0, -1, cpu);
}

int perf_bp_mode_parse(const char *s)
{
	int mode = 0;
	for (; *s; s++) {
		int bit = *s == 'r' ? PERF_BP_R : *s == 'w' ? PERF_BP_W
			: *s == 'x' ? PERF_BP_X : 0;
		if (!bit || (mode & bit))
			return -EINVAL;
		mode |= bit;
	}
	/* The hardware cannot watch execution and data with one slot. */
	if (!mode || ((mode & PERF_BP_X) && mode != PERF_BP_X))
		return -EINVAL;
	return mode;
}

static int bp_attr(struct perf_event_attr *attr, uint64_t addr, int len,
		   int mode)
{
	base_attr(attr, PERF_TYPE_BREAKPOINT);
	attr->bp_addr = addr;
	if (mode == PERF_BP_X) {
		/* x86_64 requires sizeof(long) for an execution breakpoint;
		 * aarch64 takes it too and makes it its instructions' 4
		 * bytes (arch/arm64/kernel/hw_breakpoint.c) */
		attr->bp_type = HW_BREAKPOINT_X;
		attr->bp_len = sizeof(long);
		return 0;
	}
	if (len != 1 && len != 2 && len != 4 && len != 8)
		return -EINVAL;
	attr->bp_type = ((mode & PERF_BP_R) ? HW_BREAKPOINT_R : 0) |
			((mode & PERF_BP_W) ? HW_BREAKPOINT_W : 0);
	if (!attr->bp_type || (mode & PERF_BP_X))
		return -EINVAL;
	attr->bp_len = (uint64_t)len;
	return 0;
}

int perf_open_breakpoint(uint64_t addr, int len, int mode, int pid, int cpu)
{
	struct perf_event_attr attr;
	int err = bp_attr(&attr, addr, len, mode);
	return err ? err : perf_open(&attr, pid, cpu, -1, 0);
}

int perf_open_breakpoint_thread(uint64_t addr, int len, int mode, int tid)
{
	struct perf_event_attr attr;
	int err = bp_attr(&attr, addr, len, mode);
	if (err)
		return err;
	attr.inherit = 1;
	return perf_open(&attr, tid, -1, -1, 0);
}

int perf_attach_bpf(int perf_fd, int prog_fd)
{
	int link = bpf_link_create(prog_fd, perf_fd, BPF_PERF_EVENT, NULL);
	if (link < 0) {
		int err = -errno;
		/* Before 5.15 there are no perf links: attach the old way. */
		if (err != -EINVAL && err != -EOPNOTSUPP)
			return err;
		if (ioctl(perf_fd, PERF_EVENT_IOC_SET_BPF, prog_fd) < 0)
			return -errno;
		link = 0;
	}
	if (ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		int err = -errno;
		if (link > 0)
			close(link);
		return err;
	}
	return link;
}

int perf_parse_cpu_list(const char *s, int *cpus, int max)
{
	int n = 0;
	while (*s && *s != '\n') {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;
		if (end == s || lo < 0)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			hi = strtol(s + 1, &end, 10);
			if (end == s + 1 || hi < lo)
				return -EINVAL;
			s = end;
		}
		for (long c = lo; c <= hi; c++, n++)
			if (n < max)
				cpus[n] = (int)c;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return n;
}

int perf_online_cpus(int *cpus, int max)
{
	char buf[4096];
	int n = sysfs_read("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (n < 0)
		return n;
	return perf_parse_cpu_list(buf, cpus, max);
}
