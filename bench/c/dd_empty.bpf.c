/* tracepoint:syscalls:sys_enter_write { } */
#include "tp.h"

SEC("tracepoint/syscalls/sys_enter_write")
int empty(struct sys_enter_ctx *ctx) { return 0; }
