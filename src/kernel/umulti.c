/* uprobe_multi links (umulti.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#include "kernel/umulti.h"

/* union bpf_attr's link_create with its uprobe_multi member, as the
 * kernel lays it out (include/uapi/linux/bpf.h, Linux 6.6) */
struct link_create_umulti {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t umulti_flags;
	uint32_t pid;
};

#define UMULTI_RETURN 1u /* BPF_F_UPROBE_MULTI_RETURN */

int umulti_attach(int prog_fd, const char *path, const uint64_t *offsets,
		  const uint64_t *cookies, uint32_t n, bool ret, int pid)
{
	union {
		struct link_create_umulti lc;
		union bpf_attr attr; /* the size the kernel checks */
	} a;
	memset(&a, 0, sizeof(a));
	a.lc.prog_fd = (uint32_t)prog_fd;
	a.lc.attach_type = UMULTI_ATTACH_TYPE;
	a.lc.path = (uint64_t)(uintptr_t)path;
	a.lc.offsets = (uint64_t)(uintptr_t)offsets;
	a.lc.cookies = (uint64_t)(uintptr_t)cookies;
	a.lc.cnt = n;
	a.lc.umulti_flags = ret ? UMULTI_RETURN : 0;
	a.lc.pid = pid > 0 ? (uint32_t)pid : 0;
	long fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}
