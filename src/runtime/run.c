/* The run: load, attach, poll, and the exit sequence. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "model/compiled.h"
#include "model/limits.h"
#include "kernel/features.h"
#include "probes/provider.h"
#include "runtime/bench.h"
#include "runtime/cgpath.h"
#include "runtime/symbols.h"
#include "runtime/child.h"
#include "runtime/dwtables.h"
#include "runtime/events.h"
#include "runtime/flamegraph.h"
#include "runtime/fmt.h"
#include "runtime/heatmap.h"
#include "runtime/loader.h"
#include "runtime/mapdump.h"
#include "runtime/metrics.h"
#include "runtime/output.h"
#include "runtime/pprof.h"
#include "runtime/progress.h"
#include "runtime/run.h"
#include "runtime/stackids.h"
#include "runtime/sink.h"
#include "runtime/stacks.h"
#include "util/errstr.h"

/* Signals reach the poll loop through a self-pipe, so that a signal
 * arriving just before epoll_wait() still wakes it. */
static int sig_pipe_w = -1;
/* Set by SIGINT/SIGTERM/SIGHUP, so that a ring buffer that never drains (events
 * arriving faster than system() handles them) still stops. */
static volatile sig_atomic_t stopping;

/* While the probes are detached (detach_all): how many are left, and
 * what is said, on detach_fd, to a Ctrl-C meanwhile (before the count,
 * and after it). */
static volatile sig_atomic_t detach_left;
static int detach_fd = -1;
static char detach_what[2][256];

/* The Ctrl-C that comes while the kernel releases the probes is told why
 * sonde has not ended yet (async-signal-safe: write(2) only). */
static void say_detaching(void)
{
	char num[16], *p = num + sizeof(num);
	unsigned v = (unsigned)detach_left;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	ssize_t w = write(detach_fd, detach_what[0], strlen(detach_what[0]));
	w = write(detach_fd, p, (size_t)(num + sizeof(num) - p));
	w = write(detach_fd, detach_what[1], strlen(detach_what[1]));
	(void)w;
}

static void on_signal(int sig)
{
	int saved = errno;
	if (sig != SIGUSR1 && detach_left > 0 && detach_fd >= 0)
		say_detaching();
	if (sig != SIGUSR1)
		stopping = 1;
	char c = (char)sig;
	if (sig_pipe_w >= 0 && write(sig_pipe_w, &c, 1) < 0) {
		/* The pipe is full: a stop is already pending. */
	}
	errno = saved;
}

/* Everything one run owns, released in reverse order by run_close(). */
struct run {
	const struct compiled *c;
	const struct run_opts *o;
	FILE *err;
	struct loader l;
	struct probe_attachment *atts; /* per program, per target */
	uint32_t natts;
	struct progress pg;            /* the attach progress line */
	struct out out;
	struct sink sink;    /* out.f: stdout or -o FILE, writes checked */
	struct sink console; /* out.console when it is another stream */
	struct out_resolver res;
	struct stacks st;
	struct dwtables *dwt; /* the unwind tables, or NULL: none used */
	struct events ev;
	struct ring_buffer *rb;
	int sig_pipe[2];
	struct sigaction old_int, old_term, old_hup, old_usr1;
	bool handlers_set;
	int epfd;
	int pidfd; /* -p */
	bool stop;
	struct heatmap *hm;    /* --heatmap, --heatmap-svg */
	struct metrics metrics; /* --metrics */
	struct pprof_src psrc;  /* --pprof, and --metrics' profiles */
	int64_t attached_wall_ns; /* when the probes were attached */
	uint64_t attached_ns;
	bool draining; /* the probes are detached: read what is left */
	bool in_end;   /* END's records */
	bool discard;  /* drop the records (a benchmark's) */
	uint64_t stop_ns;   /* when a stop signal was first seen; 0: none */
	uint64_t unprinted; /* records dropped after a stop (see below),
			     * reported with the kernel's lost count */
	uint64_t lost_said;       /* lost records reported so far */
	uint64_t loss_checked_ns; /* when the lost count was last read */
	bool loss_pending;        /* a read put off (LOSS_CHECK_NS) */
	uint32_t nrecords;        /* records read, for report_losses */
	struct missed *missed;    /* targets the kernel missed events of */
	uint32_t nmissed;
};

/* A target's events the kernel counted as missed (read_missed). */
struct missed {
	const char *name;
	uint64_t n;
	char why[160];
};

/* After Ctrl-C or SIGTERM the records already sent are printed for this
 * long, then dropped and counted as lost: a slow record (system()) queued
 * by a busy probe must not hold the exit for seconds. bpftrace drops them
 * all at once, silently. */
#define STOP_DRAIN_NS (200 * 1000 * 1000ull)

/* Lost records are reported while the run goes on, as bpftrace 0.26's
 * poll loop does every 100 ms ("Lost N events": those since the last
 * report), and their total at exit: a long run that drops events says
 * so when it happens, and a killed one has said it. The kernel's count
 * is read at most this often. */
#define LOSS_CHECK_NS (100 * 1000 * 1000ull)

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int prog_att_base(const struct compiled *c, uint32_t prog)
{
	int base = 0;
	for (uint32_t i = 0; i < prog; i++)
		base += (int)c->progs[i].ntargets;
	return base;
}

static void report_losses(struct run *r);

static int ringbuf_sample(void *ctx, void *data, size_t size)
{
	struct run *r = ctx;
	if (r->discard)
		return 0;
	/* mappings recorded before this record must be in before its user
	 * addresses are named (a process that just exec'd) */
	stacks_new_record(&r->st);
	/* After exit() the probes' later records are dropped, as bpftrace
	 * does; END's are printed. */
	if (!r->in_end && r->ev.exit_requested)
		return r->draining ? 0 : -ECANCELED;
	if (r->in_end || !stopping) {
		/* a batch of slow records (system()) can take seconds; the
		 * clock is read every 16th record, not for each */
		if (!r->in_end && !r->draining && !(++r->nrecords & 15))
			report_losses(r);
		events_handle(&r->ev, data, size);
		/* a failed write ends the batch: the run stops */
		return r->sink.err && !r->draining ? -ECANCELED : 0;
	}
	/* A stop signal. libbpf has moved past this record before calling
	 * us, whatever we return, so it is printed (or, past the drain
	 * limit, counted as lost); a negative return then ends this batch
	 * so that the loop sees the stop, and what is left is read once the
	 * probes are detached. */
	uint64_t now = fmt_now_ns();
	if (!r->stop_ns)
		r->stop_ns = now;
	if (r->draining && now - r->stop_ns > STOP_DRAIN_NS) {
		r->unprinted++;
		return 0;
	}
	events_handle(&r->ev, data, size);
	return r->draining ? 0 : -ECANCELED;
}

static int setup_signals(struct run *r)
{
	if (pipe2(r->sig_pipe, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	sig_pipe_w = r->sig_pipe[1];
	stopping = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, &r->old_int);
	sigaction(SIGTERM, &sa, &r->old_term);
	/* a closed terminal stops the run as SIGTERM does: the maps go
	 * out (to -o FILE, where they are kept), where bpftrace dies; but
	 * under nohup (SIGHUP ignored) the run goes on */
	sigaction(SIGHUP, NULL, &r->old_hup);
	if (r->old_hup.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, &r->old_usr1);
	r->handlers_set = true;
	return 0;
}

static int epoll_add(int epfd, int fd)
{
	struct epoll_event e = { .events = EPOLLIN, .data.fd = fd };
	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) ? -errno : 0;
}

static int setup_poll(struct run *r)
{
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0)
		return -errno;
	int err = epoll_add(r->epfd, r->sig_pipe[0]);
	if (!err && r->rb)
		err = epoll_add(r->epfd, ring_buffer__epoll_fd(r->rb));
	if (!err && r->o->child)
		err = epoll_add(r->epfd, r->o->child->pidfd);
	if (!err && stacks_poll_fd(&r->st) >= 0)
		err = epoll_add(r->epfd, stacks_poll_fd(&r->st));
	if (!err && r->metrics.srv)
		err = epoll_add(r->epfd, metrics_poll_fd(r->metrics.srv));
	if (!err && r->o->pid > 0) {
		r->pidfd = (int)syscall(SYS_pidfd_open, r->o->pid, 0);
		if (r->pidfd < 0) {
			err = -errno;
			fprintf(r->err, "sonde: cannot watch pid %d: %s\n",
				(int)r->o->pid, err_str(-err));
			return err;
		}
		err = epoll_add(r->epfd, r->pidfd);
	}
	return err;
}

/* BEGIN and END: raw tracepoint programs run once on this CPU. */
static int run_once(struct run *r, uint32_t i)
{
	if (!feat_has(FEAT_TEST_RUN)) {
		fprintf(r->err, "sonde: cannot run %s: %s\n",
			r->c->progs[i].name, feat_reason(FEAT_TEST_RUN));
		return -ENOTSUP;
	}
	uint64_t args[12] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, t, .ctx_in = args,
		    .ctx_size_in = sizeof(args));
	if (bpf_prog_test_run_opts(r->l.prog_fds[i], &t)) {
		int err = -errno;
		fprintf(r->err, "sonde: cannot run %s: %s\n",
			r->c->progs[i].name, err_str(-err));
		return err;
	}
	return 0;
}

/* Whether program p attaches to events (not begin, end, self, bench or
 * test, which the runtime runs itself). */
static bool prog_attaches(const struct cprog *p)
{
	return !p->is_begin && !p->is_end && !p->is_signal && !p->is_bench &&
	       !p->is_test;
}

static int attach_one(struct run *r, uint32_t i, uint32_t k)
{
	const struct cprog *p = &r->c->progs[i];
	const struct probe_target *t = &p->targets[k];
	if (!t->prov || !t->prov->attach)
		return -EOPNOTSUPP;
	return t->prov->attach(t, r->l.prog_fds[i],
			       &r->atts[prog_att_base(r->c, i) + k]);
}

/* A target that could not be attached: as bpftrace 0.26's missing_probes
 * config says for an explicit one (an error that stops the run, a
 * warning, or nothing); one a wildcard reached is left out with a
 * warning (unless ignored), as one that does not exist is. The first
 * error is kept in *first. Returns true when the run must stop. */
static bool attach_failed(struct run *r, const struct probe_target *t,
			  int err, int *first)
{
	progress_end(&r->pg);
	if (!*first)
		*first = err;
	enum missing_probes mp = (enum missing_probes)limits.missing_probes;
	if (mp == MISSING_ERROR && !t->wild) {
		fprintf(r->err, "ERROR: cannot attach probe %s: %s\n"
			"ERROR: Unable to attach probe: %s. If this is "
			"expected, set the 'missing_probes' config variable "
			"to 'warn'.\n", t->name, err_str(err), t->name);
		return true;
	}
	if (mp != MISSING_IGNORE)
		fprintf(r->err, "WARNING: cannot attach probe %s: %s\n"
			"WARNING: Unable to attach probe: %s. Skipping.\n",
			t->name, err_str(err), t->name);
	return false;
}

/* Targets [lo, hi) of program i at once (cprog.cookies), their links
 * held by the first target's attachment. When the kernel refuses the
 * link (one function it cannot probe fails them all), each half is tried
 * on its own, down to the single targets, which are warned about and left
 * out as attach_all does. Returns how many were attached; *err is the
 * first error. */
static uint32_t attach_many(struct run *r, uint32_t i, uint32_t lo,
			    uint32_t hi, int *err, bool *stop)
{
	const struct cprog *p = &r->c->progs[i];
	const struct probe_target *t = &p->targets[lo];
	int e = t->prov->attach_multi(t, hi - lo, p->cookies + lo,
				      r->l.prog_fds[i],
				      &r->atts[prog_att_base(r->c, i) + lo]);
	if (!e)
		return hi - lo;
	if (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t done = attach_many(r, i, lo, mid, err, stop);
		return *stop ? done : done + attach_many(r, i, mid, hi, err,
							 stop);
	}
	*stop = attach_failed(r, t, e, err);
	return 0;
}

/* Targets in one link at most: the kernel releases a link's uprobes one
 * after the other (each walks every process mapping the file), but
 * several links at once, in probe_detach_all's threads. */
#define MULTI_LINK_MAX 256

/* attach_many() over program i's targets, but those the provider knows
 * the kernel refuses are warned about and left out first: each run of
 * the others is one link (one bad uprobe among 2,594 took 8 s of
 * splitting, and left 24 links to detach). Returns how many were
 * attached. */
static uint32_t attach_runs(struct run *r, uint32_t i, int *err,
			    bool *stop)
{
	const struct cprog *p = &r->c->progs[i];
	int (*refuses)(const struct probe_target *) =
		p->targets->prov->refuses;
	uint32_t attached = 0, lo = 0;
	for (uint32_t k = 0; k <= p->ntargets; k++) {
		int e = k < p->ntargets && refuses ? refuses(&p->targets[k]) :
						      0;
		/* links of at most MULTI_LINK_MAX, which detach in parallel */
		if (k < p->ntargets && !e && k - lo < MULTI_LINK_MAX)
			continue;
		if (k > lo)
			attached += attach_many(r, i, lo, k, err, stop);
		if (*stop)
			return attached;
		if (e && (*stop = attach_failed(r, &p->targets[k], e, err)))
			return attached;
		/* a refused target is left out; a full link's end starts
		 * the next one */
		lo = e ? k + 1 : k;
	}
	return attached;
}

/* The probes p stands for in "Attached N probes". */
static uint32_t counted(const struct cprog *p)
{
	if (p->uncounted)
		return 0;
	return p->ncounted ? p->ncounted : p->ntargets;
}

/* Attaches every target, in script order, but targets whose provider
 * says the kernel runs them last attached first in a second pass,
 * backwards. One that cannot be attached is judged by attach_failed, and
 * one left out is counted in *left_out (as the probes it stands for in
 * "Attached N probes"); when missing probes are errors, none attached at
 * all is one too. */
static int attach_all(struct run *r, uint32_t *left_out)
{
	const struct compiled *c = r->c;
	const char *fmt = r->o->format;
	uint64_t done = 0, total = 0, attached = 0;
	int first_err = 0;
	for (uint32_t i = 0; i < c->nprogs; i++)
		if (prog_attaches(&c->progs[i]))
			total += c->progs[i].ntargets;
	progress_start(&r->pg, r->err, !r->o->quiet &&
		       !(fmt && !strcmp(fmt, "json")), "Attaching probes",
		       total);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t n = 0; n < c->nprogs; n++) {
			uint32_t i = pass ? c->nprogs - 1 - n : n;
			const struct cprog *p = &c->progs[i];
			if (!prog_attaches(p))
				continue;
			if (p->cookies) {
				bool rev = p->targets->prov->attach_reversed;
				if (rev != (pass == 1))
					continue;
				bool stop = false;
				uint32_t got = attach_runs(r, i, &first_err,
							   &stop);
				if (stop)
					return first_err;
				attached += got;
				/* in probes: the sites of one may share a run */
				uint32_t lost = p->ntargets - got,
					 cn = counted(p);
				*left_out += !got ? cn : lost < cn ? lost : cn - 1;
				done += p->ntargets;
				progress_step(&r->pg, done);
				continue;
			}
			for (uint32_t m = 0; m < p->ntargets; m++) {
				uint32_t k = pass ? p->ntargets - 1 - m : m;
				const struct probe_target *t = &p->targets[k];
				bool rev = t->prov && t->prov->attach_reversed &&
					   !t->in_attach_order;
				if (rev != (pass == 1))
					continue;
				int err = attach_one(r, i, k);
				progress_step(&r->pg, ++done);
				if (!err) {
					attached++;
					continue;
				}
				if (attach_failed(r, t, err, &first_err))
					return first_err;
				*left_out += p->ncounted ? p->ncounted :
					     !p->uncounted;
			}
		}
	}
	progress_end(&r->pg);
	if (total && !attached && limits.missing_probes == MISSING_ERROR) {
		fprintf(r->err, "ERROR: none of the %llu probes could be "
			"attached\n", (unsigned long long)total);
		return first_err;
	}
	return 0;
}

static void detach_tick(void *ctx, uint32_t done)
{
	struct run *r = ctx;
	detach_left = (sig_atomic_t)(r->pg.total - done);
	progress_step(&r->pg, done);
}

/* Detaches everything, with a progress line on a terminal when that takes
 * over a second (uprobes one link each: ~0.1 s apiece). */
static void detach_all(struct run *r)
{
	if (!r->atts)
		return;
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->natts; i++)
		n += r->atts[i].nfds > 0;
	if (!n)
		return;
	/* what a Ctrl-C meanwhile is told */
	const char *first = NULL;
	uint32_t nprogs = 0;
	for (uint32_t i = 0; i < r->c->nprogs; i++)
		if (prog_attaches(&r->c->progs[i]) &&
		    !nprogs++)
			first = r->c->progs[i].name;
	snprintf(detach_what[0], sizeof(detach_what[0]), "\nsonde: the "
		 "kernel is still releasing the probes (%s%s): ",
		 first ? first : "", nprogs > 1 ? ", ..." : "");
	snprintf(detach_what[1], sizeof(detach_what[1]), " of their %u "
		 "links and perf events left, sonde ends when they are\n", n);
	detach_fd = fileno(r->err);
	detach_left = (sig_atomic_t)n;
	const char *fmt = r->o->format;
	progress_start(&r->pg, r->err, !r->o->quiet &&
		       !(fmt && !strcmp(fmt, "json")), "Detaching probes", n);
	probe_detach_all(r->atts, r->natts, detach_tick, r);
	progress_end(&r->pg);
	detach_left = 0;
}

static int stop_counting(struct run *r)
{
	uint32_t key = 0;
	uint64_t one = 1;
	if (bpf_map_update_elem(r->l.map_fds[r->c->stop_flag], &key, &one,
				BPF_ANY) == 0)
		return 0;
	int err = -errno;
	fprintf(r->err, "sonde: cannot stop the probes: %s\n", strerror(-err));
	detach_all(r);
	return 0;
}

static int run_progs(struct run *r, bool end)
{
	for (uint32_t i = 0; i < r->c->nprogs; i++)
		if (end ? r->c->progs[i].is_end : r->c->progs[i].is_begin) {
			int err = run_once(r, i);
			if (err)
				return err;
			/* It never runs again: the kernel need not keep it. */
			close(r->l.prog_fds[i]);
			r->l.prog_fds[i] = -1;
		}
	return 0;
}

/* A failed write stops the run, as a signal does (END runs, the probes
 * are detached), once said; sonde then exits non-zero. */
static bool output_failed(struct run *r)
{
	if (!r->sink.err && !r->console.err)
		return false;
	sink_report(&r->sink, r->err);
	sink_report(&r->console, r->err);
	r->stop = true;
	return true;
}

static void consume(struct run *r)
{
	/* mappings first: the records may name processes gone by now */
	stacks_consume(&r->st);
	if (r->rb)
		ring_buffer__consume(r->rb);
	/* The batch's lines go out before we sleep again, so output still
	 * follows the workload as it happens (unless -B full). */
	if (r->o->buffering != RUN_BUF_FULL)
		fflush(r->out.f);
	output_failed(r);
}

/* unwatch(addr): every attachment that watches addr stops. */
static void unwatch(void *ctx, uint64_t addr)
{
	struct run *r = ctx;
	for (uint32_t i = 0; i < r->natts; i++)
		if (r->atts[i].unwatch)
			r->atts[i].unwatch(&r->atts[i], addr);
}

/* Whether fd is the poll fd of an attachment's service, which it then
 * runs. */
static bool service_atts(struct run *r, int fd)
{
	for (uint32_t i = 0; i < r->natts; i++) {
		struct probe_attachment *att = &r->atts[i];
		if (att->service && att->poll_fd == fd) {
			int err = att->service(att);
			if (err)
				fprintf(r->err, "sonde: %s\n", strerror(-err));
			return true;
		}
	}
	return false;
}
/* SIGUSR1: each self:signal:SIGUSR1 program in the script's order, then
 * what they printed (bpftrace 0.26; without any, nothing happens). */
static void run_signal_progs(struct run *r)
{
	for (uint32_t i = 0; i < r->c->nprogs; i++)
		if (r->c->progs[i].is_signal && run_once(r, i))
			break;
	consume(r);
}

static uint64_t lost_events(struct run *r)
{
	if (r->c->lost_counter < 0)
		return 0;
	return loader_counter_read(r->l.map_fds[r->c->lost_counter]);
}

/* Reports the records lost since the last report. A loss leaves records
 * in the ring buffer, whose reading wakes the poll loop; it calls this
 * after each wake-up, and so does each record read: a call within
 * LOSS_CHECK_NS of the last read is put off to the loop's time-out
 * (loss_timeout_ms). Not after exit(): its record says what was lost
 * before it, and what comes after goes unprinted anyway. */
static void report_losses(struct run *r)
{
	if (r->c->lost_counter < 0 || r->ev.exit_requested)
		return;
	uint64_t now = mono_ns();
	if (r->loss_checked_ns && now - r->loss_checked_ns < LOSS_CHECK_NS) {
		r->loss_pending = true;
		return;
	}
	r->loss_pending = false;
	r->loss_checked_ns = now;
	uint64_t n = lost_events(r);
	if (n > r->lost_said) {
		out_lost_events(&r->out, n - r->lost_said);
		r->lost_said = n;
	}
}

/* Milliseconds until a put-off loss report is due; -1: none. */
static int loss_timeout_ms(struct run *r)
{
	if (!r->loss_pending)
		return -1;
	uint64_t due = r->loss_checked_ns + LOSS_CHECK_NS, now = mono_ns();
	return due > now ? (int)((due - now + 999999) / 1000000) : 0;
}

/* The sooner of two epoll_wait() time-outs (-1: none). */
static int sooner(int a, int b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

static int poll_loop(struct run *r)
{
	struct child *ch = r->o->child;
	while (!r->stop && !r->ev.exit_requested) {
		struct epoll_event evs[4];
		/* a timeout only when user stacks need pids snapshotted or a
		 * loss report is due */
		int n = epoll_wait(r->epfd, evs, 4,
				   sooner(stacks_tick_ms(&r->st),
					  loss_timeout_ms(r)));
		stacks_tick(&r->st);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			if (fd == r->sig_pipe[0]) {
				char sig = 0;
				if (read(fd, &sig, 1) == 1 && sig == SIGUSR1)
					run_signal_progs(r);
				else
					r->stop = true;
			} else if (ch && fd == ch->pidfd) {
				child_reap(ch, false);
				r->stop = true;
			} else if (fd == r->pidfd) {
				r->stop = true;
			} else if (fd == stacks_poll_fd(&r->st)) {
				stacks_consume(&r->st);
			} else if (r->metrics.srv &&
				   fd == metrics_poll_fd(r->metrics.srv)) {
				metrics_serve(r->metrics.srv);
			} else if (!service_atts(r, fd)) {
				consume(r);
			}
		}
		if (n > 0 || r->loss_pending)
			report_losses(r);
	}
	return 0;
}

/* Aggregation inserts lost because a map was full: each map that can
 * lose them has its u64 in the .full array (cmap.full_counter, full_off). */
static void report_full_maps(struct run *r)
{
	const struct compiled *c = r->c;
	for (uint32_t i = 0; i < c->nmaps; i++) {
		const struct cmap *m = &c->maps[i];
		if (!m->is_user || m->full_counter <= 0)
			continue;
		uint64_t n = loader_counter_read_at(r->l.map_fds[m->full_counter],
						    m->full_off);
		/* 0.26 warns of each in these words; its hint with the map's
		 * own name and twice its size */
		if (n)
			fprintf(r->err, "WARNING: Map full; can't update element: "
				"lost %llu updates of %s: the map is full (%u "
				"entries). Try increasing max_map_keys config "
				"or manually setting the max entries in a map "
				"declaration e.g. `let %s = hash(%llu)`\n",
				(unsigned long long)n, m->name, m->max_entries,
				m->name, 2ULL * m->max_entries);
	}
}

/* What the kernel counted as missed of each target (a kretprobe's
 * returns past its maxactive), read while the probes are still there. */
static void read_missed(struct run *r)
{
	const struct compiled *c = r->c;
	for (uint32_t i = 0, a = 0; i < c->nprogs; i++)
		for (uint32_t k = 0; k < c->progs[i].ntargets; k++, a++) {
			struct probe_attachment *att = &r->atts[a];
			if (!att->missed)
				continue;
			struct missed m = { c->progs[i].targets[k].name, 0,
					    "" };
			m.n = att->missed(att, m.why, sizeof(m.why));
			if (!m.n)
				continue;
			struct missed *grown = realloc(r->missed,
				(r->nmissed + 1) * sizeof(*grown));
			if (!grown)
				return;
			r->missed = grown;
			r->missed[r->nmissed++] = m;
		}
}

/* The output leaves those events out: said, never silently short. */
static void report_missed(struct run *r)
{
	for (uint32_t i = 0; i < r->nmissed; i++)
		fprintf(r->err, "WARNING: the kernel missed %llu events of "
			"%s (%s); the output leaves them out\n",
			(unsigned long long)r->missed[i].n,
			r->missed[i].name, r->missed[i].why);
}

static int print_maps(struct run *r)
{
	size_t n;
	struct mapdump_map *m = loader_user_maps(&r->l, &n);
	if (!m)
		return -ENOMEM;
	/* print_maps_on_exit = false: none (heat maps, profiles still) */
	int err = limits.no_print_maps_on_exit ? 0 :
		  mapdump_print_exit(&r->out, m, n);
	if (!err && r->hm)
		err = heatmap_finish(r->hm, r->err);
	if (!err && (r->o->folded || r->o->flamegraph))
		err = flamegraph_write(m, n, &r->res, r->o->folded,
				       r->o->flamegraph, r->err);
	if (!err && r->o->pprof)
		err = pprof_write_file(&r->psrc, r->o->pprof,
				       r->attached_wall_ns,
				       (int64_t)(mono_ns() - r->attached_ns),
				       r->err);
	free(m);
	return err;
}

/* -c's command execs. Where its stacks are unwound from tables, it
 * stops at its entry point, its libraries mapped, for them to be loaded,
 * so that its first samples are unwound too (what it maps later comes
 * through the mmap records). */
static int start_child(struct run *r)
{
	struct child *ch = r->o->child;
	if (!r->dwt)
		return child_start(ch);
	int err = child_start_stopped(ch);
	if (!err && ch->stopped)
		child_run_to_entry(ch);
	if (!err && ch->stopped) {
		dwt_child_exec(r->dwt);
		child_resume(ch);
	}
	return err;
}

static void run_close(struct run *r)
{
	if (r->epfd >= 0)
		close(r->epfd);
	if (r->pidfd >= 0)
		close(r->pidfd);
	ring_buffer__free(r->rb);
	r->rb = NULL;
	metrics_stop(&r->metrics);
	detach_all(r);
	free(r->atts);
	free(r->missed);
	if (r->handlers_set) {
		sigaction(SIGUSR1, &r->old_usr1, NULL);
		sigaction(SIGHUP, &r->old_hup, NULL);
		sigaction(SIGTERM, &r->old_term, NULL);
		sigaction(SIGINT, &r->old_int, NULL);
	}
	sig_pipe_w = -1;
	if (r->sig_pipe[0] >= 0) {
		close(r->sig_pipe[1]);
		close(r->sig_pipe[0]);
	}
	events_fini(&r->ev);
	heatmap_free(r->hm, &r->out);
	dwt_close(r->dwt);
	r->dwt = NULL;
	stacks_fini(&r->st);
	sink_close(&r->console);
	sink_close(&r->sink);
	loader_close(&r->l);
	if (r->o->child)
		child_release(r->o->child);
}

/* --heatmap/--heatmap-svg wrap the output; --metrics starts serving
 * (before anything is attached, so a bad address stops the run early). */
static int setup_outputs(struct run *r)
{
	const struct run_opts *o = r->o;
	int err = 0;
	r->psrc = (struct pprof_src){ r->c, r->l.map_fds, &r->st, &r->res };
	if (o->pprof && !pprof_has_maps(r->c)) {
		fprintf(r->err, "sonde: --pprof: no map keyed by kstack or "
			"ustack with count() or sum() values to write a "
			"profile of\n");
		return -ENOENT;
	}
	if (o->heatmap || o->heatmap_svg) {
		size_t n;
		struct mapdump_map *m = loader_user_maps(&r->l, &n);
		if (!m)
			return -ENOMEM;
		struct heatmap_opts ho = { o->heatmap, o->heatmap_svg, -1,
					   r->sink.under };
		err = heatmap_start(&r->hm, &r->out, &ho, m, n, r->err);
		free(m);
	}
	if (!err && o->metrics)
		err = metrics_start(&r->metrics, r->c, &r->l, &r->res,
				    &r->psrc, o->metrics, o->quiet, r->err);
	return err;
}

static int run_setup(struct run *r)
{
	const struct compiled *c = r->c;
	const struct run_opts *o = r->o;
	r->res.sym = symbols_resolve;
	r->res.probe_names = c->probe_names;
	r->res.nprobes = c->nprobe_names;
	int64_t boot = fmt_boot_epoch_ns();
	r->res.boot_wall_ns = boot > 0 ? boot : 0;
	FILE *under = o->out ? o->out : stdout;
	/* printf records are written unflushed and, by default, flushed
	 * once per ring buffer batch (consume()): one write(2) per batch,
	 * not per line. */
	int mode = o->buffering == RUN_BUF_NONE ? _IONBF :
		   o->buffering == RUN_BUF_LINE ? _IOLBF : _IOFBF;
	int err = sink_open(&r->sink, under,
			    o->out ? o->out_name : "stdout", mode, 1 << 16);
	if (!err && o->console && o->console != under)
		err = sink_open(&r->console, o->console, "stdout", _IOFBF,
				1 << 12);
	if (err) {
		fprintf(r->err, "sonde: cannot set up the output: %s\n",
			err_str(-err));
		return err;
	}
	err = out_init(&r->out, o->format ? o->format : "text", r->sink.f,
		       &r->res);
	if (r->console.f)
		r->out.console = r->console.f;
	r->out.err = r->err;
	r->out.no_warnings = o->no_warnings;
	if (err) {
		fprintf(r->err, "sonde: unknown output format '%s'\n",
			o->format);
		return err;
	}
	loader_libbpf_quiet(o->verbose, r->err);
	struct loader_opts lo = { r->err, o->verbose };
	err = loader_load(&r->l, c, &lo);
	if (err)
		return err;
	stacks_init(&r->st, c, r->l.map_fds);
	stacks_resolver(&r->st, &r->res);
	r->res.cgroup_path = cgpath_resolve;
	if (o->child)
		stacks_watch(&r->st, o->child->pid);
	if (o->pid > 0)
		stacks_watch(&r->st, o->pid);
	err = dwt_open(&r->dwt, c, r->l.map_fds, o->pid > 0 ? o->pid : 0,
		       o->child ? o->child->pid : 0, r->st.mmaps, r->err);
	if (err) {
		fprintf(r->err, "sonde: cannot set up the unwind tables: %s\n",
			err_str(-err));
		return err;
	}
	for (uint32_t i = 0; i < c->nprogs; i++)
		r->natts += c->progs[i].ntargets;
	r->atts = calloc(r->natts + 1, sizeof(*r->atts));
	if (!r->atts)
		return -ENOMEM;
	r->ev = (struct events){ .c = c, .map_fds = r->l.map_fds,
				 .o = &r->out, .err = r->err,
				 .unsafe = o->unsafe, .unwatch = unwatch,
				 .unwatch_ctx = r };
	if (c->ringbuf >= 0) {
		r->rb = ring_buffer__new(r->l.map_fds[c->ringbuf],
					 ringbuf_sample, r, NULL);
		if (!r->rb) {
			err = -errno;
			fprintf(r->err, "sonde: cannot open the ring buffer: "
					"%s\n", err_str(-err));
			return err;
		}
	}
	err = setup_outputs(r);
	if (!err)
		err = setup_signals(r);
	if (!err)
		err = setup_poll(r);
	return err;
}

/* Whether any probe that fires on events is attached, left_out of them
 * having been left out. */
static bool runs_attached(const struct run *r, uint32_t left_out)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->c->nprogs; i++) {
		const struct cprog *p = &r->c->progs[i];
		if (prog_attaches(p))
			n += counted(p);
		else if (p->is_signal)
			return true; /* they wait for their signal */
	}
	return n > left_out;
}

static void drop_records(void *ctx)
{
	struct run *r = ctx;
	r->discard = true;
	if (r->rb)
		ring_buffer__consume(r->rb);
	r->discard = false;
}

/* --bench: each bench: program, in the script's order, timed and its
 * result printed (runtime/bench.c). */
static int run_benches(struct run *r)
{
	const struct compiled *c = r->c;
	const char **names = calloc(c->nprogs + 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	size_t n = 0;
	for (uint32_t i = 0; i < c->nprogs; i++)
		if (c->progs[i].is_bench) {
			const char *nm = c->progs[i].targets->name;
			names[n++] = strchr(nm, ':') ? strchr(nm, ':') + 1 : nm;
		}
	int err = 0;
	size_t k = 0;
	for (uint32_t i = 0; i < c->nprogs && !err; i++) {
		if (!c->progs[i].is_bench)
			continue;
		uint64_t avg = 0, iters = 0;
		err = bench_run(r->l.prog_fds[i], drop_records, r, &avg,
				&iters);
		if (err) {
			fprintf(r->err, "ERROR: bpf_prog_test_run_opts failed: "
				"%s\n", err_str(-err));
			break;
		}
		bench_print(&r->out, names, n, k++, avg, iters);
	}
	free(names);
	fflush(r->out.f);
	return err;
}

/* --test: each test: program once, in the script's order, what it prints
 * captured; it passes when it returns 0 (bpftrace 0.26 also fails one
 * whose exit() gives a non-zero code, or that calls errorf(), neither of
 * which sonde has). Returns 0, 1 when one failed, or -errno. */
static int run_tests(struct run *r)
{
	const struct compiled *c = r->c;
	const char **names = calloc(c->nprogs + 1, sizeof(*names));
	bool *passed = calloc(c->nprogs + 1, sizeof(*passed));
	if (!names || !passed) {
		free(names);
		free(passed);
		return -ENOMEM;
	}
	size_t n = 0;
	for (uint32_t i = 0; i < c->nprogs; i++)
		if (c->progs[i].is_test) {
			const char *nm = c->progs[i].targets->name;
			names[n++] = strchr(nm, ':') ? strchr(nm, ':') + 1 : nm;
		}
	/* what begin printed goes out first */
	consume(r);
	int err = 0, failed = 0;
	size_t k = 0;
	FILE *out = r->out.f;
	for (uint32_t i = 0; i < c->nprogs && !err; i++) {
		if (!c->progs[i].is_test)
			continue;
		char *buf = NULL;
		size_t len = 0;
		FILE *cap = open_memstream(&buf, &len);
		if (!cap) {
			err = -errno;
			break;
		}
		uint32_t ret = 0;
		uint64_t ns = 0;
		err = test_run_once(r->l.prog_fds[i], &ret, &ns);
		/* as text whatever the format, as 0.26 captures it */
		const struct out_ops *ops = r->out.ops;
		r->out.f = cap;
		r->out.ops = &out_text_ops;
		if (r->rb)
			ring_buffer__consume(r->rb);
		r->out.f = out;
		r->out.ops = ops;
		fclose(cap);
		if (err) {
			fprintf(r->err, "ERROR: bpf_prog_test_run_opts failed: "
				"%s\n", err_str(-err));
			free(buf);
			break;
		}
		passed[k] = ret == 0;
		failed |= !passed[k];
		/* each test starts afresh */
		r->ev.exit_requested = false;
		test_print(&r->out, names, n, k, ns, passed, buf, len);
		k++;
		free(buf);
	}
	free(names);
	free(passed);
	fflush(r->out.f);
	return err ? err : failed;
}

/* Reads every attached iterator target (provider iterate hook) into the
 * output. Returns whether there was one; *failed says whether one could
 * not be read or pinned (the provider said why). */
static bool iterate_all(struct run *r, bool *failed)
{
	bool any = false;
	for (uint32_t i = 0; i < r->c->nprogs; i++) {
		const struct cprog *p = &r->c->progs[i];
		for (uint32_t k = 0; k < p->ntargets; k++) {
			const struct probe_target *t = &p->targets[k];
			if (!t->prov || !t->prov->iterate)
				continue;
			any = true;
			struct probe_attachment *att =
				&r->atts[prog_att_base(r->c, i) + k];
			if (t->prov->iterate(t, att, r->out.f))
				*failed = true;
			consume(r);
		}
	}
	fflush(r->out.f);
	return any;
}

int run_program(const struct compiled *c, const struct run_opts *o)
{
	struct run r;
	memset(&r, 0, sizeof(r));
	r.c = c;
	r.o = o;
	r.err = o->err ? o->err : stderr;
	r.sig_pipe[0] = r.sig_pipe[1] = -1;
	r.epfd = r.pidfd = -1;
	int err = run_setup(&r);
	if (!err && o->verify_only) {
		fprintf(r.out.f, "%u programs passed the verifier\n",
			r.c->nprogs);
		sink_flush(&r.sink);
		err = sink_report(&r.sink, r.err);
		run_close(&r);
		return err;
	}
	/* BEGIN before the other probes attach, as in bpftrace: what it
	 * sets up (a map of names, say) is there for their first event. */
	if (!err)
		err = run_progs(&r, false);
	uint32_t left_out = 0;
	/* --bench: the benchmarks instead of the probes, then end */
	int test_failed = 0;
	bool iter_failed = false;
	if (!err && o->bench) {
		err = run_benches(&r);
		r.stop = true;
	} else if (!err && o->test) {
		err = run_tests(&r);
		if (err > 0)
			test_failed = err, err = 0;
		r.stop = true;
	} else if (!err) {
		err = attach_all(&r, &left_out);
	}
	if (!err && o->dry_run) {
		/* attached: that is all a dry run does, as bpftrace's,
		 * whose BEGIN has run but is not printed */
		run_close(&r);
		return 0;
	}
	/* bpftrace counts every target attached, BEGIN and END included,
	 * and each syscall of a dispatching program; not bench and test
	 * probes, which run only in their modes. */
	uint32_t shown = 0;
	bool tests = false, benches = false;
	for (uint32_t i = 0; i < c->nprogs; i++) {
		tests |= c->progs[i].is_test;
		benches |= c->progs[i].is_bench;
		if (!c->progs[i].is_test && !c->progs[i].is_bench)
			shown += counted(&c->progs[i]);
	}
	if (!err && !o->bench && !o->test && shown == left_out &&
	    (tests || benches)) {
		fprintf(r.err, "ERROR: No probes attached; use --%s to run %s "
			"probes.\n", tests ? "test" : "bench",
			tests ? "test" : "benchmark");
		err = -ENOENT;
	}
	if (!err && !o->quiet && !o->bench && !o->test)
		out_attached_probes(&r.out, shown - left_out);
	/* targets that need user space while they run */
	for (uint32_t i = 0; !err && i < r.natts; i++)
		if (r.atts[i].service)
			err = epoll_add(r.epfd, r.atts[i].poll_fd);
	/* bpftrace's signal to test harnesses that everything is attached
	 * (its runtime tests wait for it), on stdout as bpftrace's: before
	 * anything the probes print, which tests cut with tail -n +2 */
	if (!err && getenv("__BPFTRACE_NOTIFY_PROBES_ATTACHED")) {
		fputs("__BPFTRACE_NOTIFY_PROBES_ATTACHED\n", stdout);
		fflush(stdout);
	}
	r.attached_wall_ns = (int64_t)fmt_now_ns();
	r.attached_ns = mono_ns();
	if (!err) {
		consume(&r);
		if (o->child && !r.ev.exit_requested && !r.stop) {
			err = start_child(&r);
			if (err)
				fprintf(r.err, "sonde: cannot start the "
					       "command: %s\n",
					err_str(-err));
		}
	}
	/* An iterator runs as it is read: all of it now, then the run ends
	 * (bpftrace 0.26's run_iter). */
	if (!err && !r.stop && !r.ev.exit_requested &&
	    iterate_all(&r, &iter_failed))
		r.stop = true;
	/* Nothing attached (only begin and end probes, or every probe
	 * missing and let be): bpftrace 0.26 drains what begin printed and
	 * ends, as there is nothing left to wait for. A -c command is still
	 * waited for (0.26 would kill it after 100 ms). */
	if (!err && !r.stop && !r.ev.exit_requested && !r.metrics.srv &&
	    !o->child && !runs_attached(&r, left_out))
		r.stop = true;
	if (!err)
		err = poll_loop(&r);
	if (!err) {
		/* The maps printed must hold still: a few probes are detached
		 * first; many would take ~30 ms each, so their programs are
		 * told to stop instead, and detached after printing. */
		read_missed(&r);
		if (c->stop_flag >= 0)
			err = stop_counting(&r);
		else
			detach_all(&r);
		/* what came after exit() goes unprinted; END prints */
		r.draining = true;
		consume(&r);
		r.in_end = true;
		int eerr = run_progs(&r, true);
		if (!err)
			err = eerr;
		consume(&r);
		int perr = print_maps(&r);
		if (!err)
			err = perr;
		uint64_t lost = lost_events(&r);
		/* the records after exit() go unprinted anyway */
		if (r.ev.exit_lost_known && r.ev.lost_before_exit < lost)
			lost = r.ev.lost_before_exit;
		/* the records the stop-drain limit dropped are lost too */
		lost += r.unprinted;
		/* (a loss reported while exit()'s record was on its way) */
		if (lost < r.lost_said)
			lost = r.lost_said;
		/* those not reported yet, then the total, as 0.26 ends */
		if (lost > r.lost_said)
			out_lost_events(&r.out, lost - r.lost_said);
		if (lost && !o->no_warnings)
			fprintf(r.err, "WARNING: Total lost event count: "
				"%llu\n", (unsigned long long)lost);
		report_full_maps(&r);
		if (!o->no_warnings)
			report_missed(&r);
		stackids_report(c, r.l.map_fds, r.err);
		sink_flush(&r.sink);
		sink_flush(&r.console);
		if (output_failed(&r) && !err)
			err = r.sink.err ? r.sink.err : r.console.err;
	}
	int code = r.ev.exit_code & 0xff;
	run_close(&r);
	return err ? err : test_failed || iter_failed ? 1 : code;
}
