/*
 * The runtime on the real kernel: compiled programs built by hand from IR,
 * run through run_program() with output to a memstream. Also the probe
 * providers' expansion and errors. Needs root and BPF: skipped otherwise.
 */
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "kernel/features.h"
#include "kernel/kallsyms.h"
#include "backend/ir.h"
#include "model/compiled.h"
#include "model/types.h"
#include "probes/provider.h"
#include "runtime/child.h"
#include "lang/fmt_parse.h"
#include "runtime/fmt.h"
#include "runtime/run.h"
#include "util/arena.h"
#include "util/diag.h"

#define RB_SIZE (256 * 1024)

static struct arena A;

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static bool have_bpf(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "probe", 4, 4, 1, NULL);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Emits: reserve 8 + size bytes, write the header id and the given u64
 * values, submit. */
static void emit_record(struct ir *ir, uint32_t rb, uint32_t id,
			const int64_t *vals, int nvals)
{
	ir_reg args[3];
	args[0] = ir_reg_new(ir);
	ir_ld_map(ir, args[0], rb);
	args[1] = ir_const(ir, 8 + 8 * nvals);
	args[2] = ir_const(ir, 0);
	ir_reg p = ir_reg_new(ir);
	ir_call(ir, p, BPF_FUNC_ringbuf_reserve, args, 3);
	ir_label skip = ir_label_new(ir);
	ir_jmpi(ir, BPF_JEQ, p, 0, skip);
	ir_storei(ir, 4, p, 0, (int32_t)id);
	ir_storei(ir, 4, p, 4, 0);
	for (int i = 0; i < nvals; i++) {
		ir_reg v = ir_const(ir, vals[i]);
		ir_store(ir, 8, p, (int16_t)(8 + 8 * i), v);
	}
	ir_reg sargs[2] = { p, ir_const(ir, 0) };
	ir_call(ir, IR_NOREG, BPF_FUNC_ringbuf_submit, sargs, 2);
	ir_label_bind(ir, skip);
}

static struct bpf_code finish(struct ir *ir)
{
	struct bpf_code p;
	memset(&p, 0, sizeof(p));
	if (ir_compile(ir, &p))
		printf("# ir_compile: %s\n", ir_error(ir));
	ir_free(ir);
	return p;
}

static struct probe_target *target(const char *prov, const char *name)
{
	struct probe_target *t = arena_alloc(&A, sizeof(*t));
	t->prov = probe_provider(prov);
	t->name = name;
	return t;
}

/* maps[0]: the ring buffer. events: 0 printf("a=%d b=%d\n"), 1 exit. */
static void base(struct compiled *c)
{
	memset(c, 0, sizeof(*c));
	c->maps = arena_alloc(&A, sizeof(*c->maps) * 4);
	c->maps[0] = (struct cmap){ .name = ".ringbuf",
				    .type = BPF_MAP_TYPE_RINGBUF,
				    .max_entries = RB_SIZE };
	c->nmaps = 1;
	c->ringbuf = 0;
	c->lost_counter = -1;
	c->stop_flag = -1;
	c->events = arena_alloc(&A, sizeof(*c->events) * 4);
	const struct type **args = arena_alloc(&A, sizeof(*args) * 2);
	args[0] = args[1] = type_int(8, true);
	uint32_t *offs = arena_alloc(&A, sizeof(*offs) * 2);
	offs[1] = 8;
	const char *f = "a=%d b=%d\n";
	c->events[0] = (struct cevent){ .kind = EV_PRINTF,
					.fmt = fmt_parse(&A, f, strlen(f)),
					.args = args, .offsets = offs,
					.nargs = 2, .size = 16 };
	c->events[1] = (struct cevent){ .kind = EV_EXIT };
	c->nevents = 2;
	c->progs = arena_alloc(&A, sizeof(*c->progs) * 4);
}

static void add_prog(struct compiled *c, const char *name,
		     enum bpf_prog_type type, struct bpf_code code,
		     const struct probe_target *t, bool begin, bool end)
{
	c->progs[c->nprogs++] = (struct cprog){ .name = name, .code = code,
						.type = type, .targets = t,
						.ntargets = 1, .is_begin = begin,
						.is_end = end };
}

static void free_progs(struct compiled *c)
{
	for (uint32_t i = 0; i < c->nprogs; i++)
		bpf_code_free(&c->progs[i].code);
}

/* Runs c with output captured; returns run_program's result. */
static int run_capture(const struct compiled *c, struct run_opts *o,
		       char **out, char **err)
{
	size_t n1, n2;
	FILE *f = open_memstream(out, &n1), *e = open_memstream(err, &n2);
	o->out = f;
	o->err = e;
	int r = run_program(c, o);
	fclose(f);
	fclose(e);
	return r;
}

TEST(begin_printf_exit)
{
	if (!have_bpf())
		SKIP("needs root and BPF");
	int fds = count_fds();
	struct compiled c;
	base(&c);
	struct ir *ir = ir_new();
	int64_t v[2] = { 42, -7 };
	emit_record(ir, 0, 0, v, 2);
	emit_record(ir, 0, 1, NULL, 0);
	ir_exiti(ir, 0);
	add_prog(&c, "BEGIN", BPF_PROG_TYPE_RAW_TRACEPOINT, finish(ir),
		 target("BEGIN", "BEGIN"), true, false);
	struct ir *ir2 = ir_new();
	int64_t w[2] = { 1, 2 };
	emit_record(ir2, 0, 0, w, 2);
	ir_exiti(ir2, 0);
	add_prog(&c, "END", BPF_PROG_TYPE_RAW_TRACEPOINT, finish(ir2),
		 target("END", "END"), false, true);
	struct run_opts o = { 0 };
	char *out, *err;
	CHECK(run_capture(&c, &o, &out, &err) == 0);
	CHECK_STR(out, "a=42 b=-7\na=1 b=2\n\n\n");
	CHECK_STR(err, "Attached 2 probes\n");
	CHECK(count_fds() == fds);
	free(out);
	free(err);
	free_progs(&c);
}

TEST(json_and_quiet)
{
	if (!have_bpf())
		SKIP("needs root and BPF");
	struct compiled c;
	base(&c);
	struct ir *ir = ir_new();
	emit_record(ir, 0, 1, NULL, 0);
	ir_exiti(ir, 0);
	add_prog(&c, "BEGIN", BPF_PROG_TYPE_RAW_TRACEPOINT, finish(ir),
		 target("BEGIN", "BEGIN"), true, false);
	struct run_opts o = { .quiet = true };
	char *out, *err;
	CHECK(run_capture(&c, &o, &out, &err) == 0);
	CHECK_STR(out, "\n\n");
	free(out);
	free(err);
	o = (struct run_opts){ .format = "json" };
	CHECK(run_capture(&c, &o, &out, &err) == 0);
	CHECK(strstr(out, "\"attached_probes\"") != NULL);
	free(out);
	free(err);
	free_progs(&c);
}

struct worker {
	int n;
	pid_t pid; /* ours: getpid() itself would be counted */
};

static void *getpid_worker(void *arg)
{
	struct worker *w = arg;
	usleep(300 * 1000); /* let the run attach */
	for (int i = 0; i < w->n; i++)
		syscall(SYS_getpid);
	usleep(50 * 1000);
	kill(w->pid, SIGTERM);
	return NULL;
}

TEST(tracepoint_count_then_sigterm)
{
	if (!have_bpf())
		SKIP("needs root and BPF");
	struct diag d;
	diag_init(&d, stderr);
	struct probe_env env = { .arena = &A, .diag = &d };
	const char *parts[] = { "syscalls", "sys_enter_getpid" };
	struct attach_point a = { .text = "tracepoint:syscalls:sys_enter_getpid",
				.provider = "tracepoint", .parts = parts,
				.nparts = 2 };
	struct probe_target *t = NULL;
	uint32_t nt = 0;
	if (probe_expand(&env, &a, &t, &nt) || nt != 1)
		SKIP("no syscalls:sys_enter_getpid tracepoint");
	int fds = count_fds();
	struct compiled c;
	base(&c);
	struct type *count = type_new(&A, TY_COUNT, 8);
	c.maps[1] = (struct cmap){ .name = "@c",
				   .type = BPF_MAP_TYPE_PERCPU_HASH,
				   .key_size = 8, .value_size = 8,
				   .max_entries = 1, .is_user = true,
				   .percpu = true, .value = count };
	c.nmaps = 2;
	/* if (pid == ours) @c = count() */
	struct ir *ir = ir_new();
	ir_reg pt = ir_reg_new(ir);
	ir_call(ir, pt, BPF_FUNC_get_current_pid_tgid, NULL, 0);
	ir_alui(ir, BPF_RSH, pt, 32);
	ir_label out = ir_label_new(ir);
	ir_jmpi(ir, BPF_JNE, pt, getpid(), out);
	ir_slot key = ir_slot_new(ir, 8, 8), one = ir_slot_new(ir, 8, 8);
	ir_storei_slot(ir, 8, key, 0, 0);
	ir_reg args[4];
	args[0] = ir_reg_new(ir);
	ir_ld_map(ir, args[0], 1);
	args[1] = ir_reg_new(ir);
	ir_slot_addr(ir, args[1], key, 0);
	ir_reg v = ir_reg_new(ir);
	ir_call(ir, v, BPF_FUNC_map_lookup_elem, args, 2);
	ir_label init = ir_label_new(ir);
	ir_jmpi(ir, BPF_JEQ, v, 0, init);
	ir_reg x = ir_reg_new(ir);
	ir_load(ir, 8, x, v, 0);
	ir_alui(ir, BPF_ADD, x, 1);
	ir_store(ir, 8, v, 0, x);
	ir_ja(ir, out);
	ir_label_bind(ir, init);
	ir_storei_slot(ir, 8, one, 0, 1);
	args[0] = ir_reg_new(ir);
	ir_ld_map(ir, args[0], 1);
	args[1] = ir_reg_new(ir);
	ir_slot_addr(ir, args[1], key, 0);
	args[2] = ir_reg_new(ir);
	ir_slot_addr(ir, args[2], one, 0);
	args[3] = ir_const(ir, BPF_ANY);
	ir_call(ir, IR_NOREG, BPF_FUNC_map_update_elem, args, 4);
	ir_label_bind(ir, out);
	ir_exiti(ir, 0);
	add_prog(&c, t->name, BPF_PROG_TYPE_TRACEPOINT, finish(ir), t, false,
		 false);
	struct worker w = { 10, getpid() };
	pthread_t th;
	pthread_create(&th, NULL, getpid_worker, &w);
	struct run_opts o = { 0 };
	char *outs, *err;
	CHECK(run_capture(&c, &o, &outs, &err) == 0);
	pthread_join(th, NULL);
	CHECK_STR(outs, "\n\n@c: 10\n");
	CHECK_STR(err, "Attached 1 probe\n");
	CHECK(count_fds() == fds);
	free(outs);
	free(err);
	free_progs(&c);
}

TEST(interval_exit)
{
	if (!have_bpf())
		SKIP("needs root and BPF");
	int fds = count_fds();
	struct compiled c;
	base(&c);
	struct probe_target *t = target("interval", "interval:ms:10");
	t->u.timer.period = 10 * 1000000ull;
	struct ir *ir = ir_new();
	int64_t v[2] = { 3, 4 };
	emit_record(ir, 0, 0, v, 2);
	emit_record(ir, 0, 1, NULL, 0);
	ir_exiti(ir, 0);
	add_prog(&c, t->name, BPF_PROG_TYPE_PERF_EVENT, finish(ir), t, false,
		 false);
	struct run_opts o = { 0 };
	char *out, *err;
	CHECK(run_capture(&c, &o, &out, &err) == 0);
	/* Other CPUs never fire: interval is on one CPU, and it stopped. */
	CHECK_STR(out, "a=3 b=4\n\n\n");
	CHECK_STR(err, "Attached 1 probe\n");
	CHECK(count_fds() == fds);
	free(out);
	free(err);
	free_progs(&c);
}

TEST(profile_exit)
{
	if (!have_bpf())
		SKIP("needs root and BPF");
	int fds = count_fds();
	struct compiled c;
	base(&c);
	struct probe_target *t = target("profile", "profile:hz:99");
	t->u.timer.period = 99;
	t->u.timer.freq = true;
	struct ir *ir = ir_new();
	emit_record(ir, 0, 1, NULL, 0);
	ir_exiti(ir, 0);
	add_prog(&c, t->name, BPF_PROG_TYPE_PERF_EVENT, finish(ir), t, false,
		 false);
	struct run_opts o = { 0 };
	char *out, *err;
	CHECK(run_capture(&c, &o, &out, &err) == 0);
	CHECK_STR(out, "\n\n");
	CHECK_STR(err, "Attached 1 probe\n");
	CHECK(count_fds() == fds);
	free(out);
	free(err);
	free_progs(&c);
}

TEST(child_exit_stops)
{
	if (!have_bpf())
		SKIP("needs root and BPF");
	int fds = count_fds();
	struct child ch;
	CHECK(child_spawn_cmd(&ch, "no-such-command-xyz") == -ENOENT);
	CHECK(child_spawn_cmd(&ch, "sleep 0.1") == 0);
	struct compiled c;
	base(&c);
	struct ir *ir = ir_new();
	ir_exiti(ir, 0);
	add_prog(&c, "BEGIN", BPF_PROG_TYPE_RAW_TRACEPOINT, finish(ir),
		 target("BEGIN", "BEGIN"), true, false);
	struct run_opts o = { .child = &ch };
	char *out, *err;
	CHECK(run_capture(&c, &o, &out, &err) == 0);
	CHECK_STR(out, "\n\n");
	CHECK(ch.reaped && WIFEXITED(ch.status) && WEXITSTATUS(ch.status) == 0);
	CHECK(count_fds() == fds);
	free(out);
	free(err);
	free_progs(&c);
	/* Spawned but never started: released quietly. */
	CHECK(child_spawn_cmd(&ch, "true") == 0);
	child_release(&ch);
	CHECK(ch.reaped && WIFEXITED(ch.status) && WEXITSTATUS(ch.status) == 0);
	CHECK(count_fds() == fds);
}

TEST(verifier_rejection)
{
	if (!have_bpf())
		SKIP("needs root and BPF");
	int fds = count_fds();
	struct compiled c;
	base(&c);
	/* exit without setting R0 */
	struct bpf_code p = { 0 };
	p.insns = calloc(1, sizeof(*p.insns));
	p.insns[0].code = BPF_JMP | BPF_EXIT;
	p.ninsns = 1;
	add_prog(&c, "BEGIN", BPF_PROG_TYPE_RAW_TRACEPOINT, p,
		 target("BEGIN", "BEGIN"), true, false);
	struct run_opts o = { 0 };
	char *out, *err;
	CHECK(run_capture(&c, &o, &out, &err) < 0);
	CHECK_STR(out, "");
	CHECK_STR(err, "sonde: internal error: the kernel verifier rejected "
		       "the program for BEGIN: R0 !read_ok\n");
	free(out);
	free(err);
	o = (struct run_opts){ .verbose = true };
	CHECK(run_capture(&c, &o, &out, &err) < 0);
	CHECK(strstr(err, "R0 !read_ok") != NULL);
	free(out);
	free(err);
	CHECK(count_fds() == fds);
	free_progs(&c);
}

TEST(lost_events_and_pid_exit)
{
	if (!have_bpf())
		SKIP("needs root and BPF");
	int fds = count_fds();
	struct compiled c;
	base(&c);
	c.maps[1] = (struct cmap){ .name = ".lost",
				   .type = BPF_MAP_TYPE_ARRAY,
				   .key_size = 4, .value_size = 8,
				   .max_entries = 1 };
	c.nmaps = 2;
	c.lost_counter = 1;
	/* BEGIN: lost[0] = 5, as failed ring buffer outputs would. */
	struct ir *ir = ir_new();
	ir_slot key = ir_slot_new(ir, 4, 4);
	ir_storei_slot(ir, 4, key, 0, 0);
	ir_reg args[2] = { ir_reg_new(ir), ir_reg_new(ir) };
	ir_ld_map(ir, args[0], 1);
	ir_slot_addr(ir, args[1], key, 0);
	ir_reg v = ir_reg_new(ir);
	ir_call(ir, v, BPF_FUNC_map_lookup_elem, args, 2);
	ir_label out = ir_label_new(ir);
	ir_jmpi(ir, BPF_JEQ, v, 0, out);
	ir_storei(ir, 8, v, 0, 5);
	ir_label_bind(ir, out);
	ir_exiti(ir, 0);
	add_prog(&c, "BEGIN", BPF_PROG_TYPE_RAW_TRACEPOINT, finish(ir),
		 target("BEGIN", "BEGIN"), true, false);
	/* -p: stops when that process exits. */
	pid_t pid = fork();
	if (pid == 0) {
		usleep(100 * 1000);
		_exit(0);
	}
	struct run_opts o = { .pid = pid };
	char *outs, *err;
	CHECK(run_capture(&c, &o, &outs, &err) == 0);
	CHECK(waitpid(pid, NULL, 0) == pid);
	CHECK_STR(outs, "\n\n");
	/* said while running, then the total at exit (bpftrace 0.26) */
	CHECK_STR(err, "Attached 1 probe\nLost 5 events\n"
		  "WARNING: Total lost event count: 5\n");
	CHECK(count_fds() == fds);
	free(outs);
	free(err);
	free_progs(&c);
}

/* --- providers --- */

static struct src_file SRC;

static int expand(const char *text, const char *prov, const char **parts,
		  uint32_t nparts, struct probe_target **t, uint32_t *n,
		  char **msg)
{
	size_t len;
	FILE *f = open_memstream(msg, &len);
	struct diag d;
	diag_init(&d, f);
	SRC = (struct src_file){ "stdin", text, (uint32_t)strlen(text) };
	struct probe_env env = { .arena = &A, .diag = &d };
	struct attach_point a = { .span = { &SRC, 0, (uint32_t)strlen(text), 1,
					  1 },
				.text = text, .provider = prov,
				.parts = parts, .nparts = nparts };
	*t = NULL;
	*n = 0;
	int r = probe_expand(&env, &a, t, n);
	fclose(f);
	return r;
}

/* kprobe:PARTS expanded with nothing attached, over the traceable
 * functions already set (ksyms_traceable_from); returns its result. */
static int kexpand(const char *text, const char **parts, uint32_t nparts,
		   struct probe_target **t, uint32_t *n)
{
	size_t len;
	char *msg;
	FILE *f = open_memstream(&msg, &len);
	struct diag d;
	diag_init(&d, f);
	SRC = (struct src_file){ "stdin", text, (uint32_t)strlen(text) };
	struct probe_env env = { .arena = &A, .diag = &d, .no_attach = true };
	struct attach_point a = { .span = { &SRC, 0, (uint32_t)strlen(text), 1,
					  1 },
				.text = text, .provider = "kprobe",
				.parts = parts, .nparts = nparts };
	*t = NULL;
	*n = 0;
	int r = probe_expand(&env, &a, t, n);
	fclose(f);
	free(msg);
	return r;
}

/* A name listed twice in available_filter_functions, apart, is one
 * target: a kprobe by name attaches to the first, so two would count
 * each event twice. The .part. clones (6.1's vfs_* has two) and the
 * functions bpftrace 0.26 keeps away from (rcu_*, idle loops) match no
 * wildcard, as in bpftrace, and the kernel's own are module "vmlinux" to
 * a module wildcard. */
TEST(provider_kprobe_functions)
{
	if (!feat_has(FEAT_KPROBE) && feat_has(FEAT_FENTRY))
		SKIP("kprobe: becomes kfunc: here");
	char path[] = "/tmp/sonde-aff-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	const char *list = "vfs_a\nvfs_b\nother\nvfs_a\nvfs_c [mod]\n"
			   "vfs_b\nrcu_vfs\ndefault_idle\nvfs_d.part.0\n";
	CHECK(write(fd, list, strlen(list)) == (ssize_t)strlen(list));
	close(fd);
	ksyms_unload();
	ksyms_traceable_from(path);
	struct probe_target *t;
	uint32_t n;
	const char *p1[] = { "vfs_*" };
	CHECK(kexpand("kprobe:vfs_*", p1, 1, &t, &n) == 0);
	CHECK(n == 3);
	if (n == 3) {
		CHECK_STR(t[0].name, "kprobe:vfs_a");
		CHECK_STR(t[1].name, "kprobe:vfs_b");
		CHECK_STR(t[2].name, "kprobe:vfs_c");
	}
	const char *p2[] = { "*_*" };
	CHECK(kexpand("kprobe:*_*", p2, 1, &t, &n) == 0);
	CHECK(n == 3);
	const char *p3[] = { "vmlinu*", "vfs_a" };
	CHECK(kexpand("kprobe:vmlinu*:vfs_a", p3, 2, &t, &n) == 0);
	CHECK(n == 1 && !strcmp(t[0].func, "vfs_a"));
	const char *p4[] = { "vmlinu*", "vfs_c" };
	kexpand("kprobe:vmlinu*:vfs_c", p4, 2, &t, &n);
	CHECK(n == 0);
	const char *p5[] = { "rcu_vfs" };
	CHECK(kexpand("kprobe:rcu_vfs", p5, 1, &t, &n) < 0);
	CHECK(n == 0);
	ksyms_unload();
	ksyms_traceable_from(NULL);
	unlink(path);
}

/* The first line of a diagnostic. */
static char *first_line(char *s)
{
	char *nl = strchr(s, '\n');
	if (nl)
		*nl = '\0';
	return s;
}

#define EXPECT_ERROR(text, prov, want, ...)                                   \
	do {                                                                  \
		const char *ps_[] = { __VA_ARGS__ };                          \
		struct probe_target *t_;                                      \
		uint32_t n_;                                                  \
		char *m_;                                                     \
		CHECK(expand(text, prov, ps_, sizeof(ps_) / sizeof(*ps_) - 1, \
			     &t_, &n_, &m_) < 0);                             \
		CHECK_STR(first_line(m_), want);                              \
		free(m_);                                                     \
	} while (0)

TEST(provider_tracepoint_wildcard)
{
	const char *parts[] = { "syscalls", "sys_enter_get*" };
	struct probe_target *t;
	uint32_t n;
	char *msg;
	int r = expand("tracepoint:syscalls:sys_enter_get*", "tracepoint",
		       parts, 2, &t, &n, &msg);
	if (r < 0 && strstr(msg, "cannot read")) {
		free(msg);
		SKIP("no tracefs");
	}
	CHECK(r == 0);
	CHECK(n > 3);
	bool getpid = false;
	for (uint32_t i = 0; i < n; i++) {
		CHECK(!strncmp(t[i].name, "tracepoint:syscalls:sys_enter_get",
			       33));
		CHECK(t[i].args && t[i].u.tp.id > 0);
		CHECK(t[i].layout == CTXL_TRACEPOINT);
		getpid |= !strcmp(t[i].name,
				  "tracepoint:syscalls:sys_enter_getpid");
	}
	CHECK(getpid);
	CHECK(probe_provider("tracepoint")->per_target_program);
	free(msg);
}

TEST(provider_timers)
{
	struct probe_target *t;
	uint32_t n;
	char *msg;
	const char *p1[] = { "ms", "10" };
	CHECK(expand("interval:ms:10", "interval", p1, 2, &t, &n, &msg) == 0);
	CHECK(n == 1 && t[0].u.timer.period == 10000000ull && !t[0].u.timer.freq);
	CHECK_STR(t[0].name, "interval:ms:10");
	free(msg);
	const char *p2[] = { "hz", "99" };
	CHECK(expand("profile:hz:99", "profile", p2, 2, &t, &n, &msg) == 0);
	CHECK(n == 1 && t[0].u.timer.period == 99 && t[0].u.timer.freq);
	CHECK_STR(t[0].name, "profile:hz:99");
	free(msg);
	CHECK(expand("interval:hz:4", "interval", p2, 0, &t, &n, &msg) < 0);
	free(msg);
	const char *p3[] = { "hz", "4" };
	CHECK(expand("interval:hz:4", "interval", p3, 2, &t, &n, &msg) == 0);
	CHECK(t[0].u.timer.period == 250000000ull && !t[0].u.timer.freq);
	free(msg);
	/* bpftrace 0.26's short forms: nanoseconds or a duration, named in
	 * microseconds; counts as its integer literals */
	const char *p4[] = { "100ms" };
	CHECK(expand("interval:100ms", "interval", p4, 1, &t, &n, &msg) == 0);
	CHECK(t[0].u.timer.period == 100000000ull && !t[0].u.timer.freq);
	CHECK_STR(t[0].name, "interval:us:100000");
	free(msg);
	const char *p5[] = { "1_500_000" };
	CHECK(expand("profile:1_500_000", "profile", p5, 1, &t, &n, &msg) == 0);
	CHECK(t[0].u.timer.period == 1500000ull && !t[0].u.timer.freq);
	CHECK_STR(t[0].name, "profile:us:1500");
	free(msg);
	const char *p6[] = { "s", "1e3" };
	CHECK(expand("interval:s:1e3", "interval", p6, 2, &t, &n, &msg) == 0);
	CHECK(t[0].u.timer.period == 1000000000000ull);
	CHECK_STR(t[0].name, "interval:s:1000");
	free(msg);
	CHECK(expand("BEGIN", "BEGIN", NULL, 0, &t, &n, &msg) == 0);
	CHECK(n == 1);
	CHECK_STR(t[0].name, "begin"); /* as bpftrace 0.26 names it */
	CHECK(t[0].prov->attach == NULL);
	free(msg);
}

TEST(provider_errors)
{
	EXPECT_ERROR("interval:xs:1", "interval",
		     "stdin:1:1-14: ERROR: xs is not an accepted unit of time",
		     "xs", "1", NULL);
	/* bpftrace 0.26's words */
	EXPECT_ERROR("interval:s", "interval",
		     "stdin:1:1-11: ERROR: Invalid rate of interval probe: "
		     "invalid integer: s",
		     "s", NULL);
	EXPECT_ERROR("interval:s:1:2", "interval",
		     "stdin:1:1-15: ERROR: interval probe type requires 1 or 2 "
		     "arguments, found 3",
		     "s", "1", "2", NULL);
	EXPECT_ERROR("interval:500", "interval",
		     "stdin:1:1-13: ERROR: Invalid rate of interval probe. "
		     "Minimum is 1000 or 1us. Found: 500 nanoseconds",
		     "500", NULL);
	EXPECT_ERROR("interval:s:0", "interval",
		     "stdin:1:1-13: ERROR: interval frequency should be a "
		     "positive integer",
		     "s", "0", NULL);
	EXPECT_ERROR("profile:hz:abc", "profile",
		     "stdin:1:1-15: ERROR: Invalid rate of profile probe: "
		     "invalid integer: abc",
		     "hz", "abc", NULL);
	EXPECT_ERROR("profile:s:1b", "profile",
		     "stdin:1:1-13: ERROR: Invalid rate of profile probe: "
		     "invalid trailing bytes: 1b",
		     "s", "1b", NULL);
	EXPECT_ERROR("tracepoint:nosuch:event", "tracepoint",
		     "stdin:1:1-24: ERROR: No matches for tracepoint nosuch:event.",
		     "nosuch", "event", NULL);
	EXPECT_ERROR("tracepoint:syscalls", "tracepoint",
		     "stdin:1:1-20: ERROR: tracepoint probe type requires 2 "
		     "arguments",
		     "syscalls", NULL);
	EXPECT_ERROR("kprobe:a:b:c", "kprobe",
		     "stdin:1:1-13: ERROR: kprobe probe type requires 1 or 2 "
		     "arguments ([MODULE:]FUNCTION)",
		     "a", "b", "c", NULL);
	EXPECT_ERROR("BEGIN:x", "BEGIN",
		     "stdin:1:1-8: ERROR: begin probe type requires 0 "
		     "arguments, found 1", "x", NULL);
}

int main(void)
{
	arena_init(&A);
	signal(SIGPIPE, SIG_IGN);
	RUN(begin_printf_exit);
	RUN(json_and_quiet);
	RUN(tracepoint_count_then_sigterm);
	RUN(interval_exit);
	RUN(profile_exit);
	RUN(child_exit_stops);
	RUN(verifier_rejection);
	RUN(lost_events_and_pid_exit);
	RUN(provider_tracepoint_wildcard);
	RUN(provider_timers);
	RUN(provider_kprobe_functions);
	RUN(provider_errors);
	arena_release(&A);
	return check_done();
}
