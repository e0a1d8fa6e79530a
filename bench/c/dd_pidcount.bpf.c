/* tracepoint:syscalls:sys_enter_write { @[pid] = count(); } */
#include "tp.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} at SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_write")
int pidcount(struct sys_enter_ctx *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	__u64 one = 1, *v = bpf_map_lookup_elem(&at, &pid);
	if (v)
		*v += 1;
	else
		bpf_map_update_elem(&at, &pid, &one, BPF_NOEXIST);
	return 0;
}
