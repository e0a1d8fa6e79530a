/* The source of fuzz_elf's seeds (and fuzz_zip's archives): a little of
 * everything the ELF readers read: functions with parameters of struct,
 * union, pointer, array and enum types, an inlined call, a static
 * function, a global, and USDT probes with constant, register and memory
 * arguments when <sys/sdt.h> is there. Built by tests/fuzz/fuzz.mk. */
#include <stdio.h>
#include <stdlib.h>
#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#else
#define DTRACE_PROBE2(p, n, a, b) ((void)(a), (void)(b))
#define DTRACE_PROBE3(p, n, a, b, c) ((void)(a), (void)(b), (void)(c))
#endif

struct seed_point { int x, y; const char *label; };
struct seed_node { struct seed_node *next; struct seed_point pt[2]; };
union seed_u { long l; double d; unsigned char b[8]; };
enum seed_color { SEED_RED, SEED_GREEN = 5 };

int seed_global = 42;

static inline __attribute__((always_inline)) int seed_inl(int v)
{
	return v * 3 + seed_global;
}

__attribute__((noinline)) int seed_sum(const struct seed_point *p,
				       union seed_u u, enum seed_color c)
{
	DTRACE_PROBE3(seed, sum, p->x, u.l, c);
	return p->x + p->y + (int)u.l + seed_inl((int)c);
}

__attribute__((noinline)) static long seed_walk(struct seed_node *n,
						char tag[4])
{
	long t = 0;
	for (; n; n = n->next) {
		t += n->pt[0].x;
		DTRACE_PROBE2(seed, walk, n, tag[0]);
	}
	return t;
}

int main(int argc, char **argv)
{
	struct seed_point p = { argc, 2, "p" };
	union seed_u u = { .l = argc };
	struct seed_node n = { NULL, { p, p } };
	char tag[4] = "abc";
	printf("%d %ld\n", seed_sum(&p, u, SEED_GREEN), seed_walk(&n, tag));
	return argv[0] == NULL;
}
