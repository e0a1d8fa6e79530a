/* The same histogram as an array of 64 slots in a per-CPU array. */
#include "common.h"

struct hist {
	__u64 slots[64];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hist);
} sizes SEC(".maps");

SEC("tp/syscalls/sys_enter_write")
int hist_slots(struct trace_event_raw_sys_enter *ctx)
{
	if (!is_workload())
		return 0;
	__u32 zero = 0;
	struct hist *h = bpf_map_lookup_elem(&sizes, &zero);
	__u64 i = log2_index((__s64)ctx->args[2]);
	if (h && i < 64)
		h->slots[i]++;
	return 0;
}
