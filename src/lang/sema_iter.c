/*
 * printf in iterator probes (iter:task ...) is formatted by the kernel
 * (bpf_seq_printf), which takes less than sonde's own printf: what it
 * cannot take is refused here, located, so that a program sema accepts
 * always compiles (codegen/iter.c builds the kernel's format).
 */
#include <string.h>

#include "lang/sema_iter.h"
#include "lang/sema_state.h"
#include "model/fmt.h"
#include "probes/provider.h"
#include "util/strbuf.h"

/* The kernel's bprintf takes at most this many arguments, and a format
 * of at most this many bytes (with its NUL). */
#define SEQ_MAX_ARGS 12
#define SEQ_MAX_FMT 256

/* The conversion as the kernel's bprintf takes it (flags 0 + - and
 * space, a width, l or ll, then d i u x X c s or p). */
static bool kernel_conv(const struct fmt_seg *s)
{
	if (s->alt || strchr(s->text, '.') || strchr(s->text, '*'))
		return false;
	if (strcmp(s->length, "") && strcmp(s->length, "l") &&
	    strcmp(s->length, "ll"))
		return false;
	static const char *const ok[] = { "d", "i", "u", "x", "X", "c", "s",
					  "p", NULL };
	for (const char *const *k = ok; *k; k++)
		if (!strcmp(s->name, *k))
			return true;
	return false;
}

static bool int_like(const struct type *t)
{
	return t->kind == TY_INT || t->kind == TY_PTR || t->kind == TY_BOOL;
}

bool sema_iter_printf_ok(struct sema *s, struct ast_expr *e,
			 const struct fmt *f)
{
	uint32_t nargs = e->u.call.args.n - 1;
	if (nargs > SEQ_MAX_ARGS) {
		sema_err(s, e->span, "printf in iter probes takes at most %d "
			 "arguments (the kernel formats them)", SEQ_MAX_ARGS);
		return false;
	}
	size_t flen = 1;
	for (uint32_t i = 0; i < f->nsegs; i++) {
		const struct fmt_seg *g = &f->segs[i];
		if (!g->is_conv) {
			for (size_t k = 0; k < g->len; k++) {
				if (!g->text[k]) {
					sema_err(s, e->span, "printf in iter "
						 "probes cannot print a NUL "
						 "byte");
					return false;
				}
				flen += g->text[k] == '%' ? 2 : 1;
			}
			continue;
		}
		const struct type *t = e->u.call.args.items[1 + g->arg]->type;
		bool str = !strcmp(g->name, "s");
		if (!kernel_conv(g) ||
		    (str ? t->kind != TY_STRING : !int_like(t))) {
			struct strbuf ty = STRBUF_INIT;
			type_describe(t, &ty);
			sema_err(s, e->span, "printf in iter probes takes only "
				 "%%d %%i %%u %%x %%X %%c and %%p of integers "
				 "and %%s of strings (the kernel formats "
				 "them), not %s of %s", g->text, sb_str(&ty));
			sb_free(&ty);
			return false;
		}
		flen += strlen(g->text);
	}
	if (flen > SEQ_MAX_FMT) {
		sema_err(s, e->span, "printf in iter probes takes a format of "
			 "at most %d bytes", SEQ_MAX_FMT - 1);
		return false;
	}
	return true;
}
