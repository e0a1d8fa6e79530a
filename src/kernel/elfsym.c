#include "kernel/elfsym.h"

#include "kernel/arch.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"

/* Names are first collected as offsets into strs (which grows), then
 * turned into pointers once strs stops moving. */
struct builder {
	struct elf_syms *es;
	uint32_t cap;
	size_t slen, scap;
};

static size_t add_str(struct builder *b, const char *s)
{
	size_t n = strlen(s) + 1;
	if (b->slen + n > b->scap) {
		b->scap = (b->slen + n) * 2;
		b->es->strs = xrealloc(b->es->strs, b->scap);
	}
	memcpy(b->es->strs + b->slen, s, n);
	b->slen += n;
	return b->slen - n;
}

static void read_symtab(struct builder *b, Elf *elf, Elf_Scn *scn,
			const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !sh->sh_entsize)
		return;
	size_t n = sh->sh_size / sh->sh_entsize;
	struct elf_syms *es = b->es;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s))
			break;
		int type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (es->nsyms == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 256;
			es->syms = xreallocarray(es->syms, b->cap,
						 sizeof(*es->syms));
		}
		struct elf_sym *d = &es->syms[es->nsyms++];
		d->name = (const char *)(uintptr_t)add_str(b, name);
		d->addr = s.st_value;
		d->size = s.st_size;
		int bind = GELF_ST_BIND(s.st_info);
		d->global = bind == STB_GLOBAL || bind == STB_WEAK;
	}
}

static int by_addr(const void *pa, const void *pb)
{
	const struct elf_sym *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->global != b->global)
		return a->global ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* .symtab and .dynsym repeat most functions: keep one of each
 * (address, name). */
static void sort_unique(struct elf_syms *es)
{
	if (!es->nsyms)
		return; /* qsort wants a non-NULL array even when empty */
	qsort(es->syms, es->nsyms, sizeof(*es->syms), by_addr);
	uint32_t k = 0;
	for (uint32_t i = 0; i < es->nsyms; i++) {
		if (k && es->syms[k - 1].addr == es->syms[i].addr &&
		    !strcmp(es->syms[k - 1].name, es->syms[i].name)) {
			if (!es->syms[k - 1].size)
				es->syms[k - 1].size = es->syms[i].size;
			continue;
		}
		es->syms[k++] = es->syms[i];
	}
	es->nsyms = k;
}

static void read_build_id(struct elf_syms *es, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Nhdr nh;
	size_t off = 0, noff, doff;
	while (data && (off = gelf_getnote(data, off, &nh, &noff, &doff))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)data->d_buf + noff, "GNU", 4) &&
		    nh.n_descsz <= sizeof(es->build_id)) {
			memcpy(es->build_id, (const char *)data->d_buf + doff,
			       nh.n_descsz);
			es->build_id_len = nh.n_descsz;
			return;
		}
	}
}

static int read_elf(Elf *elf, struct elf_syms *es)
{
	GElf_Ehdr eh;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	es->dyn = eh.e_type == ET_DYN;
	es->machine = eh.e_machine;

	size_t nph;
	if (elf_getphdrnum(elf, &nph))
		return -ENOEXEC;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		es->segs = xreallocarray(es->segs, es->nsegs + 1,
					 sizeof(*es->segs));
		es->segs[es->nsegs++] = (struct elf_seg){
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
			.off = ph.p_offset, .filesz = ph.p_filesz,
			.exec = ph.p_flags & PF_X,
		};
	}

	struct builder b = { .es = es };
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			read_symtab(&b, elf, scn, &sh);
		if (sh.sh_type == SHT_SYMTAB)
			es->has_symtab = true;
		if (sh.sh_type == SHT_NOTE)
			read_build_id(es, scn);
	}
	for (uint32_t i = 0; i < es->nsyms; i++)
		es->syms[i].name = es->strs + (uintptr_t)es->syms[i].name;
	sort_unique(es);
	return 0;
}

static int finish(Elf *elf, const char *name, struct elf_syms **out)
{
	struct elf_syms *es = xcalloc(1, sizeof(*es));
	es->path = xstrdup(name);
	int err = read_elf(elf, es);
	if (err) {
		elfsym_free(es);
		return err;
	}
	*out = es;
	return 0;
}

int elfsym_with_elf(const char *path, int (*fn)(Elf *elf, void *ctx),
		    void *ctx)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int err = elf && elf_kind(elf) == ELF_K_ELF ? fn(elf, ctx) : -ENOEXEC;
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

struct load_ctx {
	const char *path;
	struct elf_syms **out;
};

static int load_cb(Elf *elf, void *ctx)
{
	struct load_ctx *l = ctx;
	return finish(elf, l->path, l->out);
}

/* The last files read, kept while unchanged (same device, inode, size
 * and mtime): a compile reads libc's symbols for every uprobe on it (and
 * uaddr, usdt, -l), a fuzz run for every input, and copying them costs a
 * fraction of reading and sorting them again. */
#define KEPT_FILES 8

static struct kept {
	struct elf_syms *es;
	struct stat st;
} kept[KEPT_FILES];
static uint32_t kept_next;

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static void *dup_array(const void *p, size_t n, size_t size)
{
	if (!n)
		return NULL;
	void *d = xreallocarray(NULL, n, size);
	memcpy(d, p, n * size);
	return d;
}

/* A copy of es that owns its memory, as elfsym_load's callers free it. */
static struct elf_syms *copy_syms(const struct elf_syms *es)
{
	struct elf_syms *c = xcalloc(1, sizeof(*c));
	*c = *es;
	c->path = xstrdup(es->path);
	c->syms = dup_array(es->syms, es->nsyms, sizeof(*es->syms));
	c->segs = dup_array(es->segs, es->nsegs, sizeof(*es->segs));
	size_t slen = 0;
	for (uint32_t i = 0; i < es->nsyms; i++) {
		size_t end = (size_t)(es->syms[i].name - es->strs) +
			     strlen(es->syms[i].name) + 1;
		if (end > slen)
			slen = end;
	}
	c->strs = dup_array(es->strs, slen, 1);
	for (uint32_t i = 0; i < es->nsyms; i++)
		c->syms[i].name = c->strs + (es->syms[i].name - es->strs);
	return c;
}

int elfsym_load(const char *path, struct elf_syms **out)
{
	struct stat st;
	bool known = stat(path, &st) == 0;
	for (uint32_t i = 0; known && i < KEPT_FILES; i++)
		if (kept[i].es && !strcmp(kept[i].es->path, path) &&
		    same_file(&kept[i].st, &st)) {
			*out = copy_syms(kept[i].es);
			return 0;
		}
	struct load_ctx l = { path, out };
	int err = elfsym_with_elf(path, load_cb, &l);
	if (err || !known)
		return err;
	struct kept *k = &kept[kept_next++ % KEPT_FILES];
	elfsym_free(k->es);
	k->es = copy_syms(*out);
	k->st = st;
	return 0;
}

int elfsym_load_mem(const void *image, size_t len, const char *name,
		    struct elf_syms **out)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	/* elf_memory takes a non-const buffer but ELF_C_READ never writes. */
	Elf *elf = elf_memory((char *)(uintptr_t)image, len);
	if (!elf)
		return -ENOEXEC;
	int err = finish(elf, name, out);
	elf_end(elf);
	return err;
}

void elfsym_free(struct elf_syms *es)
{
	if (!es)
		return;
	free(es->path);
	free(es->syms);
	free(es->segs);
	free(es->strs);
	free(es);
}

static const struct elf_seg *seg_of_vaddr(const struct elf_syms *es,
					  uint64_t vaddr)
{
	for (uint32_t i = 0; i < es->nsegs; i++)
		if (vaddr >= es->segs[i].vaddr &&
		    vaddr - es->segs[i].vaddr < es->segs[i].memsz)
			return &es->segs[i];
	return NULL;
}

const struct elf_sym *elfsym_lookup(const struct elf_syms *es, uint64_t vaddr,
				    uint64_t *offset)
{
	uint32_t lo = 0, hi = es->nsyms;
	while (lo < hi) { /* first symbol above vaddr */
		uint32_t mid = lo + (hi - lo) / 2;
		if (es->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* Among the symbols at that address the sort put the preferred one
	 * first. */
	uint32_t i = lo - 1;
	while (i && es->syms[i - 1].addr == es->syms[i].addr)
		i--;
	const struct elf_sym *s = &es->syms[i];
	uint64_t off = vaddr - s->addr;
	if (s->size ? off >= s->size
		    : seg_of_vaddr(es, vaddr) != seg_of_vaddr(es, s->addr))
		return NULL;
	if (offset)
		*offset = off;
	return s;
}

const struct elf_sym *elfsym_find(const struct elf_syms *es, const char *name)
{
	for (uint32_t i = 0; i < es->nsyms; i++)
		if (!strcmp(es->syms[i].name, name))
			return &es->syms[i];
	return NULL;
}

static const struct elf_syms *sort_es; /* qsort has no context argument */

static int by_name_then_index(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int c = strcmp(sort_es->syms[i].name, sort_es->syms[j].name);
	return c ? c : (i > j) - (i < j);
}

bool *elfsym_first_names(const struct elf_syms *es)
{
	bool *first = calloc(es->nsyms + 1, sizeof(*first));
	uint32_t *idx = malloc(sizeof(*idx) * (es->nsyms + 1));
	if (!first || !idx) {
		free(first);
		free(idx);
		return NULL;
	}
	for (uint32_t i = 0; i < es->nsyms; i++)
		idx[i] = i;
	sort_es = es;
	qsort(idx, es->nsyms, sizeof(*idx), by_name_then_index);
	sort_es = NULL;
	for (uint32_t k = 0; k < es->nsyms; k++)
		first[idx[k]] = k == 0 || strcmp(es->syms[idx[k - 1]].name,
						 es->syms[idx[k]].name);
	free(idx);
	return first;
}

int elfsym_vaddr_to_off(const struct elf_syms *es, uint64_t vaddr,
			uint64_t *off)
{
	const struct elf_seg *s = seg_of_vaddr(es, vaddr);
	if (!s || vaddr - s->vaddr >= s->filesz)
		return -ENOENT;
	*off = vaddr - s->vaddr + s->off;
	return 0;
}

int elfsym_off_to_vaddr(const struct elf_syms *es, uint64_t off,
			uint64_t *vaddr)
{
	for (uint32_t i = 0; i < es->nsegs; i++) {
		const struct elf_seg *s = &es->segs[i];
		if (off >= s->off && off - s->off < s->filesz) {
			*vaddr = off - s->off + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

static int find_in_symtabs(Elf *elf, const char *name, uint64_t *addr,
			   uint64_t *size)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;
			if (!gelf_getsym(data, (int)i, &sym))
				break;
			if (sym.st_shndx == SHN_UNDEF || !sym.st_value ||
			    !(n = elf_strptr(elf, sh.sh_link, sym.st_name)) ||
			    strcmp(n, name))
				continue;
			*addr = sym.st_value;
			*size = sym.st_size;
			return 0;
		}
	}
	return -ENOENT;
}

struct find_ctx {
	const char *name;
	uint64_t *addr, *size;
};

static int find_cb(Elf *elf, void *ctx)
{
	struct find_ctx *f = ctx;
	return find_in_symtabs(elf, f->name, f->addr, f->size);
}

int elfsym_find_any(const char *path, const char *name, uint64_t *addr,
		    uint64_t *size)
{
	struct find_ctx f = { name, addr, size };
	return elfsym_with_elf(path, find_cb, &f);
}

bool elfsym_native(const struct elf_syms *es)
{
	return es->machine == arch_elf_machine(arch_build());
}

const char *elfsym_machine_name(const struct elf_syms *es)
{
	enum arch a;
	return arch_of_elf_machine(es->machine, &a) ? arch_name(a) : NULL;
}
