/*
 * Function symbols and load segments of one ELF file (an executable, a
 * shared library, or an in-memory image such as the vdso), read with
 * libelf from .symtab and .dynsym. Uprobes need name -> file offset; user
 * stack symbolisation needs address -> name. Both work on link-time
 * virtual addresses (st_value) and the PT_LOAD segments translate those to
 * and from file offsets, which honours prelinked and non-zero bases alike.
 */
#ifndef SONDE_ELFSYM_H
#define SONDE_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_sym {
	const char *name;
	uint64_t addr; /* st_value */
	uint64_t size; /* 0 when the ELF does not say */
	bool global;   /* STB_GLOBAL or STB_WEAK */
};

struct elf_seg {
	uint64_t vaddr, memsz; /* p_vaddr, p_memsz */
	uint64_t off, filesz;  /* p_offset, p_filesz */
	bool exec;             /* PF_X */
};

struct elf_syms {
	char *path;
	bool dyn;              /* ET_DYN: PIE or shared library */
	uint16_t machine;      /* e_machine: EM_X86_64, EM_AARCH64... */
	struct elf_sym *syms;  /* functions, sorted by address, then global
				  first, then name */
	uint32_t nsyms;
	struct elf_seg *segs;  /* PT_LOAD, in file order */
	uint32_t nsegs;
	char *strs;            /* storage of every name */
	bool has_symtab;       /* .symtab present (else stripped: .dynsym
				  only; a debug file may have the rest) */
	uint8_t build_id[20];  /* NT_GNU_BUILD_ID, to find the debug file */
	uint32_t build_id_len; /* 0: none */
};

/* Reads path. Returns 0, or -errno (-ENOEXEC: not an ELF file). */
int elfsym_load(const char *path, struct elf_syms **out);
/* Whether es is a binary of the machine sonde runs on (a uprobe on
 * another's would break its code: its offsets, registers and
 * instructions are another architecture's). */
bool elfsym_native(const struct elf_syms *es);
/* The name of es's machine ("aarch64"), or NULL for one sonde does not
 * know. */
const char *elfsym_machine_name(const struct elf_syms *es);
/* The same from an image in memory (the vdso); name is kept as path. */
int elfsym_load_mem(const void *image, size_t len, const char *name,
		    struct elf_syms **out);
void elfsym_free(struct elf_syms *es);

/* Opens path with libelf and calls fn on it, for readers of other parts
 * of ELF files (USDT notes). Returns fn's result, or -errno (-ENOEXEC: not
 * an ELF file). */
typedef struct Elf Elf;
int elfsym_with_elf(const char *path, int (*fn)(Elf *elf, void *ctx),
		    void *ctx);

/* The function containing vaddr: the last symbol at or below it, if vaddr
 * is inside its size (or the symbol has no size and lies in the same
 * segment). NULL if none. *offset (may be NULL) gets vaddr - sym->addr. */
const struct elf_sym *elfsym_lookup(const struct elf_syms *es, uint64_t vaddr,
				    uint64_t *offset);
/* The first symbol named name, or NULL. */
const struct elf_sym *elfsym_find(const struct elf_syms *es, const char *name);
/* For each symbol, whether it is the first of its name (the one
 * elfsym_find returns): a malloc'd array of es->nsyms, NULL without
 * memory. In O(n log n), for a wildcard over every symbol. */
bool *elfsym_first_names(const struct elf_syms *es);

/* Any symbol (function or object) named name in the ELF file at path:
 * its st_value and st_size, as uaddr() needs. Returns 0, -ENOENT when
 * there is none, or another -errno. */
int elfsym_find_any(const char *path, const char *name, uint64_t *addr,
		    uint64_t *size);

/* Link-time virtual address <-> file offset through the PT_LOAD segments.
 * Return 0, or -ENOENT when no segment covers the address. */
int elfsym_vaddr_to_off(const struct elf_syms *es, uint64_t vaddr,
			uint64_t *off);
int elfsym_off_to_vaddr(const struct elf_syms *es, uint64_t off,
			uint64_t *vaddr);

#endif
