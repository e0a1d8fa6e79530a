/* Do hardware breakpoints fire here? Arms a write breakpoint on a variable
 * of this process, writes it 3 times and reads the count. Exit 0: they
 * fire; 1: they attach but never fire (some virtual machines); 2: none can
 * be set. Independent of sonde, so that the tests that need breakpoints
 * skip on such machines even if sonde's own check were wrong. */
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long target;

int main(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uint64_t)(uintptr_t)&target;
	a.bp_len = sizeof(target);
	a.sample_period = 1;
	a.disabled = 1;
	a.exclude_kernel = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("bpcanary: perf_event_open");
		return 2;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (long i = 1; i <= 3; i++)
		target = i;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	uint64_t n = 0;
	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return 2;
	printf("%llu\n", (unsigned long long)n);
	return n ? 0 : 1;
}
