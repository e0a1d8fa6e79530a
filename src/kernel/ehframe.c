/*
 * A binary's call frame information reduced to model/unwind.h's rows
 * (kernel/ehframe.h).
 *
 * FDEs are enumerated with dwarf_next_cfi() over the section's own bytes,
 * not through .eh_frame_hdr's search table: the walk works the same for
 * .debug_frame (which has no such table) and for files linked without
 * --eh-frame-hdr, and it needs no trust in a table that only indexes the
 * section. Each FDE's rows are then libdw's answer for its addresses
 * (dwarf_cfi_addrframe: the DWARF machine stays elfutils'); what this file
 * does is reduce each answer to the few rules the walker follows, and
 * make everything else UW_STOP, never an approximation.
 *
 * x86_64 only: the register numbers and the PLT expression are its
 * psABI's. arm64 (EM_AARCH64: the return address in x30, a CFA on x29 or
 * sp) is a later issue; another machine gets -ENOTSUP.
 */
#define _GNU_SOURCE
#include "kernel/ehframe.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/vec.h"

/* x86_64's DWARF register numbers (psABI figure 3.36) */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

struct fde_range {
	uint64_t start, end;
};
typedef VEC(struct fde_range) range_vec;

/* ---- pointer encodings (LSB 4.1, "DWARF Extensions": DW_EH_PE_*) ---- */

static bool read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

static bool read_sleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	for (unsigned shift = 0; *p < end && shift < 64;) {
		uint8_t b = *(*p)++;
		r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				r |= ~0ull << shift;
			*v = r;
			return true;
		}
	}
	return false;
}

/* Reads one value in the format of enc's low nibble (little-endian: the
 * file is x86_64's). False: unknown format or past end. */
static bool read_format(uint8_t enc, const uint8_t **p, const uint8_t *end,
			uint64_t *v)
{
	unsigned size;
	bool sign = false;
	switch (enc & 0x0f) {
	case DW_EH_PE_uleb128:
		return read_uleb(p, end, v);
	case DW_EH_PE_sleb128:
		return read_sleb(p, end, v);
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		size = 8;
		break;
	case DW_EH_PE_udata4:
		size = 4;
		break;
	case DW_EH_PE_sdata4:
		size = 4, sign = true;
		break;
	case DW_EH_PE_udata2:
		size = 2;
		break;
	case DW_EH_PE_sdata2:
		size = 2, sign = true;
		break;
	default:
		return false;
	}
	if ((size_t)(end - *p) < size)
		return false;
	uint64_t r = 0;
	for (unsigned i = 0; i < size; i++)
		r |= (uint64_t)(*p)[i] << (8 * i);
	if (sign && size < 8 && (r >> (8 * size - 1)) & 1)
		r |= ~0ull << (8 * size);
	*p += size;
	*v = r;
	return true;
}

/* The FDE address encoding of a CIE (its 'R' augmentation), or -1 where
 * the augmentation is not understood (its FDEs are then skipped: their
 * addresses become a gap, never a guess). */
static int fde_encoding(const Dwarf_CIE *cie)
{
	const char *a = cie->augmentation;
	if (a[0] == '\0')
		return DW_EH_PE_absptr;
	if (a[0] != 'z')
		return -1; /* g++ 2's "eh", or unsized: no way to find 'R' */
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p + cie->augmentation_data_size;
	for (a++; *a; a++) {
		uint64_t skip;
		switch (*a) {
		case 'R':
			return p < end ? *p : -1;
		case 'L':
			p++;
			break;
		case 'P': { /* the personality routine: encoding, pointer */
			if (p >= end)
				return -1;
			uint8_t penc = *p++;
			if (!read_format(penc, &p, end, &skip))
				return -1;
			break;
		}
		case 'S':
		case 'B':
			break;
		default:
			return -1;
		}
	}
	return DW_EH_PE_absptr;
}

/* ---- the FDEs ---- */

struct section {
	Elf_Data *data;
	uint64_t addr; /* sh_addr: the base of pcrel pointers */
	bool eh;       /* .eh_frame, not .debug_frame */
};

/* Decodes one FDE's [start, end). False: skip it (an encoding this does
 * not read, or a CIE libdw cannot parse). */
static bool fde_range(const unsigned char *ident, const struct section *s,
		      const Dwarf_FDE *fde, struct fde_range *r)
{
	Dwarf_CFI_Entry ce;
	Dwarf_Off next;
	if (dwarf_next_cfi(ident, s->data, s->eh, fde->CIE_pointer, &next,
			   &ce) != 0 ||
	    !dwarf_cfi_cie_p(&ce))
		return false;
	int enc = fde_encoding(&ce.cie);
	if (enc < 0 || enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect))
		return false;
	const uint8_t *p = fde->start;
	uint64_t field = s->addr + (uint64_t)(p - (const uint8_t *)s->data->d_buf);
	uint64_t loc, len;
	if (!read_format(enc, &p, fde->end, &loc) ||
	    !read_format(enc & 0x0f, &p, fde->end, &len))
		return false;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		loc += field;
		break;
	default:
		return false; /* textrel, datarel...: not emitted on x86_64 */
	}
	r->start = loc;
	r->end = loc + len;
	return len != 0 && r->end > loc;
}

/* Whether r lies in one of the executable PT_LOAD segments: an FDE
 * outside them describes no code (a discarded function's, its address
 * tombstoned to 0 or -1). */
static bool in_exec(const range_vec *segs, const struct fde_range *r)
{
	for (size_t i = 0; i < segs->len; i++)
		if (r->start >= segs->data[i].start && r->end <= segs->data[i].end)
			return true;
	return false;
}

static int cmp_range(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Every FDE of the section, sorted, each starting where the one before
 * ends at the earliest (overlaps cut: libdw answers for each address
 * anyway). Returns 0 or -EFBIG. */
static int collect_fdes(const unsigned char *ident, const struct section *s,
			const range_vec *segs, range_vec *out)
{
	Dwarf_Off off = 0, next;
	for (;;) {
		Dwarf_CFI_Entry e;
		next = (Dwarf_Off)-1; /* not set by every failure */
		int rc = dwarf_next_cfi(ident, s->data, s->eh, off, &next, &e);
		if (rc > 0)
			break;
		if (rc < 0) {
			/* this entry is unusable; the next may be fine */
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
			off = next;
			continue;
		}
		off = next;
		struct fde_range r;
		if (dwarf_cfi_cie_p(&e) || !fde_range(ident, s, &e.fde, &r) ||
		    !in_exec(segs, &r))
			continue;
		if (r.end > UINT32_MAX)
			return -EFBIG;
		vec_push(out, r);
	}
	if (out->len)
		qsort(out->data, out->len, sizeof(*out->data), cmp_range);
	size_t n = 0;
	uint64_t covered = 0;
	for (size_t i = 0; i < out->len; i++) {
		struct fde_range r = out->data[i];
		if (r.start < covered)
			r.start = covered;
		if (r.start >= r.end)
			continue;
		out->data[n++] = r;
		covered = r.end;
	}
	out->len = n;
	return 0;
}

/* ---- one row ---- */

static struct uw_row row_of(enum uw_cfa cfa, uint16_t off, enum uw_bp bp,
			    int8_t bp_off)
{
	return (struct uw_row){ .cfa_off = off, .bp_off = bp_off,
				.rule = UW_RULE(cfa, bp) };
}

static struct uw_row stop_row(void)
{
	return row_of(UW_STOP, 0, UW_BP_SAME, 0);
}

/* The expression the linker writes for lazy-binding PLT entries (16
 * bytes each: push, then jmp at offset 11):
 *   DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_lit11;
 *   DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
 * Debian 12's glibc, ld.so, python3 and every other file in /usr/bin and
 * /usr/lib/x86_64-linux-gnu use 11 and no other constant (2075
 * expressions, 2026-12), as does .plt.sec's. */
static bool is_plt_expr(const Dwarf_Op *o, size_t n)
{
	static const struct {
		uint8_t atom;
		Dwarf_Word number;
	} want[] = {
		{ DW_OP_breg7, 8 }, { DW_OP_breg16, 0 }, { DW_OP_lit15, 0 },
		{ DW_OP_and, 0 },   { DW_OP_lit11, 0 },  { DW_OP_ge, 0 },
		{ DW_OP_lit3, 0 },  { DW_OP_shl, 0 },    { DW_OP_plus, 0 },
	};
	if (n != sizeof(want) / sizeof(want[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (o[i].atom != want[i].atom || o[i].number != want[i].number)
			return false;
	return true;
}

/* A register's rule "saved at CFA + off" (dwarf_frame_register's
 * DW_OP_call_frame_cfa, then DW_OP_plus_uconst unless off is 0; a
 * DW_OP_stack_value after it would make it val_offset: not a slot). */
static bool saved_at_cfa(const Dwarf_Op *o, size_t n, int64_t *off)
{
	if (n == 1 && o[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (n == 2 && o[0].atom == DW_OP_call_frame_cfa &&
	    o[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)o[1].number; /* the unsigned wrap of a signed
						offset (cfi.c) */
		return true;
	}
	return false;
}

/* libdw's frame state at one address, reduced. */
static struct uw_row reduce(Dwarf_Frame *fr, int ra_reg)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;
	if (ra_reg != REG_RA ||
	    dwarf_frame_register(fr, REG_RA, mem, &ops, &n) != 0)
		return stop_row();
	/* nops 0 with ops set: undefined (NULL would be same_value) */
	if (n == 0 && ops)
		return row_of(UW_END, 0, UW_BP_SAME, 0);
	if (!saved_at_cfa(ops, n, &off) || off != -8)
		return stop_row();

	enum uw_bp bp = UW_BP_SAME;
	int8_t bp_off = 0;
	if (dwarf_frame_register(fr, REG_RBP, mem, &ops, &n) != 0)
		return stop_row();
	/* n == 0: same value, or undefined (callee-saved: not changed) */
	if (n != 0) {
		if (!saved_at_cfa(ops, n, &off) || off % 8 || off / 8 < INT8_MIN ||
		    off / 8 > INT8_MAX)
			return stop_row();
		bp = UW_BP_SAVED;
		bp_off = (int8_t)(off / 8);
	}

	/* an error: a rule libdw finds invalid, such as libgcrypt's
	 * def_cfa_register after a CFA expression (readelf and libgcc keep
	 * the older offset there; a guess, so this stops) */
	if (dwarf_frame_cfa(fr, &ops, &n) != 0 || n == 0)
		return stop_row();
	if (n == 1 && ops[0].atom == DW_OP_bregx &&
	    (ops[0].number == REG_RSP || ops[0].number == REG_RBP) &&
	    ops[0].number2 <= UINT16_MAX)
		return row_of(ops[0].number == REG_RSP ? UW_CFA_SP : UW_CFA_BP,
			      (uint16_t)ops[0].number2, bp, bp_off);
	if (is_plt_expr(ops, n))
		return row_of(UW_CFA_PLT, 0, bp, bp_off);
	return stop_row();
}

/* ---- the table ---- */

typedef VEC(struct uw_row) row_vec;

static bool same_rule(const struct uw_row *a, const struct uw_row *b)
{
	return a->rule == b->rule && a->cfa_off == b->cfa_off &&
	       a->bp_off == b->bp_off;
}

/* Appends a row at addr, unless the last one already says the same. */
static void push(row_vec *v, uint64_t addr, struct uw_row r)
{
	r.addr = (uint32_t)addr;
	if (v->len) {
		struct uw_row *last = &v->data[v->len - 1];
		if (same_rule(last, &r))
			return;
		if (last->addr == r.addr) { /* an empty row: r replaces it */
			*last = r;
			if (v->len > 1 && same_rule(&v->data[v->len - 2], last))
				v->len--;
			return;
		}
	}
	vec_push(v, r);
}

/* One FDE's rows: libdw's state at its start, then at the end of each
 * row it reports, to the FDE's end. */
static void fde_rows(Dwarf_CFI *cfi, const struct fde_range *f, row_vec *v)
{
	uint64_t a = f->start;
	while (a < f->end) {
		Dwarf_Frame *fr = NULL;
		Dwarf_Addr s, e;
		if (dwarf_cfi_addrframe(cfi, a, &fr) != 0) {
			/* CFI libdw refuses (invalid, or not found) */
			push(v, a, stop_row());
			return;
		}
		int ra = dwarf_frame_info(fr, &s, &e, NULL);
		if (ra < 0 || s > a || e <= a) {
			free(fr);
			push(v, a, stop_row());
			return;
		}
		push(v, a, reduce(fr, ra));
		free(fr);
		a = e < f->end ? e : f->end;
	}
}

static bool find_section(Elf *elf, size_t shstrndx, const char *want,
			 struct section *s)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		/* PROGBITS, or SHT_X86_64_UNWIND (LLVM's type for .eh_frame) */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    sh.sh_type == SHT_NULL ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, want))
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return false;
		s->data = elf_getdata(scn, NULL);
		s->addr = sh.sh_addr;
		return s->data && s->data->d_buf && s->data->d_size;
	}
	return false;
}

static void exec_segments(Elf *elf, range_vec *segs)
{
	size_t n;
	if (elf_getphdrnum(elf, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X))
			vec_push(segs, ((struct fde_range){
						ph.p_vaddr, ph.p_vaddr + ph.p_memsz }));
	}
}

/* The rows of one section's CFI; cfi answers the lookups. */
static int section_rows(const unsigned char *ident, const struct section *s,
			Dwarf_CFI *cfi, const range_vec *segs, struct eh_rows *out)
{
	range_vec fdes = { 0 };
	row_vec v = { 0 };
	int rc = collect_fdes(ident, s, segs, &fdes);
	for (size_t i = 0; !rc && i < fdes.len; i++) {
		fde_rows(cfi, &fdes.data[i], &v);
		if (i + 1 == fdes.len || fdes.data[i + 1].start != fdes.data[i].end)
			push(&v, fdes.data[i].end, row_of(UW_GAP, 0, UW_BP_SAME, 0));
	}
	vec_free(&fdes);
	if (rc) {
		vec_free(&v);
		return rc;
	}
	out->rows = v.data;
	out->n = v.len;
	for (size_t i = 0; i < v.len; i++) {
		enum uw_cfa c = UW_RULE_CFA(v.data[i].rule);
		out->nstop += c == UW_STOP;
		out->nplt += c == UW_CFA_PLT;
	}
	return 0;
}

/* .eh_frame through dwarf_getcfi_elf; else the file's own .debug_frame. */
static int elf_rows(Elf *elf, const unsigned char *ident, struct eh_rows *out)
{
	size_t shstrndx;
	range_vec segs = { 0 };
	struct section s = { 0 };
	int rc = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	exec_segments(elf, &segs);
	if (find_section(elf, shstrndx, ".eh_frame", &s)) {
		s.eh = true;
		Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
		if (!cfi) {
			rc = -EINVAL;
			goto done;
		}
		rc = section_rows(ident, &s, cfi, &segs, out);
		dwarf_cfi_end(cfi);
		if (rc || out->n)
			goto done;
		ehframe_rows_free(out);
	}
	if (find_section(elf, shstrndx, ".debug_frame", &s)) {
		s.eh = false;
		Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		Dwarf_CFI *cfi = dw ? dwarf_getcfi(dw) : NULL;
		/* dwarf_getcfi's CFI belongs to dw: no dwarf_cfi_end */
		rc = cfi ? section_rows(ident, &s, cfi, &segs, out) : -EINVAL;
		dwarf_end(dw);
	}
done:
	vec_free(&segs);
	return rc;
}

int ehframe_rows(const char *path, struct eh_rows *out)
{
	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	int rc;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		rc = -ENOEXEC;
	else if (eh.e_machine != EM_X86_64 ||
		 eh.e_ident[EI_CLASS] != ELFCLASS64)
		rc = -ENOTSUP; /* arm64: a later issue (see the top) */
	else
		rc = elf_rows(elf, eh.e_ident, out);
	elf_end(elf);
	close(fd);
	if (rc)
		ehframe_rows_free(out);
	return rc;
}

void ehframe_rows_free(struct eh_rows *r)
{
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
