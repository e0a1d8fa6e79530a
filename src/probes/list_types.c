/* -l 'struct NAME' (also "union NAME", "enum NAME"): the kernel's named
 * structs, unions and enums matching the pattern, from vmlinux BTF and
 * every module's, as bpftrace 0.26 lists them (get_all_structs_from_btf
 * in its btf.cpp): their names, or with -lv their definitions as libbpf's
 * btf_dump writes them, each followed by an empty line and prefixed by the
 * BTF object that defines it, as bpftrace's development branch does
 * (#5212): "vmlinux: " where vmlinux has it, else one per module with that
 * very definition ("cxgb3: struct adapter {"). */
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

struct item {
	char *text;         /* "struct X", or its whole definition */
	const char *module; /* the BTF object's name ("vmlinux", a module's) */
};

struct collect {
	bool verbose;
	const char *module; /* of the object being read */
	VEC(struct item) items;
};

static void add_item(struct collect *c, char *text)
{
	struct item it = { text, c->module };
	vec_push(&c->items, it);
}

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
				add_item(c, strdup(sb_str(&def)));
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
	c->module = module;
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
			add_item(c, full);
	}
	if (d) {
		btf_dump__free(d);
		split_definitions(c, sb_str(&text));
	}
	sb_free(&text);
	return 0;
}

/* By text, then vmlinux before the modules, then by module name. */
static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int r = strcmp(x->text, y->text);
	if (r)
		return r;
	bool xv = !strcmp(x->module, "vmlinux"), yv = !strcmp(y->module, "vmlinux");
	if (xv != yv)
		return xv ? -1 : 1;
	return strcmp(x->module, y->module);
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
		      cmp_item);
	for (size_t i = 0, first = 0; !err && i < c.items.len; i++) {
		const struct item *it = &c.items.data[i];
		if (!i || strcmp(c.items.data[i - 1].text, it->text))
			first = i; /* a new text: vmlinux sorts first */
		else if (!verbose || !strcmp(c.items.data[first].module,
					     "vmlinux") ||
			 !strcmp(c.items.data[i - 1].module, it->module))
			continue;
		if (!glob_match(pat, it->text))
			continue;
		if (verbose)
			fprintf(out, "%s: ", it->module);
		fprintf(out, "%s\n", it->text);
	}
	for (size_t i = 0; i < c.items.len; i++)
		free(c.items.data[i].text);
	vec_free(&c.items);
	free(pat);
	return err;
}
