/* Maps, relocations and bpf_prog_load(). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/compiled.h"
#include "model/limits.h"
#include "kernel/features.h"
#include "runtime/loader.h"


static FILE *libbpf_out;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	(void)level;
	return libbpf_out ? vfprintf(libbpf_out, fmt, ap) : 0;
}

void loader_libbpf_quiet(bool verbose, FILE *err)
{
	libbpf_out = verbose ? err : NULL;
	libbpf_set_print(libbpf_print);
}

/* Kernel object names: at most 15 of [A-Za-z0-9_.]. "@x" becomes "AT_x"
 * as in bpftrace, so bpftool shows which map is which. */
static void obj_name(char out[BPF_OBJ_NAME_LEN], const char *name)
{
	size_t o = 0;
	if (name && name[0] == '@') {
		memcpy(out, "AT_", 3);
		o = 3;
		name++;
	}
	for (; name && *name && o < BPF_OBJ_NAME_LEN - 1; name++)
		out[o++] = (isalnum((unsigned char)*name) || *name == '.') ?
				   *name :
				   '_';
	out[o] = '\0';
}

static int create_maps(struct loader *l, const struct loader_opts *o)
{
	const struct compiled *c = l->c;
	for (uint32_t i = 0; i < c->nmaps; i++) {
		const struct cmap *m = &c->maps[i];
		char name[BPF_OBJ_NAME_LEN];
		obj_name(name, m->name);
		LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = m->flags);
		int fd = bpf_map_create(m->type, name, m->key_size,
					m->value_size, m->max_entries, &mo);
		if (fd < 0) {
			int err = -errno;
			fprintf(o->err, "sonde: cannot create map %s: %s\n",
				m->name, strerror(-err));
			return err;
		}
		l->map_fds[i] = fd;
	}
	return 0;
}

static int load_prog(struct loader *l, uint32_t i, char *log,
		     const struct loader_opts *o)
{
	const struct cprog *p = &l->c->progs[i];
	size_t bytes = sizeof(*p->code.insns) * p->code.ninsns;
	struct bpf_insn *insns = malloc(bytes ? bytes : 1);
	if (!insns)
		return -ENOMEM;
	memcpy(insns, p->code.insns, bytes);
	for (uint32_t r = 0; r < p->code.nrelocs; r++) {
		const struct map_reloc *rel = &p->code.relocs[r];
		if (rel->insn >= p->code.ninsns || rel->map_idx >= l->c->nmaps) {
			free(insns);
			fprintf(o->err, "sonde: internal error: bad map "
					"relocation in the program for %s\n",
				p->name);
			return -EINVAL;
		}
		insns[rel->insn].imm = l->map_fds[rel->map_idx];
	}
	char name[BPF_OBJ_NAME_LEN];
	obj_name(name, p->name);
	LIBBPF_OPTS(bpf_prog_load_opts, lo,
		    .expected_attach_type = p->expected_attach_type,
		    .attach_btf_id = p->attach_btf_id,
		    .attach_btf_obj_fd = p->attach_btf_obj_fd);
	/* No log on the first try: the kernel verifies faster without. */
	int fd = bpf_prog_load(p->type, name, "GPL", insns, p->code.ninsns,
			       &lo);
	int err = fd < 0 ? -errno : 0;
	if (fd < 0) {
		/* EINVAL/EACCES come from the verifier: always our bug. */
		if (err == -EINVAL || err == -EACCES)
			fprintf(o->err,
				"sonde: internal error: the kernel verifier "
				"rejected the program for %s\n",
				p->name);
		else if (p->type == BPF_PROG_TYPE_TRACING &&
			 !feat_has(FEAT_FENTRY))
			/* Not our bug: the kernel takes no fentry at all. */
			fprintf(o->err,
				"sonde: cannot load the program for %s: %s\n",
				p->name, feat_reason(FEAT_FENTRY));
		else
			fprintf(o->err,
				"sonde: cannot load the program for %s: %s\n",
				p->name, strerror(-err));
		if (o->verbose && log) {
			lo.log_buf = log;
			lo.log_size = limits.log_size;
			lo.log_level = 1;
			log[0] = '\0';
			int fd2 = bpf_prog_load(p->type, name, "GPL", insns,
						p->code.ninsns, &lo);
			if (fd2 >= 0)
				close(fd2);
			fprintf(o->err, "%s\n", log);
		}
	} else {
		l->prog_fds[i] = fd;
	}
	free(insns);
	return err;
}

int loader_load(struct loader *l, const struct compiled *c,
		const struct loader_opts *o)
{
	memset(l, 0, sizeof(*l));
	l->c = c;
	l->map_fds = malloc(sizeof(int) * (c->nmaps + 1));
	l->prog_fds = malloc(sizeof(int) * (c->nprogs + 1));
	if (!l->map_fds || !l->prog_fds) {
		free(l->map_fds);
		free(l->prog_fds);
		l->map_fds = l->prog_fds = NULL;
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < c->nmaps; i++)
		l->map_fds[i] = -1;
	for (uint32_t i = 0; i < c->nprogs; i++)
		l->prog_fds[i] = -1;
	int err = create_maps(l, o);
	if (err)
		return err;
	char *log = o->verbose ? malloc(limits.log_size) : NULL;
	for (uint32_t i = 0; i < c->nprogs && !err; i++)
		err = load_prog(l, i, log, o);
	free(log);
	return err;
}

void loader_close(struct loader *l)
{
	if (!l->c)
		return;
	for (uint32_t i = l->c->nprogs; l->prog_fds && i-- > 0;)
		if (l->prog_fds[i] >= 0)
			close(l->prog_fds[i]);
	for (uint32_t i = l->c->nmaps; l->map_fds && i-- > 0;)
		if (l->map_fds[i] >= 0)
			close(l->map_fds[i]);
	free(l->prog_fds);
	free(l->map_fds);
	memset(l, 0, sizeof(*l));
}

uint64_t loader_counter_read(int fd)
{
	uint64_t v = 0;
	uint32_t zero = 0;
	if (bpf_map_lookup_elem(fd, &zero, &v))
		return 0;
	return v;
}
