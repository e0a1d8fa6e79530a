/*
 * Strings too long for the 512-byte BPF stack (max_strlen over 200, as
 * bpftrace 0.26 allows): kept in the per-CPU scratch (cg_scratch), like
 * the keys and records that hold stacks. A str() of one is read where it
 * is stored (V_STR); a variable, a map value or a for loop's element
 * holding one is read where it is kept (V_ADDR, own). Strings up to 200
 * bytes keep the stack, and the code they always had.
 */
#ifndef SONDE_CODEGEN_BIGSTR_H
#define SONDE_CODEGEN_BIGSTR_H

#include "codegen/cg.h"

/* The longest string kept on the BPF stack (the old max_strlen limit). */
#define CG_STR_STACK_MAX 200

/* Whether type t holds a string longer than CG_STR_STACK_MAX. */
bool cg_big_str(const struct type *t);
/* Whether keys, values, records and variables of type t are built in the
 * scratch: they hold a stack (cg_stack_in_scratch) or a long string. */
bool cg_in_scratch(const struct type *t);
/* Memory for size bytes of a value of type t: the scratch when
 * cg_in_scratch(t) (one byte more for a long string, whose read writes a
 * NUL past it), else a new stack slot. */
struct cg_mem cg_value_mem(struct cg *g, const struct type *t,
			   uint32_t size);
/* Zeroes size bytes at dst+off with one helper call: the kernel's string
 * read of address 0 fails and clears its buffer (as bpftrace clears its
 * scratch buffers); never reported as a failure (-k). */
void cg_zero_big(struct cg *g, struct cg_mem dst, uint32_t off,
		 uint32_t size);
/* Jumps to the returned list when the strings at pa and pb (memory the
 * program loads from directly, whole words of it up to n rounded down)
 * differ in their first n bytes, up to a NUL in both. One bounded loop,
 * a word an iteration, without branches in its body: the verifier
 * follows it n / 8 times (bounded loops: Linux 5.3) and keeps no state
 * of it pending. */
ir_jlist cg_big_str_ne(struct cg *g, ir_reg pa, ir_reg pb, uint32_t n);

#endif
