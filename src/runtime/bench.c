/* --bench (--mode bench): each bench:NAME program run through
 * BPF_PROG_TEST_RUN, repeated until it has run for a millisecond, and
 * its average time per run printed, as bpftrace 0.26 does (its
 * BPFtrace::run, text and JSON benchmark_result). What the programs print
 * is dropped. */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "runtime/bench.h"
#include "runtime/output.h"
#include "runtime/value_fmt.h"
#include "util/strbuf.h"

/* 0.26's growth: 1000x below 1 us in all, 100x below 10 us, 10x below
 * 100 us, 2x below 1 ms. */
static uint64_t next_iters(uint64_t iters, uint64_t total_ns)
{
	if (total_ns < 1000)
		return iters * 1000;
	if (total_ns < 10000)
		return iters * 100;
	if (total_ns < 100000)
		return iters * 10;
	if (total_ns < 1000000)
		return iters * 2;
	return 0;
}

int bench_run(int prog_fd, void (*drain)(void *ctx), void *ctx,
	      uint64_t *avg_ns, uint64_t *iters_out)
{
	uint64_t iters = 1;
	for (;;) {
		/* XDP wants at least an Ethernet header of data */
		char data[14] = { 0 };
		LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = data,
			    .data_size_in = sizeof(data),
			    .repeat = (int)iters);
		if (bpf_prog_test_run_opts(prog_fd, &t))
			return -errno;
		drain(ctx);
		*avg_ns = t.duration;
		*iters_out = iters;
		/* returning non-zero skips the rest (0.26) */
		if (t.retval)
			return 0;
		uint64_t next = next_iters(iters, (uint64_t)t.duration * iters);
		if (!next || next > 0x7fffffff)
			return 0;
		iters = next;
	}
}

void bench_print(struct out *o, const char *const *names, size_t n,
		 size_t index, uint64_t avg_ns, uint64_t iters)
{
	struct strbuf sb = STRBUF_INIT;
	if (o->ops == &out_json_ops) {
		sb_append(&sb, "{\"type\": \"benchmark_result\", \"data\": {\"");
		/* names are NAME of bench:NAME: no quotes or backslashes
		 * survive an attach point unescaped, but be safe */
		for (const char *c = names[index]; *c; c++) {
			if (*c == '"' || *c == '\\')
				sb_putc(&sb, '\\');
			sb_putc(&sb, *c);
		}
		sb_printf(&sb, "\": {\"average\": %llu, \"iters\": %llu}}}\n",
			  (unsigned long long)avg_ns,
			  (unsigned long long)iters);
		out_write(o, &sb);
		sb_free(&sb);
		return;
	}
	size_t width = 40;
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) > width)
			width = strlen(names[i]);
	if (index == 0) {
		sb_printf(&sb, "%-*s%-15s%s\n", (int)width + 1, "Benchmark",
			  "Time(ns)", "Iterations");
		for (size_t i = 0; i < width + 1 + 15 + strlen("Iterations");
		     i++)
			sb_putc(&sb, '-');
		sb_putc(&sb, '\n');
	}
	char avg[32];
	snprintf(avg, sizeof(avg), "%llu", (unsigned long long)avg_ns);
	sb_printf(&sb, "%-*s%-15s%llu\n", (int)width + 1, names[index], avg,
		  (unsigned long long)iters);
	out_write(o, &sb);
	sb_free(&sb);
}

int test_run_once(int prog_fd, uint32_t *retval, uint64_t *duration_ns)
{
	char data[14] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = data,
		    .data_size_in = sizeof(data), .repeat = 1);
	if (bpf_prog_test_run_opts(prog_fd, &t))
		return -errno;
	*retval = t.retval;
	*duration_ns = t.duration;
	return 0;
}

#define GREEN "\033[32m"
#define RED "\033[31m"
#define PLAIN "\033[0m"

static const char *tests_word(size_t n)
{
	return n == 1 ? "test" : "tests";
}

void test_print(struct out *o, const char *const *names, size_t n,
		size_t index, uint64_t duration_ns, const bool *passed,
		const char *output, size_t output_len)
{
	struct strbuf sb = STRBUF_INIT;
	if (o->ops == &out_json_ops) {
		sb_append(&sb, "{\"type\": \"test_result\", \"data\": {");
		vfmt_json_string(&sb, names[index], strlen(names[index]));
		sb_printf(&sb, ": {\"duration\": %llu, \"passed\": %s, "
			  "\"output\": ", (unsigned long long)duration_ns,
			  passed[index] ? "true" : "false");
		vfmt_json_string(&sb, output, output_len);
		sb_append(&sb, "}}}\n");
		out_write(o, &sb);
		sb_free(&sb);
		return;
	}
	if (index == 0)
		sb_printf(&sb, GREEN "[==========]" PLAIN " Running %zu tests.\n",
			  n);
	sb_printf(&sb, GREEN "[ RUN      ]" PLAIN " %s\n", names[index]);
	if (passed[index]) {
		sb_printf(&sb, GREEN "[       OK ]" PLAIN " %s", names[index]);
	} else {
		/* the failed test's output, its non-empty lines */
		size_t i = 0;
		while (i < output_len) {
			const char *nl = memchr(output + i, '\n', output_len - i);
			size_t e = nl ? (size_t)(nl - output) : output_len;
			if (e > i) {
				sb_appendn(&sb, output + i, e - i);
				sb_putc(&sb, '\n');
			}
			i = e + 1;
		}
		sb_printf(&sb, RED "[  FAILED  ]" PLAIN " %s", names[index]);
	}
	/* 0.26 prints the unit's scale where it means the count (its
	 * util::duration_str returns the pair it binds as unit and value):
	 * (1 ns), (1000 us) ... */
	const char *unit = "ns";
	uint64_t scale = 1;
	if (duration_ns >= 1000000000ull)
		unit = "s", scale = 1000000000ull;
	else if (duration_ns >= 1000000ull)
		unit = "ms", scale = 1000000ull;
	else if (duration_ns >= 1000ull)
		unit = "us", scale = 1000ull;
	sb_printf(&sb, " (%llu %s)\n", (unsigned long long)scale, unit);
	if (index == n - 1) {
		size_t failed = 0;
		for (size_t i = 0; i < n; i++)
			failed += !passed[i];
		sb_printf(&sb, GREEN "[==========]" PLAIN " %zu %s ran.\n", n,
			  tests_word(n));
		sb_printf(&sb, GREEN "[  PASSED  ]" PLAIN " %zu %s.\n",
			  n - failed, tests_word(n - failed));
		if (failed) {
			sb_printf(&sb, RED "[  FAILED  ]" PLAIN " %zu %s, "
				  "listed below:\n", failed, tests_word(failed));
			for (size_t i = 0; i < n; i++)
				if (!passed[i])
					sb_printf(&sb, RED "[  FAILED  ]" PLAIN
						  " %s\n", names[i]);
		}
	}
	out_write(o, &sb);
	sb_free(&sb);
}
