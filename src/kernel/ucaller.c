#include "kernel/ucaller.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernel/arch.h"
#include "kernel/perf.h"

#if defined(__x86_64__)
/* The canary's two functions are in assembly, so that whatever the
 * compiler's flags (frame pointers left out, -fcf-protection, inlining)
 * they are what a compiler emits with frame pointers: the probed
 * instruction is the push of the frame, which the kernel's rule knows an
 * entry by; the caller has a frame of its own, and its call leaves
 * sonde_ucaller_ret as the return address the callchain must hold. */
__asm__(".text\n"
	".type sonde_ucaller_inner, @function\n"
	"sonde_ucaller_inner:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	pop %rbp\n"
	"	ret\n"
	".size sonde_ucaller_inner, .-sonde_ucaller_inner\n"
	".type sonde_ucaller_outer, @function\n"
	"sonde_ucaller_outer:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	call sonde_ucaller_inner\n"
	"sonde_ucaller_ret:\n"
	"	pop %rbp\n"
	"	ret\n"
	".size sonde_ucaller_outer, .-sonde_ucaller_outer\n");
#elif defined(__aarch64__)
/* The same on arm64: the probed instruction pushes the frame record, and
 * until then the caller is only in x30, which no kernel's user unwinder
 * reads today (it starts from x29); the canary asks all the same, so
 * that a kernel that learns to would not get the caller twice. */
__asm__(".text\n"
	".type sonde_ucaller_inner, %function\n"
	"sonde_ucaller_inner:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".size sonde_ucaller_inner, .-sonde_ucaller_inner\n"
	".type sonde_ucaller_outer, %function\n"
	"sonde_ucaller_outer:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	bl sonde_ucaller_inner\n"
	"sonde_ucaller_ret:\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".size sonde_ucaller_outer, .-sonde_ucaller_outer\n");
#endif

#if defined(__x86_64__) || defined(__aarch64__)
void sonde_ucaller_inner(void);
void sonde_ucaller_outer(void);
extern const char sonde_ucaller_ret[];

/* The file offset of address a in this executable: its mapping's file
 * offset plus its distance from the mapping's start (PIE or not). */
static bool self_offset(uint64_t a, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	char line[512];
	unsigned long long lo, hi, pgoff;
	bool found = false;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &pgoff) == 3 &&
		    a >= lo && a < hi) {
			*off = a - lo + pgoff;
			found = true;
		}
	fclose(f);
	return found;
}

/* The user frames of the first sample in the ring (the header page, then
 * one data page), without the context markers; -1 if there is none. */
static int first_callchain(const void *ring, size_t page, uint64_t *frames,
			   int max)
{
	const struct perf_event_mmap_page *mp = ring;
	const unsigned char *data = (const unsigned char *)ring + page;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	struct perf_event_header h;
	for (uint64_t pos = 0; pos + sizeof(h) <= head && pos + sizeof(h) <= page;
	     pos += h.size) {
		memcpy(&h, data + pos, sizeof(h));
		if (h.size < sizeof(h) || pos + h.size > page)
			break;
		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		/* PERF_SAMPLE_CALLCHAIN: nr, then ips[nr] */
		uint64_t nr;
		memcpy(&nr, data + pos + sizeof(h), sizeof(nr));
		int n = 0;
		for (uint64_t i = 0; i < nr && n < max; i++) {
			uint64_t ip;
			size_t at = pos + sizeof(h) + 8 * (i + 1);
			if (at + 8 > pos + h.size)
				break;
			memcpy(&ip, data + at, sizeof(ip));
			if (ip < (uint64_t)-4095) /* not a PERF_CONTEXT_* */
				frames[n++] = ip;
		}
		return n;
	}
	return -1;
}

/* Closing a uprobe waits for the kernel to unregister it (an RCU grace
 * period: 39 ms of a 57 ms compile, measured on 6.18), which nothing here
 * needs to wait for. */
static void *close_fd(void *fd)
{
	close((int)(intptr_t)fd);
	return NULL;
}

static void close_later(int fd)
{
	pthread_t t;
	pthread_attr_t at;
	bool started = false;
	if (pthread_attr_init(&at) == 0) {
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		started = pthread_create(&t, &at, close_fd,
					 (void *)(intptr_t)fd) == 0;
		pthread_attr_destroy(&at);
	}
	if (!started)
		close(fd);
}

bool ucaller_kernel_adds(char *why, size_t n)
{
	int type = perf_pmu_type("uprobe");
	uint64_t inner = (uint64_t)(uintptr_t)sonde_ucaller_inner;
	uint64_t ret = (uint64_t)(uintptr_t)sonde_ucaller_ret, off;
	if (type < 0) {
		snprintf(why, n, "no uprobe PMU (%s)", strerror(-type));
		return false;
	}
	if (!self_offset(inner, &off)) {
		snprintf(why, n, "sonde's own code is in no mapping of "
			 "/proc/self/maps");
		return false;
	}
	/* this process only, a sample per hit, its user callchain only */
	struct perf_event_attr a = {
		.type = (uint32_t)type,
		.config1 = (uint64_t)(uintptr_t)"/proc/self/exe",
		.config2 = off,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_CALLCHAIN,
		.exclude_callchain_kernel = 1,
		.disabled = 1,
	};
	int fd = perf_open(&a, 0, -1, -1, 0);
	if (fd < 0) {
		snprintf(why, n, "a uprobe on sonde's own code cannot be "
			 "opened (%s)", strerror(-fd));
		return false;
	}
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *ring = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED,
			  fd, 0);
	int got = -1;
	uint64_t frames[8];
	if (ring != MAP_FAILED) {
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0) {
			sonde_ucaller_outer();
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			got = first_callchain(ring, page, frames, 8);
		}
		munmap(ring, 2 * page);
	}
	close_later(fd);
	if (got < 1 || frames[0] != inner) {
		snprintf(why, n, "a uprobe on sonde's own code took no sample "
			 "of its address");
		return false;
	}
	if (got > 1 && frames[1] == ret)
		return snprintf(why, n, "a test uprobe's stack holds its "
				"caller"), true;
	snprintf(why, n, "user stacks at a function's entry miss its caller");
	return false;
}

#else
bool ucaller_kernel_adds(char *why, size_t n)
{
	snprintf(why, n, "no canary for this architecture");
	return false;
}

#endif

/* x86_64: the kernel's rule (arch/x86/events/core.c). arm64: the caller's
 * return address is in the link register (x30) until the prologue saves
 * it; the instructions that only begin a function are paciasp/pacibsp
 * (return-address signing), bti c/jc (an indirect call's landing pad) and
 * stp x29, x30, [sp, #-N]! (the frame record pushed). Not `sub sp, sp,
 * #N`, which large frames begin with but which a body may hold too, with
 * x30 no longer the caller's: there the caller stays out, as the kernel
 * leaves it. */
bool ucaller_is_entry(enum arch a, const unsigned char *b, size_t n)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	switch (a) {
	case ARCH_X86_64:
		return (n >= 1 && b[0] == 0x55) ||
		       (n >= 4 && !memcmp(b, endbr64, sizeof(endbr64)));
	case ARCH_AARCH64: {
		if (n < 4)
			return false;
		uint32_t insn = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
				(uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		return insn == 0xd503233f || /* paciasp */
		       insn == 0xd503237f || /* pacibsp */
		       insn == 0xd503245f || /* bti c */
		       insn == 0xd50324df || /* bti jc */
		       /* stp x29, x30, [sp, #imm7]! (64-bit, pre-index) */
		       (insn & 0xffc07fff) == 0xa9807bfd;
	}
	default:
		return false;
	}
}

bool ucaller_entry_insn(const char *path, uint64_t off)
{
	unsigned char b[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t got = pread(fd, b, sizeof(b), (off_t)off);
	close(fd);
	return got > 0 && ucaller_is_entry(arch_build(), b, (size_t)got);
}
