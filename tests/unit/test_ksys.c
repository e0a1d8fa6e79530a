/* kallsyms, feature detection and perf_event helpers against the running
 * kernel. Anything this kernel lacks is SKIPped with the reason. */
#include "check.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kernel/features.h"
#include "kernel/kallsyms.h"
#include "kernel/perf.h"
#include "kernel/tracefs.h"

/* A text symbol from /proc/kallsyms whose address no other symbol
 * shares, read independently of the module under test. */
static bool pick_symbol(uint64_t *addr, char *name, size_t n)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	if (!f)
		return false;
	char line[256], prev_name[128] = "";
	unsigned long long a, prev = 0, prevprev = 0;
	char kind, nm[128];
	int seen = 0;
	bool ok = false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &a, &kind, nm) != 3)
			continue;
		/* prev is unique if it differs from both neighbours */
		if (seen > 2000 && prev && prev != prevprev && prev != a &&
		    !strchr(line, '\t')) {
			*addr = prev;
			snprintf(name, n, "%s", prev_name);
			ok = true;
			break;
		}
		prevprev = prev;
		prev = (kind == 'T') ? a : 0;
		snprintf(prev_name, sizeof(prev_name), "%s", nm);
		seen++;
	}
	fclose(f);
	return ok && *addr;
}

TEST(kallsyms_round_trip)
{
	int err = ksyms_load();
	if (err == -EPERM)
		SKIP("kptr_restrict hides kernel addresses");
	CHECK(err == 0 && ksyms_count() > 1000);
	uint64_t addr;
	char name[128];
	if (!pick_symbol(&addr, name, sizeof(name)))
		SKIP("no unique text symbol found in /proc/kallsyms");
	uint64_t off = 99;
	const struct ksym *s = ksyms_lookup(addr, &off);
	CHECK(s && off == 0);
	CHECK_STR(s ? s->name : NULL, name);
	s = ksyms_lookup(addr + 1, &off);
	CHECK(s && off == 1);
	CHECK_STR(s ? s->name : NULL, name);
	CHECK(ksyms_addr(name) == addr);
	CHECK(ksyms_addr("__no_such_kernel_symbol__") == 0);
	CHECK(ksyms_lookup(1, &off) == NULL);
	/* _stext is the same across kernels and is vmlinux text */
	s = ksyms_lookup(ksyms_addr("_stext"), NULL);
	CHECK(s && s->module == NULL);
}

/* arm64's mapping symbols ($x: code starts here, $d: data) are no
 * functions: a frame past one is its function's (arm64 guest: 9p
 * module frames printed as $x+136). Runs last: it replaces the table. */
TEST(kallsyms_mapping_symbols_skipped)
{
	ksyms_unload();
	char *text = strdup(
		"ffff800008010000 T _stext\n"
		"ffff800000a10000 t p9_client_rpc\t[9pnet]\n"
		"ffff800000a10080 t $x\t[9pnet]\n"
		"ffff800000a10100 t p9_client_walk\t[9pnet]\n"
		"ffff800000a10180 d $d.12\t[9pnet]\n");
	CHECK(ksyms_load_text(text, NULL, false) == 0);
	CHECK(ksyms_count() == 3);
	uint64_t off = 0;
	const struct ksym *s = ksyms_lookup(0xffff800000a10088ull, &off);
	CHECK_STR(s ? s->name : NULL, "p9_client_rpc");
	CHECK(off == 0x88);
	s = ksyms_lookup(0xffff800000a10190ull, &off);
	CHECK_STR(s ? s->name : NULL, "p9_client_walk");
	CHECK(ksyms_addr("$x") == 0);
	ksyms_unload();
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static bool kernel_at_least(int maj, int min)
{
	struct utsname u;
	int a = 0, b = 0;
	if (uname(&u) || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return false;
	return a > maj || (a == maj && b >= min);
}

static bool tracefs_has(const char *file)
{
	char path[256];
	return tracefs_path(path, sizeof(path), file) == 0 && exists(path);
}

TEST(features_match_the_system)
{
	for (int f = 0; f < FEAT__COUNT; f++) {
		feat_has(f);
		CHECK(feat_reason(f)[0] != '\0');
		CHECK(strcmp(feat_name(f), "unknown"));
	}
	/* The sysfs-backed answers, checked by looking ourselves. */
	CHECK(feat_has(FEAT_BTF) == exists("/sys/kernel/btf/vmlinux"));
	bool kprobe = exists("/sys/bus/event_source/devices/kprobe/type") ||
		      tracefs_has("kprobe_events");
	CHECK(feat_has(FEAT_KPROBE) == kprobe);
	if (!kprobe)
		CHECK_STR(feat_reason(FEAT_KPROBE),
			  "no kprobe PMU and no kprobe_events");
	bool uprobe = exists("/sys/bus/event_source/devices/uprobe/type") ||
		      tracefs_has("uprobe_events");
	CHECK(feat_has(FEAT_UPROBE) == uprobe);
	CHECK(feat_has(FEAT_BREAKPOINT) ==
	      exists("/sys/bus/event_source/devices/breakpoint/type"));
	/* No kprobes means no fprobe-based kprobe_multi either. */
	if (!kprobe)
		CHECK(!feat_has(FEAT_KPROBE_MULTI));
	/* The BPF-backed ones: present on any kernel this new. */
	if (kernel_at_least(5, 10)) {
		CHECK(feat_has(FEAT_RINGBUF));
		CHECK(feat_has(FEAT_RAW_TP));
		CHECK(feat_has(FEAT_TEST_RUN));
		CHECK(feat_has(FEAT_TP_BTF) == feat_has(FEAT_BTF));
	}
	if (feat_has(FEAT_FENTRY))
		CHECK(feat_has(FEAT_BTF));
	/* Cached: same pointer, same answer. */
	CHECK(feat_reason(FEAT_KPROBE) == feat_reason(FEAT_KPROBE));
	CHECK(!feat_has((enum feat_id)99));
}

TEST(cpu_lists)
{
	int cpus[16];
	CHECK(perf_parse_cpu_list("0-3,5,7-8\n", cpus, 16) == 7);
	CHECK(cpus[3] == 3 && cpus[4] == 5 && cpus[6] == 8);
	CHECK(perf_parse_cpu_list("0", cpus, 16) == 1 && cpus[0] == 0);
	CHECK(perf_parse_cpu_list("0-63", cpus, 16) == 64); /* counts past max */
	CHECK(perf_parse_cpu_list("3-1", cpus, 16) == -EINVAL);
	CHECK(perf_parse_cpu_list("x", cpus, 16) == -EINVAL);
	int n = perf_online_cpus(cpus, 16);
	CHECK(n == sysconf(_SC_NPROCESSORS_ONLN));
}

TEST(software_events_open)
{
	const struct perf_event_name *e =
		perf_event_by_name(PERF_TYPE_SOFTWARE, "cpu-clock");
	CHECK(e && e->config == PERF_COUNT_SW_CPU_CLOCK);
	CHECK(perf_event_by_name(PERF_TYPE_SOFTWARE, "cpu") == e);
	CHECK(perf_event_by_name(PERF_TYPE_SOFTWARE, "faults")->config ==
	      PERF_COUNT_SW_PAGE_FAULTS);
	CHECK(perf_event_by_name(PERF_TYPE_SOFTWARE, "cs")->default_period ==
	      1000);
	CHECK(perf_event_by_name(PERF_TYPE_HARDWARE, "cycles")->config ==
	      PERF_COUNT_HW_CPU_CYCLES);
	CHECK(perf_event_by_name(PERF_TYPE_SOFTWARE, "cycles") == NULL);
	static const char *const names[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults",
		"alignment-faults", "emulation-faults", "dummy", "bpf-output",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		e = perf_event_by_name(PERF_TYPE_SOFTWARE, names[i]);
		CHECK(e != NULL);
		if (!e)
			continue;
		int fd = perf_open_counter(PERF_TYPE_SOFTWARE, e->config,
					   e->default_period, false, -1, 0);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
	}
	/* 99 Hz on this thread, any CPU */
	int fd = perf_open_counter(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				   99, true, 0, -1);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

TEST(tracepoint_event_attaches_bpf)
{
	int id = tracefs_event_id("sched", "sched_switch");
	if (id < 0)
		SKIP("no tracefs or no sched:sched_switch");
	int pfd = perf_open_tracepoint(id, -1, 0);
	CHECK(pfd >= 0);
	struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int prog = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "t", "GPL", ret0, 2,
				 NULL);
	CHECK(prog >= 0);
	if (pfd >= 0 && prog >= 0) {
		int link = perf_attach_bpf(pfd, prog);
		CHECK(link >= 0);
		if (link > 0)
			close(link);
	}
	if (prog >= 0)
		close(prog);
	if (pfd >= 0)
		close(pfd);
	CHECK(perf_open_tracepoint(-1, -1, 0) == -EINVAL);
}

/* The file offset of a function of this binary, for a uprobe on it. */
static int self_offset(void *fn, char *path, size_t n, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return -errno;
	char line[512];
	int err = -ENOENT;
	uintptr_t a = (uintptr_t)fn;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, foff;
		char perms[8], file[400] = "";
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %399s", &lo, &hi, perms,
			   &foff, file) < 4)
			continue;
		if (a >= lo && a < hi && perms[2] == 'x') {
			snprintf(path, n, "%s", file);
			*off = a - lo + foff;
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

__attribute__((noinline)) int sonde_uprobe_target(int x)
{
	return x * 3;
}

TEST(uprobe_opens)
{
	if (!feat_has(FEAT_UPROBE))
		SKIP(feat_reason(FEAT_UPROBE));
	char path[400];
	uint64_t off = 0;
	if (self_offset((void *)sonde_uprobe_target, path, sizeof(path),
			&off))
		SKIP("test binary not found in /proc/self/maps");
	CHECK(perf_pmu_format_bit("uprobe", "retprobe") >= 0);
	int fd = perf_open_uprobe(path, off, false, 0, -1, 0);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	fd = perf_open_uprobe(path, off, true, 0, -1, 0);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(perf_open_uprobe("/no/such/file", 0, false, 0, -1, 0) < 0);
	CHECK(sonde_uprobe_target(1) == 3);
}

TEST(kprobe_opens)
{
	if (!feat_has(FEAT_KPROBE))
		SKIP(feat_reason(FEAT_KPROBE));
	if (perf_pmu_type("kprobe") < 0)
		SKIP("kprobes only through tracefs kprobe_events");
	int fd = perf_open_kprobe("vfs_read", 0, false, 0);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static volatile long watched;

TEST(breakpoint_opens)
{
	CHECK(perf_bp_mode_parse("rw") == (PERF_BP_R | PERF_BP_W));
	CHECK(perf_bp_mode_parse("wr") == (PERF_BP_R | PERF_BP_W));
	CHECK(perf_bp_mode_parse("x") == PERF_BP_X);
	CHECK(perf_bp_mode_parse("rx") == -EINVAL);
	CHECK(perf_bp_mode_parse("rr") == -EINVAL);
	CHECK(perf_bp_mode_parse("") == -EINVAL);
	CHECK(perf_open_breakpoint(0x1000, 3, PERF_BP_W, 0, -1) == -EINVAL);
	if (!feat_has(FEAT_BREAKPOINT))
		SKIP(feat_reason(FEAT_BREAKPOINT));
	int fd = perf_open_breakpoint((uint64_t)(uintptr_t)&watched,
				      sizeof(watched), PERF_BP_W, 0, -1);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	/* The firing check names what it found either way, and never
	 * claims breakpoints fire where none can be set. */
	const char *why = feat_reason(FEAT_BREAKPOINT_FIRES);
	CHECK(why && *why);
	if (feat_has(FEAT_BREAKPOINT_FIRES))
		CHECK(strstr(why, "saw") && !strstr(why, "none"));
	else
		CHECK(strstr(why, "never fire") || strstr(why, "cannot"));
}

TEST(hardware_events)
{
	if (!feat_has(FEAT_HW_EVENTS))
		SKIP(feat_reason(FEAT_HW_EVENTS));
	int fd = perf_open_counter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
				   1000000, false, 0, -1);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	RUN(kallsyms_round_trip);
	RUN(features_match_the_system);
	RUN(cpu_lists);
	RUN(software_events_open);
	RUN(tracepoint_event_attaches_bpf);
	RUN(uprobe_opens);
	RUN(kprobe_opens);
	RUN(breakpoint_opens);
	RUN(hardware_events);
	ksyms_unload();
	RUN(kallsyms_mapping_symbols_skipped);
	return check_done();
}
