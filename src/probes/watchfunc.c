/* watchpoint:FUNC+argN:LEN:MODE and asyncwatchpoint:...: watch the memory
 * an argument of a function of the traced process points to, built as
 * bpftrace builds it. A uprobe on FUNC runs a small setup program of our
 * own that hands argN to user space through a ring buffer and, unless
 * async, stops the tracee (bpf_send_signal(SIGSTOP)); user space then arms
 * a hardware breakpoint on that address in that process, attaches the
 * script's program to it, and lets the tracee continue (SIGCONT). One
 * address is watched once per probe; when the CPU's debug registers are
 * all taken, the message says so, as bpftrace's does. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/elfsym.h"
#include "kernel/glob.h"
#include "kernel/perf.h"
#include "kernel/regs.h"
#include "kernel/usrpath.h"
#include "probes/impl.h"
#include "util/arena.h"
#include "util/diag.h"

/* The program file of the traced process: -p's executable, or -c's
 * command (its first word, found on $PATH as the shell would). */
static const char *traced_file(struct probe_env *env,
			       const struct attach_point *a)
{
	if (env->pid > 0)
		return arena_printf(env->arena, "/proc/%d/exe", env->pid);
	if (!env->cmd) {
		diag_error(env->diag, a->span, "%s:FUNCTION+argN watches "
			   "memory of one process: use -p PID or -c CMD",
			   a->provider);
		return NULL;
	}
	char word[PATH_MAX], path[PATH_MAX];
	size_t n = strcspn(env->cmd + strspn(env->cmd, " "), " ");
	snprintf(word, sizeof(word), "%.*s", (int)n,
		 env->cmd + strspn(env->cmd, " "));
	if (strchr(word, '/'))
		return arena_strdup(env->arena, word);
	const char *p = getenv("PATH");
	char *dirs = strdup(p ? p : "/usr/bin:/bin"), *save = NULL;
	const char *found = NULL;
	for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		if (snprintf(path, sizeof(path), "%s/%s", d, word) <
			    (int)sizeof(path) &&
		    !access(path, X_OK))
			found = arena_strdup(env->arena, path);
	}
	free(dirs);
	if (!found)
		diag_error(env->diag, a->span, "cannot find the program of "
			   "-c '%s'", env->cmd);
	return found;
}

int probe_watch_func_expand(struct probe_env *env,
			    const struct attach_point *a, uint32_t len,
			    struct probe_target **out, uint32_t *n)
{
	const char *kind = a->provider;
	char *func = arena_strdup(env->arena, a->parts[0]);
	char *plus = strchr(func, '+');
	*plus = 0;
	char *end;
	unsigned long argn = 0;
	if (strncmp(plus + 1, "arg", 3) || !plus[4] ||
	    (argn = strtoul(plus + 4, &end, 10), *end) ||
	    argn >= regs_nargs()) {
		diag_error(env->diag, a->span, "%s: '%s' should be "
			   "FUNCTION+argN, N from 0 to %u", kind, a->parts[0],
			   regs_nargs() - 1);
		return -1;
	}
	const char *path = traced_file(env, a);
	if (!path)
		return -1;
	struct elf_syms *es;
	if (elfsym_load(path, &es)) {
		diag_error(env->diag, a->span, "cannot read the symbols of %s",
			   path);
		return -1;
	}
	uint32_t before = *n;
	for (uint32_t i = 0; i < es->nsyms; i++) {
		const struct elf_sym *s = &es->syms[i];
		uint64_t off;
		if (!glob_match(func, s->name) || elfsym_find(es, s->name) != s ||
		    elfsym_vaddr_to_off(es, s->addr, &off))
			continue;
		struct probe_target *t = probe_target_add(env->arena, out, n);
		t->prov = probe_provider(kind);
		/* bpftrace's name: the traced file as given, and N of argN
		 * only when it is not 0 (its name leaves out a 0 address) */
		t->name = arena_printf(env->arena, "%s:%s:%s%s%.0lu:%u:%s",
				       kind, path, s->name, argn ? ":" : "",
				       argn, len, a->parts[2]);
		t->u.watch.mode = a->parts[2];
		t->u.watch.len = len;
		t->u.watch.path = path;
		t->u.watch.func_off = off;
		t->u.watch.argn = (uint32_t)argn;
		t->u.watch.async = !strcmp(kind, "asyncwatchpoint");
		t->pid = env->pid ? env->pid : env->cpid;
		t->layout = CTXL_PERF;
		t->features = CTX_REGS;
	}
	elfsym_free(es);
	if (*n == before) {
		diag_error(env->diag, a->span, "no function in %s matches %s",
			   path, func);
		return -1;
	}
	return 0;
}

/* Raw instructions of the setup program. */
#define INSN(c, d, s, o, i)                                               \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s),   \
			    .off = (o), .imm = (i) })

/* Loads the program run at FUNC's entry: ring_buffer_output(&argN, 8),
 * then SIGSTOP to the tracee unless async. */
static int load_setup(int map_fd, uint32_t arg_off, bool async)
{
	struct bpf_insn p[16];
	int k = 0;
	p[k++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0);
	p[k++] = INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_6,
		      (int16_t)arg_off, 0);
	p[k++] = INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_1, -8, 0);
	p[k++] = INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD,
		      0, map_fd);
	p[k++] = INSN(0, 0, 0, 0, 0);
	p[k++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0);
	p[k++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -8);
	p[k++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 8);
	p[k++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_4, 0, 0, 0);
	p[k++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_output);
	if (!async) {
		p[k++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0,
			      SIGSTOP);
		p[k++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0,
			      BPF_FUNC_send_signal);
	}
	p[k++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	p[k++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "sonde_wp_setup", "GPL",
			       p, (size_t)k, NULL);
	return fd < 0 ? -errno : fd;
}

/* What a running FUNC+argN watchpoint keeps. */
struct watch_state {
	const struct probe_target *t;
	struct probe_attachment *att;
	int prog_fd;
	struct ring_buffer *rb;
	struct watched {
		uint64_t addr;
		int fds[2]; /* its perf event and link (-1: none, gone) */
	} *addrs;          /* seen already: each is armed once */
	uint32_t naddrs;
};

static int on_addr(void *ctx, void *data, size_t size)
{
	struct watch_state *w = ctx;
	const struct probe_target *t = w->t;
	uint64_t addr;
	if (size < sizeof(addr))
		return 0;
	memcpy(&addr, data, sizeof(addr));
	bool seen = false;
	for (uint32_t i = 0; i < w->naddrs && !seen; i++)
		seen = w->addrs[i].addr == addr;
	struct watched *na = seen ? NULL :
				    realloc(w->addrs, (w->naddrs + 1) *
							      sizeof(*na));
	if (na) {
		w->addrs = na;
		struct watched *e = &w->addrs[w->naddrs++];
		e->addr = addr;
		uint32_t before = w->att->nfds;
		int pfd = perf_open_breakpoint(addr, (int)t->u.watch.len,
					       perf_bp_mode_parse(t->u.watch.mode),
					       t->pid, -1);
		int err = probe_attach_perf(pfd, w->prog_fd, w->att);
		for (int k = 0; k < 2; k++)
			e->fds[k] = before + (uint32_t)k < w->att->nfds ?
					    w->att->fds[before + (uint32_t)k] :
					    -1;
		if (err == -ENOSPC)
			fprintf(stderr, "Failed to attach watchpoint probe. "
					"You are out of watchpoint registers.\n");
		else if (err)
			fprintf(stderr, "sonde: cannot watch 0x%llx for %s: "
					"%s\n", (unsigned long long)addr,
				t->name, strerror(-err));
	}
	/* the setup program stopped the tracee to wait for this */
	if (!t->u.watch.async && kill(t->pid, SIGCONT))
		fprintf(stderr, "sonde: cannot continue process %d: %s\n",
			t->pid, strerror(errno));
	return 0;
}

/* unwatch(addr): the breakpoint on addr goes (its fds leave att). */
static void unwatch(struct probe_attachment *att, uint64_t addr)
{
	struct watch_state *w = att->priv;
	for (uint32_t i = 0; i < w->naddrs; i++) {
		if (w->addrs[i].addr != addr)
			continue;
		for (int k = 1; k >= 0; k--) {
			int fd = w->addrs[i].fds[k];
			if (fd < 0)
				continue;
			for (uint32_t j = 0; j < att->nfds; j++)
				if (att->fds[j] == fd) {
					memmove(&att->fds[j], &att->fds[j + 1],
						(att->nfds - j - 1) *
							sizeof(*att->fds));
					att->nfds--;
					break;
				}
			close(fd);
			w->addrs[i].fds[k] = -1;
		}
	}
}

static int service(struct probe_attachment *att)
{
	struct watch_state *w = att->priv;
	int n = ring_buffer__consume(w->rb);
	return n < 0 ? n : 0;
}

static void release(struct probe_attachment *att)
{
	struct watch_state *w = att->priv;
	if (!w)
		return;
	ring_buffer__free(w->rb);
	free(w->addrs);
	free(w);
}

int probe_watch_func_attach(const struct probe_target *t, int prog_fd,
			    struct probe_attachment *att)
{
	int map = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "sonde_wp_addrs", 0, 0,
				 4096 * 4, NULL);
	if (map < 0)
		return -errno;
	int err = probe_att_push(att, map);
	if (err)
		return err;
	int setup = load_setup(map, (uint32_t)regs_arg_offset(t->u.watch.argn),
			       t->u.watch.async);
	if (setup < 0)
		return setup;
	if ((err = probe_att_push(att, setup)))
		return err;
	struct watch_state *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->t = t;
	w->att = att;
	w->prog_fd = prog_fd;
	att->priv = w;
	att->release = release;
	w->rb = ring_buffer__new(map, on_addr, w, NULL);
	if (!w->rb)
		return -errno;
	att->poll_fd = ring_buffer__epoll_fd(w->rb);
	att->service = service;
	att->unwatch = unwatch;
	return probe_attach_perf(perf_open_uprobe(t->u.watch.path,
						  t->u.watch.func_off, false, 0,
						  t->pid, -1),
				 setup, att);
}
