/* The JSON format (-f json): one object per line, as bpftrace 0.26's
 * output/json.cpp. */
#include <inttypes.h>
#include <string.h>

#include "model/types.h"
#include "runtime/hist.h"
#include "runtime/tseries.h"
#include "runtime/output.h"
#include "runtime/value_fmt.h"
#include "util/strbuf.h"

/* {"type": "<type>", "data": "<escaped s>"} */
static void message(struct out *o, const char *type, const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "{\"type\": \"%s\", \"data\": ", type);
	vfmt_json_string(&sb, s, len);
	sb_append(&sb, "}\n");
	out_write(o, &sb);
	sb_free(&sb);
}

static void printf_(struct out *o, const char *s, size_t len)
{
	message(o, "printf", s, len);
}

static void time_(struct out *o, const char *s, size_t len)
{
	message(o, "time", s, len);
}

static void cat(struct out *o, const char *s, size_t len)
{
	message(o, "cat", s, len);
}

static void syscall_(struct out *o, const char *s, size_t len)
{
	message(o, "syscall", s, len);
}

static void join(struct out *o, const char *s, size_t len)
{
	message(o, "join", s, len);
}

static void attached_probes(struct out *o, uint32_t n)
{
	fprintf(o->f,
		"{\"type\": \"attached_probes\", \"count\": %u, "
		"\"data\": {\"probes\": %u}}\n",
		n, n);
	fflush(o->f);
}

/* As bpftrace 0.26's json.cpp: msg is strerror() of the return code
 * whatever the helper, and the place is the expression's. */
static void helper_error(struct out *o, const char *helper, int64_t ret,
			 struct span at)
{
	struct strbuf sb = STRBUF_INIT;
	const char *msg = strerror((int)-ret);
	const char *file = at.file ? at.file->name : "";
	sb_append(&sb, "{\"type\": \"helper_error\", \"msg\": ");
	vfmt_json_string(&sb, msg, strlen(msg));
	sb_printf(&sb, ", \"helper\": \"%s\", \"retcode\": %" PRId64
		  ", \"filename\": ", helper, ret);
	vfmt_json_string(&sb, file, strlen(file));
	sb_printf(&sb, ", \"line\": %u, \"col\": %u}\n", at.line, at.col);
	out_write(o, &sb);
	sb_free(&sb);
}

/* The location of a runtime_error, warnf or errorf record, and its end. */
static void end_located(struct out *o, struct strbuf *sb, struct span at)
{
	const char *file = at.file ? at.file->name : "";
	sb_append(sb, ", \"filename\": ");
	vfmt_json_string(sb, file, strlen(file));
	sb_printf(sb, ", \"line\": %u, \"col\": %u}\n", at.line, at.col);
	out_write(o, sb);
	sb_free(sb);
}

/* As bpftrace 0.26's JsonOutput::runtime_error of other errors. */
static void runtime_error(struct out *o, const char *msg, struct span at)
{
	struct strbuf sb = STRBUF_INIT;
	sb_append(&sb, "{\"type\": \"runtime_error\", \"msg\": ");
	vfmt_json_string(&sb, msg, strlen(msg));
	end_located(o, &sb, at);
}

/* As 0.26's json.cpp: the type is the function's name. */
static void located(struct out *o, bool error, const char *s, size_t len,
		    struct span at, const struct span *from, uint32_t nfrom)
{
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "{\"type\": \"%s\", \"msg\": ",
		  error ? "errorf" : "warnf");
	vfmt_json_string(&sb, s, len);
	end_located(o, &sb, at);
}

/* With a count beside data, as 0.26's json.cpp writes it. */
static void lost_events(struct out *o, uint64_t n)
{
	fprintf(o->f,
		"{\"type\": \"lost_events\", \"count\": %" PRIu64
		", \"data\": {\"events\": %" PRIu64 "}}\n",
		n, n);
	fflush(o->f);
}

static void value(struct out *o, const struct type *t, const void *data)
{
	struct vfmt f = { .json = true, .res = o->res,
			  .stack_indent = VFMT_VALUE_INDENT };
	struct strbuf sb = STRBUF_INIT;
	sb_append(&sb, "{\"type\": \"value\", \"data\": ");
	vfmt_value(&sb, &f, t, data);
	sb_append(&sb, "}\n");
	out_write(o, &sb);
	sb_free(&sb);
}

static const char *map_type(const struct type *vt)
{
	switch (vt->kind) {
	case TY_HIST: case TY_LHIST: return "hist";
	case TY_TSERIES: return "tseries";
	case TY_AVG: case TY_STATS: return "stats";
	default: return "map";
	}
}

static void entry_value(struct strbuf *sb, const struct vfmt *f,
			const struct out_map *m, const struct out_entry *e)
{
	const struct type *vt = m->value;
	if (vt->kind == TY_HIST)
		hist_json_log2k(sb, e->buckets, e->nbuckets, vt->hbits,
					m->div);
	else if (vt->kind == TY_TSERIES)
		tseries_json(sb, e->points, e->npoints, vt->is_signed);
	else if (vt->kind == TY_LHIST)
		hist_json_linear(sb, e->buckets, e->nbuckets, vt->lmin,
				 vt->lmax, vt->lstep, m->div);
	else
		vfmt_value(sb, f, vt, e->value);
}

/* {"type": "map", "data": {"@m": {"k1": v1, "k2": v2}}}, or
 * {"@m": v} when key-less; empty maps print nothing. */
static void map(struct out *o, const struct out_map *m)
{
	if (!m->n)
		return;
	struct vfmt f = { .json = true, .res = o->res,
			  .stack_indent = VFMT_VALUE_INDENT, .div = m->div };
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "{\"type\": \"%s\", \"data\": {", map_type(m->value));
	vfmt_json_string(&sb, m->name, strlen(m->name));
	sb_append(&sb, ": ");
	if (!m->key) {
		entry_value(&sb, &f, m, &m->entries[0]);
	} else {
		sb_putc(&sb, '{');
		for (size_t i = 0; i < m->n; i++) {
			if (i)
				sb_append(&sb, ", ");
			vfmt_key(&sb, &f, m->key, m->entries[i].key);
			sb_append(&sb, ": ");
			entry_value(&sb, &f, m, &m->entries[i]);
		}
		sb_putc(&sb, '}');
	}
	sb_append(&sb, "}}\n");
	out_write(o, &sb);
	sb_free(&sb);
}

static void end(struct out *o)
{
	fflush(o->f);
}

const struct out_ops out_json_ops = {
	.name = "json",
	.attached_probes = attached_probes,
	.printf_ = printf_,
	.time = time_,
	.cat = cat,
	.syscall = syscall_,
	.join = join,
	.lost_events = lost_events,
	.helper_error = helper_error,
	.runtime_error = runtime_error,
	.located = located,
	.value = value,
	.map = map,
	.end = end,
};
