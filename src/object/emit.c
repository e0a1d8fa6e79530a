/*
 * The ELF writer of --emit-elf (object/emit.h). The file is built in
 * memory, section by section, and written at once: sections first (each
 * 8-aligned), then the section headers.
 */
#include "object/emit.h"

#include <elf.h>
#include <errno.h>
#include <linux/btf.h>
#include <stdio.h>
#include <string.h>

#include "kernel/arch.h"
#include "model/compiled.h"
#include "model/limits.h"
#include "model/serial.h"
#include "util/strbuf.h"
#include "util/vec.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif
#ifndef R_BPF_64_64
#define R_BPF_64_64 1
#endif

void emit_map_symbol(uint32_t i, const char *name, char out[16])
{
	int n = snprintf(out, 16, "m%u_", i);
	for (const char *s = name; *s && n < 15; s++) {
		char c = *s;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_';
		if (c == '@' || c == '.')
			continue; /* every user map starts with @ */
		out[n++] = ok ? c : '_';
	}
	out[n] = '\0';
}

/* The text after the last ':' of a target name. */
static const char *last_part(const char *name)
{
	const char *c = strrchr(name, ':');
	return c ? c + 1 : name;
}

const char *emit_section_name(char *buf, size_t n, uint32_t type,
			      uint32_t expected_attach_type, const char *name,
			      int is_begin_or_end)
{
	switch (type) {
	case BPF_PROG_TYPE_TRACEPOINT: {
		/* tracepoint:CAT:NAME -> tracepoint/CAT/NAME */
		snprintf(buf, n, "tracepoint/%s", strchr(name, ':') ?
			 strchr(name, ':') + 1 : name);
		for (char *c = buf; *c; c++)
			if (*c == ':')
				*c = '/';
		return buf;
	}
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		if (is_begin_or_end)
			snprintf(buf, n, "raw_tp");
		else
			snprintf(buf, n, "raw_tp/%s", last_part(name));
		return buf;
	case BPF_PROG_TYPE_TRACING:
		if (expected_attach_type != BPF_TRACE_RAW_TP)
			return NULL;
		snprintf(buf, n, "tp_btf/%s", last_part(name));
		return buf;
	case BPF_PROG_TYPE_PERF_EVENT:
		snprintf(buf, n, "perf_event");
		return buf;
	case BPF_PROG_TYPE_KPROBE:
		if (!strncmp(name, "uprobe:", 7))
			snprintf(buf, n, "uprobe");
		else if (!strncmp(name, "uretprobe:", 10))
			snprintf(buf, n, "uretprobe");
		else
			return NULL;
		return buf;
	default:
		return NULL;
	}
}

/* ---- BTF for the .maps section ---- */

struct btf_w {
	struct strbuf types, strs;
	uint32_t next_id;
	VEC(uint64_t) ptrs; /* (value << 32 | ptr id) of __uint(x, value) */
};

static void w32(struct strbuf *sb, uint32_t v)
{
	sb_appendn(sb, (const char *)&v, 4); /* BTF is in host order */
}

static uint32_t btf_str(struct btf_w *b, const char *s)
{
	uint32_t off = (uint32_t)b->strs.len;
	sb_appendn(&b->strs, s, strlen(s) + 1);
	return off;
}

static uint32_t btf_type(struct btf_w *b, uint32_t name, uint32_t kind,
			 uint32_t vlen, uint32_t size_or_type)
{
	w32(&b->types, name);
	w32(&b->types, kind << 24 | vlen);
	w32(&b->types, size_or_type);
	return b->next_id++;
}

/* The type of a __uint(x, value) member: int (*)[value]. */
static uint32_t btf_uint_ptr(struct btf_w *b, uint32_t value)
{
	for (size_t i = 0; i < b->ptrs.len; i++)
		if (b->ptrs.data[i] >> 32 == value)
			return (uint32_t)b->ptrs.data[i];
	uint32_t arr = btf_type(b, 0, BTF_KIND_ARRAY, 0, 0);
	w32(&b->types, 1); /* elements: int */
	w32(&b->types, 1); /* index: int */
	w32(&b->types, value);
	uint32_t ptr = btf_type(b, 0, BTF_KIND_PTR, 0, arr);
	vec_push(&b->ptrs, (uint64_t)value << 32 | ptr);
	return ptr;
}

struct emap {
	uint32_t idx;     /* in compiled.maps */
	char sym[16];
	bool data;        /* reached by value: a .data.SYM section */
	uint32_t sym_idx; /* ELF symbol */
	uint32_t off;     /* in .maps */
};

/* One BTF-defined map: a VAR of an anonymous struct of __uint members. */
static uint32_t btf_map(struct btf_w *b, const struct cmap *m,
			const char *sym)
{
	const char *names[] = { "type", "key_size", "value_size",
				"max_entries", "map_flags" };
	uint32_t vals[] = { (uint32_t)m->type, m->key_size, m->value_size,
			    m->max_entries, m->flags };
	uint32_t ptr[5], nm = 0, which[5];
	for (uint32_t i = 0; i < 5; i++)
		if (i == 0 || vals[i]) {
			which[nm] = i;
			ptr[nm++] = btf_uint_ptr(b, vals[i]);
		}
	uint32_t st = btf_type(b, 0, BTF_KIND_STRUCT, nm, nm * 8);
	for (uint32_t i = 0; i < nm; i++) {
		w32(&b->types, btf_str(b, names[which[i]]));
		w32(&b->types, ptr[i]);
		w32(&b->types, i * 64);
	}
	btf_type(b, btf_str(b, sym), BTF_KIND_VAR, 0, st);
	w32(&b->types, BTF_VAR_GLOBAL_ALLOCATED);
	return nm * 8;
}

/* ---- the ELF ---- */

struct esec {
	const char *name;
	uint32_t type, flags, link, info, align, entsize;
	struct strbuf data;
	uint32_t rel;         /* its .rel section's index, 0: none */
};

struct elf_w {
	VEC(struct esec) secs;
	VEC(Elf64_Sym) syms;
	struct strbuf strtab;
};

static uint32_t add_sec(struct elf_w *e, const char *name, uint32_t type,
			uint32_t flags)
{
	struct esec s = { .name = name, .type = type, .flags = flags,
			  .align = 8 };
	vec_push(&e->secs, s);
	return (uint32_t)e->secs.len - 1;
}

static uint32_t add_str(struct elf_w *e, const char *s)
{
	uint32_t off = (uint32_t)e->strtab.len;
	sb_appendn(&e->strtab, s, strlen(s) + 1);
	return off;
}

static uint32_t add_sym(struct elf_w *e, const char *name, uint32_t type,
			uint32_t shndx, uint64_t value, uint64_t size)
{
	Elf64_Sym s = { .st_name = add_str(e, name),
			.st_info = ELF64_ST_INFO(STB_GLOBAL, type),
			.st_shndx = (uint16_t)shndx, .st_value = value,
			.st_size = size };
	vec_push(&e->syms, s);
	return (uint32_t)e->syms.len - 1;
}

static uint32_t find_sec(struct elf_w *e, const char *name)
{
	for (size_t i = 1; i < e->secs.len; i++)
		if (!strcmp(e->secs.data[i].name, name))
			return (uint32_t)i;
	return 0;
}

/* Which maps become ELF maps and how the code reaches them: libbpf
 * turns a relocation against .maps into a map fd load, and one against
 * a data section into a value pointer, so a map reached both ways has no
 * encoding (codegen makes none such). */
static int plan_maps(const struct compiled *c, struct emap *em, char *why,
		     size_t whylen)
{
	uint8_t *how = calloc(c->nmaps + 1, 1); /* 1: fd, 2: value */
	if (!how)
		return -ENOMEM;
	for (uint32_t p = 0; p < c->nprogs; p++) {
		const struct bpf_code *code = &c->progs[p].code;
		/* for loops' callbacks would need .BTF.ext func info and
		 * subprogram relocations in the object: not made yet */
		for (uint32_t i = 0; i + 1 < code->ninsns; i++) {
			if (code->insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
			    code->insns[i].src_reg == BPF_PSEUDO_FUNC) {
				free(how);
				snprintf(why, whylen, "the program for %s has a "
					 "for loop, which --emit-elf does not "
					 "support yet", c->progs[p].name);
				return -EINVAL;
			}
		}
		for (uint32_t r = 0; r < code->nrelocs; r++) {
			uint32_t m = code->relocs[r].map_idx;
			if (m >= c->nmaps || code->relocs[r].insn + 1 >=
						     code->ninsns) {
				free(how);
				snprintf(why, whylen, "a map relocation is out "
					 "of range");
				return -EINVAL;
			}
			if (c->maps[m].shared)
				m = c->maps[m].host;
			how[m] |= code->insns[code->relocs[r].insn].src_reg ==
					  BPF_PSEUDO_MAP_VALUE ? 2 : 1;
		}
	}
	int err = 0;
	for (uint32_t i = 0; i < c->nmaps; i++) {
		const struct cmap *m = &c->maps[i];
		em[i].idx = i;
		emit_map_symbol(i, m->name, em[i].sym);
		em[i].data = how[i] == 2;
		if (how[i] == 3 || (em[i].data &&
				    (m->type != BPF_MAP_TYPE_ARRAY ||
				     m->max_entries != 1))) {
			snprintf(why, whylen, "map %s is reached both by fd "
				 "and by value, which libbpf cannot express",
				 m->name);
			err = -ENOTSUP;
			break;
		}
	}
	free(how);
	return err;
}

/* Appends program p's code to its section, relocations to the .rel
 * section, and records where in sp. */
static void put_prog(struct elf_w *e, const struct compiled *c,
		     const struct emap *em, uint32_t p, uint32_t sec,
		     struct serial_prog *sp)
{
	const struct cprog *cp = &c->progs[p];
	struct esec *s = &e->secs.data[sec];
	uint32_t off = (uint32_t)s->data.len;
	size_t bytes = sizeof(struct bpf_insn) * cp->code.ninsns;
	struct bpf_insn *ins = xmalloc(bytes);
	memcpy(ins, cp->code.insns, bytes);
	if (!s->rel) {
		char *rn = xmalloc(strlen(s->name) + 5);
		sprintf(rn, ".rel%s", s->name);
		uint32_t r = add_sec(e, rn, SHT_REL, 0);
		s = &e->secs.data[sec]; /* add_sec may move the array */
		s->rel = r;
		e->secs.data[r].info = sec;
		e->secs.data[r].entsize = sizeof(Elf64_Rel);
	}
	for (uint32_t r = 0; r < cp->code.nrelocs; r++) {
		const struct map_reloc *mr = &cp->code.relocs[r];
		uint32_t m = c->maps[mr->map_idx].shared ?
				     c->maps[mr->map_idx].host : mr->map_idx;
		struct bpf_insn *in = &ins[mr->insn];
		/* libbpf's global data: value at insn[0].imm + symbol */
		bool value = in->src_reg == BPF_PSEUDO_MAP_VALUE;
		in[0].imm = value ? in[1].imm : 0;
		in[1].imm = 0;
		Elf64_Rel rel = { .r_offset = off + 8ull * mr->insn,
				  .r_info = ELF64_R_INFO(em[m].sym_idx,
							 R_BPF_64_64) };
		sb_appendn(&e->secs.data[s->rel].data, (const char *)&rel,
			   sizeof(rel));
	}
	sb_appendn(&s->data, (const char *)ins, bytes);
	sp->section = s->name;
	sp->offset = off;
	sp->code_crc = serial_crc(0, ins, bytes);
	free(ins);
}

static int write_file(const char *path, struct elf_w *e, char *why,
		      size_t whylen)
{
	struct strbuf out = STRBUF_INIT;
	Elf64_Ehdr eh = { .e_type = ET_REL, .e_machine = EM_BPF,
			  .e_version = EV_CURRENT,
			  .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_shentsize = sizeof(Elf64_Shdr),
			  .e_shnum = (uint16_t)e->secs.len };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
				      ELFDATA2LSB : ELFDATA2MSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	sb_appendn(&out, (const char *)&eh, sizeof(eh));
	VEC(Elf64_Shdr) sh = { 0 };
	Elf64_Shdr null_sh = { 0 };
	vec_push(&sh, null_sh);
	/* .strtab also names the sections: complete it before writing */
	uint32_t *name_off = xcalloc(e->secs.len, sizeof(*name_off));
	for (size_t i = 1; i < e->secs.len; i++)
		name_off[i] = add_str(e, e->secs.data[i].name);
	for (size_t i = 1; i < e->secs.len; i++) {
		struct esec *s = &e->secs.data[i];
		while (out.len % 8)
			sb_putc(&out, 0);
		Elf64_Shdr h = { .sh_name = name_off[i],
				 .sh_type = s->type, .sh_flags = s->flags,
				 .sh_offset = out.len,
				 .sh_size = s->data.len,
				 .sh_link = s->link, .sh_info = s->info,
				 .sh_addralign = s->align,
				 .sh_entsize = s->entsize };
		if (!strcmp(s->name, ".strtab")) {
			h.sh_size = e->strtab.len;
			sb_appendn(&out, e->strtab.buf, e->strtab.len);
			eh.e_shstrndx = (uint16_t)i;
		} else {
			sb_appendn(&out, s->data.buf, s->data.len);
		}
		vec_push(&sh, h);
	}
	while (out.len % 8)
		sb_putc(&out, 0);
	eh.e_shoff = out.len;
	memcpy(out.buf, &eh, sizeof(eh));
	sb_appendn(&out, (const char *)sh.data, sizeof(Elf64_Shdr) * sh.len);
	vec_free(&sh);
	free(name_off);
	int err = 0;
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(out.buf, 1, out.len, f) != out.len) {
		err = -errno;
		snprintf(why, whylen, "cannot write %s: %s", path,
			 strerror(errno));
	}
	if (f && fclose(f) && !err) {
		err = -errno;
		snprintf(why, whylen, "cannot write %s: %s", path,
			 strerror(errno));
	}
	sb_free(&out);
	return err;
}

int emit_elf(const char *path, struct serial_object *o, char *why,
	     size_t whylen)
{
	const struct compiled *c = &o->c;
	struct emap *em = calloc(c->nmaps + 1, sizeof(*em));
	struct elf_w e = { 0 };
	struct btf_w b = { .next_id = 1 };
	struct strbuf sonde = STRBUF_INIT;
	VEC(char *) names = { 0 };
	if (!em)
		return -ENOMEM;
	int err = plan_maps(c, em, why, whylen);
	if (err)
		goto out;
	add_sec(&e, "", SHT_NULL, 0);
	add_str(&e, "");
	Elf64_Sym null_sym = { 0 };
	vec_push(&e.syms, null_sym);
	uint32_t strtab = add_sec(&e, ".strtab", SHT_STRTAB, 0);
	uint32_t symtab = add_sec(&e, ".symtab", SHT_SYMTAB, 0);
	e.secs.data[symtab].link = strtab;
	e.secs.data[symtab].info = 1; /* first global: every one is */
	e.secs.data[symtab].entsize = sizeof(Elf64_Sym);

	/* maps: BTF-defined in .maps, or libbpf global data */
	sb_putc(&b.strs, 0);
	uint32_t int_name = btf_str(&b, "int");
	btf_type(&b, int_name, BTF_KIND_INT, 0, 4);
	w32(&b.types, BTF_INT_SIGNED << 24 | 32);
	uint32_t maps_sec = add_sec(&e, ".maps", SHT_PROGBITS,
				    SHF_ALLOC | SHF_WRITE);
	VEC(uint32_t) vars = { 0 };
	uint32_t maps_size = 0;
	for (uint32_t i = 0; i < c->nmaps; i++) {
		const struct cmap *m = &c->maps[i];
		if (m->shared)
			continue;
		if (em[i].data) {
			/* libbpf 1.1 takes .data.NAME, not .bss.NAME */
			char *sn = xmalloc(strlen(em[i].sym) + 7);
			sprintf(sn, ".data.%s", em[i].sym);
			vec_push(&names, sn);
			uint32_t s = add_sec(&e, sn, SHT_PROGBITS,
					     SHF_ALLOC | SHF_WRITE);
			for (uint32_t k = 0; k < m->value_size; k++)
				sb_putc(&e.secs.data[s].data, 0);
			em[i].sym_idx = add_sym(&e, em[i].sym, STT_OBJECT, s, 0,
						m->value_size);
			continue;
		}
		uint32_t size = btf_map(&b, m, em[i].sym);
		vec_push(&vars, b.next_id - 1); /* the VAR is the last type */
		em[i].off = maps_size;
		em[i].sym_idx = add_sym(&e, em[i].sym, STT_OBJECT, maps_sec,
					maps_size, size);
		for (uint32_t k = 0; k < size; k++)
			sb_putc(&e.secs.data[maps_sec].data, 0);
		maps_size += size;
	}
	/* DATASEC .maps: each VAR at its offset */
	btf_type(&b, btf_str(&b, ".maps"), BTF_KIND_DATASEC,
		 (uint32_t)vars.len, maps_size);
	for (size_t i = 0, k = 0; i < c->nmaps; i++) {
		if (c->maps[i].shared || em[i].data)
			continue;
		w32(&b.types, vars.data[k++]);
		w32(&b.types, em[i].off);
		w32(&b.types, (uint32_t)e.syms.data[em[i].sym_idx].st_size);
	}
	vec_free(&vars);

	/* programs, grouped by section name */
	for (uint32_t p = 0; p < c->nprogs; p++) {
		const struct cprog *cp = &c->progs[p];
		char buf[512];
		const char *sn = emit_section_name(buf, sizeof(buf), cp->type,
						   cp->expected_attach_type,
						   cp->name,
						   cp->is_begin || cp->is_end);
		if (!sn) {
			snprintf(why, whylen, "%s: no libbpf section name "
				 "for its program type", cp->name);
			err = -ENOTSUP;
			goto out;
		}
		uint32_t sec = find_sec(&e, sn);
		if (!sec) {
			char *copy = xstrdup(sn);
			vec_push(&names, copy);
			sec = add_sec(&e, copy, SHT_PROGBITS,
				      SHF_ALLOC | SHF_EXECINSTR);
		}
		uint32_t off = (uint32_t)e.secs.data[sec].data.len;
		char sym[32];
		snprintf(sym, sizeof(sym), "prog%u", p);
		add_sym(&e, sym, STT_FUNC, sec, off,
			8ull * cp->code.ninsns);
		put_prog(&e, c, em, p, sec, &o->progs[p]);
	}
	for (size_t i = 1; i < e.secs.len; i++)
		if (e.secs.data[i].type == SHT_REL) {
			e.secs.data[i].link = symtab;
			vec_push(&names, (char *)e.secs.data[i].name);
		}

	uint32_t lic = add_sec(&e, "license", SHT_PROGBITS,
			       SHF_ALLOC | SHF_WRITE);
	sb_appendn(&e.secs.data[lic].data, limits.license,
		   strlen(limits.license) + 1);

	/* .BTF: header, types, strings */
	uint32_t btf = add_sec(&e, ".BTF", SHT_PROGBITS, 0);
	struct btf_header bh = { .magic = BTF_MAGIC, .version = BTF_VERSION,
				 .hdr_len = sizeof(bh),
				 .type_off = 0,
				 .type_len = (uint32_t)b.types.len,
				 .str_off = (uint32_t)b.types.len,
				 .str_len = (uint32_t)b.strs.len };
	struct strbuf *bd = &e.secs.data[btf].data;
	sb_appendn(bd, (const char *)&bh, sizeof(bh));
	sb_appendn(bd, b.types.buf, b.types.len);
	sb_appendn(bd, b.strs.buf, b.strs.len);
	e.secs.data[btf].align = 4;

	uint32_t ss = add_sec(&e, ".sonde", SHT_PROGBITS, 0);
	serial_write(o, &sonde);
	sb_appendn(&e.secs.data[ss].data, sonde.buf, sonde.len);
	/* The code reads this architecture's struct pt_regs and syscall
	 * numbers: the machine it runs on is named beside it (the ELF's
	 * own machine is EM_BPF), and another refuses it (emitted.c). */
	uint32_t as = add_sec(&e, ".sonde.arch", SHT_PROGBITS, 0);
	const char *arch = arch_name(arch_build());
	sb_appendn(&e.secs.data[as].data, arch, strlen(arch) + 1);

	sb_appendn(&e.secs.data[symtab].data, (const char *)e.syms.data,
		   sizeof(Elf64_Sym) * e.syms.len);
	err = write_file(path, &e, why, whylen);
out:
	for (size_t i = 0; i < e.secs.len; i++)
		sb_free(&e.secs.data[i].data);
	vec_free(&e.secs);
	vec_free(&e.syms);
	sb_free(&e.strtab);
	sb_free(&b.types);
	sb_free(&b.strs);
	vec_free(&b.ptrs);
	for (size_t i = 0; i < names.len; i++)
		free(names.data[i]);
	vec_free(&names);
	sb_free(&sonde);
	free(em);
	return err;
}
