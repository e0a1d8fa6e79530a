/*
 * BPF disassembler for `sonde -d bpf` and for golden tests, so its output
 * must stay stable. One line per instruction, in the kernel verifier's
 * notation:
 *    12: r1 = *(u32 *)(r6 +8)
 *    13: if r1 > 0x5 goto +3 <17>
 *    14: call bpf_map_lookup_elem#1
 *    15: r1 = map[3]            (map-fd load before relocation: map index)
 * A ld_imm64 takes two slots; the second prints nothing.
 */
#ifndef SONDE_DISASM_H
#define SONDE_DISASM_H

#include <linux/bpf.h>
#include <stddef.h>

struct strbuf;

/* All of insns[0..n), each line ending in '\n'. */
void disasm_prog(const struct bpf_insn *insns, size_t n, struct strbuf *sb);
/* Text of insns[pc] without pc or newline; returns the slots used (1, 2). */
int disasm_insn(const struct bpf_insn *insns, size_t n, size_t pc,
		struct strbuf *sb);
/* "bpf_map_lookup_elem" for 1; "unknown" for ids this build does not know
 * (the number is printed next to the name anyway). */
const char *disasm_helper_name(int id);
/* "==", "s>", "&" ... for a BPF_J* condition. */
const char *disasm_cond_str(int cond);
/* The compound-assignment spelling of an ALU op: "+=", "s>>=" ... */
const char *disasm_alu_str(int op);

#endif
