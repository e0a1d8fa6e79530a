/* iter:NAME[:PIN] (alias it): a BPF iterator (BPF_PROG_TYPE_TRACING,
 * BPF_TRACE_ITER at the kernel's bpf_iter_NAME), run over every object
 * of its kind (task, task_file, task_vma ...) when the iterator made from
 * its link is read. ctx points to the kernel's struct bpf_iter__NAME
 * (ctx.task, ctx.file ...); printf writes into the iterator's seq_file,
 * whose text the runtime copies to the output, as bpftrace 0.26 does.
 * With PIN the link is pinned there (under /sys/fs/bpf unless absolute)
 * instead of read. */
#include <errno.h>
#include <linux/btf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "kernel/btf.h"
#include "kernel/features.h"
#include "kernel/glob.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

#define PREFIX "bpf_iter__"
#define SAFE_SUFFIX "__safe_trusted"

/* Whether BTF type t is a struct bpf_iter__NAME the kernel has an
 * iterator for (not one of the verifier's __safe_trusted twins); *name
 * gets NAME. */
static bool iter_struct(const struct btf *b, const struct btf_type *t,
			const char **name)
{
	if (!btf_is_struct(t))
		return false;
	const char *n = btf__name_by_offset(b, t->name_off);
	if (!n || strncmp(n, PREFIX, strlen(PREFIX)))
		return false;
	size_t len = strlen(n), sl = strlen(SAFE_SUFFIX);
	if (len >= sl && !strcmp(n + len - sl, SAFE_SUFFIX))
		return false;
	*name = n + strlen(PREFIX);
	return true;
}

static int expand(struct probe_env *env, const struct attach_point *a,
		  struct probe_target **out, uint32_t *n)
{
	/* bpftrace 0.26's words */
	if (a->nparts != 1 && a->nparts != 2) {
		diag_error(env->diag, a->span, "iter probe type takes 2 "
			   "arguments (1 optional)");
		return -1;
	}
	for (uint32_t i = 0; i < a->nparts; i++)
		if (glob_has_wildcard(a->parts[i])) {
			diag_error(env->diag, a->span, "iter probe type does "
				   "not support wildcards");
			return -1;
		}
	const char *name = a->parts[0];
	if (!name[0]) {
		diag_error(env->diag, a->span, "iter should specify a "
			   "iterator's name");
		return -1;
	}
	int err = kbtf_load();
	if (err) {
		diag_error(env->diag, a->span, "iter probes need kernel BTF, "
			   "which cannot be read: %s", strerror(-err));
		return -1;
	}
	char *rec = arena_printf(env->arena, "struct " PREFIX "%s", name);
	const struct type *ctx = kbtf_type_by_name(env->arena, rec);
	struct btf *vml = kbtf_vmlinux();
	int32_t id = vml ? btf__find_by_name_kind(
				   vml, arena_printf(env->arena, "bpf_iter_%s",
						     name), BTF_KIND_FUNC) :
			   -ENOENT;
	if (!ctx || id <= 0) {
		diag_error(env->diag, a->span, "iter %s not available for your "
			   "kernel version.", name);
		return -1;
	}
	if (probe_refuse(env, a, FEAT_ITER, "a tracepoint"))
		return -1;
	struct probe_target *t = probe_target_add(env->arena, out, n);
	t->prov = probe_provider("iter");
	t->name = a->nparts == 2 ?
		arena_printf(env->arena, "iter:%s:%s", name, a->parts[1]) :
		arena_printf(env->arena, "iter:%s", name);
	t->args = ctx;
	t->layout = CTXL_ITER;
	t->features = CTX_KERNEL;
	t->prog_type = BPF_PROG_TYPE_TRACING;
	t->attach_type = BPF_TRACE_ITER;
	t->btf_id = (uint32_t)id;
	t->u.iter.pin = a->nparts == 2 ? a->parts[1] : NULL;
	return 0;
}

static int attach(const struct probe_target *t, int prog_fd,
		  struct probe_attachment *att)
{
	int fd = bpf_link_create(prog_fd, 0, BPF_TRACE_ITER, NULL);
	if (fd < 0)
		return -errno;
	return probe_att_push(att, fd);
}

static int iterate(const struct probe_target *t, struct probe_attachment *att,
		   FILE *out)
{
	if (!att->nfds)
		return -ENOENT;
	int link = att->fds[0];
	if (t->u.iter.pin) {
		const char *pin = t->u.iter.pin;
		char path[4096];
		if (pin[0] != '/') {
			snprintf(path, sizeof(path), "/sys/fs/bpf/%s", pin);
			pin = path;
		}
		if (bpf_obj_pin(link, pin)) {
			int err = -errno;
			fprintf(stderr, "ERROR: Failed to pin iter probe link "
				"at %s: %s%s\n", pin, strerror(-err),
				err == -ENOENT || err == -EPERM ?
				" (no BPF file system there? mount one: "
				"mount -t bpf bpf /sys/fs/bpf)" : "");
			return err;
		}
		fprintf(out, "Program pinned to %s\n", pin);
		return 0;
	}
	int fd = bpf_iter_create(link);
	if (fd < 0) {
		int err = -errno;
		fprintf(stderr, "ERROR: Failed to open iter probe link: %s\n",
			strerror(-err));
		return err;
	}
	char buf[4096];
	ssize_t len;
	int err = 0;
	while ((len = read(fd, buf, sizeof(buf))) != 0) {
		if (len < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (fwrite(buf, 1, (size_t)len, out) != (size_t)len) {
			err = -EIO;
			break;
		}
	}
	close(fd);
	if (err)
		fprintf(stderr, "ERROR: Failed to read iter probe %s: %s\n",
			t->name, strerror(-err));
	return err;
}

struct list_ctx {
	const char *pattern;
	bool verbose;
	FILE *out;
};

/* -lv: the iterator's fields, as 0.26 prints them: the parameters of the
 * kernel's bpf_iter_NAME but its first (meta) */
static void list_fields(const char *name, FILE *out)
{
	struct arena a;
	arena_init(&a);
	struct kbtf_func f;
	if (!kbtf_func_ctypes(&a, arena_printf(&a, "bpf_iter_%s", name),
			      false, &f))
		for (uint32_t i = 1; i < f.nparams; i++)
			fprintf(out, "    %s %s\n", f.params[i].ctype,
				f.params[i].name);
	arena_release(&a);
}

static int list_object(const struct btf *b, uint32_t first_id,
		       const char *module, void *ctx_)
{
	struct list_ctx *c = ctx_;
	uint32_t n = btf__type_cnt(b);
	for (uint32_t id = first_id; id < n; id++) {
		const char *name;
		if (!iter_struct(b, btf__type_by_id(b, id), &name))
			continue;
		char full[256];
		snprintf(full, sizeof(full), "iter:%s", name);
		if (!glob_match(c->pattern, full))
			continue;
		fprintf(c->out, "%s\n", full);
		if (c->verbose)
			list_fields(name, c->out);
	}
	return 0;
}

/* -l 'iter:*': the iterators the kernel's BTF describes, as 0.26 lists
 * them (where it can load one: here, where iter programs load at all) */
static int list(const char *pattern, bool verbose, FILE *out)
{
	if (!feat_has(FEAT_ITER))
		return -EOPNOTSUPP;
	struct list_ctx c = { pattern, verbose, out };
	return kbtf_each_object(list_object, &c);
}

const struct provider probe_iter_prov = {
	.name = "iter",
	.aliases = (const char *const[]){ "it", NULL },
	.prog_type = BPF_PROG_TYPE_TRACING,
	.expand = expand,
	.per_target_program = true,
	.attach = attach,
	.iterate = iterate,
	.attach_reversed = true,
	.not_emittable = "an iterator's program is read, not attached to "
			 "events, which --object does not do",
	.list = list,
};
