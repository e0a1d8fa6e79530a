/*
 * libFuzzer target: an ELF file -> the readers of probed user binaries,
 * each as the tracer uses them:
 *   kernel/elfsym.c   symbols, segments and build id (elfsym_load_mem),
 *                     then lookups by address and name, first names,
 *                     file offset <-> address (uprobes, ustack names)
 *   kernel/x86insn.c  each function's code decoded from its start, as
 *                     FUNC+OFFSET checks an offset (uprobe_offset.c)
 *   kernel/usdt.c     .note.stapsdt probes and their argument specs
 *   kernel/dwarf.c    parameters of functions (args of uprobes) and
 *                     structs by name (casts), split units included
 *   kernel/srcline.c  source lines and inlined frames of addresses
 *                     (ustack with debug info) and addresses of
 *                     FILE:LINE (uprobe:BIN@FILE:LINE)
 * The path-taking readers get the input through a memfd, as
 * /proc/self/fd/N; the DWARF and line readers keep files by path, so
 * they are closed after each input. Any crash, sanitizer report, leak
 * or hang is a bug, and so are lookups that contradict the table (a
 * symbol found for an address that does not hold it, an offset that
 * does not map back to its address).
 * Seeds: small ELF files fuzz.mk builds with gcc -g from
 * tests/fuzz/elf_seed.c (USDT notes where <sys/sdt.h> is installed).
 * Build and run: make fuzz (see tests/fuzz/fuzz.mk).
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernel/dwarf.h"
#include "kernel/elfsym.h"
#include "kernel/srcline.h"
#include "kernel/usdt.h"
#include "kernel/x86insn.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* How many symbols each reader is asked about: enough to reach every
 * kind of DIE in the seeds, few enough to keep an input fast. */
#define MAX_ASKED 24

static void fail(const char *what, const struct elf_sym *s, uint64_t v)
{
	fprintf(stderr, "fuzz_elf: %s (symbol %s at %#llx, value %#llx)\n",
		what, s ? s->name : "-", s ? (unsigned long long)s->addr : 0,
		(unsigned long long)v);
	abort();
}

/* Whether the PT_LOAD segments are as a loader takes them (filesz <=
 * memsz, as the kernel's binfmt_elf requires) and overlap neither in
 * the file nor in memory: then an offset and an address map one to one. */
static bool segments_disjoint(const struct elf_syms *es)
{
	for (uint32_t i = 0; i < es->nsegs; i++) {
		const struct elf_seg *a = &es->segs[i];
		if (a->filesz > a->memsz || a->off + a->filesz < a->off ||
		    a->vaddr + a->memsz < a->vaddr)
			return false;
		for (uint32_t j = 0; j < i; j++) {
			const struct elf_seg *b = &es->segs[j];
			if ((a->off < b->off + b->filesz &&
			     b->off < a->off + a->filesz) ||
			    (a->vaddr < b->vaddr + b->memsz &&
			     b->vaddr < a->vaddr + a->memsz))
				return false;
		}
	}
	return true;
}

static void symbols(const struct elf_syms *es, const uint8_t *data,
		    size_t size)
{
	bool one_to_one = segments_disjoint(es);
	bool *first = elfsym_first_names(es);
	for (uint32_t i = 0; i < es->nsyms; i++) {
		const struct elf_sym *s = &es->syms[i];
		if (!s->name)
			fail("a symbol without a name", s, 0);
		if (i >= MAX_ASKED)
			continue;
		uint64_t off;
		const struct elf_sym *l = elfsym_lookup(es, s->addr, &off);
		if (!l || l->addr > s->addr || off != s->addr - l->addr)
			fail("lookup of a symbol's own address", s, off);
		if (s->size && s->addr + s->size - 1 >= s->addr) {
			/* another symbol may hold it, or none */
			l = elfsym_lookup(es, s->addr + s->size - 1, &off);
			if (l && l->addr > s->addr + s->size - 1)
				fail("lookup inside a symbol", s, off);
		}
		const struct elf_sym *f = elfsym_find(es, s->name);
		if (!f || strcmp(f->name, s->name))
			fail("a symbol not found by its name", s, 0);
		if (first && first[i] && f != s)
			fail("a first name that is not found first", s, 0);
		/* a malformed table (segments overlapping, filesz past
		 * memsz: a fuzzer's first find) maps them many to one */
		uint64_t foff, back;
		if (one_to_one && elfsym_vaddr_to_off(es, s->addr, &foff) == 0 &&
		    (elfsym_off_to_vaddr(es, foff, &back) || back != s->addr))
			fail("an offset that maps back elsewhere", s, foff);
		/* the function's code, as uprobe FUNC+OFFSET decodes it */
		if (elfsym_vaddr_to_off(es, s->addr, &foff) == 0 &&
		    foff < size) {
			size_t n = size - foff;
			if (s->size && s->size < n)
				n = s->size;
			if (n > 4096)
				n = 4096;
			const uint8_t *code = data + foff;
			x86insn_uprobe_bad_prefix(code, n);
			for (size_t at = 0, k = 0; at < n && k < 64; k++) {
				size_t len = x86insn_len(code + at, n - at);
				if (!len)
					break;
				if (len > n - at)
					fail("an instruction past the code", s,
					     len);
				at += len;
			}
			x86insn_boundary(code, n, n / 2);
		}
	}
	free(first);
}

static void debug_info(const char *path, const struct elf_syms *es)
{
	struct arena a;
	arena_init(&a);
	srcline_available(path);
	for (uint32_t i = 0; i < es->nsyms && i < MAX_ASKED; i++) {
		const struct elf_sym *s = &es->syms[i];
		uint64_t addr, size;
		if (elfsym_find_any(path, s->name, &addr, &size) == 0 && !addr)
			fail("elfsym_find_any found address 0", s, 0);
		struct dwarf_func fn;
		dwarf_func_params(&a, path, s->name, s->addr, &fn);
		struct srcline lines[8];
		int n = srcline_frames(path, s->addr, lines, 8);
		if (n > 8)
			fail("more frames than asked for", s, (uint64_t)n);
		srcline_frames(path, s->addr + 1, lines, 8);
	}
	/* the seed's types (elf_seed.c), and names it has not */
	static const char *const recs[] = { "seed_point", "seed_node",
					    "seed_u", "x", "" };
	for (size_t i = 0; i < sizeof(recs) / sizeof(*recs); i++)
		dwarf_record(&a, path, recs[i]);
	for (uint64_t line = 1; line < 40; line += 3) {
		uint64_t vaddr;
		const char *why;
		srcline_address(path, "elf_seed.c", line, 0, &vaddr, &why);
	}
	arena_release(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_syms *es;
	if (elfsym_load_mem(data, size, "fuzz.elf", &es))
		return 0;
	symbols(es, data, size);
	int fd = memfd_create("fuzz.elf", MFD_CLOEXEC);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct usdt_probes up;
	if (usdt_load(path, es, &up) == 0) {
		for (uint32_t i = 0; i < up.n; i++)
			if (!up.probes[i].provider || !up.probes[i].name ||
			    (up.probes[i].nargs && !up.probes[i].args))
				fail("a USDT probe half read", NULL, i);
		usdt_free(&up);
	}
	debug_info(path, es);
	dwarf_close_files();
	srcline_unload();
	close(fd);
	elfsym_free(es);
	return 0;
}
