/*
 * Back-end internals shared by the passes in src/backend/. Codegen uses
 * ir.h only. The pipeline (compile.c):
 *   constant operands folded into immediates (fold.c)
 *   liveness + dead code removal (liveness.c)
 *   -> register allocation with spill rewriting (regalloc.c)
 *   -> lowering to machine instructions with physical registers (lower.c)
 *   -> peephole (peephole.c) -> encoding and jump fix-up (encode.c)
 */
#ifndef SONDE_IR_IMPL_H
#define SONDE_IR_IMPL_H

#include <stddef.h>

#include "backend/ir.h"
#include "util/vec.h"

enum ir_kind {
	IRK_LABEL,    /* binds `label` here */
	IRK_CTX,      /* dst = R1 at entry (R<imm> when imm is 2..5) */
	IRK_ALU,      /* dst op= src|imm; op BPF_ADD..BPF_ARSH, BPF_MOV, BPF_NEG */
	IRK_LDIMM,    /* dst = imm (64-bit) */
	IRK_LDMAP,    /* dst = map imm (IRF_MAPVAL: &value + off) */
	IRK_ENDIAN,   /* dst = bswap(dst); op BPF_TO_BE/LE, size in bits */
	IRK_LOAD,     /* dst = *(size *)(base|slot + off) */
	IRK_STORE,    /* *(size *)(base|slot + off) = src|imm */
	IRK_XADD,     /* lock *(size *)(base + off) += src */
	IRK_SLOTADDR, /* dst = &slot + off */
	IRK_JMP,      /* if dst cond src|imm goto label */
	IRK_JA,       /* goto label */
	IRK_CALL,     /* dst = call imm(args) */
	IRK_EXIT,     /* return src|imm */
};

enum {
	IRF_K = 1,        /* second operand is imm */
	IRF_32 = 2,       /* ALU32 / JMP32 */
	IRF_SLOT = 4,     /* memory base is `slot`, not a vreg */
	IRF_SIGNED = 8,   /* cpu-v4 sdiv/smod */
	IRF_MAPVAL = 16,  /* LDMAP of a value address */
	IRF_OPEN = 32,    /* jump not yet patched: label is the next jump */
	IRF_FUNC = 64,    /* LDMAP of a function's address (BPF_PSEUDO_FUNC) */
	IRF_BTFVAR = 128, /* LDMAP of a kernel variable by BTF id (imm) */
	/* (on CALLs, where the LDMAP flags above never are) */
	IRF_KFUNC = 64,   /* CALL of a kernel function (imm: its BTF id) */
};

struct ir_insn {
	uint8_t kind, op, size, flags;
	uint8_t nargs;
	ir_reg dst, src, base;
	ir_reg args[IR_MAX_ARGS];
	int32_t off;
	int32_t label;
	uint32_t slot;
	int64_t imm;
};

struct ir_slotinfo {
	uint32_t size, align;
	int32_t fp_off; /* offset from R10, set by the frame layout */
	const void *origin; /* ir_set_origin() when made */
};

struct ir {
	VEC(struct ir_insn) insns;
	VEC(struct ir_slotinfo) slots;
	VEC(int32_t) label_pos; /* insn index of the LABEL, -1 while unbound */
	uint32_t nregs;         /* vregs are 1..nregs */
	ir_reg ctx;
	ir_reg ctx0; /* R1 at entry */
	bool cpu_v4;
	bool compiled;
	const void *origin;  /* of the slots made now */
	int32_t culprit;     /* slot named by ir_stack_culprit(), or -1 */
	char err[256];
};

/* Records the first error; returns -err for convenient `return`. */
int ir_fail(struct ir *ir, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Inserts insn at index `at`, shifting later ones and label positions. */
void ir_insert(struct ir *ir, size_t at, const struct ir_insn *in);

/* Operands of one instruction. uses[] gets at most IR_MAX_ARGS entries. */
int ir_insn_uses(const struct ir_insn *in, ir_reg *uses);
ir_reg ir_insn_def(const struct ir_insn *in);
/* True for kinds without side effects, removable when dst is dead. */
bool ir_insn_pure(const struct ir_insn *in);

/* --- liveness.c --- */
/* Every vreg's occurrences in instruction order: occ[start[v] ..
 * start[v + 1]) are insn << 1 | (1 for the definition, 0 for a use); in
 * one instruction the uses come first. */
struct ir_occs {
	uint32_t *start; /* nregs + 2 entries */
	uint32_t *occ;
};
void ir_occs_build(const struct ir *ir, struct ir_occs *o);
void ir_occs_free(struct ir_occs *o);

struct ir_block {
	uint32_t first, last; /* insn range, inclusive */
	int32_t succ[2];      /* block indices, -1 for none */
	const uint32_t *preds;
	uint32_t npreds;
	const ir_reg *live_in, *live_out; /* sorted */
	uint32_t nlive_in, nlive_out;
};

struct ir_cfg {
	struct ir_block *blocks;
	uint32_t nblocks;
	uint32_t *block_of;  /* by insn */
	uint32_t *preds;     /* the blocks' predecessor lists */
	ir_reg *live;        /* the blocks' live lists */
	struct ir_occs occs;
};

/* Builds blocks and solves liveness; -EINVAL on unbound labels, or control
 * falling off the end. */
int ir_cfg_build(struct ir *ir, struct ir_cfg *cfg);
void ir_cfg_free(struct ir_cfg *cfg);
/* Label positions, recomputed after instructions moved. */
void ir_relabel(struct ir *ir);
/* Keeps the instructions whose keep[] is set; labels follow them. */
void ir_compact(struct ir *ir, const bool *keep);
/* Deletes pure instructions whose result is never read and drops unread
 * call results. Returns the number of changes. */
int ir_dce(struct ir *ir, const struct ir_cfg *cfg);

/* --- slotcopy.c --- */
/* Removes whole-slot copies where source and destination can share
 * bytes. Returns the number removed. */
int ir_coalesce_slots(struct ir *ir);

/* --- webs.c --- */
/* Gives each web of a vreg (definitions and the uses they reach) its own
 * vreg. Returns the number of vregs added. */
int ir_split_webs(struct ir *ir);

/* --- fold.c --- */
/* Replaces uses of single-definition constant vregs by immediates where
 * the instruction has an immediate form. Returns the number of changes. */
int ir_fold_consts(struct ir *ir);

/* --- regalloc.c --- */
/* Assigns a BPF register (0..9) to every vreg, rewriting the IR with spill
 * code as needed. preg[v] is -1 for vregs that are never live. */
int ir_regalloc(struct ir *ir, int8_t **preg);

/* --- lower.c: machine instructions with physical registers --- */
enum mi_kind {
	MI_INSN,   /* ins; jumps carry `label` */
	MI_LABEL,  /* label definition */
	MI_LDIMM,  /* ld_imm64: ins.dst_reg/src_reg, imm64; two slots */
};

struct mi {
	uint8_t kind;
	struct bpf_insn ins;
	int32_t label;  /* jump target (-1: not a jump) / defined label */
	int64_t imm64;  /* MI_LDIMM value (map index for pseudo loads) */
	int32_t aux;    /* MI_LDIMM map value offset */
};

struct mi_list {
	VEC(struct mi) v;
	uint32_t nlabels;
	uint32_t stack_size;
};

/* frame.c: stack offsets of the slots, sharing bytes between slots whose
 * lifetimes do not overlap. -E2BIG past 512 bytes. */
int ir_frame_layout(struct ir *ir, uint32_t *stack_size);
/* The slot each vreg may point into (ptr has nregs + 1 entries): a slot,
 * IR_PTR_NONE, or IR_PTR_MANY when it may point into several. */
#define IR_PTR_NONE (-1)
#define IR_PTR_MANY (-2)
void ir_slot_pointers(const struct ir *ir, int32_t *ptr);
/* Every slot's lifetime as frame.c defines it ({-1, -1}: never touched).
 * False when a register may point into several slots: then every span is
 * the whole program. */
struct ir_span {
	int64_t first, last;
};
bool ir_slot_spans(const struct ir *ir, const int32_t *ptr,
		   struct ir_span *spans);
int ir_lower(struct ir *ir, const int8_t *preg, struct mi_list *out);
void ir_peephole(struct mi_list *ml);
/* relax.c: jumps out of a BPF offset's reach go through islands. */
int ir_relax_jumps(struct ir *ir, struct mi_list *ml);
int ir_encode(struct ir *ir, const struct mi_list *ml, struct bpf_code *out);

#endif
