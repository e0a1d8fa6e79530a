/* perf_event: CPU samples of the workload, key-less per-CPU counter. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} samples SEC(".maps");

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&samples, &zero);
	if (v && is_workload())
		*v += 1;
	return 0;
}
