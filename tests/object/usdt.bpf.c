/* usdt: the workload's objwl:tick(n) probe. */
#include "common.h"
#include <bpf/usdt.bpf.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __s32);
	__type(value, __u64);
} ticks SEC(".maps");

SEC("usdt/" WL_PATH ":objwl:tick")
int BPF_USDT(on_tick, int n)
{
	__u64 one = 1, *v = bpf_map_lookup_elem(&ticks, &n);
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&ticks, &n, &one, BPF_NOEXIST);
	return 0;
}
