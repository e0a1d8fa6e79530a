/* The /metrics HTTP endpoint: libmicrohttpd driven from the run's event
 * loop (external epoll mode, no thread). sonde binds the socket itself,
 * so that a bad address or a port in use is reported in one sentence
 * before anything is attached; the daemon is handed the listening fd. */
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

void metrics_serve(struct metrics_server *s)
{
}

void metrics_close(struct metrics_server *s)
{
}

#else

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

struct metrics_server {
	struct MHD_Daemon *d;
	int fd;
	metrics_render_fn render;
	void *ctx;
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
	} else if (strcmp(url, "/metrics")) {
		static const char msg[] = "sonde serves /metrics\n";
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
	s->d = MHD_start_daemon(MHD_USE_EPOLL, 0, NULL, NULL, answer, s,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				MHD_OPTION_END);
	if (!s->d) {
		fprintf(err, "sonde: --metrics %s: cannot start the HTTP "
			     "server (libmicrohttpd)\n", spec);
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

int metrics_poll_fd(const struct metrics_server *s)
{
	const union MHD_DaemonInfo *i =
		MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
	return i ? i->epoll_fd : -1;
}

void metrics_serve(struct metrics_server *s)
{
	MHD_run(s->d);
}

void metrics_close(struct metrics_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->d); /* closes the listening fd it was given */
	free(s);
}

#endif
