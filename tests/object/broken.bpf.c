/* Dereferences a user pointer directly: the verifier refuses it. */
#include "common.h"

SEC("tp/syscalls/sys_enter_write")
int broken(struct trace_event_raw_sys_enter *ctx)
{
	const char *buf = (const char *)ctx->args[1];
	return buf[0];
}
