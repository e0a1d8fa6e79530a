/*
 * What every emitter builds on, and depends on nothing else of codegen
 * but program.h: errors, calls of BPF helpers (with the record of a
 * failure that -k asks for), records sent to the ring buffer, counters,
 * the per-CPU scratch, and raw stores into memory (a stack slot, or the
 * scratch through a pointer).
 */
#ifndef SONDE_CODEGEN_EMIT_H
#define SONDE_CODEGEN_EMIT_H

#include "codegen/cg.h"

void cg_error(struct cg *g, struct span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Calls helper fn with nargs ir_reg arguments; the result, in a new
 * register, checked by cg_helper_check (all but lookups). */
ir_reg cg_call(struct cg *g, int fn, int nargs, ...);
/* -k/-kk: after helper fn returned ret, a record naming the helper and
 * the expression being compiled when it failed (ret < 0, or ret == 0
 * for a lookup: zero_fails). cg_call checks every helper but lookups;
 * a map read checks its lookup itself. */
void cg_helper_check(struct cg *g, int fn, ir_reg ret, bool zero_fails);
/* A record for bpftrace 0.26's runtime warning msg at at (its words). */
void cg_runtime_error(struct cg *g, const char *msg, struct span at);
/* Sends the size bytes at data (a record: its header, then its fields)
 * to the ring buffer; a failed send is counted as lost. */
void cg_send_record(struct cg *g, ir_reg data, uint32_t size);

/* Counter map (program.h's cg_add_counter) += 1, or += n at offset off. */
void cg_counter_inc(struct cg *g, int32_t map);
void cg_counter_add(struct cg *g, int32_t map, uint32_t off, ir_reg n);
/* size bytes of this program's per-CPU scratch value, free until the
 * current statement ends (its key, value or record). */
struct cg_mem cg_scratch(struct cg *g, uint32_t size);

/* return (and exit()): the probe's action ends, also from a for body. */
void cg_end_probe(struct cg *g);

/* ---- memory: a slot, or the scratch (struct cg_mem) ---- */
struct cg_mem cg_slot_mem(ir_slot s);
/* The address of byte off of m, in a new register. */
ir_reg cg_mem_addr(struct cg *g, struct cg_mem m, uint32_t off);
/* The low size bytes of register r (of immediate imm) into m+off. */
void cg_store_reg(struct cg *g, int size, struct cg_mem m, uint32_t off,
		  ir_reg r);
void cg_store_imm(struct cg *g, int size, struct cg_mem m, uint32_t off,
		  int32_t imm);
void cg_zero(struct cg *g, ir_slot dst, uint32_t off, uint32_t size);
void cg_zero_mem(struct cg *g, struct cg_mem dst, uint32_t off,
		 uint32_t size);
/* Zeroes the bytes of layout t (a tuple, size bytes in all, at dst+off)
 * that no field covers: for memory whose fields are all stored next. */
void cg_zero_gaps(struct cg *g, struct cg_mem dst, uint32_t off,
		  const struct type *t, uint32_t size);
/* The widest access (8, 4, 2 or 1 bytes) that fits in left bytes with
 * both offsets a and b aligned to it. */
uint32_t cg_piece(uint32_t left, uint32_t a, uint32_t b);

#endif
