/* Whether hardware breakpoints work here, for the REQUIRES words of the
 * watchpoint tests (common.sh): opens a write breakpoint on a variable of
 * its own, writes it, and counts the hits. Prints "fires" (breakpoints
 * attach and fire), "attaches" (they attach but never fire, as on some
 * VMs) or "none: REASON" (they cannot be opened). */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile uint64_t target;

int main(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uint64_t)(uintptr_t)&target;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_period = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("none: %s\n", strerror(errno));
		return 0;
	}
	for (int i = 0; i < 8; i++)
		target = (uint64_t)i;
	uint64_t n = 0;
	if (read(fd, &n, sizeof(n)) != sizeof(n))
		n = 0;
	close(fd);
	puts(n > 0 ? "fires" : "attaches");
	return 0;
}
