/* -l 'struct NAME' (also "union NAME", "enum NAME"): the kernel's named
 * structs, unions and enums matching the pattern, from vmlinux BTF and
 * every module's, as bpftrace 0.26 lists them (get_all_structs_from_btf
 * in its btf.cpp): their names, or with -lv their definitions as libbpf's
 * btf_dump writes them, each followed by an empty line. */
#define _GNU_SOURCE
#include <bpf/btf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/btf.h"
#include "kernel/glob.h"
#include "probes/impl.h"
#include "probes/provider.h"
#include "util/strbuf.h"
#include "util/vec.h"

struct collect {
	bool verbose;
	VEC(char *) items;
};

static void dump_printf(void *ctx, const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		return;
	sb_append(ctx, s);
	free(s);
}

static bool starts_typed(const char *line)
{
	return !strncmp(line, "struct ", 7) || !strncmp(line, "union ", 6) ||
	       !strncmp(line, "enum ", 5);
}

/* bpftrace splits btf_dump's text of all the types into definitions: from
 * a line "struct X {" (union, enum) to the next line "};". */
static void split_definitions(struct collect *c, const char *text)
{
	struct strbuf def = STRBUF_INIT;
	bool in_def = false;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (in_def) {
			sb_appendn(&def, p, n);
			sb_putc(&def, '\n');
			if (n == 2 && !memcmp(p, "};", 2)) {
				vec_push(&c->items, strdup(sb_str(&def)));
				sb_reset(&def);
				in_def = false;
			}
		} else if (starts_typed(p) && n && p[n - 1] == '{') {
			sb_appendn(&def, p, n);
			sb_putc(&def, '\n');
			in_def = true;
		}
		p += n + (nl != NULL);
	}
	sb_free(&def);
}

static int collect_object(const struct btf *b, uint32_t first_id,
			  const char *module, void *ctx)
{
	struct collect *c = ctx;
	struct strbuf text = STRBUF_INIT;
	struct btf_dump *d = NULL;
	if (c->verbose) {
		d = btf_dump__new(b, dump_printf, &text, NULL);
		if (!d)
			return -errno;
	}
	uint32_t n = btf__type_cnt(b);
	for (uint32_t id = first_id; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (!t || !(btf_is_struct(t) || btf_is_union(t) ||
			    btf_is_enum(t)))
			continue;
		const char *name = btf__name_by_offset(b, t->name_off);
		if (!name || !*name)
			continue; /* anonymous */
		if (d) {
			btf_dump__dump_type(d, id);
			continue;
		}
		char *full;
		if (asprintf(&full, "%s %s", btf_is_struct(t) ? "struct" :
					     btf_is_union(t) ? "union" : "enum",
			     name) >= 0)
			vec_push(&c->items, full);
	}
	if (d) {
		btf_dump__free(d);
		split_definitions(c, sb_str(&text));
	}
	sb_free(&text);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int probe_list_types(const char *pattern, bool verbose, FILE *out)
{
	struct collect c = { .verbose = verbose };
	int err = kbtf_each_object(collect_object, &c);
	/* a definition is matched whole: its name, then the braces */
	char *pat = NULL;
	if (!err && asprintf(&pat, "%s%s", pattern,
			     verbose ? " *{*}*" : "") < 0)
		err = -ENOMEM;
	if (c.items.len)
		qsort(c.items.data, c.items.len, sizeof(*c.items.data),
		      cmp_str);
	for (size_t i = 0; i < c.items.len; i++) {
		char *s = c.items.data[i];
		if (!err && (!i || strcmp(c.items.data[i - 1], s)) &&
		    glob_match(pat, s))
			fprintf(out, "%s\n", s);
	}
	for (size_t i = 0; i < c.items.len; i++)
		free(c.items.data[i]);
	vec_free(&c.items);
	free(pat);
	return err;
}
