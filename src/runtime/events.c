/* What each kind of ring buffer record does in user space. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/compiled.h"
#include "model/limits.h"
#include "model/types.h"
#include "runtime/events.h"
#include "runtime/fmt.h"
#include "runtime/mapdump.h"
#include "runtime/output.h"
#include "runtime/value_fmt.h"

static void bad(struct events *e, const char *why, uint32_t id)
{
	if (!e->nbad++)
		fprintf(e->err, "sonde: internal error: %s (event %u)\n", why,
			id);
}

static void value_cb(struct strbuf *sb, const struct type *t,
		     const void *bytes, void *ctx)
{
	struct events *e = ctx;
	struct vfmt f = { .res = e->o->res, .stack_indent = VFMT_VALUE_INDENT };
	vfmt_value(sb, &f, t, bytes);
}

static int format(struct events *e, const struct cevent *ev, const void *p,
		  size_t len)
{
	sb_reset(&e->sb);
	return fmt_format(&e->sb, ev->fmt, ev->args, p, len, ev->offsets,
			  value_cb, e);
}

static struct mapdump_map dump_map(struct events *e, int32_t idx)
{
	return mapdump_map_of(e->c, e->map_fds, (uint32_t)idx);
}

/* /bin/sh -c cmd with its output captured, stderr too, as bpftrace
 * 0.26's exec_system(). */
static void run_system(struct events *e, const char *cmd)
{
	int p[2];
	if (pipe(p)) {
		fprintf(e->err, "sonde: system(): %s\n", strerror(errno));
		return;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(e->err, "sonde: system(): %s\n", strerror(errno));
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		close(p[1]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	struct strbuf out = STRBUF_INIT;
	char buf[4096];
	ssize_t n;
	while ((n = read(p[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		sb_appendn(&out, buf, (size_t)n);
	}
	close(p[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	out_syscall(e->o, sb_str(&out), out.len);
	sb_free(&out);
}

static void cat_file(struct events *e, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(e->err, "ERROR: failed to open file '%s' (%s)\n", path,
			strerror(errno));
		/* bpftrace still emits the (empty) output: JSON readers
		 * get a cat record for every cat(). */
		out_cat(e->o, "", 0);
		return;
	}
	struct strbuf out = STRBUF_INIT;
	char buf[4096];
	size_t n;
	/* at most BPFTRACE_CAT_BYTES_MAX bytes, as bpftrace */
	uint64_t left = limits.cat_bytes_max;
	while (left && (n = fread(buf, 1, left < sizeof(buf) ? (size_t)left :
				  sizeof(buf), f)) > 0) {
		sb_appendn(&out, buf, n);
		left -= n;
	}
	fclose(f);
	out_cat(e->o, sb_str(&out), out.len);
	sb_free(&out);
}

/* join(array of strings, sep): like 0.17, stops at the first empty one. */
static void join(struct events *e, const struct cevent *ev, const uint8_t *p,
		 size_t len)
{
	const struct type *t = ev->nargs ? ev->args[0] : NULL;
	if (!t || t->kind != TY_ARRAY || !t->elem ||
	    ev->offsets[0] + t->size > len) {
		bad(e, "malformed join() record", 0);
		return;
	}
	uint32_t esz = t->elem->size;
	const char *sep = ev->text ? ev->text : " ";
	sb_reset(&e->sb);
	for (uint32_t i = 0; i < t->count; i++) {
		const char *s = (const char *)p + ev->offsets[0] + i * esz;
		size_t n = strnlen(s, esz);
		if (!n)
			break;
		if (i)
			sb_append(&e->sb, sep);
		sb_appendn(&e->sb, s, n);
	}
	out_join(e->o, sb_str(&e->sb), e->sb.len);
}

int events_handle(struct events *e, const void *data, size_t size)
{
	if (size < sizeof(struct event_hdr)) {
		bad(e, "short ring buffer record", 0);
		return 0;
	}
	const struct event_hdr *h = data;
	if (h->id >= e->c->nevents) {
		bad(e, "unknown ring buffer record", h->id);
		return 0;
	}
	const struct cevent *ev = &e->c->events[h->id];
	const uint8_t *p = (const uint8_t *)data + sizeof(*h);
	size_t len = size - sizeof(*h);
	if (ev->kind == EV_PRINT_MAP || ev->kind == EV_CLEAR ||
	    ev->kind == EV_ZERO) {
		if (ev->map < 0 || (uint32_t)ev->map >= e->c->nmaps) {
			bad(e, "bad map in a ring buffer record", h->id);
			return 0;
		}
	}
	struct mapdump_map m;
	int err = 0;
	switch (ev->kind) {
	case EV_PRINTF:
		if (!(err = format(e, ev, p, len)))
			out_printf(e->o, sb_str(&e->sb), e->sb.len);
		break;
	case EV_SYSTEM:
		if (!(err = format(e, ev, p, len))) {
			if (e->unsafe)
				run_system(e, sb_str(&e->sb));
			else
				bad(e, "system() without --unsafe", h->id);
		}
		break;
	case EV_CAT:
		if (!(err = format(e, ev, p, len)))
			cat_file(e, sb_str(&e->sb));
		break;
	case EV_WARNF:
	case EV_ERRORF:
		if (!(err = format(e, ev, p, len)))
			out_located(e->o, ev->kind == EV_ERRORF, sb_str(&e->sb),
				    e->sb.len, ev->at, ev->from, ev->nfrom);
		break;
	case EV_TIME:
		sb_reset(&e->sb);
		if (!fmt_time(&e->sb, ev->text ? ev->text : "%H:%M:%S\n",
			      fmt_now_ns()))
			out_time(e->o, sb_str(&e->sb), e->sb.len);
		break;
	case EV_EXIT:
		if (!e->exit_requested && len >= 8) {
			memcpy(&e->lost_before_exit, p, 8);
			e->exit_lost_known = true;
		}
		if (!e->exit_requested && len >= 16) {
			int64_t code;
			memcpy(&code, p + 8, 8);
			e->exit_code = (int)code;
		}
		e->exit_requested = true;
		break;
	case EV_PRINT_MAP:
		m = dump_map(e, ev->map);
		err = mapdump_print_stmt(e->o, &m, ev->top, ev->div);
		break;
	case EV_PRINT_VALUE:
		if (ev->nargs < 1 || ev->offsets[0] + ev->args[0]->size > len)
			err = -EINVAL;
		else
			out_value(e->o, ev->args[0], p + ev->offsets[0]);
		break;
	case EV_CLEAR:
		m = dump_map(e, ev->map);
		err = mapdump_clear(&m);
		break;
	case EV_ZERO:
		m = dump_map(e, ev->map);
		err = mapdump_zero(&m);
		break;
	case EV_JOIN:
		join(e, ev, p, len);
		break;
	case EV_HELPER_ERROR: {
		int64_t ret = 0;
		if (ev->nargs < 1 || ev->offsets[0] + 8 > len) {
			err = -EINVAL;
			break;
		}
		memcpy(&ret, p + ev->offsets[0], 8);
		out_helper_error(e->o, ev->text, ret, ev->at);
		break;
	}
	case EV_RUNTIME_ERROR:
		out_runtime_error(e->o, ev->text, ev->at);
		break;
	case EV_UNWATCH: {
		uint64_t addr = 0;
		if (ev->nargs < 1 || ev->offsets[0] + 8 > len) {
			err = -EINVAL;
			break;
		}
		memcpy(&addr, p + ev->offsets[0], 8);
		if (e->unwatch)
			e->unwatch(e->unwatch_ctx, addr);
		break;
	}
	}
	if (err == -EINVAL)
		bad(e, "ring buffer record too short for its arguments", h->id);
	else if (err)
		fprintf(e->err, "sonde: event %u: %s\n", h->id, strerror(-err));
	return 0;
}

void events_fini(struct events *e)
{
	sb_free(&e->sb);
}
