/*
 * What this kernel can do, probed only when asked and cached. Each probe
 * is cheap (a sysfs read, or loading a two-instruction program), and its
 * reason string is meant for user-facing errors:
 *   "kprobes are not available on this kernel (<reason>); use ..."
 */
#ifndef SONDE_FEATURES_H
#define SONDE_FEATURES_H

#include <stdbool.h>

enum feat_id {
	FEAT_BTF,          /* vmlinux BTF in /sys/kernel/btf */
	FEAT_KPROBE,       /* kprobe PMU or tracefs kprobe_events */
	FEAT_KPROBE_MULTI, /* BPF_TRACE_KPROBE_MULTI links */
	FEAT_UPROBE,       /* uprobe PMU or tracefs uprobe_events */
	FEAT_UPROBE_MULTI, /* BPF_TRACE_UPROBE_MULTI links (kernel/umulti.h) */
	FEAT_FENTRY,       /* fentry/fexit (kfunc/kretfunc) load and attach */
	FEAT_TP_BTF,       /* BTF-typed raw tracepoints */
	FEAT_RAW_TP,       /* raw tracepoints */
	FEAT_RINGBUF,      /* BPF_MAP_TYPE_RINGBUF */
	FEAT_TEST_RUN,     /* BPF_PROG_TEST_RUN of raw_tp programs (BEGIN/END) */
	FEAT_BREAKPOINT,   /* breakpoint PMU (watchpoints) */
	FEAT_BREAKPOINT_FIRES, /* and a breakpoint really fires: on some
				* virtual machines they attach but never do */
	FEAT_HW_EVENTS,    /* hardware perf counters (cycles) */
	FEAT_KPROBE_SESSION, /* kprobe_multi session links (--info only) */
	FEAT_ITER,         /* task iterators (--info only) */
	FEAT_WRITE_USER,   /* bpf_probe_write_user (kernel lockdown
			    * withholds it) */
	FEAT_LOOKUP_PERCPU_ELEM, /* bpf_map_lookup_percpu_elem (an aggregation
				  * read as a value, summed over the CPUs) */
	FEAT_KTIME_TAI,    /* bpf_ktime_get_tai_ns (tseries()' clock) */
	FEAT_BPF_LOOP,     /* bpf_loop (for over a range) */
	FEAT_FOR_EACH_MAP, /* bpf_for_each_map_elem (for over a map, len()) */
	FEAT_GET_FUNC_IP,  /* bpf_get_func_ip (func in fentry, kprobe_multi) */
	FEAT_ATTACH_COOKIE, /* bpf_get_attach_cookie (one program, many
			     * attach points) */
	FEAT_TASK_BTF,     /* bpf_get_current_task_btf (curtask typed) */
	FEAT_BOOT_NS,      /* bpf_ktime_get_boot_ns */
	FEAT_BIG_KEYS,     /* hash map keys over 512 bytes (stacks as keys) */
	FEAT_UPROBE_CALLER, /* user stacks at a uprobe on a function's entry
			     * hold its caller (kernel/ucaller.h) */
	FEAT_TASK_PT_REGS, /* bpf_task_pt_regs (a task's user registers: the
			      DWARF unwinder's outside user-mode samples) */
	FEAT__COUNT,
};

bool feat_has(enum feat_id f);
/* Whether programs of type (enum bpf_prog_type) may call the kernel
 * function name, which the kernel's BTF must have. */
#include <linux/bpf.h>
bool feat_kfunc_allowed(const char *name, enum bpf_prog_type type);
/* Why not (or how it was found); valid for the life of the process. */
const char *feat_reason(enum feat_id f);
/* The first Linux version that has f ("5.17"), for refusals that name
 * it; NULL where no one version does (a PMU, a lockdown setting). */
const char *feat_since(enum feat_id f);
/* Short name for listings: "kprobe", "fentry", ... */
const char *feat_name(enum feat_id f);
/* Makes f absent, whatever the kernel has (--no-feature): who asked is
 * said as the reason. */
void feat_disable(enum feat_id f, const char *by);

#endif
