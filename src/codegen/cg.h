/*
 * Internal to codegen: the state of one program being generated and the
 * value model shared by the expression, statement, map and call files.
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
	V_TUPLE, /* tuple .expr holding stacks, too big for the BPF stack:
		  * its fields are evaluated where it is stored */
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
	struct ast_expr *expr; /* V_TUPLE */
};

/* Memory being written: a stack slot, or (ptr != IR_NOREG) map value
 * memory ptr points to, the per-CPU scratch that keys and records holding
 * stacks are built in when they outgrow the 512-byte BPF stack. */
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

/* Detaching a probe can take ~30 ms of kernel time (an RCU grace period,
 * serialised by the kernel), so beyond this many the programs get a stop
 * flag and the maps print before the detach (runtime/run.c). */
#define CG_DETACH_FIRST_MAX 8

/* multiattach.c: a probe with at least this many targets of a provider
 * that attaches many at once (or only targets of wildcards) is one
 * program (see there). */
#define CG_MULTI_MIN 32
/* sysdispatch.c: a probe over at least this many syscall tracepoints of
 * one direction is one raw tracepoint program (see there). */
#define CG_SYSDISPATCH_MIN 32
struct cg_sysentry {
	int32_t nr;                        /* the syscall's number */
	const struct probe_target *target; /* its tracepoint */
};
struct cg_sysdispatch {
	struct probe_target target; /* raw_tp sys_enter or sys_exit */
	bool exit;
	bool *covered;        /* per target of the probe: in the program */
	struct cg_sysentry *entries; /* n, by nr */
	uint32_t n;
	uint32_t status_off;  /* task_struct.thread_info.status */
};

#define CG_EXPANSION_MAX 16

struct cg {
	struct arena *arena;
	struct diag *diag;
	const struct codegen_opts *opts;
	const struct sema_result *sr;
	struct compiled *out;
	VEC(struct cevent) events;
	VEC(struct cmap) maps;
	int32_t ringbuf;     /* map index, -1 until needed */
	int32_t lost;        /* map index of the lost-events counter */
	int32_t stop_flag;   /* compiled.stop_flag */
	int32_t full;        /* the .full counters (one u64 per user map),
			      * 0: not made yet */
	int32_t scratch;     /* per-CPU array of scratch values, or -1 */
	uint32_t scratch_size;  /* bytes of its value: the most a program uses */
	uint32_t scratch_progs; /* its entries: one per program that uses it */
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
	uint32_t scratch_used;  /* bytes of it in use at this point */
	ir_jlist bail;          /* jumps to the program's exit */
	const struct ast_stmt *first_loop; /* the program's first while */
	const struct ast_expr *at; /* the expression compiled last */
	/* the calls of the macros whose copies are being compiled, the
	 * outermost first (warnf and errorf name them) */
	const struct ast_expansion *expanding[CG_EXPANSION_MAX];
	uint32_t nexpanding;
	bool failed;
};

/* Enters (returns true) or leaves a macro's copy, x its call (NULL:
 * none, as the same copy met again). */
bool cg_expansion_enter(struct cg *g, const struct ast_expansion *x);
void cg_expansion_leave(struct cg *g, bool entered);
/* The spans of the macro calls being compiled, innermost first, for an
 * event (in the arena); *n their number. */
const struct span *cg_expansion_sites(struct cg *g, uint32_t *n);

static inline struct val cg_reg_val(const struct type *t, ir_reg r)
{
	struct val v = { .kind = V_REG, .type = t, .reg = r };
	return v;
}

/* The value of a call that has none (printf, delete ...). */
static inline struct val cg_no_val(void)
{
	struct val v = { .kind = V_NONE, .type = &type_void };
	return v;
}

/* builtins.c: the registry's emitters. e is a builtin variable or call
 * (e->builtin), target the map an aggregation is assigned to, else NULL. */
typedef struct val (*cg_builtin_fn)(struct cg *g, struct ast_expr *e,
				     struct ast_expr *target);
struct val cg_builtin(struct cg *g, struct ast_expr *e,
		      struct ast_expr *target);

/* sysdispatch.c: whether probe p (its targets sp) becomes one program
 * (out filled; out->covered are its targets), and that program's start,
 * which leaves the events it does not stand for and sets g->probe_reg. */
bool cg_sysdispatch_plan(struct cg *g, const struct ast_probe *p,
			 const struct sema_probe *sp,
			 struct cg_sysdispatch *out);
void cg_sysdispatch_prologue(struct cg *g, const struct cg_sysdispatch *d);
/* multiattach.c: whether probe p's targets sp are one program attached at
 * once; its start (g->probe_reg from the attach cookie); the cookies, one
 * per target. */
bool cg_multi_plan(const struct ast_probe *p, const struct sema_probe *sp);
/* Whether probe p (body or predicate) uses any of builtins ids[0..n). */
bool cg_probe_uses_any(const struct ast_probe *p, const int *ids, size_t n);
void cg_multi_prologue(struct cg *g, const struct ast_probe *p);
const uint64_t *cg_multi_cookies(struct cg *g, const struct ast_probe *p,
				 const struct sema_probe *sp);
/* Every emitter the registry names (in builtins.c, calls.c, context.c,
 * pt_regs.c, maps.c, stacks.c). */
#define BUILTIN_VAR(id, name, ty, emit) \
	struct val emit(struct cg *, struct ast_expr *, struct ast_expr *);
#define BUILTIN_VARN BUILTIN_VAR
#define BUILTIN_FN(id, name, min, max, ty, emit) \
	BUILTIN_VAR(id, name, ty, emit)
#include "lang/builtins.def"
#undef BUILTIN_VAR
#undef BUILTIN_VARN
#undef BUILTIN_FN

/* codegen.c */
bool cg_in_reg(const struct type *t);
struct cg_var *cg_find_var(struct cg *g, int32_t id);
/* Storage for the variables b declares (zeroed), and b's code. */
void cg_declare_vars(struct cg *g, const struct ast_block *b);
void cg_block(struct cg *g, const struct ast_block *b);
/* return (and exit()): the probe's action ends, also from a for body. */
void cg_end_probe(struct cg *g);
/* loops.c: for ($x : @map) and for ($x : a..b) */
void cg_for(struct cg *g, struct ast_stmt *s);
/* The number of elements of map mi: what bpf_for_each_map_elem visits
 * with a callback that goes on at each (e names the call in errors). */
ir_reg cg_count_elems(struct cg *g, struct ast_expr *e, int32_t mi);
/* The value variable v holds. */
struct val cg_var_val(struct cg *g, const struct cg_var *v);

/* expr.c */
struct val cg_expr(struct cg *g, struct ast_expr *e);
/* The statements of b, as those of a nested block (a block expression's). */
void cg_block(struct cg *g, const struct ast_block *b);
/* pt_regs.c: USDT argument idx (e names it in errors), and sargN read
 * from the stack, in pt_regs probes. */
struct val cg_usdt_arg(struct cg *g, struct ast_expr *e, uint32_t idx);
struct val cg_stack_arg(struct cg *g, struct ast_expr *e, uint32_t idx);
/* The helper that reads (str: a string at) an address of type t: a
 * pointer's or a marked integer's space (enum addr_space), else the
 * space of the probe's addresses. */
/* The read helper for the memory at V_ADDR v (str: a string read). */
int cg_val_read_fn(const struct val *v, bool str);
int cg_read_fn(struct cg *g, const struct type *t, bool str);
/* codegen.c: the index of name in the table `probe` values index. */
uint32_t cg_name_index(struct cg *g, const char *name);
/* The value as an integer in a register (reads memory as needed). */
ir_reg cg_int(struct cg *g, struct ast_expr *e);
ir_reg cg_to_reg(struct cg *g, struct val v);
/* The value's bytes in a stack slot (copies or reads as needed). */
struct val cg_to_mem(struct cg *g, struct val v);
/* Jumps to the returned list when e is false (0); falls through if true. */
ir_jlist cg_cond_false(struct cg *g, struct ast_expr *e);
/* Stores v (of any type) into dst_slot+off converted to type dst. */
void cg_store(struct cg *g, ir_slot dst, uint32_t off,
	      const struct type *dst_type, struct val v);
void cg_store_mem(struct cg *g, struct cg_mem dst, uint32_t off,
		  const struct type *dst_type, struct val v);
struct cg_mem cg_slot_mem(ir_slot s);
/* The address of byte off of m, in a new register. */
ir_reg cg_mem_addr(struct cg *g, struct cg_mem m, uint32_t off);
void cg_zero(struct cg *g, ir_slot dst, uint32_t off, uint32_t size);
void cg_zero_mem(struct cg *g, struct cg_mem dst, uint32_t off,
		 uint32_t size);
/* Zeroes the bytes of layout t (a tuple, size bytes in all, at dst+off)
 * that no field covers: for memory whose fields are all stored next. */
void cg_zero_gaps(struct cg *g, struct cg_mem dst, uint32_t off,
		  const struct type *t, uint32_t size);
void cg_mem_store(struct cg *g, int size, struct cg_mem m, uint32_t off,
		  ir_reg r);
void cg_mem_storei(struct cg *g, int size, struct cg_mem m, uint32_t off,
		   int32_t imm);
/* The widest access (8, 4, 2 or 1 bytes) that fits in left bytes with
 * both offsets a and b aligned to it. */
uint32_t cg_piece(uint32_t left, uint32_t a, uint32_t b);
/* target op= value, evaluated as the integer target op value. */
struct val cg_compound(struct cg *g, struct ast_expr *target, enum ast_op op,
		       struct ast_expr *value);
ir_reg cg_call(struct cg *g, int fn, int nargs, ...);
void cg_error(struct cg *g, struct span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* maps.c */
int32_t cg_map_index(struct cg *g, const struct ast_expr *map);
const struct cmap *cg_map(struct cg *g, int32_t idx);
struct val cg_map_read(struct cg *g, struct ast_expr *map);
void cg_map_assign(struct cg *g, struct ast_expr *map, struct ast_expr *value,
		   enum ast_op op);
/* @m++ / ++@m / @m-- / --@m: the old (post) or new (pre) value. */
ir_reg cg_map_incdec(struct cg *g, struct ast_expr *map, int delta,
		     bool post);
void cg_maps_declare(struct cg *g);

/* events.c */
/* An internal map (not printed); returns its index. */
int32_t cg_add_map(struct cg *g, const char *name, enum bpf_map_type t,
		   uint32_t ks, uint32_t vs, uint32_t n);
int32_t cg_ringbuf(struct cg *g);
/* Sends a record: header id + the args laid out as a tuple. */
/* exit()'s record (EV_EXIT), with the lost counter as it read it */
/* code: exit(CODE)'s value, or IR_NOREG (status 0) */
void cg_exit_event(struct cg *g, ir_reg code);
void cg_event(struct cg *g, enum event_kind kind, struct ast_expr **args,
	      uint32_t nargs, struct cevent *proto);

void cg_join(struct cg *g, struct ast_expr *call);
/* A record for bpftrace 0.26's runtime warning msg at at (its words). */
void cg_runtime_error(struct cg *g, const char *msg, struct span at);
/* -k/-kk: after helper fn returned ret, a record naming the helper and
 * the expression being compiled when it failed (ret < 0, or ret == 0
 * for a lookup: zero_fails). cg_call checks every helper but lookups;
 * a map read checks its lookup itself. */
void cg_helper_check(struct cg *g, int fn, ir_reg ret, bool zero_fails);
/* Counters: one u64 in an array, incremented atomically (cg_counter_inc),
 * read with loader_counter_read(). */
int32_t cg_add_counter(struct cg *g, const char *name);
void cg_counter_inc(struct cg *g, int32_t map);
void cg_counter_add(struct cg *g, int32_t map, uint32_t off, ir_reg n);
/* size bytes of this program's per-CPU scratch value, free until the
 * current statement ends (its key, value or record). */
struct cg_mem cg_scratch(struct cg *g, uint32_t size);

/* iter.c: whether base, whose field is read, is ctx in an iter probe
 * (cg_iter_checked then reads the field: a NULL pointer ends the action);
 * printf in an iter probe (bpf_seq_printf). */
bool cg_iter_ctx_field(struct cg *g, const struct ast_expr *base);
struct val cg_iter_checked(struct cg *g, struct val v);
struct val cg_iter_printf(struct cg *g, struct ast_expr *e);

/* stacks.c: kstack/ustack values are V_STACK (cg_bi_stack), captured by
 * cg_stack_capture where they are stored. */
void cg_stack_capture(struct cg *g, const struct type *t, struct cg_mem dst,
		      uint32_t off);
/* Whether keys, values or records of type t are built in the scratch: they
 * hold a stack and would crowd the 512-byte BPF stack. */
bool cg_stack_in_scratch(const struct type *t);
/* The current process's pid as sonde's PID namespace numbers it (where
 * /proc, and so the symbols of its maps, are found), as `pid` is. */
ir_reg cg_current_pid(struct cg *g);
/* A string of type t holding bytes (len of them; NULs after), built in
 * a slot: a literal, or a name known when the program is made. */
struct val cg_string_const(struct cg *g, struct span sp,
			   const struct type *t, const char *bytes,
			   uint32_t len);


#endif
