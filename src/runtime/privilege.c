/* Tracing privileges (see privilege.h). */
#include <linux/capability.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/privilege.h"

/* Not in older <linux/capability.h>. */
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool has_cap(const struct __user_cap_data_struct d[2], int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

bool privilege_can_trace(const char **why)
{
	*why = "tracing needs root, or the CAP_BPF and CAP_PERFMON "
	       "capabilities (run sonde with sudo)";
	if (geteuid() == 0)
		return true;
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return false;
	return has_cap(d, CAP_SYS_ADMIN) ||
	       (has_cap(d, CAP_BPF) && has_cap(d, CAP_PERFMON));
}
