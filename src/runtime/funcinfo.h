/*
 * BTF for programs with callbacks: the kernel takes a function's address
 * (ld_imm64 BPF_PSEUDO_FUNC, what bpf_loop and bpf_for_each_map_elem are
 * given) only in a program whose functions BTF describes, callbacks
 * static. This makes that BTF from the instructions alone.
 */
#ifndef SONDE_FUNCINFO_H
#define SONDE_FUNCINFO_H

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <stdint.h>

struct funcinfo {
	struct btf *btf;
	struct bpf_func_info *recs;
	uint32_t nrecs;
};

/* Fills lo's BTF and func_info when insns load function addresses (fi
 * keeps them until funcinfo_free); 0 also when they do not, or -errno. */
int funcinfo_prepare(struct funcinfo *fi, const struct bpf_insn *insns,
		     uint32_t n, struct bpf_prog_load_opts *lo);
void funcinfo_free(struct funcinfo *fi);

#endif
