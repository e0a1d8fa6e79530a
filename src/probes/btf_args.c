/* What rawtracepoint and kfunc/kretfunc share: both contexts are a u64
 * array holding a BTF function's arguments, typed as `args` from its
 * prototype, and both list "-lv" arguments from it. */
#include <errno.h>
#include <string.h>

#include <bpf/btf.h>

#include "kernel/btf.h"
#include "kernel/kallsyms.h"
#include "kernel/regs.h"
#include "kernel/glob.h"
#include "model/types.h"
#include "probes/impl.h"
#include "util/arena.h"

/* Arguments larger than a register take two slots (the kernel passes
 * structs of up to 16 bytes by value in two). */
static uint32_t slots(const struct type *t)
{
	return t->size > 8 ? 2 : 1;
}

const struct type *probe_btf_args_type(struct arena *a,
				       const struct kbtf_func *f,
				       const char *rec_name, bool with_retval)
{
	uint32_t n = f->nparams + (with_retval ? 1 : 0);
	struct type *rec = type_new(a, TY_RECORD, 0);
	rec->name = rec_name;
	rec->align = 8;
	rec->fields = arena_alloc(a, sizeof(*rec->fields) * (n + 1));
	uint32_t off = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct type_field *fl = &rec->fields[rec->nfields++];
		bool ret = i == f->nparams;
		fl->name = ret ? "retval" : f->params[i].name;
		fl->type = ret ? f->ret : f->params[i].type;
		fl->offset = off;
		off += 8 * slots(fl->type);
	}
	rec->size = off;
	return rec;
}

uint32_t probe_btf_nslots(const struct kbtf_func *f)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nparams; i++)
		n += slots(f->params[i].type);
	return n;
}

static int probe_btf_list_args(struct arena *a, const char *name, bool tp,
			       bool with_retval, FILE *out)
{
	struct kbtf_func f;
	int err = kbtf_func_ctypes(a, name, tp, &f);
	if (err)
		return err;
	for (uint32_t i = 0; i < f.nparams; i++)
		fprintf(out, "    %s %s\n", f.params[i].ctype, f.params[i].name);
	if (with_retval && f.ret->kind != TY_VOID)
		fprintf(out, "    %s retval\n", f.ret_ctype);
	return 0;
}

struct each_ctx {
	struct arena *a;
	const char *module;
	bool tp;
	probe_btf_add_fn add;
	void *ctx;
	int err;
};

/* A module pattern matches vmlinux functions by that name. */
static bool module_ok(const char *want, const char *module)
{
	return !want || glob_match(want, module ? module : "vmlinux");
}

static int each_one(const char *name, const char *module, void *ctx_)
{
	struct each_ctx *m = ctx_;
	if (!module_ok(m->module, module))
		return 0;
	struct kbtf_func f;
	int err = m->tp ? kbtf_tp_btf(m->a, name, &f) :
			  kbtf_func(m->a, name, &f);
	if (err) {
		m->err = err;
		return 1;
	}
	m->add(&f, m->ctx);
	return 0;
}

int probe_btf_each(struct arena *a, const char *module, const char *name,
		   bool tp, probe_btf_add_fn add, void *ctx)
{
	struct each_ctx m = { a, module, tp, add, ctx, 0 };
	if (glob_has_wildcard(name)) {
		int r = tp ? kbtf_match_tp_btf(name, each_one, &m) :
			     kbtf_match_funcs(name, each_one, &m);
		return r == 1 && m.err ? m.err : r;
	}
	/* One name costs one lookup, not a walk over all of BTF. */
	struct kbtf_func f;
	int err = tp ? kbtf_tp_btf(a, name, &f) : kbtf_func(a, name, &f);
	if (err)
		return err == -ENOENT ? 0 : err;
	if (!module_ok(module, f.module))
		return 0;
	add(&f, ctx);
	return 1;
}

struct list_ctx {
	struct arena *a;
	const char *type, *match;
	bool tp, ret, verbose;
	FILE *out;
};

static int list_one(const char *name, const char *module, void *ctx_)
{
	struct list_ctx *l = ctx_;
	if (!module)
		module = "vmlinux";
	const char *mod_name = arena_printf(l->a, "%s:%s", module, name);
	if (!glob_match(l->match, mod_name))
		return 0;
	fprintf(l->out, "%s:%s\n", l->type, mod_name);
	/* fexit's listing shows the return value, fentry's does not */
	return l->verbose ? probe_btf_list_args(l->a, name, l->tp, l->ret,
						  l->out) : 0;
}

/* The functions of one BTF object that bpftrace 0.26 lists for fentry
 * and fexit (get_all_traceable_funcs_from_btf): those the kernel can
 * trace (available_filter_functions, less those known to hang it),
 * taking no more arguments than registers carry. */
static int list_funcs_of(const struct btf *b, uint32_t first_id,
			 const char *module, void *ctx)
{
	struct list_ctx *l = ctx;
	bool any = ksyms_traceable(&(const struct ksym_fn *){ NULL }) > 0;
	uint32_t n = btf__type_cnt(b);
	for (uint32_t id = first_id; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (!btf_is_func(t))
			continue;
		const char *name = btf__name_by_offset(b, t->name_off);
		const struct btf_type *proto = btf__type_by_id(b, t->type);
		if (!name || !proto || !btf_is_func_proto(proto) ||
		    btf_vlen(proto) > regs_nargs() ||
		    !probe_kernel_func_listed(name) ||
		    (any && !ksyms_is_traceable(module, name)))
			continue;
		int r = list_one(name, module, l);
		if (r)
			return r;
	}
	return 0;
}

int probe_btf_list(const char *type, bool tp, bool ret, const char *pattern,
		   bool verbose, FILE *out)
{
	struct arena a;
	arena_init(&a);
	/* as bpftrace 0.26 matches BTF's "MODULE:NAME": the pattern less
	 * its type, with "*:" before a name alone ("fentry:vfs_*") */
	const char *rest = strchr(pattern, ':');
	rest = rest ? rest + 1 : "*";
	const char *match = strchr(rest, ':') ? rest :
			    arena_printf(&a, "*:%s", rest);
	struct list_ctx l = { &a, type, match, tp, ret, verbose, out };
	int r = tp ? kbtf_match_tp_btf("*", list_one, &l) :
		     kbtf_each_object(list_funcs_of, &l);
	arena_release(&a);
	return r < 0 ? r : 0;
}

const char *probe_btf_name(struct arena *a, const char *type,
			   const char *module, const char *name)
{
	return module ? arena_printf(a, "%s:%s:%s", type, module, name) :
			arena_printf(a, "%s:%s", type, name);
}
