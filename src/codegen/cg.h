/*
 * Internal to codegen: the types every codegen file shares, the state of
 * one program being generated and the value model. Types only: each
 * file's functions are declared in its own header (emit.h, values.h,
 * maps.h, ...), and the walkers are reached through walk.h.
 *
 * A value is either an integer in a register (always widened to 64 bits
 * by its type's sign), or bytes in a stack slot (strings, tuples, records,
 * buffers), or the address of bytes not read yet (a struct field through a
 * pointer, a tracepoint field in the context).
 */
#ifndef SONDE_CG_H
#define SONDE_CG_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/ir.h"
#include "codegen/codegen.h"
#include "lang/builtins.h"
#include "util/vec.h"

enum val_kind {
	V_REG,  /* reg holds the value */
	V_MEM,  /* slot+off holds the bytes */
	V_ADDR, /* reg holds the address of the bytes (user or kernel) */
	V_CTX,  /* the bytes are in the context at ctx_off (tracepoints) */
	V_NONE, /* no value (void calls) */
	V_STACK, /* kstack/ustack of .type, captured where it is stored */
	V_TUPLE, /* tuple .expr holding stacks or long strings, too big for
		  * the BPF stack: its fields are evaluated where it is
		  * stored */
	V_STR,  /* str() call .expr of a string too long for the BPF stack
		 * (bigstr.h): read where it is stored */
};

struct val {
	enum val_kind kind;
	const struct type *type;
	ir_reg reg;
	ir_slot slot;
	uint32_t off;
	uint32_t ctx_off;
	bool user; /* V_ADDR: the address is in user space */
	bool any;  /* V_ADDR: of unknown space (read by the helper that
		    * tries both, as bpftrace does) */
	bool own;  /* V_ADDR: the program's memory (the scratch, a map
		    * value), zero past a string's NUL: copied whole */
	bool direct; /* V_ADDR (own): never NULL, loaded from directly */
	struct ast_expr *expr; /* V_TUPLE, V_STR */
};

/* Memory being written: a stack slot, or (ptr != IR_NOREG) map value
 * memory ptr points to, the per-CPU scratch that keys and records holding
 * stacks or long strings (bigstr.h) are built in when they outgrow the
 * 512-byte BPF stack. */
struct cg_mem {
	ir_slot slot;
	ir_reg ptr;
};

struct cg_var {
	const char *name;
	int32_t id; /* sema's (ast E_VAR aux) */
	const struct type *type;
	ir_reg reg;   /* integers live in a register */
	struct cg_mem mem; /* everything else on the stack, big stacks in
			    * the scratch (for the whole program) */
};

struct cg_loop {
	ir_label head;   /* IR_NOLABEL: a for body (continue ends it) */
	ir_jlist breaks;
	ir_jlist conts;  /* for bodies */
};

/* The for body being compiled (its callback function). */
struct cg_fn {
	ir_jlist returns; /* `return`s and bails: the probe ends */
};

struct cg;
struct cg_sysdispatch; /* sysdispatch.h */

/* The walkers of expressions (expr.c) and statements (codegen.c), which
 * codegen() puts in every struct cg. The emitters evaluate their
 * arguments through it (walk.h), so that no emitter depends on the
 * walkers that dispatch to it. */
struct cg_walker {
	struct val (*expr)(struct cg *g, struct ast_expr *e);
	/* jumps to the returned list when e is false (0) */
	ir_jlist (*cond_false)(struct cg *g, struct ast_expr *e);
	/* the statements of a nested block (a body, a block expression's) */
	void (*block)(struct cg *g, const struct ast_block *b);
};

#define CG_EXPANSION_MAX 16
/* The per-CPU arrays of the scratch, and the bytes of each one's value
 * (PCPU_MIN_UNIT_SIZE, the most a per-CPU array's value may have). */
#define CG_SCRATCH_MAPS 4
#define CG_SCRATCH_VALUE_MAX 32768

struct cg {
	struct arena *arena;
	struct diag *diag;
	const struct codegen_opts *opts;
	const struct cg_walker *walk;
	const struct sema_result *sr;
	struct compiled *out;
	VEC(struct cevent) events;
	VEC(struct cmap) maps;
	int32_t ringbuf;     /* map index, -1 until needed */
	int32_t lost;        /* map index of the lost-events counter */
	int32_t stop_flag;   /* compiled.stop_flag */
	int32_t full;        /* the .full counters (one u64 per user map),
			      * 0: not made yet */
	int32_t lens;        /* the .len key counts (cmap.len_counter), 0:
			      * not made yet */
	/* per-CPU arrays of scratch values, or -1: the kernel holds a
	 * per-CPU value to 32 KiB, so the scratch of one statement spans
	 * as many arrays as it needs, each region within one */
	int32_t scratch[CG_SCRATCH_MAPS];
	uint32_t scratch_size[CG_SCRATCH_MAPS]; /* bytes of their values:
						 * the most a program uses */
	uint32_t scratch_progs; /* its entries: one per program that uses it */
	bool scratch_over;      /* a statement needs more: said at the end */
	struct span scratch_over_at;
	uint32_t scratch_over_size; /* one value's bytes over the most of
				     * one array, else 0 */
	int32_t *user_maps;  /* sema map index -> compiled map index */
	/* per program */
	struct ir *ir;
	const struct probe_target *tgt;
	uint32_t probe_index;
	/* a program for several syscalls: it dispatches on the number, and
	 * `probe` is in probe_reg (IR_NOREG: probe_index) */
	const struct cg_sysdispatch *disp;
	bool multi;             /* one program for all targets (multiattach) */
	ir_reg probe_reg;
	ir_reg func_reg;        /* `func` from the attach cookie, or IR_NOREG */
	VEC(struct cg_var) vars;
	VEC(struct cg_loop) loops;
	struct cg_fn *fn;        /* in a for body, else NULL */
	VEC(struct bpf_code) fns; /* this program's compiled callbacks */
	VEC(int32_t) addressed;  /* ids of the variables &$v takes */
	/* out->probe_names by hash (open addressing, index + 1, 0: free), so
	 * that thousands of targets cost no quadratic search */
	uint32_t *name_slots;
	uint32_t name_cap;
	int32_t scratch_index; /* this program's scratch entry, or -1 */
	uint32_t scratch_used;  /* bytes of it in use at this point: scratch
				 * array k holds the bytes from k times
				 * CG_SCRATCH_VALUE_MAX */
	ir_jlist bail;          /* jumps to the program's exit */
	const struct ast_stmt *first_loop; /* the program's first while */
	const struct ast_expr *at; /* the expression compiled last */
	/* the calls of the macros whose copies are being compiled, the
	 * outermost first (warnf and errorf name them) */
	const struct ast_expansion *expanding[CG_EXPANSION_MAX];
	uint32_t nexpanding;
	bool failed;
};

static inline struct val cg_reg_val(const struct type *t, ir_reg r)
{
	struct val v = { .kind = V_REG, .type = t, .reg = r };
	return v;
}

static inline struct val cg_mem_val(const struct type *t, ir_slot s,
				    uint32_t off)
{
	struct val v = { .kind = V_MEM, .type = t, .slot = s, .off = off };
	return v;
}

/* The value of a call that has none (printf, delete ...). */
static inline struct val cg_no_val(void)
{
	struct val v = { .kind = V_NONE, .type = &type_void };
	return v;
}

/* A builtin's emitter (lang/builtins.def, registry.c): e is a builtin
 * variable or call (e->builtin), target the map an aggregation is
 * assigned to, else NULL. */
typedef struct val (*cg_builtin_fn)(struct cg *g, struct ast_expr *e,
				     struct ast_expr *target);

#endif
