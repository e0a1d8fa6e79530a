/* --bench: bench:NAME programs run repeatedly and timed (bench.c). */
#ifndef SONDE_BENCH_H
#define SONDE_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct out;

/* Runs the XDP program prog_fd through BPF_PROG_TEST_RUN, 1, 1000 ...
 * times, until a round takes a millisecond in all or the program returns
 * non-zero, calling drain after each round (to read and drop what it
 * sent). *avg_ns: the last round's average; *iters: its repeat count.
 * Returns 0 or -errno. */
int bench_run(int prog_fd, void (*drain)(void *ctx), void *ctx,
	      uint64_t *avg_ns, uint64_t *iters);
/* Result index of benchmarks names[0..n), as bpftrace 0.26 prints it:
 * text, a table whose header comes with the first; JSON, one
 * benchmark_result record each. */
void bench_print(struct out *o, const char *const *names, size_t n,
		 size_t index, uint64_t avg_ns, uint64_t iters);

/* --test: runs the XDP program prog_fd once; its return value and time. 0
 * or -errno. */
int test_run_once(int prog_fd, uint32_t *retval, uint64_t *duration_ns);
/* Result index of tests names[0..n) (passed[0..index] known), with what
 * it printed (shown when it failed), as bpftrace 0.26 prints it: text,
 * gtest's colored lines, the summary after the last; JSON, a test_result
 * record each. */
void test_print(struct out *o, const char *const *names, size_t n,
		size_t index, uint64_t duration_ns, const bool *passed,
		const char *output, size_t output_len);

#endif
