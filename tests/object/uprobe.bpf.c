/* uprobe and uretprobe on the workload's objwl_target(int). WL_PATH is
 * the workload binary's absolute path, given at build time. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __s32);
	__type(value, __u64);
} calls SEC(".maps"), rets SEC(".maps");

static __always_inline void bump(void *map, __s32 k)
{
	__u64 one = 1, *v = bpf_map_lookup_elem(map, &k);
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(map, &k, &one, BPF_NOEXIST);
}

SEC("uprobe/" WL_PATH ":objwl_target")
int BPF_KPROBE(on_call, int n)
{
	bump(&calls, n);
	return 0;
}

SEC("uretprobe/" WL_PATH ":objwl_target")
int BPF_KRETPROBE(on_ret, int r)
{
	bump(&rets, r);
	return 0;
}
