#define _GNU_SOURCE
#include "kernel/dwp.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/xalloc.h"

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* The index's layout (DWARF 5, 7.3.5.3): a header of four words
 * (version, section count, unit count, slot count), slot_count 8-byte
 * signatures, slot_count 4-byte rows (1-based; 0: empty slot), then a
 * row of section ids and unit_count rows of offsets, then unit_count
 * rows of sizes. The slot of an id is found by open addressing with a
 * second hash as the step. */
int dwp_index_find(const uint8_t *idx, size_t len, uint64_t id,
		   struct dwp_contrib *out, uint32_t *version)
{
	if (len < 16)
		return -EINVAL;
	/* DWARF 5: a 2-byte version and 2 bytes of padding; GNU: 4 bytes */
	uint32_t ver = get32(idx) & 0xffff;
	uint32_t ncols = get32(idx + 4), nunits = get32(idx + 8),
		 nslots = get32(idx + 12);
	if ((ver != 2 && ver != 5) || !ncols || ncols > DWP_MAX_COLS ||
	    nslots & (nslots - 1) || nunits > nslots)
		return -EINVAL;
	*version = ver;
	uint64_t hashes = 16, rows = hashes + (uint64_t)nslots * 8,
		 ids = rows + (uint64_t)nslots * 4,
		 offs = ids + (uint64_t)ncols * 4,
		 sizes = offs + (uint64_t)nunits * ncols * 4,
		 end = sizes + (uint64_t)nunits * ncols * 4;
	if (end > len || !nslots)
		return end > len ? -EINVAL : 0;
	uint64_t mask = nslots - 1, slot = id & mask,
		 step = ((id >> 32) & mask) | 1;
	for (uint32_t tries = 0; tries < nslots; tries++) {
		uint32_t row = get32(idx + rows + slot * 4);
		if (!row)
			return 0; /* an empty slot ends the probe */
		if (get64(idx + hashes + slot * 8) == id) {
			if (row > nunits)
				return -EINVAL;
			for (uint32_t c = 0; c < ncols; c++) {
				uint64_t at = (uint64_t)(row - 1) * ncols + c;
				out[c].sect = get32(idx + ids + c * 4);
				out[c].off = get32(idx + offs + at * 4);
				out[c].size = get32(idx + sizes + at * 4);
			}
			return (int)ncols;
		}
		slot = (slot + step) & mask;
	}
	return 0;
}

/* The sections of a unit's image: the index's column ids (by version)
 * and their names in a .dwo file. The string section is shared whole;
 * DWARF 4's type units (.debug_types.dwo) are not copied. */
struct sect_name {
	uint32_t v5, v2;
	const char *name;
};

static const struct sect_name sect_names[] = {
	{ 1, 1, ".debug_info.dwo" },
	{ 3, 3, ".debug_abbrev.dwo" },
	{ 4, 4, ".debug_line.dwo" },
	{ 5, 0, ".debug_loclists.dwo" },
	{ 0, 5, ".debug_loc.dwo" },
	{ 6, 6, ".debug_str_offsets.dwo" },
	{ 7, 8, ".debug_macro.dwo" },
	{ 0, 7, ".debug_macinfo.dwo" },
	{ 8, 0, ".debug_rnglists.dwo" },
};
#define NSECT (sizeof(sect_names) / sizeof(*sect_names))

struct dwp_unit {
	uint64_t id;
	void *img; /* mmap()ed */
	size_t len;
	Elf *elf;
	Dwarf *dw;
};

struct dwp {
	int fd;
	Elf *elf;
	unsigned char ident_data;
	uint16_t machine;
	Elf_Data *index;
	Elf_Data *sect[NSECT];
	/* .debug_str.dwo, which every unit shares whole: its bytes in the
	 * file (str_size 0: none), mapped into each unit's image rather
	 * than copied; or, compressed, its decompressed data (str_data) */
	uint64_t str_off, str_size;
	Elf_Data *str_data;
	struct dwp_unit *units;
	size_t nunits;
};

/* A section's bytes, decompressed if need be. */
static Elf_Data *section_data(Elf_Scn *scn, const GElf_Shdr *sh)
{
	if ((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return NULL;
	Elf_Data *d = elf_getdata(scn, NULL);
	return d && d->d_buf && d->d_size ? d : NULL;
}

struct dwp *dwp_open(const char *path)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t shstrndx;
	const union { uint16_t u; uint8_t b[2]; } host = { 1 };
	/* the image is written in the host's byte order, as 64-bit ELF */
	if (!elf || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != (host.b[0] ? ELFDATA2LSB : ELFDATA2MSB) ||
	    elf_getshdrstrndx(elf, &shstrndx)) {
		elf_end(elf);
		close(fd);
		return NULL;
	}
	struct dwp *p = xcalloc(1, sizeof(*p));
	p->fd = fd;
	p->elf = elf;
	p->ident_data = eh.e_ident[EI_DATA];
	p->machine = eh.e_machine;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".debug_cu_index"))
			p->index = section_data(scn, &sh);
		else if (!strcmp(name, ".debug_str.dwo") &&
			 sh.sh_type == SHT_PROGBITS) {
			if (sh.sh_flags & SHF_COMPRESSED) {
				p->str_data = section_data(scn, &sh);
			} else {
				p->str_off = sh.sh_offset;
				p->str_size = sh.sh_size;
			}
		}
		for (size_t i = 0; i < NSECT; i++)
			if (!strcmp(name, sect_names[i].name))
				p->sect[i] = section_data(scn, &sh);
	}
	if (!p->index || !p->sect[0]) {
		dwp_close(p);
		return NULL;
	}
	return p;
}

void dwp_close(struct dwp *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nunits; i++) {
		dwarf_end(p->units[i].dw);
		elf_end(p->units[i].elf);
		munmap(p->units[i].img, p->units[i].len);
	}
	free(p->units);
	elf_end(p->elf);
	close(p->fd);
	free(p);
}

/* One section of the image being built: bytes copied (fd < 0), or size
 * bytes of file fd at off, mapped (the package's string section). */
struct piece {
	const char *name;
	const void *data;
	size_t size;
	int fd;
	uint64_t off;
};

/* A relocatable ELF file of the pieces: the header, the copied pieces'
 * bytes, the section names and headers in anonymous pages, and after
 * them the pages of the mapped pieces (shared with the page cache,
 * however many units are read). NULL if mapping fails. */
static void *build_image(const struct dwp *p, const struct piece *pc,
			 size_t n, size_t *len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t names = 1 + sizeof(".shstrtab");
	size_t at = sizeof(Elf64_Ehdr), maps = 0;
	for (size_t i = 0; i < n; i++) {
		names += strlen(pc[i].name) + 1;
		if (pc[i].fd < 0)
			at += pc[i].size;
		else
			maps += (pc[i].off % page + pc[i].size + page - 1) &
				~(page - 1);
	}
	size_t names_at = at, sh_at = (at + names + 7) & ~(size_t)7;
	size_t nsh = n + 2; /* the null section, .shstrtab */
	size_t head = sh_at + nsh * sizeof(Elf64_Shdr);
	size_t head_len = maps ? (head + page - 1) & ~(page - 1) : head;
	*len = head_len + maps;
	uint8_t *img = mmap(NULL, *len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (img == MAP_FAILED)
		return NULL;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = p->ident_data;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_REL;
	eh->e_machine = p->machine;
	eh->e_version = EV_CURRENT;
	eh->e_shoff = sh_at;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = (uint16_t)nsh;
	eh->e_shstrndx = (uint16_t)(nsh - 1);
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + sh_at);
	char *strtab = (char *)img + names_at;
	size_t name_off = 1, data_off = sizeof(Elf64_Ehdr), map_at = head_len;
	for (size_t i = 1; i < nsh; i++) {
		const struct piece *c = &pc[i - 1];
		bool last = i == nsh - 1;
		const char *name = last ? ".shstrtab" : c->name;
		Elf64_Shdr *s = &sh[i];
		strcpy(strtab + name_off, name);
		s->sh_name = (uint32_t)name_off;
		name_off += strlen(name) + 1;
		s->sh_type = last ? SHT_STRTAB : SHT_PROGBITS;
		s->sh_addralign = 1;
		if (last) {
			s->sh_offset = names_at;
			s->sh_size = names;
		} else if (c->fd >= 0) {
			uint64_t from = c->off & ~(uint64_t)(page - 1);
			size_t mlen = (c->off - from + c->size + page - 1) &
				      ~(page - 1);
			if (mmap(img + map_at, mlen, PROT_READ,
				 MAP_PRIVATE | MAP_FIXED, c->fd,
				 (off_t)from) == MAP_FAILED) {
				munmap(img, *len);
				return NULL;
			}
			s->sh_offset = map_at + (c->off - from);
			s->sh_size = c->size;
			map_at += mlen;
		} else {
			memcpy(img + data_off, c->data, c->size);
			s->sh_offset = data_off;
			s->sh_size = c->size;
			data_off += c->size;
		}
	}
	return img;
}

/* Split unit id of package p as a Dwarf of its own, or NULL when the
 * package does not hold it. It stays valid until dwp_close(p). Its DIEs
 * have no addresses: it is linked to no skeleton unit, whose base
 * address and .debug_addr they need. */
static Dwarf *dwp_unit(struct dwp *p, uint64_t id)
{
	if (!p)
		return NULL;
	for (size_t i = 0; i < p->nunits; i++)
		if (p->units[i].id == id)
			return p->units[i].dw;
	struct dwp_contrib c[DWP_MAX_COLS];
	uint32_t ver = 0;
	int ncols = dwp_index_find(p->index->d_buf, p->index->d_size, id, c,
				   &ver);
	if (ncols <= 0)
		return NULL;
	struct piece pc[NSECT + 1];
	size_t n = 0;
	for (size_t i = 0; i < NSECT; i++) {
		uint32_t want = ver == 5 ? sect_names[i].v5 : sect_names[i].v2;
		for (int k = 0; want && k < ncols; k++) {
			const Elf_Data *d = p->sect[i];
			if (c[k].sect != want || !d)
				continue;
			if ((uint64_t)c[k].off + c[k].size > d->d_size)
				return NULL;
			pc[n++] = (struct piece){ sect_names[i].name,
				(const uint8_t *)d->d_buf + c[k].off,
				c[k].size, -1, 0 };
			break; /* a column named twice counts once */
		}
	}
	if (!n || strcmp(pc[0].name, ".debug_info.dwo"))
		return NULL; /* the unit has no DIEs here */
	if (p->str_data)
		pc[n++] = (struct piece){ ".debug_str.dwo", p->str_data->d_buf,
					  p->str_data->d_size, -1, 0 };
	else if (p->str_size)
		pc[n++] = (struct piece){ ".debug_str.dwo", NULL, p->str_size,
					  p->fd, p->str_off };
	struct dwp_unit u = { .id = id };
	u.img = build_image(p, pc, n, &u.len);
	u.elf = u.img ? elf_memory(u.img, u.len) : NULL;
	u.dw = u.elf ? dwarf_begin_elf(u.elf, DWARF_C_READ, NULL) : NULL;
	if (!u.dw) {
		elf_end(u.elf);
		if (u.img)
			munmap(u.img, u.len);
		return NULL;
	}
	p->units = xrealloc(p->units, (p->nunits + 1) * sizeof(*p->units));
	p->units[p->nunits++] = u;
	return u.dw;
}

Dwarf_Die *dwp_split_die(struct dwp **pkg, bool *tried, const char *path,
			 Dwarf_Die *cu, Dwarf_Die *split)
{
	uint8_t type;
	uint64_t id;
	if (dwarf_cu_info(cu->cu, NULL, &type, NULL, split, &id, NULL,
			  NULL) || type != DW_UT_skeleton)
		return cu;
	if (split->addr)
		return split;
	/* no .dwo file: the package beside the program, as gdb and lldb
	 * look for it */
	if (!pkg)
		return cu;
	if (!*tried) {
		*tried = true;
		char *dwp = xmalloc(strlen(path) + sizeof(".dwp"));
		strcpy(stpcpy(dwp, path), ".dwp");
		*pkg = dwp_open(dwp);
		free(dwp);
	}
	if (!*pkg)
		return cu;
	Dwarf *dw = dwp_unit(*pkg, id);
	Dwarf_CU *ucu = NULL;
	uint8_t ut;
	if (dw && dwarf_get_units(dw, NULL, &ucu, NULL, &ut, split,
				  NULL) == 0 &&
	    (ut == DW_UT_split_compile || ut == DW_UT_compile))
		return split;
	return cu;
}
