/*
 * Stack ids (model/stackids.h): where hash maps refuse keys over 512
 * bytes, a key holding stacks is built whole as everywhere else (in the
 * scratch, so variables, map values and tuples holding stacks work as
 * keys alike), then turned in place into its stored form: each stack
 * replaced by its id in the stack table of its type.
 *
 * The id is a hash of the stack's bytes, and the table is searched by it:
 * an entry there whose bytes are the same is this stack's (the bytes are
 * compared, so a hash collision costs a probe of the next odd id, never a
 * wrong stack); a free one takes it. Equal stacks are equal bytes (the
 * capture zeroes what follows the last frame), as they are as whole keys,
 * so a map counts by the same stacks on either kind of kernel. The hash
 * and the comparison read only the words a stack can have set (its head
 * and its frames), in loops bounded by its limit: a short stack costs
 * little, and the verifier's work grows with the limit, not its square
 * (nothing it learns in a loop is live after it, so its exits prune one
 * another): 15,174 instructions processed for @[kstack] = count(),
 * 29,946 for tools/profile.bt's kstack, ustack and comm (Linux 6.18).
 *
 * A stack the table has no room for gets an even id, its hash's: its key
 * still tells it from other stacks (so reading @m[kstack] back is right),
 * the table's counter of such stacks is bumped, and the runtime prints no
 * entry holding one but reports the loss (runtime/stackids.h).
 *
 * The tables are never emptied (an id may sit in any map's key), so one
 * is as big as the keys of the maps that use it: as much memory as their
 * whole keys would have taken.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/emit.h"
#include "codegen/program.h"
#include "codegen/stackids.h"
#include "kernel/features.h"
#include "lang/ast.h"
#include "model/maplayout.h"
#include "model/stackids.h"
#include "util/strbuf.h"

/* Ids tried for a stack before it counts as lost: a 64-bit hash nearly
 * never needs a second, and an insert that loses a race with another
 * CPU's of the same stack looks again. */
#define PROBES 4
/* The hash: an odd 64-bit multiplier (the golden ratio's), and a seed */
#define HASH_MUL 0x9e3779b97f4a7c15ll
#define HASH_SEED 0x5354414b49445321ll

/* The stack table of stack type t, or -1. */
static int32_t table_of(const struct cg *g, const struct type *t)
{
	for (size_t i = 0; i < g->maps.len; i++)
		if (g->maps.data[i].stack_table &&
		    type_equal(g->maps.data[i].value, t))
			return (int32_t)i;
	return -1;
}

/* The stack table of t, made (empty) if there is none. */
static int32_t table_for(struct cg *g, const struct type *t,
			 const struct cmap *first_user)
{
	int32_t ti = table_of(g, t);
	if (ti >= 0)
		return ti;
	struct span at = first_user->at; /* (cg_add_map may move it) */
	ti = cg_add_map(g, ".stacks", BPF_MAP_TYPE_HASH, 8, t->size, 0);
	struct cmap *tm = &g->maps.data[ti];
	tm->stack_table = true;
	tm->value = t;
	tm->at = at; /* where a refusal to make it points */
	return ti;
}

struct loop_scan {
	struct cg *g;
	bool *refused; /* per compiled map: reported once */
};

static void scan_block(struct loop_scan *s, struct ast_block *b);

/* Block expressions hold statements: their loops are scanned too. */
static void scan_expr_cb(struct ast_expr *e, void *ctx)
{
	if (e->kind == E_BLOCK)
		scan_block(ctx, &e->u.blockx.body);
}

static void scan_expr(struct loop_scan *s, struct ast_expr *e)
{
	if (e)
		ast_walk_expr(e, scan_expr_cb, s);
}

/* for ($kv : @m) reads @m's keys whole in the program (the element the
 * helper gives): a key holding stack ids cannot be. */
static void scan_for(struct loop_scan *s, struct ast_stmt *st)
{
	struct ast_expr *map = st->u.for_.map;
	if (!map)
		return;
	int32_t mi = s->g->user_maps[map->aux];
	const struct cmap *m = &s->g->maps.data[mi];
	if (!m->stack_ids || s->refused[mi])
		return;
	s->refused[mi] = true;
	cg_error(s->g, st->span, "cannot loop over %s: its keys hold stacks, "
		 "which this kernel keeps apart from the map (it has no hash "
		 "map keys over %u bytes, Linux %s)", m->name,
		 STACKIDS_KEY_MAX, STACKIDS_SINCE);
}

static void scan_stmt(struct loop_scan *s, struct ast_stmt *st)
{
	if (!st)
		return;
	switch (st->kind) {
	case S_EXPR:
	case S_RETURN:
		scan_expr(s, st->u.expr);
		break;
	case S_ASSIGN:
		scan_expr(s, st->u.assign.target);
		scan_expr(s, st->u.assign.value);
		break;
	case S_IF:
		scan_expr(s, st->u.if_.cond);
		scan_block(s, &st->u.if_.then);
		scan_stmt(s, st->u.if_.otherwise);
		break;
	case S_UNROLL:
	case S_WHILE:
		scan_expr(s, st->u.loop.cond);
		scan_block(s, &st->u.loop.body);
		break;
	case S_BLOCK:
		scan_block(s, &st->u.block);
		break;
	case S_LET:
		scan_expr(s, st->u.let.value);
		break;
	case S_FOR:
		scan_for(s, st);
		scan_block(s, &st->u.for_.body);
		break;
	case S_BREAK:
	case S_CONTINUE:
		break;
	}
}

static void scan_block(struct loop_scan *s, struct ast_block *b)
{
	for (uint32_t i = 0; i < b->n; i++)
		scan_stmt(s, b->stmts[i]);
}

void cg_stackids_plan(struct cg *g, struct ast_program *prog)
{
	const struct sema_result *sr = g->sr;
	bool any = false;
	for (uint32_t i = 0; i < sr->nmaps; i++) {
		struct cmap *m = &g->maps.data[g->user_maps[i]];
		if (!stackids_needed(m->key, m->value))
			continue;
		/* probed only for a program that needs to know */
		if (feat_has(FEAT_BIG_KEYS))
			return;
		if (m->type == BPF_MAP_TYPE_LRU_HASH ||
		    m->type == BPF_MAP_TYPE_LRU_PERCPU_HASH) {
			/* its evictions would leave stacks in the table, which
			 * never forgets one: new stacks would all be lost */
			cg_error(g, m->at, "%s cannot be an LRU hash keyed by "
				 "stacks on this kernel: it has no hash map keys "
				 "over %u bytes (Linux %s), and the table its "
				 "stacks would be kept in cannot follow its "
				 "evictions", m->name, STACKIDS_KEY_MAX,
				 STACKIDS_SINCE);
			continue;
		}
		m->stack_ids = true;
		m->key_size = stackids_key_size(m->key, m->value);
		any = true;
	}
	/* Keys that stay over the limit (a long string: nothing stands for
	 * it) cannot be made here. */
	for (uint32_t i = 0; i < sr->nmaps; i++) {
		const struct cmap *m = &g->maps.data[g->user_maps[i]];
		bool hash = m->type == BPF_MAP_TYPE_HASH ||
			    m->type == BPF_MAP_TYPE_PERCPU_HASH ||
			    m->type == BPF_MAP_TYPE_LRU_HASH ||
			    m->type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
		if (hash && m->key_size > STACKIDS_KEY_MAX &&
		    !feat_has(FEAT_BIG_KEYS))
			cg_error(g, m->at, "%s has keys of %u bytes: this "
				 "kernel has no hash map keys over %u bytes "
				 "(Linux %s)", m->name, m->key_size,
				 STACKIDS_KEY_MAX, STACKIDS_SINCE);
	}
	if (!any)
		return;
	/* The tables, each as big as the keys that hold its stacks. */
	for (uint32_t i = 0; i < sr->nmaps; i++) {
		const struct cmap *m = &g->maps.data[g->user_maps[i]];
		if (!m->stack_ids)
			continue;
		uint32_t n = stackids_parts(m->key, NULL, 0);
		struct stackids_part parts[n];
		stackids_parts(m->key, parts, n);
		for (uint32_t k = 0; k < n; k++) {
			int32_t ti = table_for(g, parts[k].stack, m);
			m = &g->maps.data[g->user_maps[i]]; /* (moved) */
			struct cmap *tm = &g->maps.data[ti];
			uint64_t sum = (uint64_t)tm->max_entries + m->max_entries;
			tm->max_entries = sum > INT32_MAX ? INT32_MAX :
							    (uint32_t)sum;
		}
	}
	/* Their counters of stacks they had no room for: one array. */
	uint32_t ntables = 0;
	for (size_t i = 0; i < g->maps.len; i++)
		ntables += g->maps.data[i].stack_table;
	int32_t lost = cg_add_map(g, ".stacks_lost", BPF_MAP_TYPE_ARRAY, 4,
				  8 * ntables, 1);
	for (size_t i = 0, k = 0; i < g->maps.len; i++) {
		struct cmap *tm = &g->maps.data[i];
		if (!tm->stack_table)
			continue;
		tm->full_counter = lost;
		tm->full_off = 8 * (uint32_t)k++;
	}
	/* cg_maps_declare's room for the maps codegen adds later, kept */
	vec_reserve(&g->maps, 3 * (size_t)sr->nmaps + 3);

	struct loop_scan s = { g, calloc(g->maps.len, sizeof(bool)) };
	for (uint32_t i = 0; i < prog->nprobes && s.refused; i++) {
		scan_expr(&s, prog->probes[i].pred);
		scan_block(&s, &prog->probes[i].body);
	}
	free(s.refused);
}

/* The number of words of stack type t at p that can be set: its head
 * (the frame count, a ustack's pid), then its frames (the capture zeroes
 * the rest). At most the type's, which bounds the loops for the
 * verifier. */
static ir_reg live_words(struct cg *g, const struct type *t, ir_reg p)
{
	struct ir *ir = g->ir;
	ir_reg n = ir_reg_new(ir);
	ir_load(ir, 8, n, p, 0);
	ir_jlist ok = ir_jmpi(ir, BPF_JLE, n, (int32_t)t->stack_limit,
			      IR_NOLABEL);
	ir_movi(ir, n, t->stack_limit);
	ir_jlist_patch_here(ir, ok);
	if (type_stack_frame_size(t) == 32)
		ir_alui(ir, BPF_LSH, n, 2);
	ir_alui(ir, BPF_ADD, n, t->kind == TY_USTACK ? 2 : 1);
	return n;
}

/* A 64-bit hash of the live words of the stack of type t at src. */
static ir_reg hash(struct cg *g, const struct type *t, ir_reg src)
{
	struct ir *ir = g->ir;
	ir_reg n = live_words(g, t, src);
	ir_reg h = ir_reg_new(ir), i = ir_reg_new(ir), x = ir_reg_new(ir);
	ir_reg mul = ir_const(ir, HASH_MUL), p = ir_copy(ir, src);
	ir_movi(ir, h, HASH_SEED);
	ir_movi(ir, i, 0);
	ir_label top = ir_label_here(ir);
	ir_jlist done = ir_jmp(ir, BPF_JGE, i, n, IR_NOLABEL);
	ir_load(ir, 8, x, p, 0);
	ir_alu(ir, BPF_XOR, h, x);
	ir_alu(ir, BPF_MUL, h, mul);
	ir_mov(ir, x, h);
	ir_alui(ir, BPF_RSH, x, 32);
	ir_alu(ir, BPF_XOR, h, x);
	ir_alui(ir, BPF_ADD, p, 8);
	ir_alui(ir, BPF_ADD, i, 1);
	ir_ja(ir, top);
	ir_jlist_patch_here(ir, done);
	return h;
}

/* Jumps away (the list returned) unless the live words of the stack of
 * type t at a equal those at b. */
static ir_jlist differ(struct cg *g, const struct type *t, ir_reg a,
		       ir_reg b)
{
	struct ir *ir = g->ir;
	ir_reg n = live_words(g, t, a);
	ir_reg i = ir_reg_new(ir), x = ir_reg_new(ir), y = ir_reg_new(ir);
	ir_reg pa = ir_copy(ir, a), pb = ir_copy(ir, b);
	ir_movi(ir, i, 0);
	ir_label top = ir_label_here(ir);
	ir_jlist same = ir_jmp(ir, BPF_JGE, i, n, IR_NOLABEL);
	ir_load(ir, 8, x, pa, 0);
	ir_load(ir, 8, y, pb, 0);
	ir_jlist out = ir_jmp(ir, BPF_JNE, x, y, IR_NOLABEL);
	ir_alui(ir, BPF_ADD, pa, 8);
	ir_alui(ir, BPF_ADD, pb, 8);
	ir_alui(ir, BPF_ADD, i, 1);
	ir_ja(ir, top);
	ir_jlist_patch_here(ir, same);
	return out;
}

/* The id of the stack of type t at src (in the scratch): the odd id its
 * table ti holds it under, which it is put under if new; an even one if
 * the table has no room for it (counted). */
static ir_reg intern(struct cg *g, int32_t ti, const struct type *t,
		     ir_reg src)
{
	struct ir *ir = g->ir;
	const struct cmap *tm = &g->maps.data[ti];
	ir_reg h = hash(g, t, src);
	ir_alui(ir, BPF_OR, h, 1);
	ir_slot key = ir_slot_new(ir, 8, 8), first = ir_slot_new(ir, 8, 8);
	ir_store_slot(ir, 8, first, 0, h);
	ir_reg tries = ir_reg_new(ir), id = ir_reg_new(ir);
	ir_movi(ir, tries, PROBES);

	ir_label probe = ir_label_here(ir);
	ir_store_slot(ir, 8, key, 0, h);
	ir_reg map = ir_reg_new(ir), kp = ir_reg_new(ir), v = ir_reg_new(ir);
	ir_ld_map(ir, map, (uint32_t)ti);
	ir_slot_addr(ir, kp, key, 0);
	ir_call(ir, v, BPF_FUNC_map_lookup_elem, (ir_reg[]){ map, kp }, 2);
	ir_jlist absent = ir_jmpi(ir, BPF_JEQ, v, 0, IR_NOLABEL);
	ir_jlist other = differ(g, t, src, v);
	ir_jlist found = ir_ja(ir, IR_NOLABEL);

	ir_jlist_patch_here(ir, absent);
	ir_reg r = ir_reg_new(ir);
	map = ir_reg_new(ir);
	kp = ir_reg_new(ir);
	ir_ld_map(ir, map, (uint32_t)ti);
	ir_slot_addr(ir, kp, key, 0);
	ir_call(ir, r, BPF_FUNC_map_update_elem,
		(ir_reg[]){ map, kp, ir_copy(ir, src),
			    ir_const(ir, BPF_NOEXIST) }, 4);
	/* an int before 6.5 (emit.c's int_result): compared in 32 bits */
	ir_jlist_concat(ir, &found, ir_jmp32i(ir, BPF_JEQ, r, 0, IR_NOLABEL));
	ir_jlist full = ir_jmp32i(ir, BPF_JNE, r, -EEXIST, IR_NOLABEL);
	/* another CPU put it (or another stack) there since the lookup */
	ir_jlist again = ir_ja(ir, IR_NOLABEL);

	ir_jlist_patch_here(ir, other);
	ir_alui(ir, BPF_ADD, h, 2);
	ir_jlist_patch_here(ir, again);
	ir_alui(ir, BPF_SUB, tries, 1);
	ir_jmpi(ir, BPF_JNE, tries, 0, probe);

	ir_jlist_patch_here(ir, full);
	ir_load_slot(ir, 8, id, first, 0);
	ir_alui(ir, BPF_XOR, id, 1); /* even: lost */
	cg_counter_add(g, tm->full_counter, tm->full_off, IR_NOREG);
	ir_jlist done = ir_ja(ir, IR_NOLABEL);

	ir_jlist_patch_here(ir, found);
	ir_mov(ir, id, h);
	ir_jlist_patch_here(ir, done);
	return id;
}

/* Moves n bytes at from down to to (to <= from) in the memory at p. */
static void move_down(struct cg *g, ir_reg p, uint32_t to, uint32_t from,
		      uint32_t n)
{
	if (to == from)
		return;
	ir_reg x = ir_reg_new(g->ir);
	for (uint32_t i = 0, k; i < n; i += k) {
		k = cg_piece(n - i, to + i, from + i);
		ir_load(g->ir, (int)k, x, p, (int16_t)(from + i));
		ir_store(g->ir, (int)k, p, (int16_t)(to + i), x);
	}
}

void cg_stackids_key(struct cg *g, const struct cmap *m, struct cg_mem k)
{
	uint32_t n = stackids_parts(m->key, NULL, 0);
	struct stackids_part parts[n ? n : 1];
	stackids_parts(m->key, parts, n);
	if (k.ptr == IR_NOREG) { /* keys this big are built in the scratch */
		cg_error(g, g->at ? g->at->span : (struct span){ 0 },
			 "internal error: the key of %s is not in the scratch",
			 m->name);
		return;
	}
	uint32_t from = 0, to = 0; /* the whole and stored key's next byte */
	for (uint32_t i = 0; i < n; i++) {
		const struct stackids_part *p = &parts[i];
		move_down(g, k.ptr, to, from, p->off - from);
		ir_reg src = ir_copy(g->ir, k.ptr);
		ir_alui(g->ir, BPF_ADD, src, (int32_t)p->off);
		ir_reg id = intern(g, table_of(g, p->stack), p->stack, src);
		ir_store(g->ir, 8, k.ptr, (int16_t)p->id_off, id);
		from = p->off + p->stack->size;
		to = p->id_off + 8;
	}
	move_down(g, k.ptr, to, from,
		  maplayout_key_size(m->key, m->value) - from);
}
