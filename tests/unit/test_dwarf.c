/* kernel/dwarf.c on this very binary (built with -g): a function's
 * parameters with their types and C spellings, found through its address
 * and without it, a struct by name, and a file without debug info; and
 * kernel/dwp.c's reading of a DWARF package's unit index. */
#include "check.h"

#include <errno.h>
#include <string.h>

#include "kernel/dwarf.h"
#include "kernel/dwp.h"
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

/* A .debug_cu_index of 3 units in 4 slots, 3 columns (info, abbrev,
 * str_offsets): unit ids A and B share the first slot A takes (B goes on
 * by its step, 3, to slot 0), C has slot 2, slot 3 is empty. Unit r's
 * contributions are at r * 0x100 + column, of size r * 0x10 + column. */
#define ID_A 0x0000000100000001ull
#define ID_B 0x0000000300000001ull
#define ID_C 0x0000000000000002ull

static size_t make_index(uint8_t *buf, uint32_t version)
{
	uint32_t w[64];
	uint64_t sig[4] = { ID_B, ID_A, ID_C, 0 };
	uint32_t rows[4] = { 2, 1, 3, 0 }, cols[3] = { 1, 3, 6 };
	size_t n = 0;
	w[n++] = version; /* DWARF 5: 2 bytes of version, 2 of padding */
	w[n++] = 3;       /* columns */
	w[n++] = 3;       /* units */
	w[n++] = 4;       /* slots */
	memcpy(buf, w, n * 4);
	memcpy(buf + n * 4, sig, sizeof(sig));
	size_t at = n * 4 + sizeof(sig);
	n = 0;
	for (int i = 0; i < 4; i++)
		w[n++] = rows[i];
	for (int c = 0; c < 3; c++)
		w[n++] = cols[c];
	for (uint32_t r = 1; r <= 3; r++)
		for (uint32_t c = 0; c < 3; c++)
			w[n++] = r * 0x100 + c;
	for (uint32_t r = 1; r <= 3; r++)
		for (uint32_t c = 0; c < 3; c++)
			w[n++] = r * 0x10 + c;
	memcpy(buf + at, w, n * 4);
	return at + n * 4;
}

TEST(dwp_index)
{
	uint8_t buf[512];
	struct dwp_contrib c[DWP_MAX_COLS];
	uint32_t ver = 0;
	for (uint32_t v = 2; v <= 5; v += 3) {
		size_t len = make_index(buf, v);
		const uint64_t ids[3] = { ID_A, ID_B, ID_C };
		for (uint32_t r = 1; r <= 3; r++) {
			memset(c, 0, sizeof(c));
			CHECK(dwp_index_find(buf, len, ids[r - 1], c, &ver) == 3);
			CHECK(ver == v);
			CHECK(c[0].sect == 1 && c[1].sect == 3 && c[2].sect == 6);
			CHECK(c[0].off == r * 0x100 && c[2].off == r * 0x100 + 2);
			CHECK(c[1].size == r * 0x10 + 1);
		}
		/* slot 3 is empty; ...0500000001 steps from slot 1 by 1 to
		 * slot 2 (C's) and then to the empty one */
		CHECK(dwp_index_find(buf, len, 3, c, &ver) == 0);
		CHECK(dwp_index_find(buf, len, 0x0000000500000001ull, c,
				     &ver) == 0);
		/* cut short: the sizes are missing */
		CHECK(dwp_index_find(buf, len - 4, ID_A, c, &ver) == -EINVAL);
	}
	size_t len = make_index(buf, 5);
	uint8_t bad[512];
	memcpy(bad, buf, len);
	bad[0] = 4; /* no such version */
	CHECK(dwp_index_find(bad, len, ID_A, c, &ver) == -EINVAL);
	memcpy(bad, buf, len);
	bad[12] = 3; /* slots not a power of two */
	CHECK(dwp_index_find(bad, len, ID_A, c, &ver) == -EINVAL);
	memcpy(bad, buf, len);
	bad[16 + 32 + 4] = 9; /* A's slot names row 9 of 3 */
	CHECK(dwp_index_find(bad, len, ID_A, c, &ver) == -EINVAL);
	CHECK(dwp_index_find(buf, 12, ID_A, c, &ver) == -EINVAL);
	/* no package at all */
	CHECK(dwp_open("/nonexistent.dwp") == NULL);
	CHECK(dwp_open("/bin/true") == NULL);
}

int main(void)
{
	RUN(params_of_self);
	RUN(no_debug_info);
	RUN(dwp_index);
	return check_done();
}
