/* kprobe and fentry: kernels without them must give a clear error. */
#include "common.h"

SEC("kprobe/do_nanosleep")
int on_kprobe(struct pt_regs *ctx)
{
	return 0;
}

SEC("fentry/do_nanosleep")
int BPF_PROG(on_fentry)
{
	return 0;
}
