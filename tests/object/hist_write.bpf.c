/* @ = hist(args->count) by hand, in bpftrace's own layout: a per-CPU hash
 * keyed by the log2 bucket index. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} hist SEC(".maps");

SEC("tp/syscalls/sys_enter_write")
int hist_write(struct trace_event_raw_sys_enter *ctx)
{
	if (!is_workload())
		return 0;
	__u64 slot = log2_index((__s64)ctx->args[2]), one = 1;
	__u64 *v = bpf_map_lookup_elem(&hist, &slot);
	if (v)
		*v += 1;
	else
		bpf_map_update_elem(&hist, &slot, &one, BPF_NOEXIST);
	return 0;
}
