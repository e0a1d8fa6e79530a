/* runtime/refusal: what each verifier refusal is said as, from the logs
 * kernels write (errors and statistics, log level 4). */
#include "check.h"

#include <errno.h>
#include <stdlib.h>

#include "model/compiled.h"
#include "runtime/refusal.h"

/* p with n conditional jumps, then an exit */
static struct cprog prog(const char *name, uint32_t n, const char *loop_at)
{
	struct bpf_insn *in = calloc(n + 1, sizeof(*in));
	for (uint32_t i = 0; i < n; i++)
		in[i].code = BPF_JMP | BPF_JEQ | BPF_K;
	in[n].code = BPF_JMP | BPF_EXIT;
	struct cprog p = { .name = name, .loop_at = loop_at };
	p.code.insns = in;
	p.code.ninsns = n + 1;
	return p;
}

static char *said(const struct cprog *p, int err, const char *log)
{
	char *s;
	size_t n;
	FILE *f = open_memstream(&s, &n);
	refusal_report(f, p, err, log);
	fclose(f);
	return s;
}

#define STATS "verification time 11 usec\nstack depth 0\n" \
	      "processed 147463 insns (limit 1000000) max_states_per_insn 0 " \
	      "total_states 12288 peak_states 12288 mark_read 0\n"

TEST(jump_sequence)
{
	struct cprog p = prog("BEGIN", 12000, NULL);
	char *s = said(&p, -EFAULT, "The sequence of 8193 jumps is too "
				    "complex.\n" STATS);
	CHECK_STR(s, "sonde: cannot load the program for BEGIN: the "
		     "kernel's verifier gave up (\"The sequence of 8193 jumps "
		     "is too complex\"): it keeps a branch to come back to at "
		     "each condition, and this program has 12000 conditions, "
		     "past its limit of 8192 pending at once: split the work "
		     "across probes, or use fewer conditions (an if, a map "
		     "read, a ternary) in one\n");
	free(s);
	free((void *)p.code.insns);
}

TEST(too_large_without_loop)
{
	struct cprog p = prog("kprobe:f", 300, NULL);
	char *s = said(&p, -E2BIG, "BPF program is too large. Processed "
				   "1000001 insn\n" STATS);
	CHECK_STR(s, "sonde: cannot load the program for kprobe:f: the "
		     "kernel's verifier gave up (\"BPF program is too large. "
		     "Processed 1000001 insn\"): it follows every path through "
		     "the program's 301 instructions and 300 conditions, and "
		     "stopped at its limit of 1000000 instructions followed: "
		     "split the work across probes, or use fewer conditions "
		     "in one\n");
	free(s);
	free((void *)p.code.insns);
}

/* The kernel grows the program as it rewrites instructions, after the
 * jumps were placed: the log's one line (seen fuzzing: 100 unrolled
 * printfs of long strings, 31,602 instructions). */
TEST(jump_past_16_bits)
{
	struct cprog p = prog("begin", 3, NULL);
	char *s = said(&p, -ENOMEM, "insn 23083 cannot be patched due to "
				    "16-bit range\n");
	CHECK_STR(s, "sonde: cannot load the program for begin: the "
		     "kernel's verifier gave up (\"insn 23083 cannot be "
		     "patched due to 16-bit range\"): it rewrites some of the "
		     "program's 4 instructions into several, and a jump "
		     "across them then passes 32,767 instructions: split the "
		     "work across probes, or unroll fewer times\n");
	free(s);
	free((void *)p.code.insns);
}

TEST(loops_are_named)
{
	struct cprog p = prog("BEGIN", 3, "a.bt:2:5");
	char *s = said(&p, -E2BIG, "BPF program is too large. Processed "
				   "1000001 insn\n" STATS);
	CHECK_STR(s, "sonde: cannot load the program for BEGIN: the while "
		     "loop at a.bt:2:5: the verifier follows every iteration "
		     "and stopped at its limit of 1000000 instructions: make "
		     "the loop shorter (fewer iterations, or less work in "
		     "each)\n");
	free(s);
	s = said(&p, -EINVAL, "infinite loop detected at insn 5\n" STATS);
	CHECK_STR(s, "sonde: cannot load the program for BEGIN: the while "
		     "loop at a.bt:2:5: it never ends: the verifier found an "
		     "iteration that changes nothing (an endless loop)\n");
	free(s);
	free((void *)p.code.insns);
}

TEST(our_bug_with_the_verifiers_words)
{
	struct cprog p = prog("BEGIN", 1, NULL);
	char *s = said(&p, -EACCES, "0: (b7) r0 = 0\n1: (79) r1 = *(u64 *)"
				    "(r2 +0)\nR2 !read_ok\n" STATS);
	CHECK_STR(s, "sonde: internal error: the kernel verifier rejected the "
		     "program for BEGIN: R2 !read_ok\n");
	free(s);
	s = said(&p, -EPERM, "");
	CHECK_STR(s, "sonde: cannot load the program for BEGIN: Operation not "
		     "permitted\n");
	free(s);
	free((void *)p.code.insns);
}

int main(void)
{
	RUN(jump_sequence);
	RUN(too_large_without_loop);
	RUN(jump_past_16_bits);
	RUN(loops_are_named);
	RUN(our_bug_with_the_verifiers_words);
	return check_done();
}
