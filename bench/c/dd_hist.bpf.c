/* tracepoint:syscalls:sys_enter_write { @ = hist(args->count); }
 * Buckets as bpftrace's: 0 -> 0, 1 -> 1, then 1 + floor(log2(v)). */
#include "tp.h"

PERCPU_COUNTER(at, 66);

static __always_inline __u32 log2b(__u64 v)
{
	__u32 r = 0, s;
	s = (v > 0xffffffffULL) << 5; v >>= s; r |= s;
	s = (v > 0xffff) << 4; v >>= s; r |= s;
	s = (v > 0xff) << 3; v >>= s; r |= s;
	s = (v > 0xf) << 2; v >>= s; r |= s;
	s = (v > 0x3) << 1; v >>= s; r |= s;
	r |= (v >> 1);
	return r;
}

SEC("tracepoint/syscalls/sys_enter_write")
int hist(struct sys_enter_ctx *ctx)
{
	__u64 v = ctx->args[2];
	bump(&at, v ? log2b(v) + 1 : 0, 1);
	return 0;
}
