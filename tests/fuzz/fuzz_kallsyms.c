/*
 * libFuzzer target: /proc/kallsyms and available_filter_functions text ->
 * kernel/kallsyms.c's tables (ksyms_load_text), then every lookup the
 * tracer makes on them: by address (stack symbolisation), by name
 * (kaddr(), kprobe offsets), and whether a function is traceable, with
 * and without its module. Any crash, sanitizer report, leak or hang is
 * a bug, and so is a lookup that contradicts the table: a symbol found
 * for an address must start at or below it.
 *
 * Input: byte 0's low bit says whether the traceable text is in
 * /proc/kallsyms' format (the fallback when available_filter_functions
 * cannot be read); the rest is the kallsyms text, a NUL, then the
 * traceable functions' text.
 * Build and run: make fuzz (see tests/fuzz/fuzz.mk).
 */
#define _GNU_SOURCE /* memchr */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dup_text(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		abort();
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

static void check_lookup(uint64_t addr)
{
	uint64_t off = 0;
	const struct ksym *s = ksyms_lookup(addr, &off);
	if (s && (s->addr > addr || off != addr - s->addr || !s->name)) {
		fprintf(stderr, "fuzz_kallsyms: %#llx found in %s at %#llx, "
				"offset %#llx\n", (unsigned long long)addr,
			s->name ? s->name : "(null)",
			(unsigned long long)s->addr, (unsigned long long)off);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	bool syms = data[0] & 1;
	data++, size--;
	const uint8_t *nul = memchr(data, 0, size);
	size_t klen = nul ? (size_t)(nul - data) : size;
	char *ktext = dup_text(data, klen);
	char *ttext = nul ? dup_text(nul + 1, size - klen - 1) : dup_text(data, 0);
	int rc = ksyms_load_text(ktext, ttext, syms);
	if (rc == 0) {
		/* the ends of the range */
		check_lookup(0);
		check_lookup(UINT64_MAX);
		if (!ksyms_count())
			abort(); /* loaded, yet empty */
	}
	/* names and addresses taken from the text itself */
	char *scan = dup_text(data, klen);
	uint32_t k = 0;
	for (char *save = NULL, *line = strtok_r(scan, "\n", &save);
	     line && k < 64; line = strtok_r(NULL, "\n", &save), k++) {
		char *end;
		uint64_t addr = strtoull(line, &end, 16);
		check_lookup(addr);
		check_lookup(addr + 1);
		if (addr)
			check_lookup(addr - 1);
		char *name = strrchr(line, ' ');
		if (name) {
			name++;
			char *tab = strchr(name, '\t');
			if (tab)
				*tab = '\0';
			uint64_t a = ksyms_addr(name);
			if (a)
				check_lookup(a);
			ksyms_is_traceable(NULL, name);
			ksyms_is_traceable("vmlinux", name);
			if (tab)
				ksyms_is_traceable(tab + 1, name);
		}
	}
	free(scan);
	const struct ksym_fn *fns;
	int nf = ksyms_traceable(&fns);
	for (int i = 0; i < nf && i < 64; i++) {
		if (!fns[i].name)
			abort();
		if (!ksyms_is_traceable(fns[i].module, fns[i].name)) {
			fprintf(stderr, "fuzz_kallsyms: traceable function %s "
					"(%s) is not found traceable\n",
				fns[i].name, fns[i].module ? fns[i].module :
							     "vmlinux");
			abort();
		}
	}
	ksyms_unload();
	return 0;
}
