/* uprobe `args` from the probed file's DWARF: each parameter is a field
 * of the record at its argument register's offset in pt_regs, so that
 * `args->name` reads the register with the parameter's C type. Kept apart
 * from uprobe.c: only the attach point's function is looked up. */
#include <stdio.h>
#include <string.h>

#include "kernel/dwarf.h"
#include "kernel/regs.h"
#include "model/types.h"
#include "probes/impl.h"
#include "util/arena.h"

/* A parameter a register holds whole: an integer or a pointer. */
static bool in_register(const struct type *t)
{
	return (t->kind == TY_INT || t->kind == TY_PTR) && t->size <= 8;
}

void probe_uprobe_args(struct probe_env *env, struct probe_target *t,
		       uint64_t vaddr)
{
	dwarf_note_file(t->binary);
	struct dwarf_func f;
	if (!env->want_args || !t->func || t->u.user.retprobe ||
	    dwarf_func_params(env->arena, t->binary, t->func, vaddr, &f))
		return; /* no debug info: arg0..argN only */
	struct type *rec = type_new(env->arena, TY_RECORD, 0);
	rec->name = arena_printf(env->arena, "struct %s_args", t->func);
	rec->align = 8;
	rec->fields = arena_alloc(env->arena,
				  sizeof(*rec->fields) * (f.nparams + 1));
	/* Parameters past the registers, or passed in several (structs by
	 * value, floats), are not fields: sema says so by name. */
	for (uint32_t i = 0; i < f.nparams && i < regs_nargs(); i++) {
		if (!in_register(f.params[i].type))
			break;
		struct type_field *fl = &rec->fields[rec->nfields++];
		fl->name = f.params[i].name;
		fl->type = f.params[i].type;
		fl->offset = (uint32_t)regs_arg_offset(i);
		if (fl->offset + 8 > rec->size)
			rec->size = fl->offset + 8;
	}
	t->args = rec;
	t->features |= CTX_ARGS;
}

int probe_uprobe_list_args(const char *path, const char *func,
			   uint64_t vaddr, FILE *out)
{
	struct arena a;
	arena_init(&a);
	struct dwarf_func f;
	if (!dwarf_func_params(&a, path, func, vaddr, &f))
		for (uint32_t i = 0; i < f.nparams; i++)
			fprintf(out, "    %s %s\n", f.params[i].ctype,
				f.params[i].name);
	arena_release(&a);
	return 0;
}
