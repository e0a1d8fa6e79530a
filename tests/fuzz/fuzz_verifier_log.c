/*
 * libFuzzer target: the kernel verifier's log -> runtime/refusal.c,
 * which reads a refused program's log for the limit it names ("BPF
 * program is too large", "infinite loop detected", "jumps is too
 * complex", "combined stack size", ...) or the verifier's last words
 * before its statistics, and says why in one line. Any crash,
 * sanitizer report, leak or hang is a bug, and so is a report that is
 * not one line (refusal.h's contract: it quotes lines of the log, never
 * more).
 *
 * Input: byte 0 picks the errno the load failed with (bits 0-1) and
 * whether the program has a while loop to name (bit 2); byte 1 is how
 * many instructions follow (8 bytes each: the program, whose
 * conditional jumps the report counts); the rest is the log.
 * Seeds: tests/fuzz/seeds/fuzz_verifier_log/: logs this kernel's
 * verifier wrote for refused programs (log levels 1 and 4), made by
 * tests/fuzz/verifier_logs.c.
 * Build and run: make fuzz (see tests/fuzz/fuzz.mk).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/compiled.h"
#include "runtime/refusal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int errs[] = { -EINVAL, -EACCES, -E2BIG, -ENOSPC };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	uint8_t flags = data[0];
	size_t ninsns = data[1];
	data += 2, size -= 2;
	if (ninsns * sizeof(struct bpf_insn) > size)
		ninsns = size / sizeof(struct bpf_insn);
	struct bpf_insn *insns = calloc(ninsns + 1, sizeof(*insns));
	char *log = malloc(size + 1);
	if (!insns || !log)
		abort();
	memcpy(insns, data, ninsns * sizeof(*insns));
	size_t used = ninsns * sizeof(*insns);
	memcpy(log, data + used, size - used);
	log[size - used] = '\0';
	struct cprog p;
	memset(&p, 0, sizeof(p));
	p.name = "kprobe:fuzz";
	p.code.insns = insns;
	p.code.ninsns = (uint32_t)ninsns;
	p.loop_at = flags & 4 ? "fuzz.bt:3:5" : NULL;
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	if (!f)
		abort();
	refusal_report(f, &p, errs[flags & 3], log);
	fclose(f);
	const char *nl = memchr(out, '\n', outlen);
	if (!outlen || !nl || nl != out + outlen - 1) {
		fprintf(stderr, "fuzz_verifier_log: the report is not one "
				"line:\n%s\n", out);
		abort();
	}
	free(out);
	free(log);
	free(insns);
	return 0;
}
