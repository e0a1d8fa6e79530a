// uwl: the workload of the uprobe and USDT tests. Unlike wl.c it is linked
// dynamically (so libc can be probed by name) and built twice, as a PIE
// (@UWL@) and with -no-pie (@UWLNP@), so that file offsets are computed
// through both kinds of load segments. Its functions are noinline and take
// known arguments; its USDT probes have register, constant and memory
// arguments, and one has a semaphore.
//
//   uwl            calls everything once
//   uwl loop       does the same every 100 ms, forever (a BG process)
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

// The semaphore the kernel increments while a probe is attached (named
// PROVIDER_NAME_semaphore, as dtrace -G would make it).
__extension__ unsigned short uwl_gated_semaphore
	__attribute__((unused, section(".probes")));

// Globals of each size for uaddr(), which types its pointer by the
// symbol's size.
volatile unsigned char uwl_g8 = 0x12;
volatile unsigned short uwl_g16 = 0x3456;
volatile unsigned int uwl_g32 = 0x55555555;
volatile unsigned long long uwl_g64 = 0x1122334455667788ull;

__attribute__((noinline)) int uwl_add(int a, int b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

__attribute__((noinline)) long uwl_neg(long x)
{
	__asm__ volatile("" ::: "memory");
	return -x;
}

__attribute__((noinline)) size_t uwl_str(const char *s)
{
	__asm__ volatile("" ::: "memory");
	return strlen(s);
}

__attribute__((noinline)) int uwl_six(int a, int b, int c, int d, int e,
				      int f)
{
	__asm__ volatile("" ::: "memory");
	return a + b + c + d + e + f;
}

// uwl_nops+1 .. +4 are instruction boundaries (for FUNC+OFFSET probes)
// where arg0 is still in its register: the function is written in asm so
// that the compiler cannot change its layout.
#if defined(__x86_64__)
__asm__(".text\n"
	".globl uwl_nops\n"
	".type uwl_nops, @function\n"
	"uwl_nops:\n"
	"	nop\n	nop\n	nop\n	nop\n"
	"	lea 1(%rdi), %eax\n"
	"	ret\n"
	".size uwl_nops, .-uwl_nops\n");
int uwl_nops(int a);
#else
/* (noipa: a function without side effects whose result is unused is
 * otherwise not called at all, noinline or not: aarch64's gcc left the
 * call out) */
__attribute__((noipa)) int uwl_nops(int a)
{
	return a + 1;
}
#endif

static void usdt(int n)
{
	volatile int mem = 42;
	volatile long lmem = -7;
	long reg = n * 3;
	// "nor" lets the compiler pick: a register, a constant, or (for the
	// volatiles) a stack slot.
	DTRACE_PROBE2(uwl, regs, reg, (int)n);
	DTRACE_PROBE3(uwl, consts, 5, -1, 1000000000000L);
	DTRACE_PROBE2(uwl, mems, mem, lmem);
	DTRACE_PROBE(uwl, plain);
	// Only uwl:gated has a semaphore: sdt.h decides that for every probe
	// at include time, so the two macros _SDT_HAS_SEMAPHORES selects are
	// redefined (as it defines them) for this last one.
#undef _SDT_NOTE_SEMAPHORE_USE
#undef _SDT_SEMAPHORE
#define _SDT_NOTE_SEMAPHORE_USE(p, n)                                          \
	__asm__ __volatile__("" ::"m"(p##_##n##_semaphore));
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR p##_##n##_semaphore)
	if (uwl_gated_semaphore)
		DTRACE_PROBE1(uwl, gated, n + 100);
}

static void once(int n)
{
	uwl_add(n, 2);
	uwl_neg(n + 10);
	// on the stack: a probe cannot fault in a page not touched yet
	char hello[16];
	strcpy(hello, n > 1000 ? "bye" : "hello");
	uwl_str(hello);
	uwl_six(1, 2, 3, 4, 5, 6);
	uwl_nops(n + 20);
	getpid(); // libc:getpid
	usdt(n);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "loop")) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		for (int n = 1;; n++) {
			once(n);
			nanosleep(&ts, NULL);
		}
	}
	once(1);
	return 0;
}
