/* tracepoint: writes per pid, filtered by --set variables. */
#include "common.h"

const volatile char target_comm[16] = "";
const volatile __u64 min_count = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_write")
int count_write(struct trace_event_raw_sys_enter *ctx)
{
	char c[16];
	bpf_get_current_comm(c, sizeof(c));
	for (int i = 0; i < 16 && target_comm[0]; i++) {
		if (c[i] != target_comm[i])
			return 0;
		if (!c[i])
			break;
	}
	if ((__u64)ctx->args[2] < min_count)
		return 0;
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	__u64 one = 1, *v = bpf_map_lookup_elem(&counts, &pid);
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&counts, &pid, &one, BPF_NOEXIST);
	return 0;
}
