#include "kernel/usdt.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/elfsym.h"
#include "kernel/regs.h"
#include "util/xalloc.h"

#define NT_STAPSDT 3

/* A register's name at *p, running to one of delims, as a's assembler
 * writes it (x86_64's without its '%'): its pt_regs offset into *off.
 * Returns 0, 1 for x86_64's rip (position-dependent: not readable here),
 * or -EINVAL. */
static int reg_at(enum arch a, const char **p, const char *delims,
		  uint32_t *off)
{
	char name[16];
	size_t n = strcspn(*p, delims);
	if (n == 0 || n >= sizeof(name))
		return -EINVAL;
	memcpy(name, *p, n);
	name[n] = 0;
	*p += n;
	if (a == ARCH_X86_64 && !strcmp(name, "rip"))
		return 1;
	int r = regs_abi(a)->asm_offset(name);
	if (r < 0)
		return -EINVAL;
	*off = (uint32_t)r;
	return 0;
}

/* x86_64's (AT&T syntax): "%rax" with the '%' consumed */
static int x86_reg_at(const char **p, uint32_t *off)
{
	return reg_at(ARCH_X86_64, p, ",) ", off);
}

/* aarch64's: "x0", "w1", "sp" */
static int a64_reg_at(const char **p, uint32_t *off)
{
	return reg_at(ARCH_AARCH64, p, ",] ", off);
}

/* A constant as the probe's argument of size bytes holds it: gcc writes
 * "4@$-202182160" for the unsigned 4092785136, so the value is cut to size
 * and then sign- or zero-extended. */
static int64_t fit(int64_t v, unsigned size, bool is_signed)
{
	if (size >= 8)
		return v;
	unsigned shift = 64 - 8 * size;
	uint64_t u = (uint64_t)v << shift;
	return is_signed ? (int64_t)u >> shift : (int64_t)(u >> shift);
}

/* "SIZE@" (absent: 8 bytes, unsigned) into out; returns what follows,
 * or NULL. */
static const char *parse_size(const char *spec, struct usdt_arg *out)
{
	memset(out, 0, sizeof(*out));
	out->text = spec;
	const char *p = spec, *at = strchr(spec, '@');
	long size = 8;
	if (at) {
		char *end;
		size = strtol(spec, &end, 10);
		if (end != at)
			return NULL;
		p = at + 1;
	}
	out->is_signed = size < 0;
	size = labs(size);
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return NULL;
	out->size = (uint8_t)size;
	return p;
}

/* aarch64's forms, as its assembler prints sdt.h's operands (libbpf's
 * usdt.c reads the same): "8@x0" or "-4@w1" (a register), "-4@[sp, 12]",
 * "8@[x29, -16]" or "4@[x1]" (memory at a register plus a displacement),
 * "4@5" (a constant: no '$' in this syntax). */
static int parse_a64(const char *p, struct usdt_arg *out)
{
	char *end;
	if (*p == '[') {
		p++;
		out->kind = USDT_ARG_MEM;
		if (a64_reg_at(&p, &out->reg))
			return -EINVAL;
		if (*p == ',') {
			p++;
			while (*p == ' ')
				p++;
			if (*p == '#') /* an immediate's optional mark */
				p++;
			errno = 0;
			out->val = strtoll(p, &end, 0);
			if (end == p || errno)
				return -EINVAL;
			p = end;
		}
		return p[0] == ']' && !p[1] ? 0 : -EINVAL;
	}
	if ((*p >= '0' && *p <= '9') || *p == '-') {
		out->kind = USDT_ARG_CONST;
		errno = 0;
		out->val = strtoll(p, &end, 0);
		if (end == p || *end || errno)
			return -EINVAL;
		out->val = fit(out->val, out->size, out->is_signed);
		return 0;
	}
	out->kind = USDT_ARG_REG;
	if (a64_reg_at(&p, &out->reg) || *p)
		return -EINVAL;
	return 0;
}

int usdt_parse_arg(const char *spec, struct usdt_arg *out)
{
	return usdt_parse_arg_arch(arch_build(), spec, out);
}

int usdt_parse_arg_arch(enum arch a, const char *spec, struct usdt_arg *out)
{
	const char *p = parse_size(spec, out);
	if (!p)
		return -EINVAL;
	if (a == ARCH_AARCH64)
		return parse_a64(p, out);
	char *end;
	if (*p == '$') {
		/* a constant: a number, or a symbol's address (unusable) */
		out->kind = USDT_ARG_CONST;
		errno = 0;
		out->val = strtoll(p + 1, &end, 0);
		if (end == p + 1 || *end || errno)
			out->kind = USDT_ARG_BAD;
		else
			out->val = fit(out->val, out->size, out->is_signed);
		return 0;
	}
	if (*p == '%') {
		p++;
		int r = x86_reg_at(&p, &out->reg);
		if (r < 0 || *p)
			return -EINVAL;
		out->kind = r ? USDT_ARG_BAD : USDT_ARG_REG;
		return 0;
	}
	/* DISP(%reg), (%reg), or forms with an index or a symbol */
	out->kind = USDT_ARG_MEM;
	if (*p != '(') {
		errno = 0;
		out->val = strtoll(p, &end, 0);
		if (end == p || errno) {
			out->kind = USDT_ARG_BAD; /* sym(%rip), sym+4(%rip) */
			return 0;
		}
		p = end;
	}
	if (p[0] != '(' || p[1] != '%')
		return -EINVAL;
	p += 2;
	int r = x86_reg_at(&p, &out->reg);
	if (r < 0)
		return -EINVAL;
	if (r) {
		out->kind = USDT_ARG_BAD; /* %rip-relative */
		return 0;
	}
	if (p[0] == ',') {
		/* (%base,%index,scale) */
		if (p[1] != '%')
			return -EINVAL;
		p += 2;
		if (x86_reg_at(&p, &out->index))
			return -EINVAL;
		long scale = 1;
		if (*p == ',') {
			scale = strtol(p + 1, &end, 10);
			p = end;
		}
		if (scale != 1 && scale != 2 && scale != 4 && scale != 8)
			return -EINVAL;
		out->scale = (uint8_t)scale;
	}
	if (*p != ')' || p[1])
		return -EINVAL;
	return 0;
}

/* The arguments are separated by spaces, but for the ones inside an
 * aarch64 memory operand ("-4@[sp, 12]"). An argument that does not parse
 * is kept as USDT_ARG_BAD: the probe stays usable, only that argument is
 * not. */
static void parse_args(bool known, enum arch arch, const char *s,
		       struct usdt_probe *pr)
{
	char *copy = xstrdup(s);
	for (char *tok = copy; *tok;) {
		if (*tok == ' ') {
			tok++;
			continue;
		}
		char *e = tok;
		for (int depth = 0; *e && (depth || *e != ' '); e++)
			depth += *e == '[' ? 1 : *e == ']' ? -1 : 0;
		char *next = *e ? e + 1 : e;
		*e = 0;
		pr->args = xreallocarray(pr->args, pr->nargs + 1,
					 sizeof(*pr->args));
		struct usdt_arg *a = &pr->args[pr->nargs++];
		if (!known || usdt_parse_arg_arch(arch, tok, a) < 0)
			a->kind = USDT_ARG_BAD;
		a->text = xstrdup(tok);
		tok = next;
	}
	free(copy);
}

/* One note's descriptor: pc, base and semaphore addresses (words of the
 * file's class), then provider, name and argument strings. A note that is
 * malformed or points outside the file's segments is skipped. */
static void add_note(struct usdt_probes *out, const struct elf_syms *es,
		    const char *desc, size_t len, size_t word,
		    const GElf_Shdr *base_sh)
{
	uint64_t addr[3] = { 0 };
	if (len < 3 * word)
		return;
	for (int i = 0; i < 3; i++) {
		if (word == 8) {
			memcpy(&addr[i], desc + 8 * i, 8);
		} else {
			uint32_t w;
			memcpy(&w, desc + 4 * i, 4);
			addr[i] = w;
		}
	}
	const char *prov = desc + 3 * word, *end = desc + len;
	const char *name = memchr(prov, 0, (size_t)(end - prov));
	const char *args = name ? memchr(name + 1, 0, (size_t)(end - name - 1))
				: NULL;
	if (!args || !memchr(args + 1, 0, (size_t)(end - args - 1)))
		return;
	name++, args++;
	/* Prelinking moves the code but not the notes: .stapsdt.base says
	 * by how much. */
	uint64_t pc = addr[0];
	if (base_sh && addr[1])
		pc += base_sh->sh_addr - addr[1];
	struct usdt_probe pr = { 0 };
	if (elfsym_vaddr_to_off(es, pc, &pr.pc_off) ||
	    (addr[2] && elfsym_vaddr_to_off(es, addr[2], &pr.sema_off)))
		return;
	pr.provider = xstrdup(prov);
	pr.name = xstrdup(name);
	parse_args(out->known_arch, out->arch, args, &pr);
	out->probes = xreallocarray(out->probes, out->n + 1,
				    sizeof(*out->probes));
	out->probes[out->n++] = pr;
}

static int read_notes(Elf *elf, const struct elf_syms *es,
		      struct usdt_probes *out)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	size_t word = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	/* the specs are in the file's assembler syntax; a machine sonde
	 * does not know keeps its probes, each argument unreadable */
	out->known_arch = arch_of_elf_machine(eh.e_machine, &out->arch);
	Elf_Scn *scn = NULL, *notes = NULL;
	GElf_Shdr sh, base_sh;
	bool have_base = false;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!n)
			continue;
		if (!strcmp(n, ".stapsdt.base")) {
			base_sh = sh;
			have_base = true;
		} else if (!strcmp(n, ".note.stapsdt") &&
			   sh.sh_type == SHT_NOTE) {
			notes = scn;
		}
	}
	if (!notes)
		return 0;
	Elf_Data *data = elf_getdata(notes, NULL);
	if (!data)
		return -ENOEXEC;
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
		    memcmp((char *)data->d_buf + name_off, "stapsdt", 8))
			continue;
		add_note(out, es, (char *)data->d_buf + desc_off, nh.n_descsz,
			 word, have_base ? &base_sh : NULL);
	}
	return 0;
}

struct load_ctx {
	const struct elf_syms *es;
	struct usdt_probes *out;
};

static int load_cb(Elf *elf, void *ctx)
{
	struct load_ctx *l = ctx;
	return read_notes(elf, l->es, l->out);
}

int usdt_load(const char *path, const struct elf_syms *es,
	      struct usdt_probes *out)
{
	memset(out, 0, sizeof(*out));
	struct load_ctx l = { es, out };
	int err = elfsym_with_elf(path, load_cb, &l);
	if (err)
		usdt_free(out);
	return err;
}

void usdt_free(struct usdt_probes *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		struct usdt_probe *pr = &p->probes[i];
		for (uint32_t k = 0; k < pr->nargs; k++)
			free((char *)pr->args[k].text);
		free(pr->args);
		free((char *)pr->provider);
		free((char *)pr->name);
	}
	free(p->probes);
	memset(p, 0, sizeof(*p));
}
