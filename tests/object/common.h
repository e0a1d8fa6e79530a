/* Shared by the test objects: kernel types, helpers, and the workload
 * filter (only the process whose comm is "objwl" is counted). */
#ifndef OBJTEST_COMMON_H
#define OBJTEST_COMMON_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

static __always_inline int is_workload(void)
{
	char c[16];
	bpf_get_current_comm(c, sizeof(c));
	return c[0] == 'o' && c[1] == 'b' && c[2] == 'j' && c[3] == 'w' &&
	       c[4] == 'l' && c[5] == 0;
}

/* bpftrace's log2 bucket index (runtime/hist.h: hist_log2_index). */
static __always_inline __u64 log2_index(__s64 v)
{
	if (v < 0)
		return 0;
	if (v == 0)
		return 1;
	__u64 n = v, k = 0, s;
	s = (n >= (1ULL << 16)) << 4; n >>= s; k += s;
	s = (n >= (1ULL << 8)) << 3; n >>= s; k += s;
	s = (n >= (1ULL << 4)) << 2; n >>= s; k += s;
	s = (n >= (1ULL << 2)) << 1; n >>= s; k += s;
	s = (n >= (1ULL << 1)); n >>= s; k += s;
	return 2 + k;
}

char LICENSE[] SEC("license") = "GPL";

#endif
