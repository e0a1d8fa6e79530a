/*
 * A compiled BPF program as the backend emits it and the loader loads it:
 * instructions plus the places where a map's fd goes. Shared by backend,
 * codegen, runtime and the tests, none of which need the others' insides.
 */
#ifndef SONDE_BYTECODE_H
#define SONDE_BYTECODE_H

#include <linux/bpf.h>
#include <stdint.h>

/* The loader sets insns[insn].imm = fd of map map_idx (both plain map
 * loads and map value loads). */
struct map_reloc {
	uint32_t insn;
	uint32_t map_idx;
};

struct bpf_code {
	struct bpf_insn *insns;
	uint32_t ninsns;
	struct map_reloc *relocs;
	uint32_t nrelocs;
	uint32_t stack_size; /* bytes below R10 */
};

void bpf_code_free(struct bpf_code *c);

#endif
