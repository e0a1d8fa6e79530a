/* Whether this kernel's user stacks, taken by a uprobe on a function's
 * first instruction, hold the function's caller: for the REQUIRES word
 * ucaller (common.sh) of the ustack tests that probe a function at entry.
 *
 * At entry the function has not pushed its frame yet, so the frame
 * pointer still holds its caller's frame, and the kernel's frame-pointer
 * walk goes from the probed address straight to the caller's caller: the
 * caller's return address, at [sp] on x86 (in the link register on
 * arm64), is left out. Linux 6.11 adds it on x86 ("perf,x86: avoid
 * missing caller address in stack traces captured in uprobe", backported
 * to some stable kernels: Debian's 6.1 has it, its 5.10 not).
 *
 * The canary puts a uprobe (the uprobe PMU, as sonde does) on the entry of
 * its own ucanary_inner(), calls it from ucanary_outer(), and looks at the
 * sample's user callchain: is the frame after the probed address the
 * return address into ucanary_outer()? It prints "caller" (exit 0) or
 * "no caller" (exit 1), or on stderr why it cannot tell (exit 2).
 * -v prints the callchain on stderr.
 *   cc -O2 -o ucanary ucanary.c
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uprobe_self.h"

/* The two functions are in assembly, so that whatever the compiler and its
 * flags (frame pointers left out, -fcf-protection, inlining, clones, tail
 * calls) they are what a compiler emits with frame pointers: the probed
 * instruction is the push of the frame (the x86 fix knows a function's
 * entry by it, or by endbr64), the caller has a frame of its own, and its
 * call leaves ucanary_ret as the return address the callchain must hold. */
#if defined(__x86_64__)
__asm__(".text\n"
	".type ucanary_inner, @function\n"
	"ucanary_inner:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	pop %rbp\n"
	"	ret\n"
	".size ucanary_inner, .-ucanary_inner\n"
	".type ucanary_outer, @function\n"
	"ucanary_outer:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	call ucanary_inner\n"
	"ucanary_ret:\n"
	"	pop %rbp\n"
	"	ret\n"
	".size ucanary_outer, .-ucanary_outer\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".type ucanary_inner, %function\n"
	"ucanary_inner:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".size ucanary_inner, .-ucanary_inner\n"
	".type ucanary_outer, %function\n"
	"ucanary_outer:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	bl ucanary_inner\n"
	"ucanary_ret:\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".size ucanary_outer, .-ucanary_outer\n");
#else
#define NO_CANARY
#endif

void ucanary_inner(void);
void ucanary_outer(void);
extern const char ucanary_ret[];

#define PAGES 8 /* the ring's data pages: room for one sample and more */

static int cannot(const char *why, const char *detail)
{
	fprintf(stderr, "ucanary: %s%s%s\n", why, detail ? ": " : "", detail ? detail : "");
	return 2;
}

/* ring_copy: n bytes from the ring at pos (which may wrap round its end) */
static void ring_copy(void *dst, const unsigned char *data, size_t size, uint64_t pos, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((unsigned char *)dst)[i] = data[(pos + i) % size];
}

int main(int argc, char **argv)
{
#ifdef NO_CANARY
	(void)argc, (void)argv;
	return cannot("no canary for this architecture (x86_64 and arm64 only)", NULL);
#else
	int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
	uint64_t inner = (uintptr_t)ucanary_inner, ret = (uintptr_t)ucanary_ret;

	/* The probe: this process only (pid 0, any CPU), a sample per hit, with
	 * the user callchain only (the kernel's part would be the uprobe's own
	 * path). */
	struct perf_event_attr a;
	const char *detail, *why = uprobe_self(inner, &a, &detail);
	if (why)
		return cannot(why, detail);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_CALLCHAIN;
	a.exclude_callchain_kernel = 1;
	a.disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return cannot("perf_event_open of the uprobe", strerror(errno));

	/* The ring buffer the sample is written to: a header page, then data. */
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = PAGES * page;
	void *m = mmap(NULL, page + size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return cannot("mmap of the ring buffer", strerror(errno));
	struct perf_event_mmap_page *mp = m;
	const unsigned char *data = (const unsigned char *)m + page;

	/* One hit: outer calls inner, whose first instruction is the probe. */
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		return cannot("enabling the uprobe", strerror(errno));
	ucanary_outer();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	/* The records up to data_head (read before the data it covers). */
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	static uint64_t rec[65536 / 8];
	struct perf_event_header h;
	for (uint64_t pos = mp->data_tail; pos + sizeof(h) <= head; pos += h.size) {
		ring_copy(&h, data, size, pos, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		/* A sample of PERF_SAMPLE_CALLCHAIN: header, nr, ips[nr]. The
		 * ips hold context markers (PERF_CONTEXT_USER, ...: the last
		 * 4095 values of a u64), which are not frames. */
		ring_copy(rec, data, size, pos, h.size);
		uint64_t nr = rec[1], *ips = &rec[2], frames[512];
		size_t n = 0;
		for (uint64_t i = 0; i < nr && 2 + i < h.size / 8 && n < 512; i++)
			if (ips[i] < (uint64_t)-4095)
				frames[n++] = ips[i];
		if (verbose) {
			fprintf(stderr, "ucanary: probed 0x%llx, return into the caller 0x%llx; callchain:",
				(unsigned long long)inner, (unsigned long long)ret);
			for (size_t i = 0; i < n; i++)
				fprintf(stderr, " 0x%llx", (unsigned long long)frames[i]);
			fputc('\n', stderr);
		}
		/* The first frame is the probed address; the next must be the
		 * return address into ucanary_outer, not its caller's. */
		if (n == 0 || frames[0] != inner)
			return cannot("the sample's first frame is not the probed address", NULL);
		if (n > 1 && frames[1] == ret) {
			puts("caller");
			return 0;
		}
		puts("no caller");
		return 1;
	}
	return cannot("the uprobe took no sample", NULL);
#endif
}
