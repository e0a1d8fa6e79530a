/* The value library (values.h). */

#include "codegen/bigstr.h"
#include "codegen/emit.h"
#include "codegen/stacks.h"
#include "codegen/values.h"
#include "codegen/walk.h"
#include "model/limits.h"
#include "probes/provider.h"

/* Widens the low `size` bytes of r to 64 bits by the sign. */
void cg_extend(struct cg *g, ir_reg r, uint32_t size, bool is_signed)
{
	if (size >= 8)
		return;
	if (is_signed) {
		ir_alui(g->ir, BPF_LSH, r, (int32_t)(64 - size * 8));
		ir_alui(g->ir, BPF_ARSH, r, (int32_t)(64 - size * 8));
	} else if (size == 4) {
		ir_alu32(g->ir, BPF_MOV, r, r);
	} else {
		ir_alui(g->ir, BPF_AND, r, size == 1 ? 0xff : 0xffff);
	}
}

bool cg_scalar_size_ok(uint32_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* Copies a stack slot's bytes in the widest aligned pieces. */
static void copy_slot(struct cg *g, struct cg_mem dst, uint32_t doff,
		      ir_slot src, uint32_t soff, uint32_t size)
{
	ir_reg t = ir_reg_new(g->ir);
	for (uint32_t i = 0, n; i < size; i += n) {
		n = cg_piece(size - i, doff + i, soff + i);
		ir_load_slot(g->ir, (int)n, t, src, soff + i);
		cg_store_reg(g, (int)n, dst, doff + i, t);
	}
}

/* Copies context bytes (a tracepoint record): the verifier allows only
 * direct, aligned loads from the context. */
static void copy_ctx(struct cg *g, struct cg_mem dst, uint32_t doff,
		     uint32_t ctx_off, uint32_t size)
{
	/* A tracepoint's first 8 bytes (the common fields) are not the
	 * program's to read, the verifier says; no field of args is
	 * there, so the copy of a whole record (print(args)) has zeros. */
	bool tp = g->tgt->prov->prog_type == BPF_PROG_TYPE_TRACEPOINT;
	ir_reg t = ir_reg_new(g->ir);
	for (uint32_t i = 0, n; i < size; i += n) {
		n = cg_piece(size - i, ctx_off + i, doff + i);
		if (tp && ctx_off + i < 8) {
			cg_zero_mem(g, dst, doff + i, n);
			continue;
		}
		ir_load(g->ir, (int)n, t, ir_ctx(g->ir),
			(int16_t)(ctx_off + i));
		cg_store_reg(g, (int)n, dst, doff + i, t);
	}
}

/* Reads size bytes at the address in reg into a new slot. */
static ir_slot read_addr(struct cg *g, const struct val *v, uint32_t size)
{
	ir_slot s = ir_slot_new(g->ir, size, 8);
	ir_reg dst = cg_mem_addr(g, cg_slot_mem(s), 0);
	cg_call(g, cg_val_read_fn(v, false), 3, dst, ir_const(g->ir, size),
		v->reg);
	return s;
}

ir_reg cg_to_reg(struct cg *g, struct val v)
{
	const struct type *t = v.type;
	uint32_t size = t->size ? t->size : 8;
	bool sign = t->kind == TY_INT && t->is_signed;
	ir_reg r;
	switch (v.kind) {
	case V_REG:
		return v.reg;
	case V_MEM: {
		uint32_t n = size > 8 ? 8 : size;
		r = ir_reg_new(g->ir);
		if (v.off % n == 0) {
			ir_load_slot(g->ir, (int)n, r, v.slot, v.off);
			cg_extend(g, r, size, sign);
			return r;
		}
		/* a member of a packed struct: the verifier takes only aligned
		 * stack loads, so the value is put together piece by piece */
		ir_movi(g->ir, r, 0);
		ir_reg t = ir_reg_new(g->ir);
		for (uint32_t i = 0, k; i < n; i += k) {
			k = cg_piece(n - i, v.off + i, 0);
			ir_load_slot(g->ir, (int)k, t, v.slot, v.off + i);
			if (i)
				ir_alui(g->ir, BPF_LSH, t, (int32_t)(8 * i));
			ir_alu(g->ir, BPF_OR, r, t);
		}
		cg_extend(g, r, size, sign);
		return r;
	}
	case V_CTX:
		r = ir_reg_new(g->ir);
		ir_load(g->ir, (int)(size > 8 ? 8 : size), r, ir_ctx(g->ir),
			(int16_t)v.ctx_off);
		cg_extend(g, r, size, sign);
		return r;
	case V_ADDR: {
		if (!cg_scalar_size_ok(size))
			size = 8;
		ir_slot s = read_addr(g, &v, size);
		r = ir_reg_new(g->ir);
		ir_load_slot(g->ir, (int)size, r, s, 0);
		cg_extend(g, r, size, sign);
		return r;
	}
	case V_STACK: /* not an integer: sema lets no stack reach here */
	case V_TUPLE:
	case V_STR:
	case V_NONE:
		break;
	}
	return ir_const(g->ir, 0);
}

struct val cg_to_mem(struct cg *g, struct val v)
{
	uint32_t size = v.type->size ? v.type->size : 8;
	ir_slot s;
	switch (v.kind) {
	case V_MEM:
		return v;
	case V_REG:
		s = ir_slot_new(g->ir, size < 8 ? 8 : size, 8);
		ir_store_slot(g->ir, 8, s, 0, v.reg);
		return cg_mem_val(v.type, s, 0);
	case V_CTX:
		s = ir_slot_new(g->ir, size, 8);
		copy_ctx(g, cg_slot_mem(s), 0, v.ctx_off, size);
		return cg_mem_val(v.type, s, 0);
	case V_STACK:
		s = ir_slot_new(g->ir, size, 8);
		cg_stack_capture(g, v.type, cg_slot_mem(s), 0);
		return cg_mem_val(v.type, s, 0);
	case V_TUPLE: /* needed in a slot after all (the verifier may
		       * refuse its size, which compile() reports) */
	case V_STR: /* a long string's read may write one byte more */
		s = ir_slot_new(g->ir, size + cg_big_str(v.type), 8);
		cg_store_val(g, cg_slot_mem(s), 0, v.type, v);
		return cg_mem_val(v.type, s, 0);
	case V_ADDR:
		if (v.type->kind == TY_STRING) {
			/* A char array through a pointer: read it as a string
			 * so bytes after the NUL are zero, as keys need. The
			 * helper ends what it copies with a NUL of its own:
			 * given one byte more than the array, it copies all
			 * size bytes of an array that has no NUL, and never
			 * reads past the array. */
			s = ir_slot_new(g->ir, size + 1, 8);
			cg_zero(g, s, 0, size + 1);
			cg_call(g, cg_val_read_fn(&v, true),
				3, cg_mem_addr(g, cg_slot_mem(s), 0),
				ir_const(g->ir, size + 1),
				v.reg);
			return cg_mem_val(v.type, s, 0);
		}
		s = read_addr(g, &v, size);
		return cg_mem_val(v.type, s, 0);
	case V_NONE:
		break;
	}
	s = ir_slot_new(g->ir, 8, 8);
	cg_zero(g, s, 0, 8);
	return cg_mem_val(v.type, s, 0);
}

bool cg_is_scalar(const struct type *t)
{
	switch (t->kind) {
	case TY_INT:
	case TY_BOOL:
	case TY_PTR:
	case TY_KSYM:
	case TY_USERNAME:
	case TY_PROBE:
	case TY_TIMESTAMP:
		return true;
	default:
		return false;
	}
}

void cg_store_val(struct cg *g, struct cg_mem dst, uint32_t off,
		  const struct type *dt, struct val v)
{
	if (cg_is_scalar(dt) && cg_scalar_size_ok(dt->size)) {
		ir_reg r = cg_to_reg(g, v);
		cg_store_reg(g, (int)dt->size, dst, off, r);
		return;
	}
	if (v.kind == V_STACK && type_equal(dt, v.type)) {
		/* straight into place: no copy of up to 8 KiB of frames */
		cg_stack_capture(g, dt, dst, off);
		return;
	}
	if (v.kind == V_TUPLE && dt->kind == TY_TUPLE &&
	    dt->nfields == v.expr->u.list.n &&
	    (type_equal(dt, v.type) ||
	     (cg_big_str(v.type) && !type_is_record(dt)))) {
		/* its fields straight into place, stacks captured there */
		cg_zero_gaps(g, dst, off, dt, dt->size);
		for (uint32_t i = 0; i < dt->nfields; i++)
			cg_store_val(g, dst, off + dt->fields[i].offset,
				     dt->fields[i].type,
				     cg_expr(g, v.expr->u.list.items[i]));
		return;
	}
	if (v.kind == V_STR) {
		cg_str_read(g, v.expr, cg_int(g, v.expr->u.call.args.items[0]),
			    dst, off, dt->size);
		return;
	}
	if (v.kind == V_TUPLE) /* other field types: through a slot */
		v = cg_to_mem(g, v);
	/* a tuple kept in the scratch (a variable), into the scratch: read
	 * whole below, with no slot in between */
	bool whole = v.kind == V_ADDR && dst.ptr != IR_NOREG &&
		     type_equal(dt, v.type);
	if (dt->kind == TY_TUPLE && v.type->kind == TY_TUPLE && !whole) {
		/* every field is stored whole below: zero only the padding */
		cg_zero_gaps(g, dst, off, dt, dt->size);
		struct val src = cg_to_mem(g, v);
		for (uint32_t i = 0; i < dt->nfields && i < v.type->nfields;
		     i++) {
			/* a record's fields by name: sema unifies records
			 * assigned in different orders */
			const struct type_field *sf = type_is_record(dt) ?
				type_record_field(v.type, dt->fields[i].name) :
				&v.type->fields[i];
			if (!sf)
				continue;
			struct val el = cg_mem_val(sf->type, src.slot,
						src.off + sf->offset);
			cg_store_val(g, dst, off + dt->fields[i].offset,
				     dt->fields[i].type, el);
		}
		return;
	}
	uint32_t n = v.type->size < dt->size ? v.type->size : dt->size;
	if (v.kind == V_CTX) {
		copy_ctx(g, dst, off, v.ctx_off, n);
	} else if (v.kind == V_ADDR && dst.ptr != IR_NOREG &&
		   (v.type->kind != TY_STRING || v.own)) {
		/* Into the scratch directly: the bytes may not fit a slot.
		 * A failed read (a NULL address) zeroes them. */
		cg_call(g, cg_val_read_fn(&v, false),
			3, cg_mem_addr(g, dst, off), ir_const(g->ir, n), v.reg);
	} else if (v.kind == V_ADDR && dst.ptr != IR_NOREG &&
		   cg_big_str(v.type)) {
		/* a long char array through a pointer: read as a string,
		 * so that the bytes after its NUL are zero */
		cg_zero_big(g, dst, off, n);
		cg_call(g, cg_val_read_fn(&v, true),
			3, cg_mem_addr(g, dst, off), ir_const(g->ir, n), v.reg);
	} else {
		struct val src = cg_to_mem(g, v);
		copy_slot(g, dst, off, src.slot, src.off, n);
	}
	if (n < dt->size)
		cg_zero_mem(g, dst, off + n, dt->size - n);
}

void cg_store_val_slot(struct cg *g, ir_slot dst, uint32_t off,
	      const struct type *dt, struct val v)
{
	cg_store_val(g, cg_slot_mem(dst), off, dt, v);
}

void cg_str_read(struct cg *g, struct ast_expr *e, ir_reg p,
		 struct cg_mem dst, uint32_t off, uint32_t room)
{
	struct ast_expr *src = e->u.call.args.items[0];
	/* str(p) reads one byte more than its type holds, as 0.26 does: a
	 * string of max_strlen characters or more then has no NUL in it,
	 * and is printed cut, with the trailer (the byte is the memory's:
	 * cg_value_mem gives a long string one more; in a tuple it is the
	 * next field's, stored after, or padding; it is always a NUL) */
	bool whole = e->u.call.args.n == 1;
	uint32_t size = e->type->size < room ? e->type->size : room;
	if (dst.ptr != IR_NOREG && cg_big_str(e->type))
		cg_zero_big(g, dst, off, room);
	else
		cg_zero_mem(g, dst, off, room);
	ir_reg len = IR_NOREG;
	if (whole) {
		len = ir_const(g->ir, size + 1);
	} else if (e->u.call.args.items[1]->kind != E_INT) {
		/* a run-time length (with the NUL): clamp it to the buffer */
		len = ir_copy(g->ir, cg_int(g, e->u.call.args.items[1]));
		ir_jlist ok = ir_jmpi(g->ir, BPF_JLE, len, (int32_t)size,
				      IR_NOLABEL);
		ir_movi(g->ir, len, size);
		ir_jlist_patch_here(g->ir, ok);
	} else {
		len = ir_const(g->ir, size);
	}
	ir_reg d = cg_mem_addr(g, dst, off);
	cg_call(g, cg_read_fn(g, src->type, true), 3, d, len, p);
}

ir_reg cg_big_ptr(struct cg *g, struct val v)
{
	if (v.kind == V_ADDR && v.direct)
		return v.reg;
	uint32_t size = v.type->size ? v.type->size : 8;
	struct cg_mem m = cg_scratch(g, size + 1);
	cg_store_val(g, m, 0, v.type, v);
	return m.ptr;
}

struct val cg_string_const(struct cg *g, struct span sp,
			   const struct type *t, const char *bytes,
			   uint32_t len)
{
	uint32_t size = t->size;
	if (size > IR_STACK_MAX && size > limits.strlen) {
		/* bpftrace's words for a literal over its string size: on
		 * the stack, or in the scratch up to max_strlen bytes */
		if (limits.strlen <= IR_STACK_MAX)
			cg_error(g, sp, "String is too long (over %d bytes, "
				 "the size of BPF's stack): it takes %u bytes",
				 IR_STACK_MAX, size);
		else
			cg_error(g, sp, "String is too long (over %u bytes, "
				 "max_strlen): it takes %u bytes",
				 limits.strlen, size);
		size = 8;
	} else if (cg_big_str(t)) {
		/* a long literal: built in the scratch (bigstr.h) */
		struct cg_mem m = cg_scratch(g, size + 1);
		const unsigned char *b = (const unsigned char *)bytes;
		for (uint32_t i = 0; i < size; i += 8) {
			uint64_t w = 0;
			for (uint32_t k = 0; k < 8 && i + k < len; k++)
				w |= (uint64_t)b[i + k] << (8 * k);
			if (w)
				cg_store_reg(g, 8, m, i, ir_const(g->ir,
							      (int64_t)w));
			else
				cg_store_imm(g, 8, m, i, 0);
		}
		struct val v = { .kind = V_ADDR, .type = t, .reg = m.ptr,
				 .own = true, .direct = true };
		return v;
	}
	ir_slot s = ir_slot_new(g->ir, size, 8);
	uint32_t i = 0;
	const unsigned char *b = (const unsigned char *)bytes;
	while (i < size) {
		uint64_t w = 0;
		uint32_t n = cg_piece(size - i, i, 0);
		for (uint32_t k = 0; k < n; k++)
			if (i + k < len)
				w |= (uint64_t)b[i + k] << (8 * k);
		if (n == 8) {
			ir_reg r = ir_const(g->ir, (int64_t)w);
			ir_store_slot(g->ir, 8, s, i, r);
		} else {
			ir_storei_slot(g->ir, (int)n, s, i, (int32_t)w);
		}
		i += n;
	}
	return cg_mem_val(t, s, 0);
}

int cg_val_read_fn(const struct val *v, bool str)
{
	if (v->any)
		return str ? BPF_FUNC_probe_read_str : BPF_FUNC_probe_read;
	if (v->user)
		return str ? BPF_FUNC_probe_read_user_str :
			     BPF_FUNC_probe_read_user;
	return str ? BPF_FUNC_probe_read_kernel_str : BPF_FUNC_probe_read_kernel;
}

int cg_read_fn(struct cg *g, const struct type *t, bool str)
{
	switch (type_addr_space(t)) {
	case AS_USER:
		return str ? BPF_FUNC_probe_read_user_str : BPF_FUNC_probe_read_user;
	case AS_KERNEL:
		return str ? BPF_FUNC_probe_read_kernel_str :
			     BPF_FUNC_probe_read_kernel;
	case AS_MIXED:
		/* Both spaces were stored in one place: the old helpers try
		 * kernel then user memory (x86), as bpftrace reads an address
		 * of unset space. */
		return str ? BPF_FUNC_probe_read_str : BPF_FUNC_probe_read;
	case AS_NONE:
		break;
	}
	/* the probe's space; none (BEGIN, profile...): both */
	unsigned f = g->tgt ? g->tgt->features : 0;
	return cg_read_fn(g, &(struct type){ .kind = TY_PTR,
			  .is_user = (f & CTX_USER) != 0,
			  .addr = f & (CTX_USER | CTX_KERNEL) ? AS_NONE :
							       AS_MIXED }, str);
}

/* The pointer in p as a plain integer (values.h). */
ir_reg cg_ptr_as_int(struct cg *g, ir_reg p)
{
	ir_slot s = ir_slot_new(g->ir, 16, 8);
	ir_store_slot(g->ir, 8, s, 0, p);
	ir_reg src = ir_reg_new(g->ir), dst = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, src, s, 0);
	ir_slot_addr(g->ir, dst, s, 8);
	cg_call(g, BPF_FUNC_probe_read_kernel, 3, dst, ir_const(g->ir, 8),
		src);
	ir_reg r = ir_reg_new(g->ir);
	ir_load_slot(g->ir, 8, r, s, 8);
	return r;
}
