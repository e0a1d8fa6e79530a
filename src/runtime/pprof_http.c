/* /debug/pprof/profile: suspended requests, their deadlines on a timerfd
 * and their sockets watched for a hang-up (see pprof_http.h). */
#define _GNU_SOURCE
#include "runtime/pprof_http.h"

#ifdef SONDE_HAVE_MHD

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "runtime/metrics.h"
#include "runtime/mhd_dl.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define DEFAULT_SECONDS 30

struct pending {
	struct pprof_http *h;
	struct MHD_Connection *conn;
	void *window;          /* NULL once ended or dropped */
	uint64_t deadline_ns;  /* CLOCK_MONOTONIC */
	int sock;              /* watched for a hang-up; -1: not */
	bool done;             /* ended (or gone): the connection resumes */
	bool gone;             /* the client hung up */
	int err;               /* of ending the window */
	struct strbuf gz;
	struct pending *next;
};

struct pprof_http {
	const struct metrics_profiler *p;
	int epfd, tfd;
	struct pending *list;
	unsigned open;         /* windows not ended */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int pprof_http_new(struct pprof_http **out, const struct metrics_profiler *p,
		   int epfd)
{
	struct pprof_http *h = xcalloc(1, sizeof(*h));
	h->p = p;
	h->epfd = epfd;
	h->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = h };
	if (h->tfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, h->tfd, &e)) {
		int err = -errno;
		if (h->tfd >= 0)
			close(h->tfd);
		free(h);
		return err;
	}
	*out = h;
	return 0;
}

void pprof_http_free(struct pprof_http *h)
{
	if (!h)
		return;
	/* the daemon is stopped: its completion notices have come */
	while (h->list) {
		struct pending *q = h->list;
		h->list = q->next;
		if (q->window)
			h->p->drop(h->p->ctx, q->window);
		sb_free(&q->gz);
		free(q);
	}
	close(h->tfd);
	free(h);
}

/* The timer at the earliest deadline of the windows still open. */
static void arm(struct pprof_http *h)
{
	uint64_t first = 0;
	for (struct pending *q = h->list; q; q = q->next)
		if (!q->done && (!first || q->deadline_ns < first))
			first = q->deadline_ns;
	struct itimerspec its;
	memset(&its, 0, sizeof(its));
	if (first) {
		its.it_value.tv_sec = (time_t)(first / 1000000000ull);
		its.it_value.tv_nsec = (long)(first % 1000000000ull);
	}
	timerfd_settime(h->tfd, first ? TFD_TIMER_ABSTIME : 0, &its, NULL);
}

static void unwatch(struct pending *q)
{
	if (q->sock >= 0)
		epoll_ctl(q->h->epfd, EPOLL_CTL_DEL, q->sock, NULL);
	q->sock = -1;
}

/* Ends q's window (or drops it when the client is gone) and lets the
 * connection go on: libmicrohttpd calls pprof_http_answer again. */
static void finish(struct pending *q, bool gone)
{
	struct pprof_http *h = q->h;
	unwatch(q);
	if (q->window) {
		if (!gone)
			q->err = h->p->end(h->p->ctx, q->window, &q->gz);
		h->p->drop(h->p->ctx, q->window);
		q->window = NULL;
		h->open--;
	}
	q->gone = gone;
	q->done = true;
	MHD_resume_connection(q->conn);
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status,
			     const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "sonde: %s\n", text);
	struct MHD_Response *r = MHD_create_response_from_buffer(
		sb.len, sb.buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		sb_free(&sb);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; charset=utf-8");
	enum MHD_Result rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* seconds=N: a whole number of seconds, 1 to the maximum. */
static bool parse_seconds(const char *arg, unsigned *out)
{
	if (!arg) {
		*out = DEFAULT_SECONDS;
		return true;
	}
	unsigned long v = 0;
	if (!*arg)
		return false;
	for (const char *c = arg; *c; c++) {
		if (*c < '0' || *c > '9' || v > PPROF_HTTP_MAX_SECONDS)
			return false;
		v = v * 10 + (unsigned long)(*c - '0');
	}
	if (v < 1 || v > PPROF_HTTP_MAX_SECONDS)
		return false;
	*out = (unsigned)v;
	return true;
}

static enum MHD_Result begin(struct pprof_http *h,
			     struct MHD_Connection *conn, void **req_cls)
{
	unsigned secs;
	const char *arg = MHD_lookup_connection_value(
		conn, MHD_GET_ARGUMENT_KIND, "seconds");
	if (!parse_seconds(arg, &secs)) {
		char msg[128];
		snprintf(msg, sizeof(msg), "seconds must be a whole number "
			 "from 1 to %d (the profile covers the seconds after "
			 "the request)", PPROF_HTTP_MAX_SECONDS);
		return reply(conn, MHD_HTTP_BAD_REQUEST, msg);
	}
	if (h->open >= PPROF_HTTP_MAX_PENDING) {
		char msg[128];
		snprintf(msg, sizeof(msg), "%d profiles are being taken "
			 "already; ask again when one is done",
			 PPROF_HTTP_MAX_PENDING);
		return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, msg);
	}
	unsigned status = MHD_HTTP_INTERNAL_SERVER_ERROR;
	const char *why = "cannot profile";
	void *w = h->p->begin(h->p->ctx, &status, &why);
	if (!w)
		return reply(conn, status, why);
	struct pending *q = xcalloc(1, sizeof(*q));
	q->h = h;
	q->conn = conn;
	q->window = w;
	q->deadline_ns = now_ns() + secs * 1000000000ull;
	q->sock = -1;
	q->next = h->list;
	h->list = q;
	h->open++;
	*req_cls = q;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct epoll_event e = { .events = EPOLLRDHUP, .data.ptr = q };
	if (ci && epoll_ctl(h->epfd, EPOLL_CTL_ADD, ci->connect_fd, &e) == 0)
		q->sock = ci->connect_fd;
	MHD_suspend_connection(conn);
	arm(h);
	return MHD_YES;
}

enum MHD_Result pprof_http_answer(struct pprof_http *h,
				  struct MHD_Connection *conn, void **req_cls)
{
	struct pending *q = *req_cls;
	if (!q)
		return begin(h, conn, req_cls);
	if (!q->done) /* not resumed by us: nothing to say yet */
		return MHD_YES;
	if (q->gone)
		return MHD_NO; /* closes the connection */
	if (q->err) {
		char msg[128];
		snprintf(msg, sizeof(msg), "cannot make the profile: %s",
			 strerror(-q->err));
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, msg);
	}
	struct MHD_Response *r = MHD_create_response_from_buffer(
		q->gz.len, q->gz.len ? q->gz.buf : (void *)"",
		q->gz.len ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	if (q->gz.len) /* the response owns it now */
		q->gz = (struct strbuf)STRBUF_INIT;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"application/octet-stream");
	MHD_add_response_header(r, "Content-Disposition",
				"attachment; filename=\"profile\"");
	enum MHD_Result rc = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

void pprof_http_completed(struct pprof_http *h, void *req_cls)
{
	for (struct pending **pp = &h->list; *pp; pp = &(*pp)->next)
		if (*pp == req_cls) {
			struct pending *q = *pp;
			*pp = q->next;
			unwatch(q);
			if (q->window) {
				h->p->drop(h->p->ctx, q->window);
				h->open--;
			}
			sb_free(&q->gz);
			free(q);
			return;
		}
}

void pprof_http_event(struct pprof_http *h, void *ptr, uint32_t events)
{
	if (ptr != h) { /* a client's socket: it hung up */
		for (struct pending *q = h->list; q; q = q->next)
			if (q == ptr && !q->done)
				finish(q, true);
		arm(h);
		return;
	}
	uint64_t ticks;
	if (read(h->tfd, &ticks, sizeof(ticks)) < 0) {
		/* EAGAIN: re-armed since it fired */
	}
	uint64_t now = now_ns();
	for (struct pending *q = h->list; q; q = q->next)
		if (!q->done && q->deadline_ns <= now)
			finish(q, false);
	arm(h);
}

void pprof_http_end_all(struct pprof_http *h)
{
	for (struct pending *q = h->list; q; q = q->next)
		if (!q->done)
			finish(q, false);
	arm(h);
}

bool pprof_http_busy(const struct pprof_http *h)
{
	return h->list != NULL;
}

#endif
