/* Emitters of bpftrace 0.26's standard library entries that need code
 * (lang/sema_stdlib.c types them): strlen(), str_concat(),
 * write_user(), percpu_kaddr(). */
#include "codegen/bigstr.h"
#include "codegen/emit.h"
#include "codegen/emitters.h"
#include "codegen/values.h"
#include "codegen/walk.h"

#include <bpf/btf.h>

#include "kernel/btf.h"
#include "lang/sema_stdlib.h"
#include "model/limits.h"

static struct ast_expr *arg(struct ast_expr *e, uint32_t i)
{
	return e->u.call.args.items[i];
}

/* ret - 1 for a string helper's ret (the bytes copied, NUL included),
 * 0 when it failed. */
static ir_reg len_of(struct cg *g, ir_reg ret)
{
	ir_reg r = ir_copy(g->ir, ret);
	ir_jlist bad = ir_jmpi(g->ir, BPF_JSLE, r, 0, IR_NOLABEL);
	ir_alui(g->ir, BPF_SUB, r, 1);
	ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
	ir_jlist_patch_here(g->ir, bad);
	ir_movi(g->ir, r, 0);
	ir_jlist_patch_here(g->ir, done);
	return r;
}

/* strlen(s): a string or char array (its bytes up to the NUL) is copied
 * onto itself by the kernel's string read, which counts them; a pointer
 * is read as str() reads it, at most str()'s length. */
struct val cg_bi_strlen(struct cg *g, struct ast_expr *e, struct ast_expr *tg)
{
	struct ast_expr *a = arg(e, 0);
	if (a->type->kind == TY_PTR) {
		ir_reg p = cg_int(g, a);
		uint32_t n = limits.strlen;
		struct cg_mem dst = cg_scratch(g, n);
		ir_reg d = cg_mem_addr(g, dst, 0);
		ir_reg ret = cg_call(g, cg_read_fn(g, a->type, true), 3, d,
				     ir_const(g->ir, n), p);
		return cg_reg_val(e->type, len_of(g, ret));
	}
	uint32_t n = a->type->size;
	ir_reg d;
	if (cg_big_str(a->type)) { /* in the scratch (bigstr.h) */
		d = cg_big_ptr(g, cg_expr(g, a));
	} else {
		struct val v = cg_to_mem(g, cg_expr(g, a));
		d = ir_reg_new(g->ir);
		ir_slot_addr(g->ir, d, v.slot, v.off);
	}
	ir_reg s = ir_copy(g->ir, d);
	ir_reg ret = cg_call(g, BPF_FUNC_probe_read_kernel_str, 3, d,
			     ir_const(g->ir, n), s);
	return cg_reg_val(e->type, len_of(g, ret));
}

/* The address str_concat() reads string-like a from, the most bytes a
 * string read there may take (*cap) and its helper (*fn). A string or
 * char array is read one byte past its bytes, as str() reads: one with
 * no NUL then ends where it does, and the read writes its NUL over that
 * byte. */
static ir_reg concat_src(struct cg *g, struct ast_expr *a, uint32_t *cap,
			 int *fn)
{
	const struct type *t = a->type;
	*fn = BPF_FUNC_probe_read_kernel_str;
	*cap = t->size + 1;
	if (t->kind == TY_PTR) {
		*cap = SEMA_STR_CONCAT_SIZE;
		*fn = cg_read_fn(g, t, true);
		return cg_int(g, a);
	}
	if (cg_big_str(t)) /* in the scratch (bigstr.h) */
		return cg_big_ptr(g, cg_expr(g, a));
	struct val v = cg_to_mem(g, cg_expr(g, a));
	ir_reg p = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, p, v.slot, v.off);
	return p;
}

/* str_concat(s1, s2): as bpftrace's strings.bt has it, a zeroed
 * string[1024] that s1 is read into, then s2 at s1's NUL, each read cut
 * at the room left (its NUL included). */
struct val cg_bi_str_concat(struct cg *g, struct ast_expr *e,
			    struct ast_expr *tg)
{
	const uint32_t n = SEMA_STR_CONCAT_SIZE;
	uint32_t cap[2];
	int fn[2];
	ir_reg src[2];
	for (uint32_t i = 0; i < 2; i++)
		src[i] = concat_src(g, arg(e, i), &cap[i], &fn[i]);
	/* the verifier bounds s2's offset and its read's size apart (to
	 * n - 1 and cap), not their sum: the region has room for both */
	uint32_t cap2 = cap[1] < n ? cap[1] : n;
	struct cg_mem m = cg_scratch(g, n + cap2);
	cg_zero_big(g, m, 0, n + 1);
	ir_reg d = cg_mem_addr(g, m, 0);
	ir_reg ret = cg_call(g, fn[0], 3, d,
			     ir_const(g->ir, cap[0] < n ? cap[0] : n), src[0]);
	/* s1's length (0 when the read failed), bounded for the verifier */
	ir_reg off = len_of(g, ret);
	ir_alui(g->ir, BPF_AND, off, (int32_t)(n - 1));
	ir_reg room = ir_const(g->ir, n);
	ir_alu(g->ir, BPF_SUB, room, off);
	ir_jlist fits = ir_jmpi(g->ir, BPF_JLE, room, (int32_t)cap2,
				IR_NOLABEL);
	ir_movi(g->ir, room, cap2);
	ir_jlist_patch_here(g->ir, fits);
	ir_reg d2 = cg_mem_addr(g, m, 0);
	ir_alu(g->ir, BPF_ADD, d2, off);
	cg_call(g, fn[1], 3, d2, room, src[1]);
	return (struct val){ .kind = V_ADDR, .type = e->type, .reg = d,
			     .own = true, .direct = true };
}

/* write_user(dst, src, len): bpf_probe_write_user of len bytes of src
 * (memory of the program: sema checked len fits) to the user address
 * dst; true when it wrote them. */
struct val cg_bi_write_user(struct cg *g, struct ast_expr *e,
			    struct ast_expr *tg)
{
	ir_reg dst = cg_int(g, arg(e, 0));
	struct val v = cg_to_mem(g, cg_expr(g, arg(e, 1)));
	ir_reg src = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, src, v.slot, v.off);
	ir_reg ret = cg_call(g, BPF_FUNC_probe_write_user, 3, dst, src,
			     ir_const(g->ir, (int64_t)arg(e, 2)->u.num.value));
	ir_reg r = ir_const(g->ir, 1);
	ir_jlist ok = ir_jmpi(g->ir, BPF_JEQ, ret, 0, IR_NOLABEL);
	ir_movi(g->ir, r, 0);
	ir_jlist_patch_here(g->ir, ok);
	return cg_reg_val(e->type, r);
}

/* percpu_kaddr("name" [, cpu]): the address of the per-CPU kernel
 * variable on this CPU (bpf_this_cpu_ptr) or on cpu (bpf_per_cpu_ptr,
 * NULL past the CPUs), of the BTF variable sema found. The kernel's
 * pointer is copied out through a read into a plain integer, which the
 * program may do arithmetic on and compare before any NULL check
 * (cg_ptr_as_int). */
struct val cg_bi_percpu_kaddr(struct cg *g, struct ast_expr *e,
			      struct ast_expr *tg)
{
	struct ast_expr *name = arg(e, 0);
	int32_t id = -1;
	struct btf *b = kbtf_load() == 0 ? kbtf_vmlinux() : NULL;
	if (b)
		id = btf__find_by_name_kind(b, name->u.str.bytes, BTF_KIND_VAR);
	if (id <= 0 || g->opts->no_dispatch) {
		cg_error(g, e->span, id <= 0 ? "cannot find the variable %s in "
			 "the kernel's BTF" : "percpu_kaddr() of %s is not "
			 "supported in an object (--emit-elf)",
			 name->u.str.bytes);
		return cg_reg_val(e->type, ir_const(g->ir, 0));
	}
	ir_reg var = ir_reg_new(g->ir);
	ir_ld_btf_var(g->ir, var, (uint32_t)id);
	ir_reg p = e->u.call.args.n > 1 ?
		cg_call(g, BPF_FUNC_per_cpu_ptr, 2, var, cg_int(g, arg(e, 1))) :
		cg_call(g, BPF_FUNC_this_cpu_ptr, 1, var);
	return cg_reg_val(e->type, cg_ptr_as_int(g, p));
}

/* comm(pid): the task's comm read through the reference the kfunc
 * takes, which is given back on the one path that has it; "N/A" when no
 * process has that pid, as 0.26 names it. */
struct val cg_bi_comm_of(struct cg *g, struct ast_expr *e,
			 struct ast_expr *tg)
{
	struct type_field comm;
	const struct type *task = kbtf_type_by_name(g->arena,
						    "struct task_struct");
	int32_t from = kbtf_kfunc_id("bpf_task_from_pid"),
		release = kbtf_kfunc_id("bpf_task_release");
	ir_slot s = ir_slot_new(g->ir, 16, 8);
	if (!task || from <= 0 || release <= 0 ||
	    kbtf_field(g->arena, task, "comm", &comm)) {
		cg_error(g, e->span, "comm(pid): the kernel's BTF has no "
			 "task_struct comm or bpf_task_from_pid");
		return (struct val){ .kind = V_MEM, .type = e->type, .slot = s };
	}
	cg_zero(g, s, 0, 16);
	ir_reg pid[1] = { cg_int(g, arg(e, 0)) };
	ir_reg t = ir_reg_new(g->ir);
	ir_kfunc_call(g->ir, t, from, pid, 1);
	ir_jlist none = ir_jmpi(g->ir, BPF_JEQ, t, 0, IR_NOLABEL);
	ir_reg src = ir_copy(g->ir, t), dst = ir_reg_new(g->ir);
	ir_alui(g->ir, BPF_ADD, src, (int32_t)comm.offset);
	ir_slot_addr(g->ir, dst, s, 0);
	cg_call(g, BPF_FUNC_probe_read_kernel, 3, dst, ir_const(g->ir, 16),
		src);
	ir_reg rel[1] = { t };
	ir_kfunc_call(g->ir, ir_reg_new(g->ir), release, rel, 1);
	ir_jlist done = ir_ja(g->ir, IR_NOLABEL);
	ir_jlist_patch_here(g->ir, none);
	ir_store_slot(g->ir, 4, s, 0, ir_const(g->ir, 0x412f4e)); /* N/A */
	ir_jlist_patch_here(g->ir, done);
	return (struct val){ .kind = V_MEM, .type = e->type, .slot = s };
}

/* socket_cookie(args.sk) of an fentry program (sema checked) */
struct val cg_bi_socket_cookie(struct cg *g, struct ast_expr *e,
			       struct ast_expr *tg)
{
	return cg_reg_val(e->type, cg_call(g, BPF_FUNC_get_socket_cookie, 1,
					   cg_int(g, arg(e, 0))));
}
