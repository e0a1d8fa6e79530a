/* BPF side: helpers, and the syscalls tracepoint context as tracefs
 * describes it (sys_enter_*: 8 bytes of common fields, the syscall nr,
 * then six 8-byte args). Plain struct so no BTF is needed to build it. */
#ifndef TP_H
#define TP_H
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "bench.h"

struct sys_enter_ctx {
	unsigned long long common;
	long syscall_nr;
	unsigned long args[6];
};

#define PERCPU_COUNTER(name, n)                      \
	struct {                                        \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\
		__uint(max_entries, n);                 \
		__type(key, __u32);                     \
		__type(value, __u64);                   \
	} name SEC(".maps")

#define RINGBUF(name, sz)                            \
	struct {                                        \
		__uint(type, BPF_MAP_TYPE_RINGBUF);     \
		__uint(max_entries, sz);                \
	} name SEC(".maps")

static __always_inline void bump(void *map, __u32 k, __u64 by)
{
	__u64 *v = bpf_map_lookup_elem(map, &k);
	if (v)
		*v += by;
}

char LICENSE[] SEC("license") = "GPL";
#endif
