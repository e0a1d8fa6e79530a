/*
 * libFuzzer target: the request handling of --metrics' HTTP server
 * (runtime/metrics_http.c) and of /debug/pprof/profile on it
 * (runtime/pprof_http.c): methods, paths, query arguments (seconds=),
 * headers, clients that hang up while their profile is being taken,
 * profiles that cannot be begun or made, and the run ending with
 * windows open. Not the network: libmicrohttpd is reached through the
 * pointers of runtime/mhd_dl.h, which the target points at a fake
 * daemon here. It calls the server's handlers as libmicrohttpd does
 * (the access handler on each request and again after a resume, the
 * completion notice after a response or a refusal), keeps suspended
 * connections, and counts responses, so that one never destroyed, or a
 * connection never completed, is found. Each input is one server's
 * life: metrics_listen (on 127.0.0.1, port 0), the requests, and
 * metrics_close, which ends the open windows and answers them.
 *
 * Any crash, sanitizer report, leak or hang is a bug, and so is an
 * answer pprof_http.h and metrics_http.c do not promise: 405 for a
 * method but GET and HEAD, 404 for a path but /metrics and
 * PPROF_HTTP_PATH, 400 exactly when seconds= is not a whole number
 * from 1 to PPROF_HTTP_MAX_SECONDS, 503 past PPROF_HTTP_MAX_PENDING
 * open windows, and a profile's body as the profiler made it.
 *
 * Input: byte 0 is the profiler's behaviour (bit 0: begin refuses with
 * 503, bit 1: end fails, bit 2: /metrics' render fails, bit 3: an empty
 * profile); then lines:
 *   METHOD URL[?K=V&...]   a request on a new connection (at most 32)
 *   H NAME: VALUE          a header of the last request
 *   hup N                  the client of connection N hangs up
 *   serve                  a turn of the event loop (metrics_serve)
 * Seeds: tests/fuzz/seeds/fuzz_http/.
 * Build and run: make fuzz (see tests/fuzz/fuzz.mk).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/metrics.h"
#include "runtime/mhd_dl.h"
#include "runtime/pprof_http.h"
#include "util/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_CONNS 32
#define MAX_ARGS 8

/* --- the fake libmicrohttpd --- */

struct MHD_Response {
	void *buf;
	size_t len;
	enum MHD_ResponseMemoryMode mode;
	int refs;
};

struct MHD_Connection {
	char method[16];
	char url[256];
	char *keys[MAX_ARGS], *vals[MAX_ARGS];
	enum MHD_ValueKind kinds[MAX_ARGS];
	int nargs;
	int sock[2];        /* [0]: the server's end, [1]: the client's */
	void *con_cls;
	bool started, suspended, resumed, completed, hung_up;
	struct MHD_Response *resp;
	unsigned status;
	char *body;         /* a copy of what was answered */
	size_t body_len;
	bool answered;
};

struct MHD_Daemon {
	MHD_AccessHandlerCallback dh;
	void *dh_cls;
	MHD_RequestCompletedCallback done;
	void *done_cls;
	int listen_fd, epfd;
	union MHD_DaemonInfo info;
};

static struct MHD_Daemon daemon_;
static bool daemon_up;
static struct MHD_Connection conns[MAX_CONNS];
static int nconns;
static long live_responses;

static struct MHD_Daemon *fake_start_daemon(unsigned int flags, uint16_t port,
					    MHD_AcceptPolicyCallback apc,
					    void *apc_cls,
					    MHD_AccessHandlerCallback dh,
					    void *dh_cls, ...)
{
	if (daemon_up)
		abort(); /* one server at a time */
	memset(&daemon_, 0, sizeof(daemon_));
	daemon_.dh = dh;
	daemon_.dh_cls = dh_cls;
	daemon_.listen_fd = -1;
	va_list ap;
	va_start(ap, dh_cls);
	for (;;) {
		enum MHD_OPTION o = va_arg(ap, enum MHD_OPTION);
		if (o == MHD_OPTION_END)
			break;
		switch (o) {
		case MHD_OPTION_LISTEN_SOCKET:
			daemon_.listen_fd = va_arg(ap, int);
			break;
		case MHD_OPTION_CONNECTION_TIMEOUT:
			(void)va_arg(ap, unsigned int);
			break;
		case MHD_OPTION_NOTIFY_COMPLETED:
			daemon_.done = va_arg(ap, MHD_RequestCompletedCallback);
			daemon_.done_cls = va_arg(ap, void *);
			break;
		default:
			/* an option this fake does not know: teach it */
			fprintf(stderr, "fuzz_http: option %d\n", (int)o);
			abort();
		}
	}
	va_end(ap);
	daemon_.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (daemon_.epfd < 0 || !daemon_.dh || !daemon_.done)
		abort();
	daemon_.info.epoll_fd = daemon_.epfd;
	daemon_up = true;
	return &daemon_;
}

static void complete(struct MHD_Connection *c,
		     enum MHD_RequestTerminationCode why)
{
	if (c->completed)
		return;
	daemon_.done(daemon_.done_cls, c, &c->con_cls, why);
	c->completed = true;
	if (c->resp) {
		c->body = malloc(c->resp->len + 1);
		if (!c->body)
			abort();
		memcpy(c->body, c->resp->buf, c->resp->len);
		c->body_len = c->resp->len;
		MHD_destroy_response(c->resp);
		c->resp = NULL;
	}
}

/* The access handler, as libmicrohttpd calls it; a refusal (MHD_NO) or
 * a queued response ends the request. */
static void handle(struct MHD_Connection *c)
{
	size_t upload = 0;
	c->resumed = false;
	enum MHD_Result r = daemon_.dh(daemon_.dh_cls, c, c->url, c->method,
				       "HTTP/1.1", NULL, &upload, &c->con_cls);
	if (r == MHD_NO)
		complete(c, MHD_REQUEST_TERMINATED_WITH_ERROR);
	else if (c->resp && !c->suspended)
		complete(c, MHD_REQUEST_TERMINATED_COMPLETED_OK);
}

static void fake_stop_daemon(struct MHD_Daemon *d)
{
	for (int i = 0; i < nconns; i++)
		complete(&conns[i], MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN);
	close(d->listen_fd);
	close(d->epfd);
	daemon_up = false;
}

static enum MHD_Result fake_run(struct MHD_Daemon *d)
{
	for (int i = 0; i < nconns; i++)
		if (conns[i].resumed && !conns[i].completed)
			handle(&conns[i]);
	return MHD_YES;
}

static enum MHD_Result fake_get_timeout(struct MHD_Daemon *d,
					MHD_UNSIGNED_LONG_LONG *ms)
{
	for (int i = 0; i < nconns; i++)
		if (conns[i].resumed && !conns[i].completed) {
			*ms = 0;
			return MHD_YES;
		}
	return MHD_NO;
}

static const union MHD_DaemonInfo *
fake_get_daemon_info(struct MHD_Daemon *d, enum MHD_DaemonInfoType t, ...)
{
	return t == MHD_DAEMON_INFO_EPOLL_FD ? &d->info : NULL;
}

static union MHD_ConnectionInfo conn_info;

static const union MHD_ConnectionInfo *
fake_get_connection_info(struct MHD_Connection *c,
			 enum MHD_ConnectionInfoType t, ...)
{
	if (t != MHD_CONNECTION_INFO_CONNECTION_FD)
		return NULL;
	conn_info.connect_fd = c->sock[0];
	return &conn_info;
}

static const char *fake_lookup_connection_value(struct MHD_Connection *c,
						enum MHD_ValueKind kind,
						const char *key)
{
	for (int i = 0; i < c->nargs; i++)
		if ((c->kinds[i] & kind) && !strcasecmp(c->keys[i], key))
			return c->vals[i];
	return NULL;
}

static struct MHD_Response *
fake_create_response_from_buffer(size_t size, void *buf,
				 enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = calloc(1, sizeof(*r));
	if (!r)
		abort();
	r->len = size;
	r->mode = mode;
	r->refs = 1;
	if (mode == MHD_RESPMEM_MUST_COPY) {
		r->buf = malloc(size + 1);
		if (!r->buf)
			abort();
		memcpy(r->buf, buf, size);
	} else {
		r->buf = buf;
	}
	live_responses++;
	return r;
}

static enum MHD_Result fake_add_response_header(struct MHD_Response *r,
						const char *k, const char *v)
{
	if (!r || !k || !v || !*k)
		abort();
	return MHD_YES;
}

static enum MHD_Result fake_queue_response(struct MHD_Connection *c,
					   unsigned int status,
					   struct MHD_Response *r)
{
	if (!r || c->resp || c->completed)
		return MHD_NO;
	r->refs++;
	c->resp = r;
	c->status = status;
	c->answered = true;
	return MHD_YES;
}

static void fake_destroy_response(struct MHD_Response *r)
{
	if (!r || r->refs <= 0)
		abort();
	if (--r->refs)
		return;
	if (r->mode != MHD_RESPMEM_PERSISTENT)
		free(r->buf);
	free(r);
	live_responses--;
}

static void fake_suspend_connection(struct MHD_Connection *c)
{
	if (c->suspended || c->completed)
		abort(); /* libmicrohttpd refuses (and logs) both */
	c->suspended = true;
}

static void fake_resume_connection(struct MHD_Connection *c)
{
	if (!c->suspended)
		abort();
	c->suspended = false;
	c->resumed = true;
}

/* --- the profiler and the metrics --- */

static uint8_t behaviour;
static int windows_open;
static const char profile_bytes[] = "\037\213 a gzipped profile";

static void *prof_begin(void *ctx, unsigned *status, const char **why)
{
	if (behaviour & 1) {
		*status = MHD_HTTP_SERVICE_UNAVAILABLE;
		*why = "no stack maps";
		return NULL;
	}
	windows_open++;
	return malloc(1);
}

static int prof_end(void *ctx, void *window, struct strbuf *gz)
{
	if (behaviour & 2)
		return -EIO;
	if (!(behaviour & 8))
		sb_appendn(gz, profile_bytes, sizeof(profile_bytes) - 1);
	return 0;
}

static void prof_drop(void *ctx, void *window)
{
	windows_open--;
	free(window);
}

static const struct metrics_profiler profiler = { prof_begin, prof_end,
						  prof_drop, NULL };

static int render(void *ctx, struct strbuf *sb)
{
	sb_append(sb, "# TYPE sonde_x counter\nsonde_x 1\n");
	return behaviour & 4 ? -1 : 0;
}

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char why[256];
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	if (mhd_dl_load(why, sizeof(why))) {
		fprintf(stderr, "fuzz_http: %s\n", why);
		abort();
	}
	/* loaded once: metrics_listen's own mhd_dl_load keeps these */
	mhd_dl.start_daemon = fake_start_daemon;
	mhd_dl.stop_daemon = fake_stop_daemon;
	mhd_dl.run = fake_run;
	mhd_dl.get_timeout = fake_get_timeout;
	mhd_dl.get_daemon_info = fake_get_daemon_info;
	mhd_dl.get_connection_info = fake_get_connection_info;
	mhd_dl.lookup_connection_value = fake_lookup_connection_value;
	mhd_dl.create_response_from_buffer = fake_create_response_from_buffer;
	mhd_dl.add_response_header = fake_add_response_header;
	mhd_dl.queue_response = fake_queue_response;
	mhd_dl.destroy_response = fake_destroy_response;
	mhd_dl.suspend_connection = fake_suspend_connection;
	mhd_dl.resume_connection = fake_resume_connection;
	return 0;
}

/* --- the input --- */

static void add_value(struct MHD_Connection *c, enum MHD_ValueKind kind,
		      const char *k, size_t klen, const char *v, size_t vlen)
{
	if (c->nargs == MAX_ARGS)
		return;
	c->keys[c->nargs] = strndup(k, klen);
	c->vals[c->nargs] = strndup(v, vlen);
	if (!c->keys[c->nargs] || !c->vals[c->nargs])
		abort();
	c->kinds[c->nargs++] = kind;
}

static void request(const char *line)
{
	if (nconns == MAX_CONNS)
		return;
	struct MHD_Connection *c = &conns[nconns];
	memset(c, 0, sizeof(*c));
	size_t m = strcspn(line, " ");
	if (m >= sizeof(c->method) || !line[m])
		return;
	memcpy(c->method, line, m);
	const char *url = line + m + 1;
	size_t path = strcspn(url, "?");
	if (path >= sizeof(c->url))
		return;
	memcpy(c->url, url, path);
	/* libmicrohttpd gives the handler decoded arguments; the fuzzer
	 * writes them already decoded */
	for (const char *q = url[path] ? url + path + 1 : ""; *q;) {
		size_t n = strcspn(q, "&");
		const char *eq = memchr(q, '=', n);
		if (eq)
			add_value(c, MHD_GET_ARGUMENT_KIND, q, (size_t)(eq - q),
				  eq + 1, n - (size_t)(eq - q) - 1);
		else
			add_value(c, MHD_GET_ARGUMENT_KIND, q, n, "", 0);
		q += n + (q[n] == '&');
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c->sock))
		abort();
	nconns++;
}

/* What pprof_http.h promises of seconds=. */
static bool seconds_ok(const char *v)
{
	if (!v)
		return true; /* 30 */
	size_t n = strlen(v);
	if (!n || strspn(v, "0123456789") != n)
		return false;
	while (n > 1 && *v == '0')
		v++, n--;
	return n <= 4 && strtoul(v, NULL, 10) >= 1 &&
	       strtoul(v, NULL, 10) <= PPROF_HTTP_MAX_SECONDS;
}

static void check(struct MHD_Connection *c, int index, int pending_before)
{
	bool get = !strcmp(c->method, "GET") || !strcmp(c->method, "HEAD");
	bool pprof = !strcmp(c->url, PPROF_HTTP_PATH);
	const char *secs = fake_lookup_connection_value(
		c, MHD_GET_ARGUMENT_KIND, "seconds");
	unsigned want = 0;
	if (!get)
		want = MHD_HTTP_METHOD_NOT_ALLOWED;
	else if (!pprof && strcmp(c->url, "/metrics"))
		want = MHD_HTTP_NOT_FOUND;
	else if (!pprof)
		want = behaviour & 4 ? MHD_HTTP_INTERNAL_SERVER_ERROR :
				       MHD_HTTP_OK;
	else if (!seconds_ok(secs))
		want = MHD_HTTP_BAD_REQUEST;
	else if (pending_before >= PPROF_HTTP_MAX_PENDING ||
		 (behaviour & 1))
		want = MHD_HTTP_SERVICE_UNAVAILABLE;
	else if (c->hung_up)
		want = 0; /* maybe none: the client went */
	else
		want = behaviour & 2 ? MHD_HTTP_INTERNAL_SERVER_ERROR :
				       MHD_HTTP_OK;
	bool ok = want ? c->answered && c->status == want :
			 !c->answered || c->status == MHD_HTTP_OK ||
				 c->status == MHD_HTTP_INTERNAL_SERVER_ERROR;
	if (ok && pprof && get && c->answered && c->status == MHD_HTTP_OK &&
	    !(behaviour & 2)) {
		size_t want_len = behaviour & 8 ? 0 : sizeof(profile_bytes) - 1;
		ok = c->body_len == want_len &&
		     !memcmp(c->body, profile_bytes, want_len);
	}
	if (!ok || !c->completed) {
		fprintf(stderr, "fuzz_http: connection %d, %s %s (seconds=%s, "
				"%d windows open before it, behaviour %#x): "
				"answered %s %u, expected %u%s\n",
			index, c->method, c->url, secs ? secs : "(none)",
			pending_before, behaviour, c->answered ? "with" : "without",
			c->status, want, c->completed ? "" : ", not completed");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	behaviour = data[0];
	char *text = strndup((const char *)data + 1, size - 1);
	if (!text)
		abort();
	struct metrics_server *s;
	if (metrics_listen(&s, "127.0.0.1:0", render, NULL, true, devnull) ||
	    metrics_serve_profiles(s, &profiler))
		abort();
	nconns = 0;
	int pending_before[MAX_CONNS];
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "H ", 2) && nconns) {
			struct MHD_Connection *c = &conns[nconns - 1];
			char *colon = strchr(line + 2, ':');
			if (colon && !c->started)
				add_value(c, MHD_HEADER_KIND, line + 2,
					  (size_t)(colon - line - 2), colon + 1,
					  strlen(colon + 1));
		} else if (!strncmp(line, "hup ", 4) && nconns) {
			struct MHD_Connection *c =
				&conns[strtoul(line + 4, NULL, 10) % nconns];
			if (!c->hung_up) {
				close(c->sock[1]);
				c->hung_up = true;
			}
		} else if (!strcmp(line, "serve")) {
			metrics_serve(s);
		} else {
			request(line);
		}
		/* a request starts once its headers are in: at the next line */
		for (int i = 0; i < nconns; i++)
			if (!conns[i].started && (i < nconns - 1 || !save ||
						  strncmp(save, "H ", 2))) {
				conns[i].started = true;
				pending_before[i] = windows_open;
				handle(&conns[i]);
			}
	}
	metrics_close(s);
	for (int i = 0; i < nconns; i++) {
		struct MHD_Connection *c = &conns[i];
		if (c->started)
			check(c, i, pending_before[i]);
		for (int k = 0; k < c->nargs; k++) {
			free(c->keys[k]);
			free(c->vals[k]);
		}
		free(c->body);
		close(c->sock[0]);
		if (!c->hung_up)
			close(c->sock[1]);
	}
	if (live_responses || windows_open || daemon_up) {
		fprintf(stderr, "fuzz_http: after the server closed: %ld "
				"responses not destroyed, %d profile windows "
				"not dropped%s\n", live_responses, windows_open,
			daemon_up ? ", the daemon not stopped" : "");
		abort();
	}
	free(text);
	return 0;
}
