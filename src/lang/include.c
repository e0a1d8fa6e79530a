/* #include: headers' preprocessor lines added to the program's. */
#include "lang/include.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "kernel/features.h"
#include "lang/cpp_expr.h"
#include "util/files.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Nested #includes past this depth are refused, as clang's limit is
 * (a file that includes itself without a guard reaches it). */
#define MAX_DEPTH 200

struct inc {
	struct arena *a;
	struct diag *d;
	const struct include_opts *o;
	struct ast_directive *out; /* the headers' directives */
	uint32_t n, cap;
	struct strbuf seen;        /* "\npath\n" of every file read */
	struct strbuf once;        /* "\npath\n" of those with #pragma once */
	const char *stack[MAX_DEPTH + 2]; /* the files being read */
	const char *failed;        /* the name not found, when a nested one */
};

/* Whether "\npath\n" is in set. */
static bool in_set(const struct strbuf *set, const char *path)
{
	char key[4100];
	snprintf(key, sizeof(key), "\n%s\n", path);
	return set->len && strstr(sb_str(set), key);
}

static void add_to_set(struct strbuf *set, const char *path)
{
	if (!set->len)
		sb_append(set, "\n");
	sb_append(set, path);
	sb_append(set, "\n");
}

/* "#include <x>" or "# include "x"": the name and whether it is <x>. */
static bool parse_include(const char *line, char *name, size_t cap,
			  bool *angle)
{
	const char *p = line + 1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "include", 7))
		return false;
	p += 7;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '<' && *p != '"')
		return false;
	char close = *p == '<' ? '>' : '"';
	*angle = *p == '<';
	const char *e = strchr(++p, close);
	if (!e || (size_t)(e - p) >= cap || e == p)
		return false;
	memcpy(name, p, (size_t)(e - p));
	name[e - p] = 0;
	return true;
}

/* Whether dir/name is there to be read, in path: as the preprocessor
 * searches, a directory of that name is passed over. What else is there
 * (a FIFO, a device) is found, and refused when it is read. */
static bool exists_in(const char *dir, const char *name, char *path,
		      size_t cap)
{
	int n = snprintf(path, cap, "%s/%s", dir, name);
	struct stat st;
	return n >= 0 && (size_t)n < cap && stat(path, &st) == 0 &&
	       !S_ISDIR(st.st_mode);
}

/* Finds name as the preprocessor would: "x" also next to the includer. */
static bool find(struct inc *s, const char *name, bool angle,
		 const char *from_dir, char *path, size_t cap)
{
	if (name[0] == '/')
		return exists_in("", name, path, cap);
	if (!angle && exists_in(from_dir, name, path, cap))
		return true;
	for (size_t i = 0; i < s->o->ndirs; i++)
		if (exists_in(s->o->dirs[i], name, path, cap))
			return true;
	if (s->o->kernel_source) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s/include", s->o->kernel_source);
		if (exists_in(dir, name, path, cap))
			return true;
	}
	struct utsname u;
	char multiarch[128] = "/usr/include/x86_64-linux-gnu";
	if (uname(&u) == 0)
		snprintf(multiarch, sizeof(multiarch),
			 "/usr/include/%s-linux-gnu", u.machine);
	const char *sys[] = { "/usr/local/include", multiarch, "/usr/include" };
	for (size_t i = 0; i < sizeof(sys) / sizeof(*sys); i++)
		if (exists_in(sys[i], name, path, cap))
			return true;
	return false;
}

static void push(struct inc *s, struct span sp, const char *text)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 64;
		struct ast_directive *nd = arena_alloc(s->a, sizeof(*nd) * cap);
		if (s->n)
			memcpy(nd, s->out, sizeof(*nd) * s->n);
		s->out = nd;
		s->cap = cap;
	}
	s->out[s->n].span = sp;
	s->out[s->n].text = text;
	s->n++;
}

static int read_header(struct inc *s, struct span sp, const char *name,
		       bool angle, const char *from_dir, int depth,
		       struct span at);

/* The state of a file's conditionals. */
struct cond {
	bool active;        /* lines here are compiled */
	int depth, unknown; /* open blocks; of them, #if ones not evaluated */
	uint64_t outer;     /* bit d: the block at depth d was active */
	uint64_t taken;     /* bit d: its branch so far was taken */
	uint64_t is_if;     /* bit d: an #if that could not be evaluated */
};

/* The macros a conditional sees: the program's active #define/#undef
 * before directive upto (when p), then the headers' read so far, then
 * those the compiler would define (predefined()). */
struct macros {
	const struct ast_program *p;
	const bool *active;  /* active[k]: program directive k is compiled */
	uint32_t upto;
	const struct inc *s;
};

static bool cond_step(struct cond *c, const char *text,
		      const struct macros *m);
static size_t directive_word(const char *t, const char **word,
			     const char **rest);

/* The span of the name of "#include <name>" on the line at off of f
 * (from its '<' or '"', as clang locates it). */
static struct span name_span(const struct src_file *f, uint32_t off,
			     uint32_t line)
{
	uint32_t end = off;
	while (end < f->len && f->text[end] != '\n')
		end++;
	uint32_t q = off;
	while (q < end && f->text[q] != '<' && f->text[q] != '"')
		q++;
	uint32_t e = q + 1;
	while (e < end && f->text[e] != '>' && f->text[e] != '"')
		e++;
	return (struct span){ f, q, e < end ? e - q + 1 : end - q, line,
			      q - off + 1 };
}

/* One header's lines: directives (backslash-newline joined) kept,
 * nested includes followed. Returns 0, or -2 after an error reported
 * (nesting too deep), which ends the reading. */
static int scan(struct inc *s, struct span sp, const struct src_file *f,
		const char *dir, int depth)
{
	struct strbuf cur = STRBUF_INIT;
	struct cond c = { .active = true }; /* each file's own */
	uint32_t line = 0, start = 0, start_line = 0;
	int rc = 0;
	for (uint32_t off = 0; off < f->len && !rc;) {
		uint32_t end = off;
		while (end < f->len && f->text[end] != '\n')
			end++;
		line++;
		uint32_t len = end - off;
		const char *l = f->text + off;
		uint32_t next = end + 1;
		while (len && l[len - 1] == '\r')
			len--;
		bool cont = len && l[len - 1] == '\\';
		if (cont)
			len--;
		if (!cur.len) {
			uint32_t ws = 0;
			while (ws < len && (l[ws] == ' ' || l[ws] == '\t'))
				ws++;
			if (ws < len && l[ws] == '#') {
				start = off;
				start_line = line;
				sb_printf(&cur, "%.*s", (int)(len - ws), l + ws);
			}
		} else {
			sb_printf(&cur, "%.*s", (int)len, l);
		}
		off = next;
		if (cont || !cur.len)
			continue;
		char inc[1024];
		bool angle;
		struct macros m = { NULL, NULL, 0, s };
		if (cond_step(&c, sb_str(&cur), &m) || !c.active) {
			cur.len = 0;
			continue;
		}
		const char *w, *r;
		size_t n = directive_word(sb_str(&cur), &w, &r);
		if (n == 6 && !strncmp(w, "pragma", 6) && !strncmp(r, "once", 4))
			add_to_set(&s->once, s->stack[depth]);
		/* A nested header not found is skipped: it is most often
		 * under an #if for another system (gnu/stubs-x32.h). */
		if (parse_include(sb_str(&cur), inc, sizeof(inc), &angle)) {
			if (read_header(s, sp, inc, angle, dir, depth + 1,
					name_span(f, start, start_line)) == -2)
				rc = -2;
		} else {
			push(s, sp, arena_strdup(s->a, sb_str(&cur)));
		}
		cur.len = 0;
	}
	sb_free(&cur);
	return rc;
}

/* The whole of the file at path (a regular one, FILES_READ_MAX at
 * most), in the arena, as a source file named path; NULL after reporting
 * why not, at at (the #include's name), or unlocated for an --include. */
static const struct src_file *slurp(struct inc *s, const char *path,
				    const char *name, struct span at)
{
	char *buf;
	size_t len;
	int err = files_read(path, FILES_READ_MAX, &buf, &len);
	if (err) {
		const char *why = files_err_str(err, FILES_READ_MAX);
		if (at.file)
			diag_error(s->d, at, "cannot read '%s': %s", name, why);
		else
			diag_error(s->d, at, "--include: cannot read '%s': %s",
				   name, why);
		return NULL;
	}
	struct src_file *sf = arena_alloc(s->a, sizeof(*sf));
	char *text = arena_alloc(s->a, len + 1);
	memcpy(text, buf, len + 1);
	free(buf);
	*sf = (struct src_file){ arena_strdup(s->a, path), text,
				 (uint32_t)len };
	return sf;
}

/* Reads header name, included at at (located in the program or in the
 * header that includes it). Returns 0 (also for a header read before:
 * each is read once), -1 when it is not found (s->failed), or -2 after
 * reporting an error. A header that includes one of the headers being
 * read is read again, as the preprocessor does, where its include guard
 * then leaves nothing; without one, the nesting goes on until it is
 * refused, as clang refuses it. */
static int read_header(struct inc *s, struct span sp, const char *name,
		       bool angle, const char *from_dir, int depth,
		       struct span at)
{
	char path[4096];
	if (!find(s, name, angle, from_dir, path, sizeof(path))) {
		s->failed = arena_strdup(s->a, name);
		return -1;
	}
	bool open = false;
	for (int k = 0; k < depth && k <= MAX_DEPTH; k++)
		open |= !strcmp(s->stack[k], path);
	if ((!open && in_set(&s->seen, path)) ||
	    (open && in_set(&s->once, path)))
		return 0;
	if (depth > MAX_DEPTH) {
		diag_error(s->d, at, "#include nested too deeply");
		return -2;
	}
	const struct src_file *sf = slurp(s, path, name, at);
	if (!sf)
		return -2;
	if (!open)
		add_to_set(&s->seen, path);
	s->stack[depth] = sf->name;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	return scan(s, sp, sf, dir, depth);
}

/* Lines of text (one, and one more after each newline). */
static uint32_t text_lines(const char *t, size_t n)
{
	uint32_t k = 1;
	for (size_t i = 0; i < n; i++)
		k += t[i] == '\n';
	return k;
}

/* The line of the program's directive i in bpftrace's definitions.h:
 * a line for its BTF header, then each of the program's C statements
 * (directives and definitions, in order) on lines of their own. */
static uint32_t definitions_line(const struct ast_program *p, uint32_t i)
{
	uint32_t line = 2, at = p->directives[i].span.off;
	for (uint32_t k = 0; k < i; k++)
		line += text_lines(p->directives[k].text,
				   strlen(p->directives[k].text));
	for (uint32_t k = 0; k < p->ncdefs; k++) {
		const struct span *c = &p->cdefs[k]->span;
		if (c->off < at && c->file)
			line += text_lines(c->file->text + c->off, c->len);
	}
	return line;
}

/* sp narrowed to the name of "#include <name>" (clang's column). */
static struct span include_name_span(struct span sp, const char *text)
{
	const char *q = strpbrk(text, "<\"");
	if (!q)
		return sp;
	const char *e = strchr(q + 1, *q == '<' ? '>' : '"');
	uint32_t k = (uint32_t)(q - text);
	sp.off += k;
	sp.col += k;
	sp.len = e ? (uint32_t)(e - q) + 1 : 1;
	return sp;
}

/* A header the program names that is not found: clang's fatal error in
 * definitions.h, as bpftrace 0.26 prints it; one that a header names:
 * at the program's #include. */
static int one(struct inc *s, struct span sp, bool located, const char *name,
	       bool angle, bool optional, const struct ast_program *p,
	       uint32_t i)
{
	s->failed = NULL;
	int rc = read_header(s, sp, name, angle, ".", 0, sp);
	if (rc == -2)
		return -1; /* said */
	if (rc == 0 || optional)
		return 0;
	if (located && !strcmp(s->failed, name))
		diag_c_fatal(s->d, "definitions.h", definitions_line(p, i),
			     include_name_span(sp, p->directives[i].text),
			     "'%s' file not found", name);
	else if (located)
		diag_error(s->d, sp, "'%s' file not found", s->failed);
	else {
		fprintf(s->d->out, "ERROR: --include: '%s' file not found\n",
			s->failed);
		s->d->nerrors++;
	}
	return -1;
}

/* A kernel header (linux/..., net/...): with BTF its types and enums are
 * known without it, so a missing one is skipped, not an error. */
static bool kernel_header(const char *name)
{
	static const char *const dirs[] = { "linux/", "net/", "asm/",
					    "asm-generic/", "uapi/", "trace/",
					    "generated/" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
		if (!strncmp(name, dirs[i], strlen(dirs[i])))
			return true;
	return false;
}

/* "# word rest": word's length, and rest (the name of #ifdef). */
static size_t directive_word(const char *t, const char **word,
			     const char **rest)
{
	const char *w = t + 1 + strspn(t + 1, " \t");
	size_t n = strspn(w, "abcdefghijklmnopqrstuvwxyz");
	*word = w;
	*rest = w + n + strspn(w + n, " \t");
	return n;
}

/* What clang defines for bpftrace's C definitions on this machine (the
 * ones headers test), and BPFTRACE_HAVE_BTF as bpftrace defines it when
 * the kernel has BTF. */
static const char *predefined(const char *name, size_t len)
{
	static const struct {
		const char *name, *body;
	} tab[] = {
		{ "__linux__", "1" }, { "__linux", "1" }, { "__unix__", "1" },
		{ "__STDC__", "1" }, { "__STDC_VERSION__", "201112L" },
		{ "__GNUC__", "4" }, { "__GNUC_MINOR__", "2" },
		{ "__clang__", "1" }, { "__CHAR_BIT__", "8" },
		{ "__SIZEOF_SHORT__", "2" }, { "__SIZEOF_INT__", "4" },
		{ "__SIZEOF_LONG_LONG__", "8" },
		{ "__ORDER_LITTLE_ENDIAN__", "1234" },
		{ "__ORDER_BIG_ENDIAN__", "4321" },
#if defined(__LP64__)
		{ "__LP64__", "1" }, { "_LP64", "1" },
		{ "__SIZEOF_LONG__", "8" }, { "__SIZEOF_POINTER__", "8" },
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		{ "__BYTE_ORDER__", "1234" },
		{ "__LITTLE_ENDIAN__", "1" },
#else
		{ "__BYTE_ORDER__", "4321" },
#endif
#if defined(__x86_64__)
		{ "__x86_64__", "1" }, { "__x86_64", "1" },
		{ "__amd64__", "1" },
#elif defined(__aarch64__)
		{ "__aarch64__", "1" },
#endif
	};
	if (len == 17 && !strncmp(name, "BPFTRACE_HAVE_BTF", 17))
		return feat_has(FEAT_BTF) ? "1" : NULL;
	for (size_t i = 0; i < sizeof(tab) / sizeof(*tab); i++)
		if (strlen(tab[i].name) == len &&
		    !strncmp(tab[i].name, name, len))
			return tab[i].body;
	return NULL;
}

/* Whether directive text defines (1) or undefines (0) macro name, or
 * neither (-1); *body and *fn describe a definition. */
static int defines(const char *text, const char *name, size_t len,
		   const char **body, bool *fn)
{
	const char *w, *r;
	size_t n = directive_word(text, &w, &r);
	bool def = n == 6 && !strncmp(w, "define", 6);
	if (!def && !(n == 5 && !strncmp(w, "undef", 5)))
		return -1;
	if (strncmp(r, name, len) || isalnum((unsigned char)r[len]) ||
	    r[len] == '_')
		return -1;
	if (!def)
		return 0;
	*fn = r[len] == '(';
	*body = r + len + strspn(r + len, " \t");
	return 1;
}

static bool lookup(void *ctx, const char *name, size_t len,
		   const char **body, bool *fn)
{
	const struct macros *m = ctx;
	*fn = false;
	for (uint32_t k = m->upto; m->p && k-- > 0;) {
		if (m->active && !m->active[k])
			continue;
		int d = defines(m->p->directives[k].text, name, len, body, fn);
		if (d >= 0)
			return d;
	}
	for (uint32_t k = m->s ? m->s->n : 0; k-- > 0;) {
		int d = defines(m->s->out[k].text, name, len, body, fn);
		if (d >= 0)
			return d;
	}
	*body = predefined(name, len);
	return *body != NULL;
}

/* Follows directive text if it is a conditional: returns true then. An
 * #if or #elif whose expression cannot be evaluated (cpp_expr.h) keeps
 * every branch of its block, as sonde did before it evaluated any. */
static bool cond_step(struct cond *c, const char *text,
		      const struct macros *m)
{
	const char *w, *r;
	size_t n = directive_word(text, &w, &r);
	size_t len = strspn(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
	uint64_t bit = c->depth < 64 ? 1ull << c->depth : 0;
	const char *body;
	bool fn;
	int64_t v;
	if ((n == 5 && !strncmp(w, "ifdef", 5)) ||
	    (n == 6 && !strncmp(w, "ifndef", 6)) ||
	    (n == 2 && !strncmp(w, "if", 2))) {
		bool unknown = false, on;
		if (n == 2) {
			unknown = cpp_eval(r, lookup, (void *)m, &v) < 0;
			on = unknown || v;
		} else {
			on = lookup((void *)m, r, len, &body, &fn) == (n == 5);
		}
		c->outer = (c->outer & ~bit) | (c->active ? bit : 0);
		c->taken = (c->taken & ~bit) | (on && !unknown ? bit : 0);
		c->is_if = (c->is_if & ~bit) | (unknown ? bit : 0);
		c->unknown += unknown;
		c->active = c->active && on;
		c->depth++;
		return true;
	}
	if (!c->depth)
		return false;
	uint64_t top = c->depth - 1 < 64 ? 1ull << (c->depth - 1) : 0;
	bool outer = c->outer & top;
	if (n == 4 && !strncmp(w, "elif", 4)) {
		if (c->is_if & top) {
			c->active = outer; /* an unknown block: all read */
			return true;
		}
		if (c->taken & top) {
			c->active = false;
			return true;
		}
		if (cpp_eval(r, lookup, (void *)m, &v) < 0) {
			c->is_if |= top;
			c->unknown++;
			c->active = outer;
			return true;
		}
		c->taken |= v ? top : 0;
		c->active = outer && v;
		return true;
	}
	if (n == 4 && !strncmp(w, "else", 4)) {
		c->active = outer && ((c->is_if & top) || !(c->taken & top));
		return true;
	}
	if (n == 5 && !strncmp(w, "endif", 5)) {
		c->depth--;
		c->unknown -= (c->is_if & top) ? 1 : 0;
		c->active = outer;
		return true;
	}
	return false;
}

/* Drops the program's C definitions that lie in a conditional block
 * that is not compiled (bpftrace's tools declare kernel structs under
 * `#ifndef BPFTRACE_HAVE_BTF` for kernels without BTF: with BTF those
 * declarations must not replace the kernel's, whose layout differs).
 * active[i]: the state after directive i. */
static void drop_inactive_cdefs(struct ast_program *p, const bool *after)
{
	uint32_t k = 0, kept = 0;
	for (uint32_t i = 0; i <= p->ndirectives; i++) {
		uint32_t end = i < p->ndirectives ? p->directives[i].span.off :
						    UINT32_MAX;
		bool on = i == 0 || after[i - 1];
		for (; k < p->ncdefs && p->cdefs[k]->span.off < end; k++)
			if (on)
				p->cdefs[kept++] = p->cdefs[k];
	}
	p->ncdefs = kept;
}

int include_expand(struct arena *a, struct diag *d, struct ast_program *p,
		   const struct include_opts *o)
{
	struct inc s = { .a = a, .d = d, .o = o, .seen = STRBUF_INIT,
			 .once = STRBUF_INIT };
	int rc = 0;
	struct span none = { 0 };
	for (size_t i = 0; i < o->nfiles; i++)
		rc |= one(&s, none, false, o->files[i], true, false, p, 0);
	/* The program's conditionals are followed: its #includes and C
	 * definitions in a block that is left out are left out (bpftrace's
	 * tools' `#ifndef BPFTRACE_HAVE_BTF` blocks where BTF is there). */
	struct cond c = { .active = true };
	bool *before = arena_alloc(a, p->ndirectives + 1);
	bool *after = arena_alloc(a, p->ndirectives + 1);
	for (uint32_t i = 0; i < p->ndirectives; i++) {
		const char *t = p->directives[i].text;
		char name[1024];
		bool angle;
		struct macros m = { p, before, i, &s };
		before[i] = c.active;
		if (!cond_step(&c, t, &m) && c.active &&
		    parse_include(t, name, sizeof(name), &angle))
			rc |= one(&s, p->directives[i].span, true, name, angle,
				  c.unknown > 0 || (kernel_header(name) &&
						    feat_has(FEAT_BTF)), p, i);
		after[i] = c.active;
	}
	drop_inactive_cdefs(p, after);
	/* a #define the program leaves out is not a macro */
	uint32_t kept = 0;
	for (uint32_t i = 0; i < p->ndirectives; i++)
		if (before[i])
			p->directives[kept++] = p->directives[i];
	p->ndirectives = kept;
	sb_free(&s.seen);
	sb_free(&s.once);
	if (!s.n)
		return rc ? -1 : 0;
	/* the headers' lines first: the program's own #defines win */
	struct ast_directive *all = arena_alloc(a, sizeof(*all) *
						      (s.n + p->ndirectives));
	memcpy(all, s.out, sizeof(*all) * s.n);
	if (p->ndirectives)
		memcpy(all + s.n, p->directives,
		       sizeof(*all) * p->ndirectives);
	p->directives = all;
	p->ndirectives += s.n;
	return rc ? -1 : 0;
}
