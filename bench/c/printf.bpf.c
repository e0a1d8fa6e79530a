/* tracepoint:syscalls:sys_enter_getppid { printf("%d %s %llu\n", pid, comm, nsecs); }
 * A full ring buffer drops the event and counts it in lost[0]. */
#include "tp.h"

RINGBUF(events, 1 << 20);
PERCPU_COUNTER(lost, 1);

SEC("tracepoint/syscalls/sys_enter_getppid")
int print(struct sys_enter_ctx *ctx)
{
	struct ev_print_pid_comm *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		bump(&lost, 0, 1);
		return 0;
	}
	e->h.type = EV_PRINT_PID_COMM;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->ns = bpf_ktime_get_ns();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
	return 0;
}
