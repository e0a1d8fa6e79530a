/*
 * perf_event_open and the event kinds sonde attaches BPF programs to:
 * tracepoints, software and hardware events, uprobes/kprobes through their
 * PMUs, and hardware breakpoints (watchpoints). Every function returns a
 * perf event fd or -errno; the caller owns (and closes) the fd.
 */
#ifndef SONDE_PERF_H
#define SONDE_PERF_H

#include <stdbool.h>
#include <stdint.h>

struct perf_event_attr;

/* attr->size is filled in. Close-on-exec is always set. */
int perf_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
	      unsigned long flags);

/* A tracepoint by its id (tracefs_event_id), pid -1 for all tasks. */
int perf_open_tracepoint(int id, int pid, int cpu);

/* Named events of one perf type (PERF_TYPE_SOFTWARE or _HARDWARE), with
 * bpftrace's names and aliases ("cpu-clock"/"cpu", "page-faults"/"faults",
 * "cycles"/"cpu-cycles", ...) and default sample periods. */
struct perf_event_name {
	const char *name, *alias;
	uint64_t config;
	uint64_t default_period;
};
const struct perf_event_name *perf_event_by_name(uint32_t type,
						 const char *name);
/* All of them, sorted by name, ending with a NULL name; NULL for a type
 * without named events. */
const struct perf_event_name *perf_event_names(uint32_t type);
/* Sampling event: period, or frequency in Hz when freq. */
int perf_open_counter(uint32_t type, uint64_t config, uint64_t period,
		      bool freq, int pid, int cpu);

/* A dynamic PMU's type from /sys/bus/event_source/devices/PMU/type. */
int perf_pmu_type(const char *pmu);
/* The config bit of PMU format FIELD ("retprobe": "config:0"), or -errno.
 * Multi-bit fields ("config:32-63") give their first bit. */
int perf_pmu_format_bit(const char *pmu, const char *field);

/* A uprobe on path+offset (file offset) through the uprobe PMU. pid -1 and
 * cpu >= 0 for all processes. ref_ctr_off is a USDT semaphore (0: none). */
int perf_open_uprobe(const char *path, uint64_t offset, bool retprobe,
		     uint64_t ref_ctr_off, int pid, int cpu);
/* A kprobe on func+offset (or, func NULL, the address offset) through the
 * kprobe PMU. */
int perf_open_kprobe(const char *func, uint64_t offset, bool retprobe,
		     int cpu);

enum perf_bp_mode { PERF_BP_R = 1, PERF_BP_W = 2, PERF_BP_X = 4 };
/* A hardware breakpoint: mode is PERF_BP_* bits (r, w, rw, x), len 1, 2, 4
 * or 8 (x: sizeof(long)). */
int perf_open_breakpoint(uint64_t addr, int len, int mode, int pid, int cpu);
/* ... bound to thread tid on any CPU, and inherited by the threads it
 * creates after (a task's breakpoint follows one thread). */
int perf_open_breakpoint_thread(uint64_t addr, int len, int mode, int tid);
/* "r", "w", "rw", "x" ... (any order) to PERF_BP_* bits; -EINVAL if bad. */
int perf_bp_mode_parse(const char *s);

/* Attaches a loaded BPF program to a perf event: returns the BPF link fd
 * (close it to detach) or, on kernels without perf links, 0 after
 * PERF_EVENT_IOC_SET_BPF (close the perf fd to detach). Enables it. */
int perf_attach_bpf(int perf_fd, int prog_fd);

/* Online CPUs: fills cpus (up to max) and returns how many there are
 * (which may exceed max), or -errno. */
int perf_online_cpus(int *cpus, int max);
/* Parses a kernel CPU list ("0-3,5,7-8"): count as above, -EINVAL. */
int perf_parse_cpu_list(const char *s, int *cpus, int max);

#endif
