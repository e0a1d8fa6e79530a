#include "kernel/features.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "kernel/arch.h"
#include "kernel/btf.h"
#include "kernel/perf.h"
#include "kernel/tracefs.h"
#include "kernel/ucaller.h"
#include "kernel/umulti.h"

struct feat_state {
	bool probed, ok;
	char reason[160];
};

static struct feat_state feats[FEAT__COUNT];

static const char *const feat_names[FEAT__COUNT] = {
	[FEAT_BTF] = "btf",
	[FEAT_KPROBE] = "kprobe",
	[FEAT_KPROBE_MULTI] = "kprobe_multi",
	[FEAT_UPROBE] = "uprobe",
	[FEAT_UPROBE_MULTI] = "uprobe_multi",
	[FEAT_FENTRY] = "fentry",
	[FEAT_TP_BTF] = "tp_btf",
	[FEAT_RAW_TP] = "raw_tracepoint",
	[FEAT_RINGBUF] = "ringbuf",
	[FEAT_TEST_RUN] = "prog_test_run",
	[FEAT_BREAKPOINT] = "breakpoint",
	[FEAT_BREAKPOINT_FIRES] = "breakpoint_fires",
	[FEAT_HW_EVENTS] = "hardware_events",
	[FEAT_KPROBE_SESSION] = "kprobe_session",
	[FEAT_ITER] = "iter",
	[FEAT_WRITE_USER] = "probe_write_user",
	[FEAT_LOOKUP_PERCPU_ELEM] = "lookup_percpu_elem",
	[FEAT_KTIME_TAI] = "get_tai_ns",
	[FEAT_BPF_LOOP] = "bpf_loop",
	[FEAT_FOR_EACH_MAP] = "for_each_map_elem",
	[FEAT_GET_FUNC_IP] = "get_func_ip",
	[FEAT_ATTACH_COOKIE] = "attach_cookie",
	[FEAT_TASK_BTF] = "get_current_task_btf",
	[FEAT_BOOT_NS] = "get_boot_ns",
	[FEAT_BIG_KEYS] = "big_map_keys",
	[FEAT_UPROBE_CALLER] = "uprobe_entry_caller",
	[FEAT_TASK_PT_REGS] = "task_pt_regs",
};

/* From the kernel's git history (the commit that added each). */
static const char *const feat_versions[FEAT__COUNT] = {
	[FEAT_BTF] = "5.4",
	[FEAT_KPROBE_MULTI] = "5.18",
	[FEAT_UPROBE_MULTI] = "6.6",
	[FEAT_FENTRY] = "5.5",
	[FEAT_TP_BTF] = "5.5",
	[FEAT_RAW_TP] = "4.17",
	[FEAT_RINGBUF] = "5.8",
	[FEAT_KPROBE_SESSION] = "6.10",
	[FEAT_ITER] = "5.8",
	[FEAT_LOOKUP_PERCPU_ELEM] = "5.19",
	[FEAT_KTIME_TAI] = "6.1",
	[FEAT_BPF_LOOP] = "5.17",
	[FEAT_FOR_EACH_MAP] = "5.13",
	[FEAT_GET_FUNC_IP] = "5.15",
	[FEAT_ATTACH_COOKIE] = "5.15",
	[FEAT_TASK_BTF] = "5.11",
	[FEAT_BOOT_NS] = "5.8",
	[FEAT_UPROBE_CALLER] = "6.11",
	[FEAT_TASK_PT_REGS] = "5.15",
};

static bool result(struct feat_state *s, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool result(struct feat_state *s, bool ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
	return s->ok = ok;
}

/* "r0 = 0; exit": enough for the verifier to accept any program type. */
static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static int load(enum bpf_prog_type type, struct bpf_prog_load_opts *opts)
{
	int fd = bpf_prog_load(type, "sonde_probe", "GPL", ret0, 2, opts);
	return fd < 0 ? -errno : fd;
}

static bool has_pmu_or_events(struct feat_state *s, const char *pmu,
			      const char *events_file)
{
	int type = perf_pmu_type(pmu);
	if (type >= 0)
		return result(s, true, "%s PMU (type %d)", pmu, type);
	char path[256];
	if (tracefs_path(path, sizeof(path), events_file) == 0 &&
	    access(path, W_OK) == 0)
		return result(s, true, "tracefs %s", events_file);
	return result(s, false, "no %s PMU and no %s", pmu, events_file);
}

static bool probe_btf(struct feat_state *s)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		return result(s, true, "/sys/kernel/btf/vmlinux");
	return result(s, false, "no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)");
}

/* BPF_TRACE_KPROBE_SESSION (Linux 6.10), which this libbpf's headers
 * predate. */
#define KPROBE_SESSION_ATTACH_TYPE 56

/* kprobe_multi links of attach type at (kprobe_multi, kprobe_session). */
static bool multi_link(struct feat_state *s, const char *what, int at)
{
	LIBBPF_OPTS(bpf_prog_load_opts, popts,
		    .expected_attach_type = (enum bpf_attach_type)at);
	int fd = load(BPF_PROG_TYPE_KPROBE, &popts);
	if (fd < 0)
		return result(s, false, "%s programs do not load (%s)", what,
			      strerror(-fd));
	/* A symbol that cannot exist: supported kernels fail the lookup,
	 * others refuse the attach type itself. */
	const char *sym = "__sonde_no_such_symbol__";
	/* bpf(2) itself: this libbpf passes kprobe_multi's fields only for
	 * the attach type it knows */
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (__u32)fd;
	a.link_create.attach_type = (__u32)at;
	a.link_create.kprobe_multi.syms = (__u64)(uintptr_t)&sym;
	a.link_create.kprobe_multi.cnt = 1;
	int link = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	int err = link < 0 ? errno : 0;
	if (link >= 0)
		close(link);
	close(fd);
	if (err == EOPNOTSUPP || err == EINVAL)
		return result(s, false, "%s links not supported (%s)", what,
			      strerror(err));
	return result(s, true, "%s links", what);
}

static bool probe_kprobe_multi(struct feat_state *s)
{
	return multi_link(s, "kprobe_multi", BPF_TRACE_KPROBE_MULTI);
}

static bool probe_kprobe_session(struct feat_state *s)
{
	return multi_link(s, "kprobe_session", KPROBE_SESSION_ATTACH_TYPE);
}

static bool probe_uprobe_multi(struct feat_state *s)
{
	LIBBPF_OPTS(bpf_prog_load_opts, popts,
		    .expected_attach_type = UMULTI_ATTACH_TYPE);
	int fd = load(BPF_PROG_TYPE_KPROBE, &popts);
	if (fd < 0)
		return result(s, false, "uprobe_multi programs do not load (%s)",
			      strerror(-fd));
	/* A file that cannot exist: supported kernels fail the path
	 * lookup, others refuse the attach type itself. */
	uint64_t off = 0, cookie = 0;
	int link = umulti_attach(fd, "/nonexistent/sonde-probe", &off, &cookie,
				 1, false, 0);
	if (link >= 0)
		close(link);
	close(fd);
	if (link != -ENOENT)
		return result(s, false, "uprobe_multi links not supported (%s)",
			      strerror(link < 0 ? -link : 0));
	return result(s, true, "uprobe_multi links");
}

/* Where fentry programs load but may not attach: arm64 has BPF
 * trampolines from Linux 6.0, but a trampoline on a kernel function needs
 * ftrace direct calls, which arm64 has from 6.4; before that the attach
 * fails with ENOTSUPP. x86 got both in 5.5, with fentry itself, so there
 * the load is the test and no run pays for a test attach. */
static bool fentry_needs_attach_test(void)
{
	return arch_build() != ARCH_X86_64;
}

/* Loads a BPF_PROG_TYPE_TRACING program at a BTF id, and with attach,
 * attaches it too. Load only where that is enough: the kernel checks the
 * target at load time, and detaching a test attach costs an RCU grace
 * period (7-11 ms measured), paid by every run. */
static bool tracing_prog(struct feat_state *s, const char *what,
			 enum bpf_attach_type at, const char *btf_name, int kind,
			 bool attach)
{
	struct btf *vml = kbtf_vmlinux();
	if (!vml)
		return result(s, false, "no kernel BTF");
	int32_t id = btf__find_by_name_kind(vml, btf_name, kind);
	if (id <= 0)
		return result(s, false, "no %s in kernel BTF", btf_name);
	LIBBPF_OPTS(bpf_prog_load_opts, popts, .expected_attach_type = at,
		    .attach_btf_id = (__u32)id);
	int fd = load(BPF_PROG_TYPE_TRACING, &popts);
	if (fd < 0)
		return result(s, false, "the kernel refuses %s programs (%s)",
			      what, strerror(-fd));
	int err = 0;
	if (attach) {
		int link = bpf_raw_tracepoint_open(NULL, fd);
		err = link < 0 ? errno : 0;
		if (link >= 0)
			close(link);
	}
	close(fd);
	/* (524: the kernel's internal ENOTSUPP, which strerror() lacks) */
	if (err)
		return result(s, false, "the kernel loads %s programs but cannot "
			      "attach them to kernel functions (%s; %s has the "
			      "ftrace direct calls they need from Linux %s)",
			      what, err == 524 ? "ENOTSUPP" : strerror(err),
			      arch_name(arch_build()), feat_since(FEAT_FENTRY));
	return result(s, true, "%s program for %s %s", what, btf_name,
		      attach ? "attaches" : "loads");
}

static bool probe_fentry(struct feat_state *s)
{
	/* bpf_fentry_test1 exists for exactly this kind of test. */
	return tracing_prog(s, "fentry", BPF_TRACE_FENTRY, "bpf_fentry_test1",
			    BTF_KIND_FUNC, fentry_needs_attach_test());
}

static bool probe_iter(struct feat_state *s)
{
	/* bpftrace's has_iter("task"), for --info */
	return tracing_prog(s, "iter", BPF_TRACE_ITER, "bpf_iter_task",
			    BTF_KIND_FUNC, false);
}

static bool probe_tp_btf(struct feat_state *s)
{
	return tracing_prog(s, "tp_btf", BPF_TRACE_RAW_TP,
			    "btf_trace_sched_switch", BTF_KIND_TYPEDEF, false);
}

static int load_raw_tp(void)
{
	return load(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL);
}

static bool probe_raw_tp(struct feat_state *s)
{
	/* Load only, as for tp_btf: attaching can only fail for a missing
	 * tracepoint, which the attach itself reports. */
	int fd = load_raw_tp();
	if (fd < 0)
		return result(s, false, "raw_tracepoint programs do not load (%s)",
			      strerror(-fd));
	close(fd);
	return result(s, true, "raw_tracepoint programs load");
}

static bool probe_test_run(struct feat_state *s)
{
	int fd = load_raw_tp();
	if (fd < 0)
		return result(s, false, "raw_tracepoint programs do not load (%s)",
			      strerror(-fd));
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU,
		    .cpu = 0);
	int err = bpf_prog_test_run_opts(fd, &opts) ? errno : 0;
	close(fd);
	if (err)
		return result(s, false, "BPF_PROG_TEST_RUN of raw_tp failed (%s)",
			      strerror(err));
	return result(s, true, "BPF_PROG_TEST_RUN of raw_tp");
}

static bool probe_ringbuf(struct feat_state *s)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0,
				(__u32)getpagesize(), NULL);
	if (fd < 0)
		return result(s, false, "ring buffer maps not supported (%s)",
			      strerror(errno));
	close(fd);
	return result(s, true, "BPF_MAP_TYPE_RINGBUF");
}

/* A helper the programs may call: asked for the program types they are
 * (kprobe-likes and tracepoints; raw_tp and perf_event allow the same). */
static bool probe_helper(struct feat_state *s, enum bpf_func_id id,
			 const char *name)
{
	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, id, NULL) == 1 ||
	    libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, id, NULL) == 1)
		return result(s, true, "%s", name);
	return result(s, false, "no %s helper", name);
}

/* Older kernels cap a hash map's key at the BPF stack's 512 bytes (they
 * assumed keys are built there); a stack of 127 frames is 1,016. */
static bool probe_big_keys(struct feat_state *s)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 1024, 8, 1, NULL);
	if (fd < 0)
		return result(s, false, "a hash map with 1024-byte keys: %s",
			      strerror(errno));
	close(fd);
	return result(s, true, "hash map keys of 1024 bytes");
}

static bool probe_breakpoint(struct feat_state *s)
{
	/* The PMU's presence, not a test open: the first breakpoint a
	 * process opens costs ~8 ms of kernel set-up (measured). */
	int type = perf_pmu_type("breakpoint");
	if (type < 0)
		return result(s, false, "no breakpoint PMU (%s)", strerror(-type));
	return result(s, true, "breakpoint PMU (type %d)", type);
}

static volatile long bp_canary;

/* Some hypervisors accept breakpoints and never deliver them: a watchpoint
 * would then count 0, a plausible and wrong answer. So watch a variable of
 * our own and write it. */
static bool probe_breakpoint_fires(struct feat_state *s)
{
	if (!feat_has(FEAT_BREAKPOINT))
		return result(s, false, "%s", feat_reason(FEAT_BREAKPOINT));
	int fd = perf_open_breakpoint((uint64_t)(uintptr_t)&bp_canary,
				      sizeof(bp_canary), PERF_BP_W, 0, -1);
	if (fd < 0)
		return result(s, false, "a hardware breakpoint cannot be set "
			      "(%s)", strerror(-fd));
	uint64_t count = 0;
	ssize_t got = -1;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0) {
		for (long i = 1; i <= 3; i++)
			bp_canary = i;
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		got = read(fd, &count, sizeof(count));
	}
	close(fd);
	if (got != (ssize_t)sizeof(count))
		return result(s, false, "a test breakpoint cannot be read");
	if (!count)
		return result(s, false, "hardware breakpoints attach but never "
			      "fire on this machine (a test breakpoint saw none "
			      "of 3 writes)");
	return result(s, true, "a test breakpoint saw %llu of 3 writes",
		      (unsigned long long)count);
}

static bool probe_hw(struct feat_state *s)
{
	int fd = perf_open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
				   1000000, false, 0, -1);
	if (fd < 0)
		return result(s, false, "no hardware perf counters (%s)",
			      strerror(-fd));
	close(fd);
	return result(s, true, "hardware cycles counter");
}

/* A tracing program calling the helper with arguments the verifier
 * refuses: it looks the helper up first, and says when the program type
 * cannot use it (libbpf's helper probe misses that wording). */
static bool probe_write_user(struct feat_state *s)
{
	static const struct bpf_insn call[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_probe_write_user },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log,
		    .log_size = sizeof(log), .log_level = 1);
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "sonde_probe", "GPL",
			       call, 6, &o);
	if (fd >= 0)
		close(fd);
	if (strstr(log, "cannot use helper") || strstr(log, "unknown func"))
		return result(s, false, "the kernel withholds "
			      "bpf_probe_write_user (lockdown)");
	if (fd < 0 && !log[0])
		return result(s, false, "tracing programs do not load (%s)",
			      strerror(errno));
	return result(s, true, "bpf_probe_write_user is offered");
}

bool feat_kfunc_allowed(const char *name, enum bpf_prog_type type)
{
	/* a cache of the few asked: (kfunc, program type) */
	static struct { const char *name; enum bpf_prog_type type; bool ok; }
		seen[8];
	static unsigned nseen;
	for (unsigned i = 0; i < nseen; i++)
		if (seen[i].type == type && !strcmp(seen[i].name, name))
			return seen[i].ok;
	int32_t id = kbtf_kfunc_id(name);
	bool ok = false;
	if (id > 0) {
		/* a call of it alone: the load fails (its arguments are
		 * unset), but the verifier first says when the type may
		 * not call it at all, as bpftrace's kfunc_allowed reads */
		const struct bpf_insn call[] = {
			{ .code = BPF_JMP | BPF_CALL,
			  .src_reg = BPF_PSEUDO_KFUNC_CALL, .imm = id },
			{ .code = BPF_JMP | BPF_EXIT },
		};
		char log[4096] = "", what[160];
		LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log,
			    .log_size = sizeof(log), .log_level = 1);
		int fd = bpf_prog_load(type, "sonde_probe", "GPL", call, 2,
				       &o);
		if (fd >= 0)
			close(fd);
		snprintf(what, sizeof(what), "calling kernel function %s is "
			 "not allowed", name);
		ok = !strstr(log, what) && (fd >= 0 || log[0]);
	}
	if (nseen < sizeof(seen) / sizeof(*seen))
		seen[nseen++] = (typeof(seen[0])){ name, type, ok };
	return ok;
}

static bool probe(enum feat_id f, struct feat_state *s)
{
	switch (f) {
	case FEAT_BTF: return probe_btf(s);
	case FEAT_KPROBE: return has_pmu_or_events(s, "kprobe", "kprobe_events");
	case FEAT_KPROBE_MULTI: return probe_kprobe_multi(s);
	case FEAT_UPROBE: return has_pmu_or_events(s, "uprobe", "uprobe_events");
	case FEAT_UPROBE_MULTI: return probe_uprobe_multi(s);
	case FEAT_FENTRY: return probe_fentry(s);
	case FEAT_TP_BTF: return probe_tp_btf(s);
	case FEAT_RAW_TP: return probe_raw_tp(s);
	case FEAT_RINGBUF: return probe_ringbuf(s);
	case FEAT_TEST_RUN: return probe_test_run(s);
	case FEAT_BREAKPOINT: return probe_breakpoint(s);
	case FEAT_BREAKPOINT_FIRES: return probe_breakpoint_fires(s);
	case FEAT_HW_EVENTS: return probe_hw(s);
	case FEAT_KPROBE_SESSION: return probe_kprobe_session(s);
	case FEAT_ITER: return probe_iter(s);
	case FEAT_WRITE_USER: return probe_write_user(s);
	case FEAT_LOOKUP_PERCPU_ELEM:
		return probe_helper(s, BPF_FUNC_map_lookup_percpu_elem,
				    "bpf_map_lookup_percpu_elem");
	case FEAT_KTIME_TAI:
		return probe_helper(s, BPF_FUNC_ktime_get_tai_ns,
				    "bpf_ktime_get_tai_ns");
	case FEAT_BPF_LOOP:
		return probe_helper(s, BPF_FUNC_loop, "bpf_loop");
	case FEAT_FOR_EACH_MAP:
		return probe_helper(s, BPF_FUNC_for_each_map_elem,
				    "bpf_for_each_map_elem");
	case FEAT_GET_FUNC_IP:
		return probe_helper(s, BPF_FUNC_get_func_ip, "bpf_get_func_ip");
	case FEAT_ATTACH_COOKIE:
		return probe_helper(s, BPF_FUNC_get_attach_cookie,
				    "bpf_get_attach_cookie");
	case FEAT_TASK_BTF:
		return probe_helper(s, BPF_FUNC_get_current_task_btf,
				    "bpf_get_current_task_btf");
	case FEAT_BOOT_NS:
		return probe_helper(s, BPF_FUNC_ktime_get_boot_ns,
				    "bpf_ktime_get_boot_ns");
	case FEAT_BIG_KEYS: return probe_big_keys(s);
	case FEAT_UPROBE_CALLER:
		return s->ok = ucaller_kernel_adds(s->reason, sizeof(s->reason));
	case FEAT_TASK_PT_REGS:
		return probe_helper(s, BPF_FUNC_task_pt_regs,
				    "bpf_task_pt_regs");
	case FEAT__COUNT: break;
	}
	return result(s, false, "unknown feature");
}

static struct feat_state *state(enum feat_id f)
{
	static struct feat_state bad = { true, false, "unknown feature" };
	if ((unsigned)f >= FEAT__COUNT)
		return &bad;
	struct feat_state *s = &feats[f];
	if (!s->probed) {
		probe(f, s);
		s->probed = true;
	}
	return s;
}

bool feat_has(enum feat_id f)
{
	return state(f)->ok;
}

const char *feat_reason(enum feat_id f)
{
	return state(f)->reason;
}

void feat_disable(enum feat_id f, const char *by)
{
	if ((unsigned)f >= FEAT__COUNT)
		return;
	feats[f].probed = true;
	result(&feats[f], false, "disabled by %s", by);
}

const char *feat_since(enum feat_id f)
{
	/* (fentry_needs_attach_test: arm64's kernel functions take
	 * trampolines from the release that gave it ftrace direct calls) */
	if (f == FEAT_FENTRY && arch_build() == ARCH_AARCH64)
		return "6.4";
	return (unsigned)f < FEAT__COUNT ? feat_versions[f] : NULL;
}

const char *feat_name(enum feat_id f)
{
	return (unsigned)f < FEAT__COUNT ? feat_names[f] : "unknown";
}
