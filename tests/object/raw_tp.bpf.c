/* raw_tp and tp_btf: syscalls of the workload by number. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 512);
	__type(key, __u64);
	__type(value, __u64);
} raw_counts SEC(".maps"), btf_counts SEC(".maps");

static __always_inline void bump(void *map, __u64 id)
{
	__u64 one = 1, *v = bpf_map_lookup_elem(map, &id);
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(map, &id, &one, BPF_NOEXIST);
}

SEC("raw_tp/sys_enter")
int on_raw(struct bpf_raw_tracepoint_args *ctx)
{
	if (is_workload())
		bump(&raw_counts, ctx->args[1]);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_btf, struct pt_regs *regs, long id)
{
	if (is_workload())
		bump(&btf_counts, id);
	return 0;
}
