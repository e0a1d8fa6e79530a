/* tracepoint:syscalls:sys_enter_write { @ = count(); }
 * interval:ms:100 { exit(); }
 * END { printf("end\n"); } */
#include "tp.h"

RINGBUF(events, 4096);
PERCPU_COUNTER(at, 1);

SEC("tracepoint/syscalls/sys_enter_write")
int count(struct sys_enter_ctx *ctx)
{
	bump(&at, 0, 1);
	return 0;
}

SEC("perf_event")
int interval_ms_100(void *ctx)
{
	struct ev_hdr h = { .type = EV_EXIT };
	bpf_ringbuf_output(&events, &h, sizeof(h), 0);
	return 0;
}

SEC("raw_tp")
int end(void *ctx)
{
	struct ev_print_str e = { .h.type = EV_PRINT_STR, .msg = "end" };
	bpf_ringbuf_output(&events, &e, sizeof(e), 0);
	return 0;
}
