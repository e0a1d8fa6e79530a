/*
 * The cost of writing stack maps out at exit: a per-CPU count() map of N
 * distinct user stacks (default 10,000, 10 frames each), filled as the
 * generated code fills it, written as folded stacks (--folded) or as a
 * pprof profile (--pprof), the way a run ends. The frames are addresses
 * in this binary's code (built with -g, so pprof's DWARF lines and
 * inlined frames are looked up as for a program with debug info). Root.
 *   write_profiles folded|pprof [N [FILE]]
 * Prints: FORMAT N wall-ms cpu-ms KB-of-file KB-of-peak-RSS-growth
 * (CPU time, user + system, is steadier than wall time on a shared box).
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/compiled.h"
#include "model/types.h"
#include "runtime/flamegraph.h"
#include "runtime/mapdump.h"
#include "runtime/output.h"
#include "runtime/pprof.h"
#include "runtime/stacks.h"
#include "runtime/symbols.h"
#include "util/arena.h"

#include "fake_stacks.h"

static double cpu_ms(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, res = 0;
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &res) != 2)
			res = 0;
		fclose(f);
	}
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "folded") && strcmp(argv[1], "pprof"))) {
		fprintf(stderr, "usage: write_profiles folded|pprof [N [FILE]]\n");
		return 2;
	}
	bool pprof = !strcmp(argv[1], "pprof");
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000;
	const char *path = argc > 3 ? argv[3] : "/tmp/write_profiles.out";
	find_text();
	struct arena a;
	arena_init(&a);
	const struct type *kt = type_stack(&a, true, STACK_BPFTRACE, 127);
	struct type *vt = type_new(&a, TY_COUNT, 8);
	int ncpu = libbpf_num_possible_cpus();
	int fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, NULL, kt->size, 8,
				(uint32_t)n, NULL);
	if (fd < 0 || ncpu < 1) {
		perror("bpf_map_create (root?)");
		return 1;
	}
	uint64_t *key = calloc(1, kt->size), *vals = calloc((size_t)ncpu, 8);
	for (size_t i = 0; i < n; i++) {
		memset(key, 0, kt->size);
		key[0] = FRAMES;
		key[1] = (uint64_t)getpid();
		for (uint32_t f = 0; f < FRAMES; f++)
			key[2 + f] = frame((uint32_t)i, f);
		vals[0] = i + 1;
		if (bpf_map_update_elem(fd, key, vals, BPF_ANY)) {
			perror("bpf_map_update_elem");
			return 1;
		}
	}
	/* the compiled program of `@[ustack] = count()`, as far as the
	 * writers look at it */
	struct cmap cm = { .name = "@", .type = BPF_MAP_TYPE_PERCPU_HASH,
			   .key_size = kt->size, .value_size = 8,
			   .max_entries = (uint32_t)n, .is_user = true,
			   .percpu = true, .key = kt, .value = vt };
	struct compiled c = { .maps = &cm, .nmaps = 1, .ringbuf = -1,
			      .stop_flag = -1, .lost_counter = -1 };
	int fds[1] = { fd };
	struct stacks st;
	stacks_init(&st, &c, fds);
	struct out_resolver res = { .sym = symbols_resolve };
	stacks_resolver(&st, &res);
	long rss0 = rss_kb();
	double t0 = now(), c0 = cpu_ms();
	int rc;
	if (pprof) {
		struct pprof_src src = { &c, fds, &st, &res };
		rc = pprof_write_file(&src, path, 0, 1000000000, stderr);
	} else {
		struct mapdump_map m = { "@", fd, kt, vt, true, false, 0 };
		rc = flamegraph_write(&m, 1, &res, path, NULL, stderr);
	}
	double t1 = now(), c1 = cpu_ms();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	struct stat sb;
	if (rc || stat(path, &sb))
		return 1;
	printf("%s %zu %.1f %.1f %.0f %ld\n", argv[1], n, (t1 - t0) * 1e3,
	       c1 - c0, (double)sb.st_size / 1024, ru.ru_maxrss - rss0);
	stacks_fini(&st);
	close(fd);
	free(key);
	free(vals);
	arena_release(&a);
	return 0;
}
