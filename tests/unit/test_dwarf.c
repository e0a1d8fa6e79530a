/* kernel/dwarf.c on this very binary (built with -g): a function's
 * parameters with their types and C spellings, found through its address
 * and without it, a struct by name, and a file without debug info. */
#include "check.h"

#include <errno.h>
#include <string.h>

#include "kernel/dwarf.h"
#include "kernel/elfsym.h"
#include "model/types.h"
#include "util/arena.h"

struct dwtest_inner {
	short s;
	unsigned char u;
};

struct dwtest_rec {
	int a;
	char name[12];
	long vals[3];
	struct dwtest_inner in;
	struct dwtest_rec *next;
};

long dwtest_func(struct dwtest_rec *r, const char *tag, unsigned long n);
__attribute__((noinline)) long dwtest_func(struct dwtest_rec *r,
					   const char *tag, unsigned long n)
{
	return r->a + tag[0] + (long)n;
}

TEST(params_of_self)
{
	struct dwtest_rec r = { .a = 1 };
	CHECK(dwtest_func(&r, "x", 2) == 1 + 'x' + 2);
	struct elf_syms *es;
	CHECK(elfsym_load("/proc/self/exe", &es) == 0);
	if (check_failed_)
		return;
	const struct elf_sym *s = elfsym_find(es, "dwtest_func");
	CHECK(s != NULL);
	struct arena a;
	arena_init(&a);
	struct dwarf_func f;
	for (int by_addr = 0; s && by_addr < 2; by_addr++) {
		CHECK(dwarf_func_params(&a, "/proc/self/exe", "dwtest_func",
					by_addr ? s->addr : 0, &f) == 0);
		CHECK(f.nparams == 3);
		if (f.nparams != 3)
			break;
		CHECK_STR(f.params[0].name, "r");
		CHECK_STR(f.params[0].ctype, "struct dwtest_rec*");
		CHECK_STR(f.params[1].ctype, "const char*");
		CHECK_STR(f.params[2].ctype, "long unsigned int");
		const struct type *p = f.params[0].type;
		CHECK(p->kind == TY_PTR && p->is_user);
		const struct type *rec = p->elem;
		CHECK(rec->kind == TY_RECORD && rec->size == sizeof(r));
		CHECK_STR(rec->name, "struct dwtest_rec");
		CHECK(rec->nfields == 5);
		if (rec->nfields == 5) {
			CHECK(rec->fields[1].type->kind == TY_STRING);
			CHECK(rec->fields[1].offset == 4);
			CHECK(rec->fields[2].type->kind == TY_ARRAY &&
			      rec->fields[2].type->count == 3);
			const struct type *in = rec->fields[3].type;
			CHECK(in->kind == TY_RECORD && in->nfields == 2);
			/* a struct pointing to itself ends */
			CHECK(rec->fields[4].type->elem == rec);
			if (in->nfields == 2) {
				CHECK(in->fields[0].type->is_signed);
				CHECK(!in->fields[1].type->is_signed);
			}
		}
		CHECK(f.params[2].type->kind == TY_INT &&
		      f.params[2].type->size == 8 &&
		      !f.params[2].type->is_signed);
	}
	const struct type *t = dwarf_record(&a, "/proc/self/exe",
					    "struct dwtest_inner");
	CHECK(t && t->size == sizeof(struct dwtest_inner));
	CHECK(dwarf_record(&a, "/proc/self/exe", "struct no_such_one") == NULL);
	CHECK(dwarf_func_params(&a, "/proc/self/exe", "no_such_function", 0,
				&f) == -ENOENT);
	arena_release(&a);
	elfsym_free(es);
}

TEST(no_debug_info)
{
	/* /bin/true ships stripped: no args, no error */
	struct arena a;
	arena_init(&a);
	struct dwarf_func f;
	CHECK(dwarf_func_params(&a, "/bin/true", "main", 0, &f) == -ENOENT);
	CHECK(dwarf_record(&a, "/bin/true", "struct stat") == NULL);
	arena_release(&a);
}

int main(void)
{
	RUN(params_of_self);
	RUN(no_debug_info);
	return check_done();
}
