/* uprobes placed otherwise than by a function of an ELF file, as bpftrace
 * 0.26 has them:
 *   uprobe:BIN@FILE.c:LINE[:COL]     a statement, by the DWARF line table
 *   uprobe:"ARCHIVE.zip!/LIB":FUNC   a file stored in a ZIP archive (an
 *                                    APK's library), attached on the
 *                                    archive at the entry's offset
 *   uprobe:FILE:ADDRESS (--unsafe)   a file that is no ELF (a flat binary,
 *                                    a JIT cache): ADDRESS is the offset */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernel/elfsym.h"
#include "kernel/glob.h"
#include "kernel/srcline.h"
#include "kernel/arch.h"
#include "kernel/ziparchive.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* a with its first part replaced by target. */
static struct attach_point with_target(const struct attach_point *a,
				       struct arena *ar, const char *target)
{
	struct attach_point b = *a;
	const char **parts = arena_alloc(ar, sizeof(*parts) * (a->nparts + 1));
	for (uint32_t i = 0; i < a->nparts; i++)
		parts[i] = a->parts[i];
	parts[0] = target;
	b.parts = parts;
	return b;
}

/* BIN@FILE:LINE[:COL]: parts ["BIN@FILE", "LINE"(, "COL")]. */
static int source_line(struct probe_env *env, const struct attach_point *a,
		       const char *at, struct probe_target **out, uint32_t *n)
{
	if (strcmp(a->provider, "uprobe")) {
		diag_error(env->diag, a->span, "Source code location not "
			   "allowed");
		return -1;
	}
	if (glob_has_wildcard(a->parts[0])) {
		diag_error(env->diag, a->span, "Cannot use wildcards with "
			   "source code location");
		return -1;
	}
	const char *file = at + 1;
	if (at == a->parts[0] || !*file || !all_digits(a->parts[1]) ||
	    (a->nparts == 3 && !all_digits(a->parts[2]))) {
		diag_error(env->diag, a->span, "Invalid uprobe arguments, "
			   "expected format: uprobe:TARGET@FILE:LINE[:COL]");
		return -1;
	}
	uint64_t line = strtoull(a->parts[1], NULL, 10);
	uint64_t col = a->nparts == 3 ? strtoull(a->parts[2], NULL, 10) : 0;
	struct attach_point b = with_target(
		a, env->arena,
		arena_strndup(env->arena, a->parts[0],
			      (size_t)(at - a->parts[0])));
	const char *path = probe_user_path(env, &b, "uprobe");
	if (!path)
		return -1;
	const char *bin = probe_user_binary(env, path);
	const char *why;
	uint64_t vaddr, off;
	if (srcline_address(bin, file, line, col, &vaddr, &why)) {
		diag_error(env->diag, a->span, "%s", why);
		return -1;
	}
	struct elf_syms *es = probe_user_elf(env, &b, "uprobe", bin);
	if (!es)
		return -1;
	if (elfsym_vaddr_to_off(es, vaddr, &off)) {
		diag_error(env->diag, a->span, "address 0x%llx of %s:%llu is "
			   "not in a loaded segment of %s",
			   (unsigned long long)vaddr, file,
			   (unsigned long long)line, path);
		elfsym_free(es);
		return -1;
	}
	const struct elf_sym *s = elfsym_lookup(es, vaddr, NULL);
	struct uprobe_file f = { path, path, 0 };
	probe_uprobe_add(env, a, &f, s ? s->name : NULL, off,
			 s ? s->addr : vaddr,
			 arena_printf(env->arena, "@%s:%s%s%s", file,
				      a->parts[1], a->nparts == 3 ? ":" : "",
				      a->nparts == 3 ? a->parts[2] : ""),
			 out, n);
	elfsym_free(es);
	return 1;
}

/* ARCHIVE!/NAME: the ELF image stored in the archive, read in place. */
static int in_archive(struct probe_env *env, const struct attach_point *a,
		      size_t alen, struct probe_target **out, uint32_t *n)
{
	const char *spec = a->parts[0];
	const char *name = spec + alen + 2;
	struct attach_point b = with_target(
		a, env->arena, arena_strndup(env->arena, spec, alen));
	const char *zip = probe_user_path(env, &b, "uprobe");
	if (!zip)
		return -1;
	const char *bin = probe_user_binary(env, zip);
	uint64_t base, size;
	int err = zip_stored_entry(bin, name, &base, &size);
	if (err) {
		diag_error(env->diag, a->span, err == -ENOENT ?
			   "uprobe target %s has no file %s" :
			   err == -ENOTSUP ?
			   "uprobe target %s holds %s compressed: only a "
			   "stored (uncompressed) file can be mapped, and "
			   "probed" :
			   "uprobe target %s is not a ZIP archive this reader "
			   "knows (%s)",
			   zip, err == -ENOENT || err == -ENOTSUP ? name :
			   strerror(-err));
		return -1;
	}
	unsigned align = arch_insn_align(arch_build());
	if (base % align) {
		diag_error(env->diag, a->span, "uprobe target %s holds %s at "
			   "offset %llu, not a multiple of %u: %s's uprobes go "
			   "at instructions, whose file offsets are (an archive "
			   "for %s is aligned: zipalign)", zip, name,
			   (unsigned long long)base, align,
			   arch_name(arch_build()), arch_name(arch_build()));
		return -1;
	}
	int fd = open(bin, O_RDONLY | O_CLOEXEC);
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start = base & ~(uint64_t)(page - 1);
	void *map = fd < 0 || !size ? MAP_FAILED :
		    mmap(NULL, size + (base - start), PROT_READ, MAP_PRIVATE,
			 fd, (off_t)start);
	if (fd >= 0)
		close(fd);
	struct elf_syms *es = NULL;
	const char *path = arena_printf(env->arena, "%s!/%s", zip, name);
	if (map == MAP_FAILED ||
	    elfsym_load_mem((char *)map + (base - start), size, path, &es)) {
		diag_error(env->diag, a->span, "uprobe target file '%s' is not "
			   "an ELF file", path);
		if (map != MAP_FAILED)
			munmap(map, size + (base - start));
		return -1;
	}
	/* (an image of another machine would be attached at offsets that
	 * are no instructions here: the kernel refuses some, EINVAL) */
	if (!probe_user_elf_native(env, a, "uprobe", path, es)) {
		munmap(map, size + (base - start));
		return -1;
	}
	struct uprobe_file f = { path, zip, base };
	int rc = probe_uprobe_expand_file(env, a, &f, es, out, n, false);
	elfsym_free(es);
	munmap(map, size + (base - start));
	return rc < 0 ? -1 : 1;
}

/* --unsafe: FILE (no ELF) at ADDRESS, the offset in it. */
static int raw_file(struct probe_env *env, const struct attach_point *a,
		    struct probe_target **out, uint32_t *n)
{
	if (glob_has_wildcard(a->parts[0]) || !a->parts[0][0] ||
	    a->parts[1][0] < '0' || a->parts[1][0] > '9')
		return 0;
	char *end;
	uint64_t addr = strtoull(a->parts[1], &end, 0);
	if (*end)
		return 0;
	const char *path = probe_user_path(env, a, "uprobe");
	if (!path)
		return -1;
	struct elf_syms *es;
	int err = elfsym_load(probe_user_binary(env, path), &es);
	if (err != -ENOEXEC) {
		if (!err)
			elfsym_free(es);
		return 0; /* an ELF file: the usual way */
	}
	const char *spec = arena_printf(env->arena, "%llu",
					(unsigned long long)addr);
	diag_warning(env->diag, a->span, "Could not determine instruction "
		     "boundary for %s:%s:%s (binary appears stripped). "
		     "Misaligned probes can lead to tracee crashes!",
		     a->provider, path, spec);
	struct uprobe_file f = { path, path, 0 };
	probe_uprobe_add(env, a, &f, NULL, addr, addr, spec, out, n);
	return 1;
}

int probe_uprobe_where(struct probe_env *env, const struct attach_point *a,
		       struct probe_target **out, uint32_t *n)
{
	if (a->nparts < 2)
		return 0;
	size_t alen = zip_archive_len(a->parts[0]);
	if (alen && a->nparts == 2)
		return in_archive(env, a, alen, out, n);
	const char *at = strrchr(a->parts[0], '@');
	if (at && (a->nparts == 2 || a->nparts == 3) &&
	    (all_digits(a->parts[1]) || strchr(at, '.')))
		return source_line(env, a, at, out, n);
	if (env->unsafe && a->nparts == 2)
		return raw_file(env, a, out, n);
	return 0;
}
