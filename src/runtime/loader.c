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
#include "runtime/mapdump.h"
#include "runtime/funcinfo.h"
#include "runtime/loader.h"
#include "runtime/refusal.h"
#include "util/diag.h"
#include "util/errstr.h"


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

/* The kernel refused to create map m (err): located where its size was
 * set (cmap.at; a script's map only), with the size it was asked for,
 * since that is most often why (E2BIG, ENOMEM). Returns err. */
static int map_refused(const struct cmap *m, int err,
		       const struct loader_opts *o)
{
	struct diag d;
	diag_init(&d, o->err);
	diag_error(&d, m->at, "cannot create map %s: %s", m->name,
		   err_str(-err));
	/* an undeclared hash is as big as max_map_keys makes it, from the
	 * config block or the environment */
	bool keys_max = !m->declared && m->max_entries == limits.map_keys_max &&
			(m->type == BPF_MAP_TYPE_HASH ||
			 m->type == BPF_MAP_TYPE_PERCPU_HASH);
	if (m->is_user)
		diag_report(&d, "HINT", (struct span){ 0 }, "%s has %u entries"
			    "%s of %u-byte keys and %u-byte values%s", m->name,
			    m->max_entries, keys_max ? " (max_map_keys)" : "",
			    m->key_size, m->value_size,
			    m->percpu ? ", one value per CPU" : "");
	return err;
}

static int create_maps(struct loader *l, const struct loader_opts *o)
{
	const struct compiled *c = l->c;
	for (uint32_t i = 0; i < c->nmaps; i++) {
		const struct cmap *m = &c->maps[i];
		if (m->shared)
			continue; /* after its host, below */
		char name[BPF_OBJ_NAME_LEN];
		obj_name(name, m->name);
		LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = m->flags);
		int fd = bpf_map_create(m->type, name, m->key_size,
					m->value_size, m->max_entries, &mo);
		if (fd < 0)
			return map_refused(m, -errno, o);
		l->map_fds[i] = fd;
	}
	for (uint32_t i = 0; i < c->nmaps; i++) {
		const struct cmap *m = &c->maps[i];
		if (!m->shared)
			continue;
		int fd = m->host < c->nmaps ? dup(l->map_fds[m->host]) : -1;
		if (fd < 0) {
			int err = m->host < c->nmaps ? -errno : -EINVAL;
			fprintf(o->err, "sonde: cannot create map %s: %s\n",
				m->name, err_str(-err));
			return err;
		}
		l->map_fds[i] = fd;
	}
	return 0;
}

/* The verifier's reason for refusing a program: it is loaded again with
 * a log of its errors and statistics (not every state it visits, which
 * for a big program filled any buffer and lost the reason at its end on
 * kernels that do not keep the last bytes). The first load has no log,
 * for speed. Returns the log (to free), or NULL. */
static char *refusal_log(const struct cprog *p, const char *name,
			 const struct bpf_insn *insns,
			 struct bpf_prog_load_opts *lo)
{
	enum { SIZE = 1 << 20, BPF_LOG_STATS = 4 };
	char *log = malloc(SIZE);
	if (!log)
		return NULL;
	log[0] = '\0';
	lo->log_buf = log;
	lo->log_size = SIZE;
	lo->log_level = BPF_LOG_STATS;
	int fd = bpf_prog_load(p->type, name, limits.license, insns,
			       p->code.ninsns, lo);
	if (fd >= 0)
		close(fd);
	lo->log_buf = NULL;
	lo->log_size = 0;
	lo->log_level = 0;
	return log;
}

/* A load under -v that failed as its verifier log filled (ENOSPC), or
 * was too small for the kernel to take (EINVAL): said
 * in bpftrace 0.26's words, the program named as 0.26 names it (the
 * probe's name made a BPF name, and its number from 1). */
static void log_trimmed(FILE *out, const struct cprog *p, uint32_t i,
			int err, const char *log)
{
	char name[256];
	snprintf(name, sizeof(name), "%s", p->name);
	for (char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			*c = '_';
	fprintf(out, "ERROR: Error loading BPF program for %s_%u. Error code: "
		"%d.\nKernel error log: \n%s\n", name, i + 1, err, log);
	/* 0.26's is_log_trimmed: the statistics line did not fit */
	const char *pr = strstr(log, "processed");
	if (!pr || !strstr(pr, "insns"))
		fprintf(out, "WARNING: Kernel log seems to be trimmed. This may "
			"be due to buffer not being big enough, try increasing "
			"the BPFTRACE_LOG_SIZE environment variable beyond the "
			"current value of %u bytes\n", limits.log_size);
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
	struct funcinfo fi;
	int ferr = funcinfo_prepare(&fi, insns, p->code.ninsns, &lo);
	if (ferr < 0) {
		free(insns);
		fprintf(o->err, "sonde: cannot load the BTF of the functions "
			"of the program for %s: %s\n", p->name, err_str(-ferr));
		return ferr;
	}
	/* No log on the first try: the kernel verifies faster without;
	 * under -v the log of BPFTRACE_LOG_SIZE bytes, as bpftrace 0.26
	 * loads with it (one too small fails the load with ENOSPC) */
	if (o->verbose && log) {
		lo.log_buf = log;
		lo.log_size = limits.log_size;
		lo.log_level = 1;
		log[0] = '\0';
	}
	int fd = bpf_prog_load(p->type, name, limits.license, insns, p->code.ninsns,
			       &lo);
	int err = fd < 0 ? -errno : 0;
	lo.log_buf = NULL;
	lo.log_size = 0;
	lo.log_level = 0;
	/* (kernels before 6.4 refuse a log under 128 bytes: EINVAL, before
	 * the verifier runs, and bpftrace 0.26 says that the same way) */
	bool log_short = err == -ENOSPC ||
			 (err == -EINVAL && limits.log_size < 128 && log &&
			  !log[0]);
	if (fd < 0 && log_short && o->verbose && log) {
		log_trimmed(o->err, p, i, err, log);
	} else if (fd < 0) {
		if (p->type == BPF_PROG_TYPE_TRACING &&
		    !feat_has(FEAT_FENTRY)) {
			/* Not our bug: the kernel takes no fentry at all. */
			fprintf(o->err,
				"sonde: cannot load the program for %s: %s\n",
				p->name, feat_reason(FEAT_FENTRY));
		} else {
			char *why = refusal_log(p, name, insns, &lo);
			refusal_report(o->err, p, err, why);
			free(why);
		}
		if (o->verbose && log) {
			lo.log_buf = log;
			lo.log_size = limits.log_size;
			lo.log_level = 1;
			log[0] = '\0';
			int fd2 = bpf_prog_load(p->type, name, limits.license, insns,
						p->code.ninsns, &lo);
			if (fd2 >= 0)
				close(fd2);
			fprintf(o->err, "%s\n", log);
		}
	} else {
		l->prog_fds[i] = fd;
	}
	funcinfo_free(&fi);
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

uint64_t loader_counter_read_at(int fd, uint32_t off)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info), zero = 0;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.value_size < off + 8)
		return 0;
	uint8_t *v = calloc(1, info.value_size);
	uint64_t n = 0;
	if (v && !bpf_map_lookup_elem(fd, &zero, v))
		memcpy(&n, v + off, 8);
	free(v);
	return n;
}

uint64_t loader_counter_read(int fd)
{
	uint64_t v = 0;
	uint32_t zero = 0;
	if (bpf_map_lookup_elem(fd, &zero, &v))
		return 0;
	return v;
}

struct mapdump_map *loader_user_maps(const struct loader *l, size_t *n)
{
	const struct compiled *c = l->c;
	struct mapdump_map *m = calloc(c->nmaps + 1, sizeof(*m));
	*n = 0;
	if (!m)
		return NULL;
	for (uint32_t i = 0; i < c->nmaps; i++)
		if (c->maps[i].is_user)
			m[(*n)++] = mapdump_map_of(c, l->map_fds, i);
	return m;
}
