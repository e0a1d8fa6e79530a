/*
 * --info: the facts feature detection finds (kernel/features.c) and what
 * libbpf's probes say of helpers and map types, in bpftrace --info's
 * sections and "name: yes|no" lines, so that scripts grepping bpftrace's
 * report work on sonde's.
 */
#include "runtime/info.h"

#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <sys/utsname.h>

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
		{ "get_boot_ns", BPF_FUNC_ktime_get_boot_ns },
		{ "dpath", BPF_FUNC_d_path },
		{ "ringbuf_output", BPF_FUNC_ringbuf_output },
		{ "get_func_ip", BPF_FUNC_get_func_ip },
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
	fprintf(out, "Build\n  version: v%s\n  libbpf: %s\n  LLVM: none "
		"(sonde emits BPF itself)\n\n", version,
		libbpf_version_string());
	fputs("Kernel helpers\n", out);
	for (size_t i = 0; i < sizeof(helpers) / sizeof(*helpers); i++)
		fprintf(out, "  %s: %s\n", helpers[i].name,
			yes_no(helper(helpers[i].id)));
	fprintf(out, "\nKernel features\n  btf: %s\n  BPF_PROG_TEST_RUN: %s\n\n",
		yes_no(feat_has(FEAT_BTF)), yes_no(feat_has(FEAT_TEST_RUN)));
	fputs("Map types\n", out);
	for (size_t i = 0; i < sizeof(maps) / sizeof(*maps); i++)
		fprintf(out, "  %s: %s\n", maps[i].name,
			yes_no(libbpf_probe_bpf_map_type(maps[i].t, NULL) == 1));
	fputs("\nProbe types\n", out);
	for (int f = 0; f < FEAT__COUNT; f++)
		if (f != FEAT_BTF && f != FEAT_TEST_RUN && f != FEAT_RINGBUF)
			fprintf(out, "  %s: %s\n", feat_name((enum feat_id)f),
				yes_no(feat_has((enum feat_id)f)));
	fprintf(out, "  tracepoint: %s\n  perf_event: %s\n",
		yes_no(libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACEPOINT, NULL) == 1),
		yes_no(libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_PERF_EVENT, NULL) == 1));
	return 0;
}
