/*
 * Printing cost of user stacks: a map of N distinct user stacks (default
 * 10,000, 10 frames each) printed through sonde's text output, with every
 * frame symbolised by runtime/usyms (this process's own mappings and ELF
 * symbols, as for a traced process). The stacks are made up from
 * addresses inside this binary's code, so the frames are real functions;
 * only the stack-map read is replaced. Prints the elapsed time.
 *   print_stacks [N [OUTFILE]]   (output to /dev/null by default)
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/types.h"
#include "runtime/output.h"
#include "runtime/usyms.h"
#include "util/arena.h"
#include "util/strbuf.h"

#include "fake_stacks.h"

static struct usyms *U;

static int sym(void *ctx, uint64_t addr, int32_t pid, bool offset,
	       struct strbuf *sb)
{
	(void)ctx;
	return usyms_resolve(U, pid, addr, offset, sb, NULL);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	find_text();
	struct arena a;
	arena_init(&a);
	const struct type *kt = type_stack(&a, true, STACK_BPFTRACE, 127);
	struct type *vt = type_new(&a, TY_COUNT, 8);
	/* ustack keys as the kernel fills them: {nframes, pid, ips[127]} */
	size_t kw = kt->size / 8;
	uint64_t *keys = calloc(n, kt->size), *vals = calloc(n, 8);
	struct out_entry *es = calloc(n, sizeof(*es));
	for (size_t i = 0; i < n; i++) {
		uint64_t *k = &keys[kw * i];
		k[0] = FRAMES;
		k[1] = (uint64_t)getpid();
		for (uint32_t f = 0; f < FRAMES; f++)
			k[2 + f] = frame((uint32_t)i, f);
		vals[i] = i + 1;
		es[i].key = (const uint8_t *)k;
		es[i].value = (const uint8_t *)&vals[i];
	}
	FILE *devnull = fopen(argc > 2 ? argv[2] : "/dev/null", "w");
	if (!devnull)
		return 1;
	double t0 = now();
	U = usyms_new();
	struct out_resolver res = { .sym = sym };
	struct out o;
	out_init(&o, "text", devnull, &res);
	struct out_map m = { "@", kt, vt, es, n, 0 };
	out_map(&o, &m);
	double t1 = now();
	printf("%zu stacks of %d frames printed in %.1f ms\n", n, FRAMES,
	       (t1 - t0) * 1e3);
	usyms_free(U);
	fclose(devnull);
	free(keys);
	free(vals);
	free(es);
	arena_release(&a);
	return 0;
}
