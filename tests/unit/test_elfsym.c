/* ELF symbols of real files: this test binary, the C library and the
 * vdso mapped into this process. Addresses found through the module must
 * agree with where the loader put the functions. */
#include "check.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "kernel/elfsym.h"

/* Two functions of known relative placement, kept out of line. */
__attribute__((noinline)) int elfsym_probe_one(int x) { return x * 3 + 1; }
__attribute__((noinline)) int elfsym_probe_two(int x) { return x * 5 + 2; }

TEST(own_functions_by_name_and_address)
{
	struct elf_syms *es;
	CHECK(elfsym_load("/proc/self/exe", &es) == 0);
	if (check_failed_)
		return;
	const struct elf_sym *one = elfsym_find(es, "elfsym_probe_one");
	const struct elf_sym *two = elfsym_find(es, "elfsym_probe_two");
	CHECK(one && two);
	if (!one || !two) {
		elfsym_free(es);
		return;
	}
	/* One load bias maps both link-time addresses to the real ones. */
	uint64_t bias = (uintptr_t)&elfsym_probe_one - one->addr;
	CHECK((uintptr_t)&elfsym_probe_two - bias == two->addr);
	uint64_t off = 99;
	const struct elf_sym *s =
		elfsym_lookup(es, (uintptr_t)&elfsym_probe_two + 3 - bias, &off);
	CHECK(s && !strcmp(s->name, "elfsym_probe_two") && off == 3);
	/* Past the end of a sized symbol there is no answer from it. */
	s = elfsym_lookup(es, two->addr + two->size, NULL);
	CHECK(!s || strcmp(s->name, "elfsym_probe_two"));
	CHECK(elfsym_lookup(es, 0, NULL) == NULL);
	/* File offset round trip: the uprobe offset of a function. */
	uint64_t foff, back;
	CHECK(elfsym_vaddr_to_off(es, one->addr, &foff) == 0);
	CHECK(elfsym_off_to_vaddr(es, foff, &back) == 0 && back == one->addr);
	CHECK(elfsym_vaddr_to_off(es, ~0ull - 5, &foff) == -ENOENT);
	elfsym_free(es);
}

/* The path of the mapping that holds addr, from /proc/self/maps. */
static bool mapping_of(uintptr_t addr, char *path, size_t n, uintptr_t *lo,
		       uintptr_t *hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool found = false;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		int pos = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &a, &b, &pos) < 2)
			continue;
		if (addr >= a && addr < b) {
			snprintf(path, n, "%s", line + pos);
			path[strcspn(path, "\n")] = 0;
			*lo = a;
			*hi = b;
			found = true;
			break;
		}
	}
	if (f)
		fclose(f);
	return found;
}

TEST(libc_dynsym)
{
	char path[256];
	uintptr_t lo, hi;
	if (!mapping_of((uintptr_t)&qsort, path, sizeof(path), &lo, &hi) ||
	    path[0] != '/')
		SKIP("qsort is not in a file mapping (static build?)");
	struct elf_syms *es;
	CHECK(elfsym_load(path, &es) == 0);
	if (check_failed_)
		return;
	CHECK(es->dyn);
	const struct elf_sym *q = elfsym_find(es, "qsort");
	CHECK(q != NULL);
	if (q) {
		const struct elf_sym *s = elfsym_lookup(es, q->addr, NULL);
		CHECK(s && s->addr == q->addr);
	}
	elfsym_free(es);
}

TEST(vdso_from_memory)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR), lo, hi;
	char path[256];
	if (!base || !mapping_of(base, path, sizeof(path), &lo, &hi))
		SKIP("no vdso");
	struct elf_syms *es;
	CHECK(elfsym_load_mem((void *)lo, hi - lo, "[vdso]", &es) == 0);
	if (check_failed_)
		return;
	CHECK_STR(es->path, "[vdso]");
	const struct elf_sym *g = elfsym_find(es, "__vdso_clock_gettime");
	if (!g)
		g = elfsym_find(es, "__kernel_clock_gettime");
	CHECK(g != NULL);
	elfsym_free(es);
}

TEST(not_elf)
{
	struct elf_syms *es = NULL;
	CHECK(elfsym_load("/proc/self/status", &es) == -ENOEXEC);
	CHECK(elfsym_load("/nonexistent/x", &es) == -ENOENT);
	CHECK(es == NULL);
}

int main(void)
{
	RUN(own_functions_by_name_and_address);
	RUN(libc_dynsym);
	RUN(vdso_from_memory);
	RUN(not_elf);
	return check_done();
}
