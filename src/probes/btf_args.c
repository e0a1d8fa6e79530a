/* What rawtracepoint and kfunc/kretfunc share: both contexts are a u64
 * array holding a BTF function's arguments, typed as `args` from its
 * prototype, and both list "-lv" arguments from it. */
#include <errno.h>
#include <string.h>

#include "kernel/btf.h"
#include "lang/types.h"
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

int probe_btf_list_args(struct arena *a, const char *name, bool tp,
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
