/*
 * Objects --emit-elf wrote, read back and resolved (object/emitted.h).
 * The ELF is read with libelf; every offset and index in it is checked,
 * and the code of each program against the CRC .sonde recorded, so that
 * a damaged file is refused rather than run.
 */
#include "object/emitted.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "kernel/arch.h"
#include "model/compiled.h"
#include "model/serial.h"
#include "object/emit.h"
#include "probes/provider.h"
#include "util/arena.h"
#include "util/diag.h"

struct elf_in {
	int fd;
	Elf *elf;
	size_t shstrndx;
	Elf_Scn *symtab;
	size_t strtab;
};

static void elf_in_close(struct elf_in *e)
{
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
}

static int elf_in_open(struct elf_in *e, const char *path)
{
	memset(e, 0, sizeof(*e));
	e->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	e->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0)
		return -errno;
	e->elf = elf_begin(e->fd, ELF_C_READ, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF ||
	    elf_getshdrstrndx(e->elf, &e->shstrndx))
		return -ENOEXEC;
	return 0;
}

/* The section named name, or NULL. */
static Elf_Scn *find_scn(struct elf_in *e, const char *name)
{
	Elf_Scn *s = NULL;
	while ((s = elf_nextscn(e->elf, s))) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(s, &sh) &&
		    (n = elf_strptr(e->elf, e->shstrndx, sh.sh_name)) &&
		    !strcmp(n, name))
			return s;
	}
	return NULL;
}

int emitted_detect(const char *path)
{
	struct elf_in e;
	int err = elf_in_open(&e, path);
	int rc = err == -ENOEXEC ? 0 : err;
	if (!err)
		rc = find_scn(&e, ".sonde") != NULL;
	elf_in_close(&e);
	return rc;
}

static int bad(FILE *err, const char *path, const char *what)
{
	fprintf(err, "sonde: cannot run %s: %s\n", path, what);
	return -EBADMSG;
}

/* The map a relocation's symbol names: maps are found by the symbol
 * names emit gave them (a shared map's code uses its host's). */
static int32_t reloc_map(struct elf_in *e, const struct compiled *c,
			 uint32_t symi)
{
	Elf_Data *d = elf_getdata(e->symtab, NULL);
	GElf_Sym sym;
	const char *name;
	if (!d || !gelf_getsym(d, (int)symi, &sym) ||
	    !(name = elf_strptr(e->elf, e->strtab, sym.st_name)))
		return -1;
	for (uint32_t i = 0; i < c->nmaps; i++) {
		char s[16];
		emit_map_symbol(i, c->maps[i].name, s);
		if (!c->maps[i].shared && !strcmp(s, name))
			return (int32_t)i;
	}
	return -1;
}

/* Program i's code and relocations, from its section and .rel section. */
static int read_prog(struct arena *a, struct elf_in *e, struct compiled *c,
		     uint32_t i, const struct serial_prog *sp)
{
	struct cprog *p = &c->progs[i];
	Elf_Scn *s = find_scn(e, sp->section);
	Elf_Data *d = s ? elf_getdata(s, NULL) : NULL;
	size_t bytes = 8ull * p->code.ninsns;
	if (!d || !d->d_buf || sp->offset > d->d_size ||
	    bytes > d->d_size - sp->offset)
		return -EBADMSG;
	struct bpf_insn *ins = arena_alloc(a, bytes);
	memcpy(ins, (const char *)d->d_buf + sp->offset, bytes);
	if (serial_crc(0, ins, bytes) != sp->code_crc)
		return -EBADMSG;
	p->code.insns = ins;
	uint32_t want = 0;
	for (uint32_t k = 0; k + 1 < p->code.ninsns; k++)
		if (ins[k].code == (BPF_LD | BPF_IMM | BPF_DW) &&
		    ins[k++].src_reg)
			want++;
	p->code.relocs = arena_alloc(a, sizeof(struct map_reloc) *
						(want + 1));
	char rn[600];
	snprintf(rn, sizeof(rn), ".rel%s", sp->section);
	Elf_Scn *rs = want ? find_scn(e, rn) : NULL;
	Elf_Data *rd = rs ? elf_getdata(rs, NULL) : NULL;
	if (want && !rd)
		return -EBADMSG;
	size_t nrel = rd ? rd->d_size / sizeof(Elf64_Rel) : 0;
	for (size_t r = 0; r < nrel; r++) {
		GElf_Rel rel;
		if (!gelf_getrel(rd, (int)r, &rel))
			return -EBADMSG;
		if (rel.r_offset < sp->offset ||
		    rel.r_offset - sp->offset >= bytes)
			continue; /* another program's */
		uint64_t at = rel.r_offset - sp->offset;
		uint32_t k = (uint32_t)(at / 8);
		int32_t m = reloc_map(e, c, (uint32_t)GELF_R_SYM(rel.r_info));
		if (at % 8 || k + 1 >= p->code.ninsns || m < 0 ||
		    ins[k].code != (BPF_LD | BPF_IMM | BPF_DW) ||
		    !ins[k].src_reg || p->code.nrelocs == want)
			return -EBADMSG;
		/* back from libbpf's encoding (emit.c) to the loader's */
		if (ins[k].src_reg == BPF_PSEUDO_MAP_VALUE)
			ins[k + 1].imm = ins[k].imm;
		ins[k].imm = 0;
		p->code.relocs[p->code.nrelocs++] =
			(struct map_reloc){ k, (uint32_t)m };
	}
	return p->code.nrelocs == want ? 0 : -EBADMSG;
}

int emitted_open(struct arena *a, const char *path, struct serial_object *o,
		 FILE *err)
{
	struct elf_in e;
	int rc = elf_in_open(&e, path);
	if (rc < 0) {
		fprintf(err, "sonde: cannot read %s: %s\n", path,
			rc == -ENOEXEC ? "not an ELF file" : strerror(-rc));
		elf_in_close(&e);
		return rc;
	}
	Elf_Scn *ss = find_scn(&e, ".sonde");
	Elf_Data *d = ss ? elf_getdata(ss, NULL) : NULL;
	char why[200];
	if (!d || !d->d_buf) {
		rc = bad(err, path, "its .sonde section cannot be read");
		goto out;
	}
	rc = serial_read(a, d->d_buf, d->d_size, o, why, sizeof(why));
	if (rc < 0) {
		bad(err, path, why);
		goto out;
	}
	/* (an object without the section is from before sonde ran on
	 * aarch64: x86_64's, which is all it could be then) */
	Elf_Scn *as = find_scn(&e, ".sonde.arch");
	Elf_Data *ad = as ? elf_getdata(as, NULL) : NULL;
	const char *here = arch_name(arch_build());
	const char *built = ad && ad->d_buf && ad->d_size &&
				    memchr(ad->d_buf, 0, ad->d_size) ?
			    ad->d_buf : as ? NULL : "x86_64";
	if (!built || strcmp(built, here)) {
		snprintf(why, sizeof(why), "it was compiled for %s, and this "
			 "sonde runs %s programs (their registers and syscall "
			 "numbers differ): emit it again with a sonde for %s",
			 built ? built : "an unknown machine", here, here);
		rc = bad(err, path, why);
		goto out;
	}
	GElf_Shdr sh;
	e.symtab = find_scn(&e, ".symtab");
	if (!e.symtab || !gelf_getshdr(e.symtab, &sh)) {
		rc = bad(err, path, "it has no symbol table");
		goto out;
	}
	e.strtab = sh.sh_link;
	for (uint32_t i = 0; i < o->c.nprogs; i++) {
		rc = read_prog(a, &e, &o->c, i, &o->progs[i]);
		if (rc < 0) {
			snprintf(why, sizeof(why), "the code of the program "
				 "for %s is damaged (section %s, its "
				 "relocations or checksum)", o->c.progs[i].name,
				 o->progs[i].section);
			bad(err, path, why);
			goto out;
		}
	}
out:
	elf_in_close(&e);
	return rc;
}

/* Patches the values only known now into program p's code. */
static int patch(struct cprog *p, const struct serial_prog *sp,
		 const struct emitted_env *env, FILE *err)
{
	struct bpf_insn *ins = p->code.insns;
	for (uint32_t i = 0; i < sp->npatches; i++) {
		struct bpf_insn *in = &ins[sp->patches[i].insn];
		bool ld64 = in->code == (BPF_LD | BPF_IMM | BPF_DW);
		if (ld64 && in->src_reg) {
			fprintf(err, "sonde: the object's program for %s is "
				"damaged (a patch on a map load)\n", p->name);
			return -1;
		}
		if (sp->patches[i].kind == SERIAL_PATCH_START) {
			if (!ld64) {
				fprintf(err, "sonde: the object's program for "
					"%s is damaged (a misplaced patch)\n",
					p->name);
				return -1;
			}
			in[0].imm = (int32_t)(uint32_t)env->start_ns;
			in[1].imm = (int32_t)(uint32_t)(env->start_ns >> 32);
			continue;
		}
		if (!env->cpid) {
			fprintf(err, "sonde: the program for %s uses cpid: run "
				"the object with -c CMD\n", p->name);
			return -1;
		}
		in->imm = env->cpid;
		if (ld64)
			in[1].imm = 0;
	}
	return 0;
}

/* Expands group g's attach points and matches its programs to them. */
static int resolve_group(struct probe_env *pe, struct serial_object *o,
			 uint32_t g, FILE *err)
{
	const struct serial_group *grp = &o->groups[g];
	struct probe_target *t = NULL;
	uint32_t n = 0, k = 0;
	pe->want_args = grp->want_args;
	if (probe_expand_probe(pe, grp->attach, grp->nattach, &t, &n) < 0)
		return -1;
	for (uint32_t i = 0; i < o->c.nprogs; i++) {
		struct cprog *p = &o->c.progs[i];
		if (o->progs[i].group != g)
			continue;
		const struct probe_target *nt = k < n ? &t[k] : NULL;
		k++;
		if (!nt || strcmp(nt->name, p->name)) {
			diag_error(pe->diag, grp->attach[0].span,
				   "this probe now reaches %s where the object "
				   "was compiled for %s: emit it again here",
				   nt ? nt->name : "fewer targets", p->name);
			return -1;
		}
		/* compiled as tp_btf (socket_cookie()): so here too */
		if (p->type == BPF_PROG_TYPE_TRACING && !nt->prog_type)
			probe_rawtp_as_tp_btf(&t[k - 1]);
		enum bpf_prog_type type = nt->prog_type ? nt->prog_type :
							  nt->prov->prog_type;
		if (probe_target_hash(nt) != o->progs[i].context ||
		    type != p->type ||
		    nt->attach_type != p->expected_attach_type) {
			diag_error(pe->diag, grp->attach[0].span,
				   "%s has another context here (arguments or "
				   "program type) than where the object was "
				   "compiled: emit it again here", p->name);
			return -1;
		}
		p->targets = nt;
		p->ntargets = 1;
		p->attach_btf_id = nt->btf_id;
		p->attach_btf_obj_fd = nt->btf_obj_fd;
	}
	if (k != n) {
		diag_error(pe->diag, grp->attach[0].span,
			   "this probe now reaches %u targets where the "
			   "object was compiled for %u: emit it again here",
			   n, k);
		return -1;
	}
	return 0;
}

int emitted_resolve(struct arena *a, struct serial_object *o,
		    const struct emitted_env *env, FILE *err)
{
	struct diag d;
	diag_init(&d, err);
	struct probe_env pe = { .arena = a, .diag = &d, .pid = env->pid,
				.cpid = env->cpid, .cmd = env->cmd };
	for (uint32_t g = 0; g < o->ngroups; g++)
		if (resolve_group(&pe, o, g, err) < 0)
			return -1;
	for (uint32_t i = 0; i < o->c.nprogs; i++)
		if (!o->c.progs[i].targets ||
		    patch(&o->c.progs[i], &o->progs[i], env, err) < 0) {
			if (!o->c.progs[i].targets)
				fprintf(err, "sonde: the object's program for "
					"%s belongs to no probe\n",
					o->c.progs[i].name);
			return -1;
		}
	return 0;
}
