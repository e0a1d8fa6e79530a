/*
 * --info: the facts feature detection finds (kernel/features.c) and what
 * libbpf's probes say of helpers and map types, in bpftrace --info's
 * sections and "name: yes|no" lines, so that scripts grepping bpftrace's
 * report work on sonde's.
 */
#include "runtime/info.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/utsname.h>

#include "kernel/arch.h"
#include "kernel/features.h"


static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

/* Helpers are probed from the program type sonde uses for most probes. */
static bool helper(enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, id, NULL) == 1 ||
	       libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, id, NULL) == 1;
}

/* The verifier's instruction limit, as bpftrace reads it from the log of
 * a two-instruction program ("processed 2 insns (limit 1000000)"); -1
 * where the log does not say. */
static int instruction_limit(void)
{
	static const struct bpf_insn prog[] = {
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_0 },
		{ 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log,
		    .log_size = sizeof(log), .log_level = 1);
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", prog, 3, &o);
	if (fd < 0)
		return -1;
	close(fd);
	const char *p = strstr(log, "processed 2 insns");
	int limit;
	if (!p || !(p = strstr(p, "(limit ")) ||
	    sscanf(p, "(limit %d)", &limit) != 1)
		return -1;
	return limit;
}

/* bpftrace's "module btf": the kernel names its BTF objects (and so
 * tells modules' BTF from vmlinux's). */
static bool module_btf(void)
{
	__u32 id = 0;
	if (bpf_btf_get_next_id(id, &id))
		return false;
	int fd = bpf_btf_get_fd_by_id(id);
	if (fd < 0)
		return false;
	char name[64];
	struct bpf_btf_info info = { .name = (__u64)(unsigned long)name,
				     .name_len = sizeof(name) };
	__u32 len = sizeof(info);
	int err = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	return err == 0;
}

/* "  bpf_loop: no (no bpf_loop helper; Linux 5.17 has it)": sonde's own
 * lines say why and where to find it; bpftrace's lines keep its words,
 * "name: yes|no", which scripts read. */
static void print_feat(FILE *out, enum feat_id f, bool why)
{
	bool ok = feat_has(f);
	fprintf(out, "  %s: %s", feat_name(f), yes_no(ok));
	if (!ok && why && feat_since(f))
		fprintf(out, " (%s; Linux %s has it)", feat_reason(f),
			feat_since(f));
	else if (!ok && why)
		fprintf(out, " (%s)", feat_reason(f));
	fputc('\n', out);
}

int info_print(FILE *out, const char *version)
{
	static const struct { const char *name; enum bpf_func_id id; } helpers[] = {
		{ "probe_read", BPF_FUNC_probe_read },
		{ "probe_read_str", BPF_FUNC_probe_read_str },
		{ "probe_read_user", BPF_FUNC_probe_read_user },
		{ "probe_read_user_str", BPF_FUNC_probe_read_user_str },
		{ "probe_read_kernel", BPF_FUNC_probe_read_kernel },
		{ "probe_read_kernel_str", BPF_FUNC_probe_read_kernel_str },
		{ "get_current_cgroup_id", BPF_FUNC_get_current_cgroup_id },
		{ "send_signal", BPF_FUNC_send_signal },
		{ "override_return", BPF_FUNC_override_return },
		{ "dpath", BPF_FUNC_d_path },
		{ "ringbuf_output", BPF_FUNC_ringbuf_output },
	};
	/* the helpers sonde probes for itself, each with a fallback or a
	 * refusal naming the Linux version that has it */
	static const enum feat_id helper_feats[] = {
		FEAT_BOOT_NS, FEAT_GET_FUNC_IP, FEAT_KTIME_TAI,
		FEAT_LOOKUP_PERCPU_ELEM,
	};
	static const enum feat_id fallback_feats[] = {
		FEAT_BPF_LOOP, FEAT_FOR_EACH_MAP, FEAT_ATTACH_COOKIE,
		FEAT_TASK_BTF,
	};
	static const struct { const char *name; enum bpf_map_type t; } maps[] = {
		{ "hash", BPF_MAP_TYPE_HASH },
		{ "percpu hash", BPF_MAP_TYPE_PERCPU_HASH },
		{ "array", BPF_MAP_TYPE_ARRAY },
		{ "percpu array", BPF_MAP_TYPE_PERCPU_ARRAY },
		{ "stack_trace", BPF_MAP_TYPE_STACK_TRACE },
		{ "perf_event_array", BPF_MAP_TYPE_PERF_EVENT_ARRAY },
		{ "ringbuf", BPF_MAP_TYPE_RINGBUF },
	};
	struct utsname u;
	if (uname(&u) < 0)
		return -1;
	fprintf(out, "System\n  OS: %s %s %s\n  Arch: %s\n\n", u.sysname,
		u.release, u.version, u.machine);
	fprintf(out, "Build\n  version: v%s\n  arch: %s\n  libbpf: %s\n"
		"  LLVM: none (sonde emits BPF itself)\n\n", version,
		arch_name(arch_build()), libbpf_version_string());
	fputs("Kernel helpers\n", out);
	for (size_t i = 0; i < sizeof(helpers) / sizeof(*helpers); i++)
		fprintf(out, "  %s: %s\n", helpers[i].name,
			yes_no(helper(helpers[i].id)));
	for (size_t i = 0; i < sizeof(helper_feats) / sizeof(*helper_feats); i++)
		print_feat(out, helper_feats[i], false);
	for (size_t i = 0; i < sizeof(fallback_feats) / sizeof(*fallback_feats); i++)
		print_feat(out, fallback_feats[i], true);
	fprintf(out, "\nKernel features\n  Instruction limit: %d\n  btf: %s\n"
		"  module btf: %s\n  BPF_PROG_TEST_RUN: %s\n",
		instruction_limit(),
		yes_no(feat_has(FEAT_BTF)), yes_no(module_btf()),
		yes_no(feat_has(FEAT_TEST_RUN)));
	print_feat(out, FEAT_BIG_KEYS, true);
	print_feat(out, FEAT_UPROBE_CALLER, true);
	fputc('\n', out);
	fputs("Map types\n", out);
	for (size_t i = 0; i < sizeof(maps) / sizeof(*maps); i++)
		fprintf(out, "  %s: %s\n", maps[i].name,
			yes_no(libbpf_probe_bpf_map_type(maps[i].t, NULL) == 1));
	fputs("\nProbe types\n", out);
	for (int f = FEAT_KPROBE; f <= FEAT_WRITE_USER; f++)
		if (f != FEAT_RINGBUF && f != FEAT_TEST_RUN)
			print_feat(out, (enum feat_id)f, false);
	fprintf(out, "  tracepoint: %s\n  perf_event: %s\n",
		yes_no(libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACEPOINT, NULL) == 1),
		yes_no(libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_PERF_EVENT, NULL) == 1));
	return 0;
}
