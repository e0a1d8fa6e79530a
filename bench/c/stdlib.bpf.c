/* BEGIN { printf("%d %s %llu\n", pid, comm, nsecs); @h = hist(pid);
 *         @c[comm] = count(); @s = sum(uid); exit(); }
 * -- the floor under the start-up of a script that calls the standard
 * library (run.sh's "stdlib" case, whose text adds strftime, str, lhist
 * and stats: C has no cheaper way to those than the helpers here). */
#include "tp.h"

RINGBUF(events, 4096);

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, char[16]);
	__type(value, __u64);
} counts SEC(".maps");

PERCPU_COUNTER(uid_sum, 1);

static __always_inline __u32 log2_bucket(__u64 v)
{
	__u32 b = 0;
	for (int i = 0; i < 64 && v > 1; i++) {
		v >>= 1;
		b++;
	}
	return b;
}

SEC("raw_tp")
int begin(void *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	struct ev_print_pid_comm e = { .h.type = EV_PRINT_PID_COMM, .pid = pid,
				       .ns = bpf_ktime_get_ns() };
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	bpf_ringbuf_output(&events, &e, sizeof(e), 0);
	bump(&hist, log2_bucket(pid), 1);
	__u64 one = 1, *c = bpf_map_lookup_elem(&counts, e.comm);
	if (c)
		__sync_fetch_and_add(c, 1);
	else
		bpf_map_update_elem(&counts, e.comm, &one, BPF_NOEXIST);
	bump(&uid_sum, 0, (__u32)bpf_get_current_uid_gid());
	struct ev_hdr h = { .type = EV_EXIT };
	bpf_ringbuf_output(&events, &h, sizeof(h), 0);
	return 0;
}
