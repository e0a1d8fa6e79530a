/* The /metrics HTTP endpoint: libmicrohttpd driven from the run's event
 * loop (external epoll mode, no thread). sonde binds the socket itself,
 * so that a bad address or a port in use is reported in one sentence
 * before anything is attached; the daemon is handed the listening fd.
 * The loop polls an epoll fd of ours holding the daemon's and those of
 * /debug/pprof/profile (runtime/pprof_http.h). */
#define _GNU_SOURCE
#include "runtime/metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

#ifndef SONDE_HAVE_MHD

bool metrics_available(void)
{
	return false;
}

int metrics_listen(struct metrics_server **s, const char *addr,
		   metrics_render_fn render, void *ctx, bool quiet, FILE *err)
{
	fprintf(err, "sonde: --metrics needs libmicrohttpd, and this sonde "
		     "was built without it (install libmicrohttpd-dev and "
		     "rebuild)\n");
	*s = NULL;
	return -ENOTSUP;
}

int metrics_poll_fd(const struct metrics_server *s)
{
	return -1;
}

int metrics_serve_profiles(struct metrics_server *s,
			   const struct metrics_profiler *p)
{
	return -ENOTSUP;
}

void metrics_serve(struct metrics_server *s)
{
}

void metrics_close(struct metrics_server *s)
{
}

#else

#include <arpa/inet.h>
#include "runtime/mhd_dl.h"
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "runtime/pprof_http.h"

struct metrics_server {
	struct MHD_Daemon *d;
	int fd;
	int epfd;               /* the daemon's epoll fd and pprof's fds */
	metrics_render_fn render;
	void *ctx;
	struct pprof_http *pprof; /* NULL: no profiles served */
};

bool metrics_available(void)
{
	return true;
}

/* "PORT", "ADDR:PORT", "[V6]:PORT", "localhost:PORT" -> a socket
 * address. Only numeric addresses (and localhost): a name lookup could
 * hang, and a name may have several addresses. */
static int parse_addr(const char *spec, struct sockaddr_storage *ss,
		      socklen_t *len, long *port_out)
{
	char host[128];
	const char *port;
	const char *colon = strrchr(spec, ':');
	if (!colon) {
		strcpy(host, "127.0.0.1");
		port = spec;
	} else {
		size_t n = (size_t)(colon - spec);
		if (n >= sizeof(host))
			return -EINVAL;
		memcpy(host, spec, n);
		host[n] = 0;
		port = colon + 1;
		if (host[0] == '[') {
			if (n < 2 || host[n - 1] != ']')
				return -EINVAL;
			memmove(host, host + 1, n - 2);
			host[n - 2] = 0;
		}
		if (!strcmp(host, "localhost") || !host[0])
			strcpy(host, "127.0.0.1");
	}
	char *end;
	long p = strtol(port, &end, 10);
	if (!*port || *end || p < 0 || p > 65535)
		return -EINVAL;
	*port_out = p;
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)p);
		*len = sizeof(*a4);
	} else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*a6);
	} else {
		return -EINVAL;
	}
	return 0;
}

static void print_addr(FILE *f, const struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN];
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)ss;
		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		fprintf(f, "[%s]:%u", host, ntohs(a->sin6_port));
	} else {
		const struct sockaddr_in *a = (const void *)ss;
		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		fprintf(f, "%s:%u", host, ntohs(a->sin_port));
	}
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct metrics_server *s = cls;
	struct MHD_Response *resp;
	unsigned status = MHD_HTTP_OK;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		static const char msg[] = "only GET /metrics\n";
		resp = MHD_create_response_from_buffer(
			sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
	} else if (s->pprof && !strcmp(url, PPROF_HTTP_PATH)) {
		return pprof_http_answer(s->pprof, conn, con_cls);
	} else if (strcmp(url, "/metrics")) {
		static const char msg[] = "sonde serves /metrics and "
					  PPROF_HTTP_PATH "\n";
		resp = MHD_create_response_from_buffer(
			sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
		status = MHD_HTTP_NOT_FOUND;
	} else {
		struct strbuf sb = STRBUF_INIT;
		if (s->render(s->ctx, &sb) < 0)
			status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		size_t len = sb.len;
		resp = MHD_create_response_from_buffer(
			len, len ? sb.buf : (void *)"",
			len ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
		if (!resp)
			sb_free(&sb);
	}
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; version=0.0.4; charset=utf-8");
	enum MHD_Result r = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static void completed(void *cls, struct MHD_Connection *conn,
		      void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct metrics_server *s = cls;
	if (s->pprof && *con_cls)
		pprof_http_completed(s->pprof, *con_cls);
	*con_cls = NULL;
}

static const char *listen_problem(int e)
{
	switch (e) {
	case EADDRINUSE: return "the port is in use";
	case EADDRNOTAVAIL: return "this host has no such address";
	case EACCES: return "permission denied";
	default: return strerror(e);
	}
}

int metrics_listen(struct metrics_server **out, const char *spec,
		   metrics_render_fn render, void *ctx, bool quiet, FILE *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	long port;
	*out = NULL;
	char why[256];
	if (mhd_dl_load(why, sizeof(why))) {
		fprintf(err, "sonde: --metrics needs libmicrohttpd, which "
			     "cannot be loaded: %s\n", why);
		return -ENOENT;
	}
	if (parse_addr(spec, &ss, &len, &port)) {
		fprintf(err, "sonde: --metrics '%s' is not PORT, ADDR:PORT or "
			     "[IPV6ADDR]:PORT with a numeric address and a "
			     "port from 0 to 65535\n", spec);
		return -EINVAL;
	}
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC |
				      SOCK_NONBLOCK, 0);
	if (fd < 0) {
		int e = errno;
		fprintf(err, "sonde: --metrics %s: cannot open a socket: %s\n",
			spec, strerror(e));
		return -e;
	}
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
		int e = errno;
		fprintf(err, "sonde: --metrics %s: cannot listen there: %s\n",
			spec, listen_problem(e));
		close(fd);
		return -e;
	}
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	struct metrics_server *s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	s->fd = fd;
	s->render = render;
	s->ctx = ctx;
	/* suspend/resume: profile requests wait for their window */
	s->d = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, 0,
				NULL, NULL, answer, s,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				MHD_OPTION_NOTIFY_COMPLETED, completed, s,
				MHD_OPTION_END);
	const union MHD_DaemonInfo *di =
		s->d ? MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD) :
		       NULL;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	s->epfd = di ? epoll_create1(EPOLL_CLOEXEC) : -1;
	if (s->epfd >= 0 &&
	    epoll_ctl(s->epfd, EPOLL_CTL_ADD, di->epoll_fd, &ev)) {
		close(s->epfd);
		s->epfd = -1;
	}
	if (s->epfd < 0) {
		fprintf(err, "sonde: --metrics %s: cannot start the HTTP "
			     "server (libmicrohttpd)\n", spec);
		if (s->d)
			MHD_stop_daemon(s->d); /* closes fd */
		else
			close(fd);
		free(s);
		return -EIO;
	}
	if (!quiet || port == 0) { /* port 0: say which one */
		fputs("sonde: metrics at http://", err);
		print_addr(err, &ss);
		fputs("/metrics\n", err);
		fflush(err);
	}
	*out = s;
	return 0;
}

int metrics_serve_profiles(struct metrics_server *s,
			   const struct metrics_profiler *p)
{
	return pprof_http_new(&s->pprof, p, s->epfd);
}

int metrics_poll_fd(const struct metrics_server *s)
{
	return s->epfd;
}

void metrics_serve(struct metrics_server *s)
{
	struct epoll_event evs[16];
	int n = epoll_wait(s->epfd, evs, 16, 0);
	for (int i = 0; i < n; i++)
		if (evs[i].data.ptr && s->pprof)
			pprof_http_event(s->pprof, evs[i].data.ptr,
					 evs[i].events);
	/* A resumed connection has work no fd will announce (its socket
	 * was writable all along): run while the daemon says it has some
	 * now, a few times at most. */
	MHD_UNSIGNED_LONG_LONG ms;
	for (int i = 0; i < 8; i++) {
		MHD_run(s->d);
		if (MHD_get_timeout(s->d, &ms) != MHD_YES || ms)
			break;
	}
}

/* Profiles still being taken when the run stops are ended now and sent,
 * for up to this long. */
#define CLOSE_WAIT_MS 2000

void metrics_close(struct metrics_server *s)
{
	if (!s)
		return;
	if (s->pprof) {
		pprof_http_end_all(s->pprof);
		struct timespec t0, t;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			metrics_serve(s);
			clock_gettime(CLOCK_MONOTONIC, &t);
			long ms = (t.tv_sec - t0.tv_sec) * 1000 +
				  (t.tv_nsec - t0.tv_nsec) / 1000000;
			if (!pprof_http_busy(s->pprof) || ms >= CLOSE_WAIT_MS)
				break;
			struct epoll_event ev;
			epoll_wait(s->epfd, &ev, 1, 50);
		}
	}
	MHD_stop_daemon(s->d); /* closes the listening fd it was given */
	pprof_http_free(s->pprof);
	close(s->epfd);
	free(s);
}

#endif
