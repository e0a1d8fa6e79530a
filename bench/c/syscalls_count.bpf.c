/* tracepoint:syscalls:sys_enter_* { @[probe] = count(); } as a libbpf tool
 * would write it: one raw tracepoint on sys_enter, a per-CPU count per
 * syscall number (the names are user space's business). It leaves 32-bit
 * syscalls in, which the syscall tracepoints (and bpftrace, and sonde)
 * leave out: a little less work than theirs. */
#include "tp.h"

PERCPU_COUNTER(counts, 512);

SEC("raw_tp/sys_enter")
int count(struct bpf_raw_tracepoint_args *ctx)
{
	unsigned long nr = ctx->args[1];
	if (nr < 512)
		bump(&counts, (__u32)nr, 1);
	return 0;
}
