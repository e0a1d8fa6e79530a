/* Object mode: open, --set, check, load, attach, drain, print, clean up. */
#include "object/object.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel/btf.h"
#include "kernel/features.h"
#include "kernel/perf.h"
#include "model/limits.h"
#include "model/types.h"
#include "object/obj_impl.h"
#include "runtime/output.h"
#include "runtime/sink.h"

/* An error as words: errno values and libbpf's own codes (4000 and up,
 * "Unknown error 4001" through strerror). */
static const char *obj_strerror(int err)
{
	static char buf[128];
	libbpf_strerror(err < 0 ? err : -err, buf, sizeof(buf));
	return buf;
}
#include "util/arena.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define LOG_SIZE (4u << 20) /* the verifier's log of a failing program */
#define MAX_CPUS 1024
#define MAX_BUFS 16

struct buf_ctx {
	struct run *r;
	const struct type *type;
};

/* Everything one run owns; released in reverse by run_free(). */
struct run {
	const struct obj_opts *o;
	FILE *err;
	struct arena arena;
	struct out out;
	struct sink sink, console; /* out.f and out.console, checked */
	struct bpf_object *obj;
	struct bpf_link **links;
	size_t nlinks, caplinks;
	struct ring_buffer *rb;
	struct perf_buffer *pbs[MAX_BUFS];
	size_t npbs;
	struct buf_ctx bctx[MAX_BUFS * 2];
	size_t nbctx;
	int epfd;
	char *log;
	libbpf_print_fn_t old_print;
	struct sigaction old_int, old_term;
	bool signals_set;
};

static volatile sig_atomic_t stop_flag;
static bool libbpf_verbose;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* libbpf repeats the verifier's log through its print callback: that
 * belongs in our one error message, so its chatter shows only with -v. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (!libbpf_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

__attribute__((format(printf, 2, 3)))
static void fail(struct run *r, const char *fmt, ...)
{
	va_list ap;
	fputs("sonde: ", r->err);
	va_start(ap, fmt);
	vfprintf(r->err, fmt, ap);
	va_end(ap);
	fputc('\n', r->err);
}

/* ---- program selection and feature checks ---- */

static bool selected(const struct run *r, const struct bpf_program *p)
{
	if (!r->o->nprogs)
		return true;
	for (size_t i = 0; i < r->o->nprogs; i++)
		if (!strcmp(r->o->progs[i], bpf_program__name(p)))
			return true;
	return false;
}

static int select_progs(struct run *r)
{
	for (size_t i = 0; i < r->o->nprogs; i++) {
		if (bpf_object__find_program_by_name(r->obj, r->o->progs[i]))
			continue;
		struct strbuf sb = STRBUF_INIT;
		struct bpf_program *p;
		bpf_object__for_each_program(p, r->obj)
			sb_printf(&sb, "%s%s", sb.len ? ", " : "",
				  bpf_program__name(p));
		fail(r, "no program named '%s' in %s (it has: %s)",
		     r->o->progs[i], r->o->path, sb_str(&sb));
		sb_free(&sb);
		return -ENOENT;
	}
	struct bpf_program *p;
	bpf_object__for_each_program(p, r->obj)
		bpf_program__set_autoload(p, selected(r, p));
	return 0;
}

/* Section prefixes the kernel may refuse, what they need, and what to use
 * instead. A prefix matches a section equal to it or followed by / or . */
static const struct {
	const char *prefix;
	enum feat_id feat;
	const char *what, *instead;
} needs[] = {
	{ "kprobe", FEAT_KPROBE, "kprobes", "a tracepoint or raw_tp section" },
	{ "kretprobe", FEAT_KPROBE, "kprobes", "a tracepoint or raw_tp section" },
	{ "ksyscall", FEAT_KPROBE, "kprobes", "a tracepoint (syscalls:sys_enter_*) section" },
	{ "kretsyscall", FEAT_KPROBE, "kprobes", "a tracepoint (syscalls:sys_exit_*) section" },
	{ "fentry", FEAT_FENTRY, "fentry/fexit programs", "a tp_btf or raw_tp section" },
	{ "fexit", FEAT_FENTRY, "fentry/fexit programs", "a tp_btf or raw_tp section" },
	{ "fmod_ret", FEAT_FENTRY, "fentry/fexit programs", "a tp_btf or raw_tp section" },
	{ "tp_btf", FEAT_TP_BTF, "BTF tracepoints", "a raw_tp or tracepoint section" },
	{ "raw_tp", FEAT_RAW_TP, "raw tracepoints", "a tracepoint section" },
	{ "raw_tracepoint", FEAT_RAW_TP, "raw tracepoints", "a tracepoint section" },
	{ "uprobe", FEAT_UPROBE, "uprobes", "a tracepoint section" },
	{ "uretprobe", FEAT_UPROBE, "uprobes", "a tracepoint section" },
	{ "usdt", FEAT_UPROBE, "uprobes (which USDT probes need)", "a tracepoint section" },
};

static bool sec_is(const char *sec, const char *prefix)
{
	size_t n = strlen(prefix);
	return !strncmp(sec, prefix, n) &&
	       (sec[n] == '\0' || sec[n] == '/' || sec[n] == '.');
}

struct perf_spec {
	uint32_t type;
	uint64_t config, freq;
};

static int parse_perf_event(struct run *r, struct perf_spec *ps)
{
	const char *spec = r->o->perf_event ? r->o->perf_event : "cpu-clock:99";
	const char *colon = strchr(spec, ':');
	char name[64];
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	char *end = NULL;
	ps->freq = colon ? strtoull(colon + 1, &end, 10) : 99;
	if (n >= sizeof(name) || (colon && (*end || !ps->freq))) {
		fail(r, "bad --perf-event '%s': want NAME:FREQ, e.g. cpu-clock:99",
		     spec);
		return -EINVAL;
	}
	memcpy(name, spec, n);
	name[n] = '\0';
	static const uint32_t types[] = { PERF_TYPE_SOFTWARE, PERF_TYPE_HARDWARE };
	for (size_t i = 0; i < 2; i++) {
		const struct perf_event_name *e = perf_event_by_name(types[i], name);
		if (!e)
			continue;
		if (types[i] == PERF_TYPE_HARDWARE && !feat_has(FEAT_HW_EVENTS)) {
			fail(r, "hardware perf counters are not available on this kernel (%s); use a software event such as cpu-clock instead",
			     feat_reason(FEAT_HW_EVENTS));
			return -EOPNOTSUPP;
		}
		ps->type = types[i];
		ps->config = e->config;
		return 0;
	}
	fail(r, "unknown perf event '%s' in --perf-event (try cpu-clock, page-faults, context-switches)",
	     name);
	return -EINVAL;
}

/* Before anything loads: fentry programs, say, fail to load at all here. */
static int check_features(struct run *r, bool *has_perf)
{
	struct bpf_program *p;
	*has_perf = false;
	bpf_object__for_each_program(p, r->obj) {
		if (!bpf_program__autoload(p))
			continue;
		const char *sec = bpf_program__section_name(p);
		if (sec_is(sec, "perf_event"))
			*has_perf = true;
		for (size_t i = 0; i < sizeof(needs) / sizeof(*needs); i++) {
			if (!sec_is(sec, needs[i].prefix) || feat_has(needs[i].feat))
				continue;
			fail(r, "program '%s' (SEC(\"%s\")): %s are not available on this kernel (%s); use %s instead",
			     bpf_program__name(p), sec, needs[i].what,
			     feat_reason(needs[i].feat), needs[i].instead);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

/* ---- --set VAR=VALUE ---- */

/* Finds var in the .rodata or .data section: its map, offset and type. */
static int find_var(struct run *r, const char *var, struct bpf_map **map,
		    uint32_t *off, uint32_t *type_id)
{
	const struct btf *b = bpf_object__btf(r->obj);
	static const char *const secs[] = { ".rodata", ".data" };
	for (size_t s = 0; b && s < 2; s++) {
		int32_t id = btf__find_by_name_kind(b, secs[s], BTF_KIND_DATASEC);
		if (id <= 0)
			continue;
		const struct btf_type *ds = btf__type_by_id(b, (uint32_t)id);
		const struct btf_var_secinfo *vsi = btf_var_secinfos(ds);
		for (uint16_t i = 0; i < btf_vlen(ds); i++, vsi++) {
			const struct btf_type *v = btf__type_by_id(b, vsi->type);
			if (strcmp(btf__name_by_offset(b, v->name_off), var))
				continue;
			*map = bpf_object__find_map_by_name(r->obj, secs[s]);
			*off = vsi->offset;
			*type_id = v->type;
			return *map ? 0 : -ENOENT;
		}
	}
	return -ENOENT;
}

static int set_one(struct run *r, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg) {
		fail(r, "bad --set '%s': want VAR=VALUE", arg);
		return -EINVAL;
	}
	char *var = arena_strndup(&r->arena, arg, (size_t)(eq - arg));
	const char *val = eq + 1;
	struct bpf_map *map;
	uint32_t off, tid;
	if (find_var(r, var, &map, &off, &tid)) {
		fail(r, "--set %s: no global variable '%s' in %s (declare it const volatile)",
		     var, var, r->o->path);
		return -ENOENT;
	}
	size_t size;
	/* libbpf 1.1 declares it const, but before load it is the writable
	 * image of the section (later libbpf drops the const). */
	uint8_t *data = (uint8_t *)bpf_map__initial_value(map, &size);
	const struct type *t = kbtf_type_of(&r->arena, bpf_object__btf(r->obj),
					    tid);
	if (!data || off + t->size > size) {
		fail(r, "--set %s: cannot reach its initial value", var);
		return -EINVAL;
	}
	if (t->kind == TY_STRING) {
		size_t n = strlen(val);
		if (n >= t->size) {
			fail(r, "--set %s: '%s' is too long for char[%u]", var,
			     val, t->size);
			return -ERANGE;
		}
		memset(data + off, 0, t->size);
		memcpy(data + off, val, n);
		return 0;
	}
	if (t->kind != TY_INT) {
		fail(r, "--set %s: only integers and char arrays can be set", var);
		return -EINVAL;
	}
	char *end;
	errno = 0;
	uint64_t v = *val == '-' ? (uint64_t)strtoll(val, &end, 0)
				 : strtoull(val, &end, 0);
	bool fits = t->size == 8 ||
		    (t->is_signed ? (int64_t)v >= -(1LL << (t->size * 8 - 1)) &&
				    (int64_t)v < (1LL << (t->size * 8 - 1))
				  : v < (1ULL << (t->size * 8)));
	if (!*val || *end || errno || !fits) {
		fail(r, "--set %s: '%s' is not a %s%u-bit integer", var, val,
		     t->is_signed ? "signed " : "unsigned ", t->size * 8);
		return -ERANGE;
	}
	/* Little-endian hosts: the low bytes are the value. */
	memcpy(data + off, &v, t->size);
	return 0;
}

/* ---- load ---- */

/* __type(value, struct event) on a ring buffer is how an object tells us
 * its records' type (obj_impl.h), but libbpf 1.1 passes the size on and
 * the kernel refuses a ring buffer with one: keep the type, drop sizes. */
static void prepare_maps(struct run *r)
{
	struct bpf_map *m;
	bpf_object__for_each_map(m, r->obj) {
		if (bpf_map__type(m) != BPF_MAP_TYPE_RINGBUF)
			continue;
		bpf_map__set_key_size(m, 0);
		bpf_map__set_value_size(m, 0);
	}
}

/* The verifier's conclusion: the last lines before its statistics. */
static void print_verifier_tail(struct run *r)
{
	char *lines[3] = { 0 };
	int n = 0;
	for (char *s = r->log, *nl; s && *s; s = nl ? nl + 1 : NULL) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		if (!*s || !strncmp(s, "processed ", 10) ||
		    !strncmp(s, "verification time", 17) ||
		    !strncmp(s, "stack depth", 11))
			continue;
		memmove(lines, lines + 1, sizeof(lines) - sizeof(*lines));
		lines[2] = s;
		n++;
	}
	for (int i = n < 3 ? 3 - n : 0; i < 3; i++)
		fprintf(r->err, "  %s\n", lines[i]);
}

static int load(struct run *r)
{
	struct bpf_program *p;
	/* libbpf would load it and say only "Invalid argument". */
	bpf_object__for_each_program(p, r->obj)
		if (bpf_program__autoload(p) &&
		    bpf_program__type(p) == BPF_PROG_TYPE_UNSPEC) {
			fail(r, "program '%s': unknown section name SEC(\"%s\"): "
			     "it gives no program type (write e.g. "
			     "SEC(\"tp/syscalls/sys_enter_write\"))",
			     bpf_program__name(p), bpf_program__section_name(p));
			return -EINVAL;
		}
	prepare_maps(r);
	r->log = xcalloc(1, LOG_SIZE);
	bpf_object__for_each_program(p, r->obj)
		if (bpf_program__autoload(p))
			bpf_program__set_log_buf(p, r->log, LOG_SIZE);
	int err = bpf_object__load(r->obj);
	if (!err)
		return 0;
	/* libbpf loads in order and stops at the first failure. */
	bpf_object__for_each_program(p, r->obj) {
		if (!bpf_program__autoload(p) || bpf_program__fd(p) >= 0)
			continue;
		if (!*r->log)
			break;
		fail(r, "program '%s' (SEC(\"%s\")) failed to load (%s); the verifier says:",
		     bpf_program__name(p), bpf_program__section_name(p),
		     obj_strerror(err));
		if (r->o->verbose)
			fputs(r->log, r->err);
		else
			print_verifier_tail(r);
		return err;
	}
	fail(r, "cannot load %s: %s", r->o->path, obj_strerror(err));
	return err;
}

/* ---- attach ---- */

static void add_link(struct run *r, struct bpf_link *l)
{
	if (r->nlinks == r->caplinks)
		r->links = xreallocarray(r->links, r->caplinks = r->caplinks * 2 + 8,
					 sizeof(*r->links));
	r->links[r->nlinks++] = l;
}

static int attach_perf(struct run *r, struct bpf_program *p,
		       const struct perf_spec *ps)
{
	int cpus[MAX_CPUS];
	int n = perf_online_cpus(cpus, MAX_CPUS);
	if (n < 0)
		return n;
	for (int i = 0; i < n && i < MAX_CPUS; i++) {
		int pfd = perf_open_counter(ps->type, ps->config, ps->freq, true,
					    -1, cpus[i]);
		if (pfd < 0)
			return pfd;
		struct bpf_link *l = bpf_program__attach_perf_event(p, pfd);
		if (!l) {
			int err = -errno;
			close(pfd);
			return err;
		}
		add_link(r, l); /* the link closes pfd */
	}
	return 0;
}

static int attach_all(struct run *r, const struct perf_spec *ps,
		      uint32_t *nprogs)
{
	struct bpf_program *p;
	*nprogs = 0;
	bpf_object__for_each_program(p, r->obj) {
		if (!bpf_program__autoload(p))
			continue;
		const char *sec = bpf_program__section_name(p);
		int err = 0;
		if (sec_is(sec, "perf_event")) {
			err = attach_perf(r, p, ps);
		} else {
			struct bpf_link *l = bpf_program__attach(p);
			if (l)
				add_link(r, l);
			else
				err = -errno;
		}
		if (err == -EOPNOTSUPP || err == -ESRCH) {
			fail(r, "program '%s': section SEC(\"%s\") does not say where to attach (write e.g. SEC(\"tp/syscalls/sys_enter_write\"))",
			     bpf_program__name(p), sec);
			return err;
		}
		if (err) {
			fail(r, "program '%s' (SEC(\"%s\")): cannot attach: %s",
			     bpf_program__name(p), sec, obj_strerror(err));
			return err;
		}
		(*nprogs)++;
	}
	return 0;
}

/* ---- buffers and the run loop ---- */

static int on_ring(void *ctx, void *data, size_t size)
{
	struct buf_ctx *c = ctx;
	obj_print_record(&c->r->out, c->type, data, size);
	return 0;
}

static void on_sample(void *ctx, int cpu, void *data, __u32 size)
{
	(void)cpu;
	on_ring(ctx, data, size);
}

static void on_lost(void *ctx, int cpu, __u64 n)
{
	(void)cpu;
	out_lost_events(&((struct buf_ctx *)ctx)->r->out, n);
}

static int epoll_add(struct run *r, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	return epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

static int open_buffers(struct run *r)
{
	struct bpf_map *m;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0)
		return -errno;
	bpf_object__for_each_map(m, r->obj) {
		enum bpf_map_type t = bpf_map__type(m);
		if (t != BPF_MAP_TYPE_RINGBUF && t != BPF_MAP_TYPE_PERF_EVENT_ARRAY)
			continue;
		if (r->nbctx == sizeof(r->bctx) / sizeof(*r->bctx) ||
		    r->npbs == MAX_BUFS) {
			fail(r, "more than %d ring/perf buffers", MAX_BUFS);
			return -E2BIG;
		}
		struct buf_ctx *c = &r->bctx[r->nbctx++];
		c->r = r;
		c->type = obj_record_type(&r->arena, r->obj, m);
		int err = 0;
		if (t == BPF_MAP_TYPE_RINGBUF) {
			if (!r->rb) {
				r->rb = ring_buffer__new(bpf_map__fd(m), on_ring, c,
							 NULL);
				err = r->rb ? epoll_add(r, ring_buffer__epoll_fd(r->rb))
					    : -errno;
			} else {
				err = ring_buffer__add(r->rb, bpf_map__fd(m), on_ring, c);
			}
		} else {
			struct perf_buffer *pb = perf_buffer__new(
				bpf_map__fd(m), 64, on_sample, on_lost, c, NULL);
			err = pb ? 0 : -errno;
			if (pb) {
				r->pbs[r->npbs++] = pb;
				err = epoll_add(r, perf_buffer__epoll_fd(pb));
			}
		}
		if (err) {
			fail(r, "cannot read buffer map '%s': %s", bpf_map__name(m),
			     obj_strerror(err));
			return err;
		}
	}
	return 0;
}

static void drain(struct run *r)
{
	if (r->rb)
		ring_buffer__consume(r->rb);
	for (size_t i = 0; i < r->npbs; i++)
		perf_buffer__consume(r->pbs[i]);
}

static bool target_gone(const struct run *r)
{
	pid_t pid = r->o->stop_pid;
	if (pid <= 0)
		return false;
	if (r->o->stop_pid_is_child)
		return waitpid(pid, NULL, WNOHANG) == pid;
	return kill(pid, 0) && errno == ESRCH;
}

static void loop(struct run *r)
{
	struct epoll_event evs[8];
	/* a failed write stops the run, as a signal does */
	while (!stop_flag && !target_gone(r) && !r->sink.err) {
		epoll_wait(r->epfd, evs, 8, 100); /* EINTR: look at the flag */
		drain(r);
		sink_flush(&r->sink);
	}
	drain(r);
}

static void set_signals(struct run *r)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	stop_flag = 0;
	sigaction(SIGINT, &sa, &r->old_int);
	sigaction(SIGTERM, &sa, &r->old_term);
	r->signals_set = true;
}

static void run_free(struct run *r)
{
	if (r->signals_set) {
		sigaction(SIGTERM, &r->old_term, NULL);
		sigaction(SIGINT, &r->old_int, NULL);
	}
	for (size_t i = r->npbs; i-- > 0;)
		perf_buffer__free(r->pbs[i]);
	ring_buffer__free(r->rb);
	if (r->epfd >= 0)
		close(r->epfd);
	for (size_t i = r->nlinks; i-- > 0;)
		bpf_link__destroy(r->links[i]);
	free(r->links);
	bpf_object__close(r->obj);
	free(r->log);
	libbpf_set_print(r->old_print);
	sink_close(&r->console);
	sink_close(&r->sink);
	arena_release(&r->arena);
}

int obj_run(const struct obj_opts *o)
{
	struct run r = { .o = o, .err = o->err ? o->err : stderr, .epfd = -1 };
	arena_init(&r.arena);
	libbpf_verbose = o->verbose;
	r.old_print = libbpf_set_print(libbpf_print);
	struct perf_spec ps = { 0 };
	uint32_t nprogs = 0;
	bool has_perf;
	FILE *under = o->out ? o->out : stdout;
	int err = sink_open(&r.sink, under, o->out ? o->out_name : "stdout",
			    _IOFBF, 1 << 16);
	if (!err && under != stdout)
		err = sink_open(&r.console, stdout, "stdout", _IOFBF, 1 << 12);
	if (err) {
		fail(&r, "cannot set up the output: %s", obj_strerror(err));
		goto out;
	}
	err = out_init(&r.out, o->format ? o->format : "text", r.sink.f, NULL);
	/* the exit newlines go to stdout, the rest to -o FILE */
	r.out.console = r.console.f ? r.console.f : r.sink.f;
	r.out.err = r.err;
	if (err) {
		fail(&r, "unknown output format '%s'", o->format);
		goto out;
	}
	r.obj = bpf_object__open_file(o->path, NULL);
	if (!r.obj) {
		err = -errno;
		fail(&r, "cannot open BPF object %s: %s", o->path, obj_strerror(err));
		goto out;
	}
	if ((err = select_progs(&r)) || (err = check_features(&r, &has_perf)))
		goto out;
	if (has_perf && (err = parse_perf_event(&r, &ps)))
		goto out;
	for (size_t i = 0; i < o->nsets; i++)
		if ((err = set_one(&r, o->sets[i])))
			goto out;
	if ((err = load(&r)) || (err = open_buffers(&r)))
		goto out;
	set_signals(&r);
	if ((err = attach_all(&r, &ps, &nprogs)))
		goto out;
	out_attached_probes(&r.out, nprogs);
	if (o->ready && (err = o->ready(o->ready_ctx)))
		goto out;
	loop(&r);
	/* BPFTRACE_PRINT_MAPS_ON_EXIT=0 */
	err = limits.no_print_maps_on_exit ? 0 :
	      obj_print_maps(&r.out, &r.arena, r.obj);
	if (err)
		fail(&r, "cannot read maps: %s", obj_strerror(err));
	sink_flush(&r.sink);
	sink_flush(&r.console);
	sink_report(&r.sink, r.err);
	sink_report(&r.console, r.err);
	if (!err)
		err = r.sink.err ? r.sink.err : r.console.err;
out:
	run_free(&r);
	return err;
}
