/*
 * The checker's state (sema_state.h): errors as sema reports them, type
 * names for messages, the probe context being checked, and the macro
 * calls an error came through.
 */
#include "lang/sema_state.h"

#include <stdarg.h>

#include "kernel/features.h"
#include "kernel/krelease.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/strbuf.h"

void sema_err(struct sema *s, struct span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(s->report, sp, fmt, ap);
	va_end(ap);
}

const char *sema_tname(struct sema *s, const struct type *t)
{
	struct strbuf sb = STRBUF_INIT;
	type_describe(t, &sb);
	const char *r = arena_strdup(s->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

/* ---- builtins ---- */

bool sema_tgt_has(struct sema *s, unsigned feature)
{
	return s->tgt && (s->tgt->features & feature);
}

bool sema_need_feat(struct sema *s, struct span sp, int f, const char *what,
		    const char *helper)
{
	if (s->pass == 0 || feat_has((enum feat_id)f))
		return true;
	char why[160];
	krelease_needs(why, sizeof(why), helper, (enum feat_id)f);
	sema_err(s, sp, "%s needs %s", what, why);
	return false;
}

const char *sema_probe_kind(struct sema *s)
{
	return s->tgt ? s->tgt->prov->name : "this";
}

/* After errors inside a macro's copy: the calls it came through. Only
 * when one was printed (a repeat for another probe context is not). */
void sema_name_expansion(struct sema *s, const struct ast_expansion *x,
			 int printed_before)
{
	struct diag *d = s->report;
	if (!x || !d->out || d->nerrors - d->nrepeats <= printed_before)
		return;
	/* the innermost call first, as the error's place is in it */
	sema_name_expansion(s, x->inner, printed_before);
	diag_report(d, "ERROR", x->site, "in the expansion of the macro "
		    "%s() called here", x->macro);
}
