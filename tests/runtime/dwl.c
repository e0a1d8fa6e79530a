/* The DWARF/USDT workload: built with -g -O0 (debug info, arguments in
 * their registers at entry), it calls functions taking structs, pointers,
 * arrays and chars, fires probes of two USDT providers, calls into
 * libdwlib.so, which has probes of its own, and writes through pointer
 * arguments (watchpoints). `dwl N` runs N rounds
 * (0: forever, one a second, for -p tests). */
#include <stdlib.h>
#include <sys/sdt.h>
#include <unistd.h>

int lib_work(int n, const char *tag);

struct point {
	int x, y;
};

struct rec {
	struct point p;
	char name[16];
	long vals[3];
	struct rec *next;
	unsigned char flag;
	short s;
};

__attribute__((noinline)) long visit(struct rec *r, int depth, char c)
{
	DTRACE_PROBE2(app, visit, r->p.x, depth);
	return r->p.x + depth + c;
}

__attribute__((noinline)) int tally(int *n, unsigned long big)
{
	*n += 1;
	DTRACE_PROBE2(app, tally, *n, big);
	return *n;
}

/* called on six addresses a round: more than x86's four debug registers */
__attribute__((noinline)) void poke(int *p)
{
	*p += 1;
}

int main(int argc, char **argv)
{
	static int slots[6];
	struct rec b = { { 3, 4 }, "second", { 7, 8, 9 }, NULL, 1, -2 };
	struct rec a = { { 1, 2 }, "first", { 10, -20, 30 }, &b, 255, -300 };
	/* static: the stack that main's locals leave is written again by
	 * exit(), which a watchpoint on &n would count */
	static int n = 40;
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	/* microseconds between rounds, so that what a probe asks of user
	 * space (unwatch) is done before the next round */
	int pause_us = argc > 2 ? atoi(argv[2]) : 0;
	for (int i = 0; rounds == 0 || i < rounds; i++) {
		visit(&a, 1, 'x');
		visit(&b, 2, 'y');
		tally(&n, 5000000000UL);
		DTRACE_PROBE3(app, pair, a.p.x, b.p.y, -5);
		DTRACE_PROBE1(other, tick, i);
		lib_work(i + 1, "lib");
		for (int k = 0; k < 6; k++)
			poke(&slots[k]);
		if (rounds == 0)
			sleep(1);
		else if (pause_us > 0)
			usleep((useconds_t)pause_us);
	}
	return 0;
}
