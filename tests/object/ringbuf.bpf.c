/* Ring buffer of struct events, and a perf buffer of the same. */
#include "common.h"

struct event {
	__u32 pid;
	__u64 count;
	char comm[16];
	struct {
		__u8 fd;
		__s16 neg;
	} inner;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
	__type(value, struct event); /* how sonde knows the records' type */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} perf_events SEC(".maps");

/* The perf buffer's records are found as "struct event" by name: keep
 * the struct in BTF (locals' types are not emitted). */
const struct event *unused_event __attribute__((unused));

const volatile int use_perf = 0;

SEC("tp/syscalls/sys_enter_write")
int emit(struct trace_event_raw_sys_enter *ctx)
{
	if (!is_workload() || ctx->args[2] != 100)
		return 0;
	struct event e = { 0 };
	e.pid = bpf_get_current_pid_tgid() >> 32;
	e.count = ctx->args[2];
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	e.inner.fd = 7;
	e.inner.neg = -3;
	if (use_perf)
		bpf_perf_event_output(ctx, &perf_events, BPF_F_CURRENT_CPU, &e,
				      sizeof(e));
	else
		bpf_ringbuf_output(&events, &e, sizeof(e), 0);
	return 0;
}
