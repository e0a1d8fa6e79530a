/* tracepoint:syscalls:sys_enter_write { @ = count(); } */
#include "tp.h"

PERCPU_COUNTER(at, 1);

SEC("tracepoint/syscalls/sys_enter_write")
int count(struct sys_enter_ctx *ctx)
{
	bump(&at, 0, 1);
	return 0;
}
