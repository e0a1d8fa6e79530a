/*
 * A call chain with no frame pointers, for the DWARF unwinder's tests
 * (built -O2 -fomit-frame-pointer): main -> unw_a -> unw_b -> unw_c ->
 * unw_d, which spins. `nofpchain SECONDS` spins that long (0: until
 * killed); the spin makes no call, so a sample lands in unw_d itself.
 * Each function does work after its call, so no call is a tail call, and
 * noipa keeps every function whole and named.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static volatile unsigned long sink;

static void done(int sig)
{
	(void)sig;
	_exit(0);
}

__attribute__((noipa)) void unw_d(int n)
{
	for (;;)
		sink += (unsigned long)n;
}

__attribute__((noipa)) void unw_c(int n)
{
	unw_d(n + 1);
	sink++;
}

__attribute__((noipa)) void unw_b(int n)
{
	unw_c(n + 1);
	sink++;
}

__attribute__((noipa)) void unw_a(int n)
{
	unw_b(n + 1);
	sink++;
}

int main(int argc, char **argv)
{
	signal(SIGALRM, done);
	alarm(argc > 1 ? (unsigned)atoi(argv[1]) : 0);
	unw_a(argc);
	return (int)sink;
}
