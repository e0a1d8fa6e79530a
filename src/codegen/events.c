/*
 * Ring-buffer records: printf, print, exit and friends. A record is built
 * on the stack (header, then the arguments laid out as a tuple) and sent
 * with one bpf_ringbuf_output() (emit.h's cg_send_record: a failed send
 * bumps the per-CPU lost counter that the runtime reports at exit).
 */
#include <string.h>

#include "codegen/bigstr.h"
#include "codegen/emit.h"
#include "codegen/events.h"
#include "codegen/program.h"
#include "codegen/stacks.h"
#include "codegen/values.h"
#include "codegen/walk.h"
#include "util/arena.h"

/* exit()'s record carries the lost counter as exit() read it: what is
 * lost after it would go unprinted anyway (as in bpftrace, the records
 * after exit() are dropped), so only the losses before it are reported. */
void cg_exit_event(struct cg *g, ir_reg code)
{
	struct cevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_EXIT;
	ev.map = -1;
	/* the lost counter, then exit(CODE)'s code (plain exit() sends no
	 * code: status 0) */
	ev.size = code == IR_NOREG ? 8 : 16;
	uint32_t id = cg_add_event(g, &ev);
	cg_ringbuf(g); /* makes g->lost */
	struct cg_mem rec = cg_slot_mem(ir_slot_new(g->ir, 8 + ev.size, 8));
	cg_store_imm(g, 8, rec, 0, (int32_t)id);
	ir_reg p = ir_reg_new(g->ir), lost = ir_reg_new(g->ir);
	ir_ld_map_value(g->ir, p, (uint32_t)g->lost, 0);
	ir_load(g->ir, 8, lost, p, 0);
	cg_store_reg(g, 8, rec, 8, lost);
	if (code != IR_NOREG)
		cg_store_reg(g, 8, rec, 16, code);
	cg_send_record(g, cg_mem_addr(g, rec, 0), 8 + ev.size);
}

void cg_event(struct cg *g, enum event_kind kind, struct ast_expr **args,
	      uint32_t nargs, struct cevent *proto)
{
	const struct type **types = arena_alloc(g->arena,
						sizeof(*types) * (nargs + 1));
	for (uint32_t i = 0; i < nargs; i++)
		types[i] = args[i]->type;
	const struct type *layout = type_tuple(g->arena, types, nargs);
	uint32_t *offsets = arena_alloc(g->arena,
					sizeof(*offsets) * (nargs + 1));
	for (uint32_t i = 0; i < nargs; i++)
		offsets[i] = layout->fields[i].offset;

	struct cevent ev = *proto;
	ev.kind = kind;
	ev.args = types;
	ev.offsets = offsets;
	ev.nargs = nargs;
	ev.size = layout->size;
	uint32_t id = cg_add_event(g, &ev);

	uint32_t size = 8 + ((layout->size + 7) & ~7u);
	struct cg_mem rec = cg_value_mem(g, layout, size);
	/* struct event_hdr {id, pad = 0} as one u64 store (little endian;
	 * the imm is sign-extended and id < 2^31). */
	cg_store_imm(g, 8, rec, 0, (int32_t)id);
	/* Padding between fields reaches user space: zero it; the fields
	 * themselves are stored whole below. */
	cg_zero_gaps(g, rec, 8, layout, size - 8);
	for (uint32_t i = 0; i < nargs; i++)
		cg_store_val(g, rec, 8 + offsets[i], types[i],
			     cg_expr(g, args[i]));
	cg_send_record(g, cg_mem_addr(g, rec, 0), size);
}

/* join(argv [, sep]): up to JOIN_ARGS strings of JOIN_LEN bytes, too big
 * for the stack, so the record is built in the scratch. */
#define JOIN_ARGS 16
#define JOIN_LEN 64

void cg_join(struct cg *g, struct ast_expr *e)
{
	struct ast_expr *argv = e->u.call.args.items[0];
	/* argv's space is that of the strings it points to */
	int read = cg_read_fn(g, argv->type, false);
	int read_str = cg_read_fn(g, argv->type, true);
	struct type *arr = type_new(g->arena, TY_ARRAY, JOIN_ARGS * JOIN_LEN);
	arr->elem = type_string(g->arena, JOIN_LEN);
	arr->count = JOIN_ARGS;
	arr->align = 1;
	const struct type **types = arena_alloc(g->arena, sizeof(*types));
	uint32_t *offsets = arena_alloc(g->arena, sizeof(*offsets));
	types[0] = arr;
	struct cevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_JOIN;
	ev.args = types;
	ev.offsets = offsets;
	ev.nargs = 1;
	ev.size = arr->size;
	ev.map = -1;
	if (e->u.call.args.n == 2) {
		struct ast_expr *sep = e->u.call.args.items[1];
		ev.text = arena_strndup(g->arena, sep->u.str.bytes,
					sep->u.str.len);
	}
	uint32_t id = cg_add_event(g, &ev);
	uint32_t size = 8 + arr->size;
	ir_reg base = cg_int(g, argv);
	ir_reg p = cg_scratch(g, size).ptr;
	ir_storei(g->ir, 8, p, 0, (int32_t)id); /* event_hdr, as above */
	ir_slot ptr = ir_slot_new(g->ir, 8, 8);
	ir_jlist last = IR_NOJUMP;
	for (uint32_t i = 0; i < JOIN_ARGS; i++) {
		ir_reg src = ir_copy(g->ir, base);
		ir_alui(g->ir, BPF_ADD, src, (int32_t)(8 * i));
		ir_reg pa = ir_reg_new(g->ir);
		ir_slot_addr(g->ir, pa, ptr, 0);
		ir_storei_slot(g->ir, 8, ptr, 0, 0);
		cg_call(g, read, 3, pa, ir_const(g->ir, 8), src);
		ir_reg q = ir_reg_new(g->ir);
		ir_load_slot(g->ir, 8, q, ptr, 0);
		int16_t off = (int16_t)(8 + i * JOIN_LEN);
		ir_storei(g->ir, 1, p, off, 0);
		ir_jlist_concat(g->ir, &last,
				ir_jmpi(g->ir, BPF_JEQ, q, 0, IR_NOLABEL));
		ir_reg dst = ir_copy(g->ir, p);
		ir_alui(g->ir, BPF_ADD, dst, off);
		cg_call(g, read_str, 3, dst, ir_const(g->ir, JOIN_LEN), q);
	}
	ir_jlist_patch_here(g->ir, last);
	cg_send_record(g, p, size);
}
