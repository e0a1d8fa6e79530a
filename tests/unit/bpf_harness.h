/*
 * Loads and runs back-end output on the real kernel for the unit tests:
 * programs are socket filters run once through BPF_PROG_TEST_RUN on a
 * 64-byte packet. The kernel pulls the Ethernet header first, so
 * ctx->len (u32 at offset 0) is SKB_LEN.
 *
 * Results wider than the 32-bit return value go to a results map: an array
 * with one value of RES_SLOTS u64s, addressed as map index RES_MAP through
 * direct value access (which also exercises map-value relocations).
 */
#ifndef SONDE_BPF_HARNESS_H
#define SONDE_BPF_HARNESS_H

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/disasm.h"
#include "backend/ir.h"
#include "util/strbuf.h"

#define RES_MAP 0
#define RES_SLOTS 256
#define PKT_LEN 64
#define SKB_LEN (PKT_LEN - 14)

struct harness {
	int map_fds[4];
	int nmaps;
	uint64_t res[RES_SLOTS];
	uint32_t retval;
	uint32_t ninsns, stack_size;
	uint32_t nmoves; /* register-to-register moves in the program */
};

static inline int harness_init(struct harness *h)
{
	memset(h, 0, sizeof(*h));
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "res", 4, 8 * RES_SLOTS, 1,
				NULL);
	if (fd < 0)
		return -errno;
	h->map_fds[h->nmaps++] = fd;
	return 0;
}

/* Adds a map; its index in the IR is the return value. */
static inline int harness_map(struct harness *h, enum bpf_map_type type,
			      uint32_t ksz, uint32_t vsz, uint32_t n)
{
	int fd = bpf_map_create(type, "t", ksz, vsz, n, NULL);
	if (fd < 0)
		return -errno;
	h->map_fds[h->nmaps] = fd;
	return h->nmaps++;
}

static inline void harness_fini(struct harness *h)
{
	for (int i = 0; i < h->nmaps; i++)
		close(h->map_fds[i]);
}

/* Emits: results[k] = v. */
static inline void harness_put(struct ir *ir, int k, ir_reg v)
{
	ir_reg p = ir_reg_new(ir);
	ir_ld_map_value(ir, p, RES_MAP, 8 * k);
	ir_store(ir, 8, p, 0, v);
}

static inline void harness_dump(const struct bpf_code *p)
{
	struct strbuf sb = STRBUF_INIT;
	disasm_prog(p->insns, p->ninsns, &sb);
	printf("%s", sb_str(&sb));
	sb_free(&sb);
}

/* Compiles, loads and runs ir (and frees it). Returns 0 or -errno; on a
 * verifier rejection the log and the disassembly are printed. */
static inline int harness_run(struct harness *h, struct ir *ir)
{
	struct bpf_code p;
	int err = ir_compile(ir, &p);
	if (err) {
		printf("# ir_compile: %d %s\n", err, ir_error(ir));
		ir_free(ir);
		return err;
	}
	ir_free(ir);
	h->ninsns = p.ninsns;
	h->stack_size = p.stack_size;
	h->nmoves = 0;
	for (uint32_t i = 0; i < p.ninsns; i++)
		h->nmoves += p.insns[i].code == (BPF_ALU64 | BPF_MOV | BPF_X);
	for (uint32_t r = 0; r < p.nrelocs; r++)
		p.insns[p.relocs[r].insn].imm = h->map_fds[p.relocs[r].map_idx];
	static char log[1 << 20];
	LIBBPF_OPTS(bpf_prog_load_opts, lo, .log_buf = log,
		    .log_size = sizeof(log), .log_level = 0);
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "t", "GPL",
			       p.insns, p.ninsns, &lo);
	if (fd < 0) {
		err = -errno;
		lo.log_level = 1;
		log[0] = 0;
		bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "t", "GPL", p.insns,
			      p.ninsns, &lo);
		printf("# bpf_prog_load: %s\n%s\n", strerror(-err), log);
		harness_dump(&p);
		bpf_code_free(&p);
		return err;
	}
	if (getenv("SONDE_TEST_DUMP"))
		harness_dump(&p);
	bpf_code_free(&p);
	char pkt[PKT_LEN] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = 1);
	err = bpf_prog_test_run_opts(fd, &t);
	close(fd);
	if (err) {
		err = -errno;
		printf("# test_run: %s\n", strerror(-err));
		return err;
	}
	h->retval = t.retval;
	uint32_t zero = 0;
	if (bpf_map_lookup_elem(h->map_fds[0], &zero, h->res))
		return -errno;
	return 0;
}

#endif
