/* The text format: bpftrace's default output. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "model/types.h"
#include "runtime/hist.h"
#include "runtime/tseries.h"
#include "runtime/output.h"
#include "runtime/value_fmt.h"
#include "util/strbuf.h"

/* Event text (printf, time, cat): flushed per ring-buffer batch by the
 * run loop, not per record. */
static void raw(struct out *o, const char *s, size_t len)
{
	fwrite(s, 1, len, o->f);
}

/* On stderr, as bpftrace 0.24+ prints it, so that stdout holds only what
 * the program prints. */
static void attached_probes(struct out *o, uint32_t n)
{
	fprintf(o->err, "Attached %u probe%s\n", n, n == 1 ? "" : "s");
	fflush(o->err);
}

/* system()'s output, then a newline, as bpftrace 0.26's
 * TextOutput::syscall writes it; join()'s result and its newline. */
static void line(struct out *o, const char *s, size_t len)
{
	fwrite(s, 1, len, o->f);
	fputc('\n', o->f);
	fflush(o->f);
}

static void lost_events(struct out *o, uint64_t n)
{
	fprintf(o->err, "Lost %" PRIu64 " events\n", n);
	fflush(o->err);
}

/* What went wrong, in bpftrace 0.26's words (output/text.cpp): a full map
 * and a missing key have sentences of their own; a lookup's return code
 * is 0 (the program reads a missing key as 0). */
static const char *helper_error_text(const char *helper, int64_t ret)
{
	if (!strcmp(helper, "map_update_elem") && ret == -E2BIG)
		return "Map full; can't update element. Try increasing "
		       "max_map_keys config or manually setting the max "
		       "entries in a map declaration e.g. `let @a = "
		       "hash(5000)`";
	if (!strcmp(helper, "map_delete_elem") && ret == -ENOENT)
		return "Can't delete map element because it does not exist.";
	if (!strcmp(helper, "map_lookup_elem"))
		return "Can't lookup map element because it does not exist.";
	return strerror((int)-ret);
}

/* A located WARNING on stderr, as bpftrace 0.26 prints it: the reason,
 * then "Additional Info - helper: NAME, retcode: N", then the source line
 * with a caret. */
static void helper_error(struct out *o, const char *helper, int64_t ret,
			 struct span at)
{
	if (o->no_warnings)
		return;
	struct diag d;
	diag_init(&d, o->err);
	diag_report(&d, "WARNING", at,
		    "%s\nAdditional Info - helper: %s, retcode: %" PRId64,
		    helper_error_text(helper, ret), helper, ret);
	fflush(o->err);
}

/* As bpftrace 0.26's TextOutput::runtime_error: a located warning. */
static void runtime_error(struct out *o, const char *msg, struct span at)
{
	if (o->no_warnings)
		return;
	struct diag d;
	diag_init(&d, o->err);
	diag_report(&d, "WARNING", at, "%s", msg);
	fflush(o->err);
}

/* bpftrace 0.26's "FILE:LINE:COL-ENDCOL: KIND: text" (FILE:LINE-ENDLINE
 * for a span over several lines), then the source line and a marker. */
static void located_line(struct out *o, const char *kind, const char *s,
			 size_t len, struct span at)
{
	if (at.file) {
		diag_place(o->err, at);
		fputs(": ", o->err);
	}
	fprintf(o->err, "%s: %.*s\n", kind, (int)len, s);
	diag_source(o->err, at);
}

/* warnf()/errorf() at the call, then each macro call it came through,
 * "expanded from", as 0.26 unpacks a location's chain. */
static void located(struct out *o, bool error, const char *s, size_t len,
		    struct span at, const struct span *from, uint32_t nfrom)
{
	if (!error && o->no_warnings)
		return;
	fflush(o->f);
	const char *kind = error ? "ERROR" : "WARNING";
	located_line(o, kind, s, len, at);
	for (uint32_t i = 0; i < nfrom; i++)
		located_line(o, kind, "expanded from", 13, from[i]);
	fflush(o->err);
}

static void value(struct out *o, const struct type *t, const void *data)
{
	struct vfmt f = { .res = o->res, .stack_indent = VFMT_VALUE_INDENT };
	struct strbuf sb = STRBUF_INIT;
	vfmt_value(&sb, &f, t, data);
	sb_putc(&sb, '\n');
	out_write(o, &sb);
	sb_free(&sb);
}

/*
 * As bpftrace 0.26's TextOutput::map: "@m[key]: value" per entry, each on
 * its line, nothing for an empty map; a histogram is "@m[key]:" and its
 * bucket lines, then a blank line.
 */
static void map(struct out *o, const struct out_map *m)
{
	struct vfmt f = { .res = o->res, .stack_indent = VFMT_VALUE_INDENT,
			  .div = m->div };
	const struct type *vt = m->value;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < m->n; i++) {
		const struct out_entry *e = &m->entries[i];
		sb_append(&sb, m->name);
		vfmt_key(&sb, &f, m->key, e->key);
		if (vt->kind == TY_HIST) {
			sb_append(&sb, ":\n");
			hist_text_log2k(&sb, e->buckets, e->nbuckets,
						vt->hbits, m->div);
			sb_putc(&sb, '\n');
		} else if (vt->kind == TY_TSERIES) {
			sb_append(&sb, ":\n");
			tseries_text(&sb, e->points, e->npoints, vt->is_signed);
			sb_putc(&sb, '\n');
		} else if (vt->kind == TY_LHIST) {
			sb_append(&sb, ":\n");
			hist_text_linear(&sb, e->buckets, e->nbuckets, vt->lmin,
					 vt->lmax, vt->lstep, m->div);
			sb_putc(&sb, '\n');
		} else {
			sb_append(&sb, ": ");
			vfmt_value(&sb, &f, vt, e->value);
			sb_putc(&sb, '\n');
		}
	}
	out_write(o, &sb);
	sb_free(&sb);
}

static void end(struct out *o)
{
	fflush(o->f);
	fputs("\n\n", o->console);
	fflush(o->console);
}

const struct out_ops out_text_ops = {
	.name = "text",
	.attached_probes = attached_probes,
	.printf_ = raw,
	.time = raw,
	.cat = raw,
	.syscall = line,
	.join = line,
	.lost_events = lost_events,
	.helper_error = helper_error,
	.runtime_error = runtime_error,
	.located = located,
	.value = value,
	.map = map,
	.end = end,
};
