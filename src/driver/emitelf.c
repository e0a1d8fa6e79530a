/*
 * --emit-elf FILE: the program compiled twice, with two sets of
 * stand-ins for what only the object's run knows (cpid, the start time),
 * so that where they landed in the code is found by comparing the two;
 * the first is written with those places (object/emit.c's .sonde
 * section), which objects.c's runner patches.
 */
#include "driver/emitelf.h"

#include <string.h>

#include "lang/builtins.h"
#include "model/serial.h"
#include "object/emit.h"
#include "probes/provider.h"

/* Stand-ins for the values only the object's run knows: no pid is above
 * PID_MAX_LIMIT (4194304) and no clock this far, and the two of a pair
 * differ, so that compiling with each shows where they landed. */
static const int64_t stand_in_cpid[2] = { 0x7ead0001, 0x7ead0002 };
static const uint64_t stand_in_start[2] = { 0x5eed0000deadull << 16,
					    0x5eed0000beefull << 16 };

/* Where the stand-ins of compile 0 sit in program p's code, found by
 * comparing with compile 1: each difference must be a stand-in, whole,
 * else the value was folded into something the run cannot patch. */
static int find_patches(struct arena *a, const struct cprog *p0,
			const struct cprog *p1, struct serial_prog *sp)
{
	const struct bpf_code *c0 = &p0->code, *c1 = &p1->code;
	if (c0->ninsns != c1->ninsns)
		return -1;
	sp->patches = arena_alloc(a, sizeof(*sp->patches) * (c0->ninsns + 1));
	for (uint32_t i = 0; i < c0->ninsns; i++) {
		const struct bpf_insn *x = &c0->insns[i], *y = &c1->insns[i];
		if (!memcmp(x, y, sizeof(*x)))
			continue;
		bool ld64 = x->code == (BPF_LD | BPF_IMM | BPF_DW) &&
			    i + 1 < c0->ninsns;
		struct bpf_insn xs = *x, ys = *y;
		xs.imm = ys.imm = 0;
		if (memcmp(&xs, &ys, sizeof(xs)))
			return -1;
		int64_t v0 = (uint32_t)x->imm, v1 = (uint32_t)y->imm;
		if (ld64) {
			v0 |= (int64_t)((uint64_t)(uint32_t)x[1].imm << 32);
			v1 |= (int64_t)((uint64_t)(uint32_t)y[1].imm << 32);
		} else {
			v0 = x->imm;
			v1 = y->imm;
		}
		struct serial_patch pt = { i, SERIAL_PATCH_CPID };
		if (v0 == stand_in_cpid[0] && v1 == stand_in_cpid[1])
			;
		else if (ld64 && (uint64_t)v0 == stand_in_start[0] &&
			 (uint64_t)v1 == stand_in_start[1])
			pt.kind = SERIAL_PATCH_START;
		else
			return -1;
		sp->patches[sp->npatches++] = pt;
		if (ld64)
			i++;
	}
	return 0;
}

/* The script's probe that target t belongs to. */
static uint32_t probe_of(const struct job *r, const struct probe_target *t)
{
	for (uint32_t i = 0; i < r->prog->nprobes; i++)
		if (t >= r->probes[i].targets &&
		    t < r->probes[i].targets + r->probes[i].ntargets)
			return i;
	return 0;
}

/* Fills the .sonde description of compile r[0], its stand-ins found by
 * comparing with r[1]. Returns 0, or 1 after an error. */
static int describe(struct job *r, const struct options *o,
		    struct serial_object *so)
{
	const struct compiled *c = &r[0].compiled;
	so->c = *c;
	so->uses_cpid = o->cmd != NULL;
	so->ngroups = r[0].prog->nprobes;
	so->groups = arena_alloc(&r[0].arena, sizeof(*so->groups) *
						      (so->ngroups + 1));
	for (uint32_t i = 0; i < so->ngroups; i++) {
		const struct ast_probe *ap = &r[0].prog->probes[i];
		so->groups[i] = (struct serial_group){
			ap->attach, ap->nattach,
			ast_probe_uses_builtin(ap, BI_ARGS) };
	}
	so->progs = arena_alloc(&r[0].arena, sizeof(*so->progs) *
						     (c->nprogs + 1));
	if (r[1].compiled.nprogs != c->nprogs)
		return 1;
	for (uint32_t i = 0; i < c->nprogs; i++) {
		const struct cprog *p = &c->progs[i];
		struct serial_prog *sp = &so->progs[i];
		if (p->targets->prov->not_emittable) {
			fprintf(stderr, "sonde: --emit-elf cannot carry %s "
				"probes (%s): their programs depend on this "
				"machine or run: %s\n", p->targets->prov->name,
				p->name, p->targets->prov->not_emittable);
			return 1;
		}
		sp->group = probe_of(&r[0], p->targets);
		sp->context = probe_target_hash(p->targets);
		if (find_patches(&r[0].arena, p, &r[1].compiled.progs[i],
				 sp) < 0) {
			fprintf(stderr, "sonde: --emit-elf: the program for %s "
				"computes with cpid or the start time at "
				"compile time, which the object cannot carry\n",
				p->name);
			return 1;
		}
	}
	return 0;
}

/* --emit-elf FILE: compiles twice, with two sets of stand-ins for cpid
 * and the start time, and writes the first with where they are. */
int emitelf_write(const struct options *o, const struct src_file *f,
			struct diag *diag)
{
	if (o->pid || o->out_path || o->format || o->verify || o->dry_run ||
	    o->dump || o->object || o->folded || o->flamegraph ||
	    o->pprof || o->heatmap || o->heatmap_svg || o->metrics) {
		fputs("sonde: --emit-elf only compiles: -p, -o, -f, --verify, "
		      "--dry-run, -d, --object and the output options belong "
		      "to the run (sonde --object FILE ...)\n", stderr);
		return 1;
	}
	struct job r[2];
	memset(r, 0, sizeof(r));
	struct diag quiet;
	FILE *devnull = fopen("/dev/null", "w");
	diag_init(&quiet, devnull ? devnull : stderr);
	quiet.no_warnings = true;
	int rc = 0;
	for (int k = 0; k < 2 && !rc; k++) {
		arena_init(&r[k].arena);
		r[k].child.pid = 1; /* -c: a stand-in, nothing runs */
		r[k].stand_ins = true;
		r[k].stand_in_cpid = o->cmd ? stand_in_cpid[k] : 0;
		r[k].stand_in_start = stand_in_start[k];
		rc = frontend_run(&r[k], o, f, k ? &quiet : diag, FE_STOP_CODE);
	}
	struct serial_object so;
	memset(&so, 0, sizeof(so));
	if (!rc)
		rc = describe(r, o, &so);
	char why[300];
	if (!rc && emit_elf(o->emit_elf, &so, why, sizeof(why)) < 0) {
		fprintf(stderr, "sonde: --emit-elf: %s\n", why);
		rc = 1;
	}
	for (int k = 1; k >= 0; k--)
		job_release(&r[k]);
	if (devnull)
		fclose(devnull);
	return rc;
}

