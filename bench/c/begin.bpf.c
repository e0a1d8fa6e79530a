/* BEGIN { exit(); }  -- loader.c runs begin* programs once (BPF_PROG_TEST_RUN) */
#include "tp.h"

RINGBUF(events, 4096);

SEC("raw_tp")
int begin(void *ctx)
{
	struct ev_hdr h = { .type = EV_EXIT };
	bpf_ringbuf_output(&events, &h, sizeof(h), 0);
	return 0;
}
