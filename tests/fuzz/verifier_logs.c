/* Writes fuzz_verifier_log's seeds: this kernel's verifier logs for
 * programs it refuses (an unset R0, an endless loop, a loop past the
 * instruction limit, a bad context access, an unknown helper), at log
 * levels 1 and 4, each as the target reads an input: flags, the number
 * of instructions, the instructions, the log.
 *   cc -o /tmp/vlogs tests/fuzz/verifier_logs.c -lbpf && /tmp/vlogs DIR
 * (root). The seeds in tests/fuzz/seeds/fuzz_verifier_log/ were made so
 * on kernel 6.18. */
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INSN(c, d, s, o, i) ((struct bpf_insn){ c, d, s, o, i })
#define MOV_IMM(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD_IMM(d, i) INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define EXIT INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

struct prog {
	const char *name;
	struct bpf_insn insns[8];
	int n;
	int flags; /* the target's byte 0: errno index, loop bit */
};

static const struct prog progs[] = {
	{ "r0_unset", { EXIT }, 1, 0 },
	{ "endless", { MOV_IMM(0, 0), ADD_IMM(0, 0),
		       INSN(BPF_JMP | BPF_JA, 0, 0, -2, 0) }, 3, 4 },
	{ "too_large", { MOV_IMM(1, 0), ADD_IMM(1, 1),
			 INSN(BPF_JMP | BPF_JLT | BPF_K, 1, 0, -2, 0x7fffffff),
			 MOV_IMM(0, 0), EXIT }, 5, 6 },
	{ "ctx_access", { INSN(BPF_LDX | BPF_MEM | BPF_DW, 0, 1, 10000, 0),
			  EXIT }, 2, 1 },
	{ "bad_helper", { INSN(BPF_JMP | BPF_CALL, 0, 0, 0, 99999), EXIT },
	  2, 0 },
};

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	static char log[1 << 20];
	for (size_t i = 0; i < sizeof(progs) / sizeof(*progs); i++)
		for (int level = 1; level <= 4; level += 3) {
			const struct prog *p = &progs[i];
			LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log,
				    .log_size = sizeof(log),
				    .log_level = level);
			log[0] = 0;
			int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER,
					       p->name, "GPL", p->insns,
					       (size_t)p->n, &o);
			if (fd >= 0) {
				fprintf(stderr, "%s loaded\n", p->name);
				return 1;
			}
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s_level%d", argv[1],
				 p->name, level);
			FILE *f = fopen(path, "w");
			/* the log's last 8 KB: where the reasons are */
			size_t len = strlen(log);
			const char *tail = len > 8192 ? log + len - 8192 : log;
			if (!f)
				return 1;
			fputc(p->flags, f);
			fputc(p->n, f);
			fwrite(p->insns, sizeof(struct bpf_insn), (size_t)p->n,
			       f);
			fputs(tail, f);
			fclose(f);
		}
	return 0;
}
