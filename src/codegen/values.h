/*
 * The value library: a struct val (cg.h) turned into what is needed
 * where it is used, an integer in a register or bytes in a slot, and
 * stored into memory converted to a type. Memory of a pointer is read
 * with the helper of its address space. Depends only on emit.h and
 * stacks.h (a stack value is captured where it is stored), and on
 * walk.h for the fields of a tuple built where it is stored.
 */
#ifndef SONDE_CODEGEN_VALUES_H
#define SONDE_CODEGEN_VALUES_H

#include "codegen/cg.h"

/* The value as an integer in a register (reads memory as needed). */
ir_reg cg_to_reg(struct cg *g, struct val v);
/* The value's bytes in a stack slot (copies or reads as needed). */
struct val cg_to_mem(struct cg *g, struct val v);
/* Stores v (of any kind) into dst+off, converted to type dst_type; every
 * byte of dst_type is written (zero-filled past v's). */
void cg_store_val(struct cg *g, struct cg_mem dst, uint32_t off,
		  const struct type *dst_type, struct val v);
/* cg_store_val into stack slot dst. */
void cg_store_val_slot(struct cg *g, ir_slot dst, uint32_t off,
		       const struct type *dst_type, struct val v);
/* str() call e into dst+off, room bytes (zeroed first; one more may get
 * the NUL of a string cut at room), read from p (its first argument). */
void cg_str_read(struct cg *g, struct ast_expr *e, ir_reg p,
		 struct cg_mem dst, uint32_t off, uint32_t room);
/* The address of v's bytes in memory the program loads from directly:
 * where v is kept (a variable in the scratch), else a copy of it in the
 * scratch (v's type size bytes, and one more). */
ir_reg cg_big_ptr(struct cg *g, struct val v);
/* A string of type t holding bytes (len of them; NULs after), built in
 * a slot: a literal, or a name known when the program is made. */
struct val cg_string_const(struct cg *g, struct span sp,
			   const struct type *t, const char *bytes,
			   uint32_t len);

/* Widens the low size bytes of r to 64 bits by the sign. */
void cg_extend(struct cg *g, ir_reg r, uint32_t size, bool is_signed);
/* Whether type t is held as an integer (stored as one, of its size)... */
bool cg_is_scalar(const struct type *t);
/* ...and whether a load or store of size bytes exists. */
bool cg_scalar_size_ok(uint32_t size);

/* The read helper for the memory at V_ADDR v (str: a string read). */
int cg_val_read_fn(const struct val *v, bool str);
/* The pointer in p as a plain integer: the bytes copied out by
 * probe_read_kernel. The verifier refuses *, /, >>, unbounded offsets
 * and the like on a pointer it tracks (a variable's address &$a, a
 * per-CPU variable's) even after (uint64) has made it an integer to the
 * language. Costs a helper call: only probes that take such addresses
 * pay it. */
ir_reg cg_ptr_as_int(struct cg *g, ir_reg p);
/* The helper that reads (str: a string at) an address of type t: a
 * pointer's or a marked integer's space (enum addr_space), else the
 * space of the probe's addresses. */
int cg_read_fn(struct cg *g, const struct type *t, bool str);

#endif
