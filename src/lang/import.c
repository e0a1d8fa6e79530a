/*
 * bpftrace 0.26's root imports: `import "path";` after the C definitions
 * and before any probe or macro. The path is resolved against the
 * directory of the script that imports it (the working directory for -e);
 * a directory imports its supported files (not its subdirectories). A .bt
 * script's probes and macros join the importing program, its own probes
 * first (0.26 runs an import's begin and end probes before the
 * importer's); a .h header is included as `#include "path"` would be.
 * Each file is imported once; a file that imports itself, directly or
 * through others, and a path that does not exist, are located errors.
 */
#include "lang/import.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lang/parser.h"
#include "util/files.h"
#include "util/strbuf.h"

/* Nested imports deeper than this are refused (a chain of distinct files
 * cannot loop, but the C stack is finite). */
#define MAX_IMPORT_DEPTH 64

struct imp {
	struct arena *a;
	struct diag *d;
	struct ast_program *root;
	/* real paths: every file imported (and the root), and the chain of
	 * files being imported now */
	const char **seen;
	uint32_t nseen, capseen;
	const char *chain[MAX_IMPORT_DEPTH + 1];
	const char *chain_name[MAX_IMPORT_DEPTH + 1];
	int depth;
	/* what the imports bring, in order */
	struct ast_probe *probes;
	uint32_t nprobes, capprobes;
	struct ast_macro *macros;
	uint32_t nmacros, capmacros;
	struct ast_directive *headers;
	uint32_t nheaders, capheaders;
};

#define GROW(x, arr, n, cap)                                                   \
	do {                                                                   \
		if ((n) == (cap)) {                                            \
			uint32_t nc_ = (cap) ? (cap) * 2 : 8;                  \
			void *na_ = arena_alloc((x)->a, sizeof(*(arr)) * nc_); \
			if (n)                                                 \
				memcpy(na_, (arr), sizeof(*(arr)) * (n));      \
			(arr) = na_;                                           \
			(cap) = nc_;                                           \
		}                                                              \
	} while (0)

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* 0.26 refuses a path, or a path in a directory, anyone may write. */
static bool world_writable(const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && (st.st_mode & S_IWOTH))
		return true;
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	return stat(dir, &st) == 0 && (st.st_mode & S_IWOTH);
}

static bool was_seen(struct imp *x, const char *real)
{
	for (uint32_t i = 0; i < x->nseen; i++)
		if (!strcmp(x->seen[i], real))
			return true;
	return false;
}

static void import_program(struct imp *x, struct ast_program *p,
			   const char *dir);

static void import_bt(struct imp *x, const struct ast_import *at,
		      const char *path, const char *real)
{
	for (int i = 0; i <= x->depth; i++) {
		if (strcmp(x->chain[i], real))
			continue;
		struct strbuf sb = STRBUF_INIT;
		for (int j = i; j <= x->depth; j++)
			sb_printf(&sb, j > i ? "%s, which imports " :
					       "%s imports ", x->chain_name[j]);
		sb_append(&sb, path);
		diag_error(x->d, at->span, "import cycle: %s", sb_str(&sb));
		sb_free(&sb);
		return;
	}
	if (was_seen(x, real))
		return; /* imported once */
	if (x->depth >= MAX_IMPORT_DEPTH) {
		diag_error(x->d, at->span, "imports are nested too deeply "
			   "(more than %d)", MAX_IMPORT_DEPTH);
		return;
	}
	char *text;
	size_t len;
	int err = files_read(path, FILES_READ_MAX, &text, &len);
	if (err) {
		diag_error(x->d, at->span, "error reading import \"%s\": %s",
			   path, files_err_str(err, FILES_READ_MAX));
		return;
	}
	struct src_file *sf = arena_alloc(x->a, sizeof(*sf));
	sf->name = arena_strdup(x->a, path);
	char *copy = arena_alloc(x->a, len + 1);
	memcpy(copy, text, len + 1);
	sf->text = copy;
	sf->len = (uint32_t)len;
	free(text);
	GROW(x, x->seen, x->nseen, x->capseen);
	x->seen[x->nseen++] = real;
	int errors = x->d->nerrors;
	struct ast_program *p = parse_program_flags(x->a, x->d, sf, NULL, 0,
						    PARSE_NO_PROBES_OK);
	if (x->d->nerrors > errors)
		return;
	if (p->config && p->config->n) {
		diag_error(x->d, p->config->span, "invalid `config` within "
			   "import");
		return;
	}
	/* sonde merges probes and macros; the C side stays the root's */
	if (p->ndirectives || p->ncdefs) {
		struct span sp = p->ndirectives ? p->directives[0].span :
						  p->cdefs[0]->span;
		diag_error(x->d, sp, "C definitions and preprocessor lines in "
			   "an imported script are not supported by sonde: "
			   "import a .h header, or put them in the importing "
			   "script");
		return;
	}
	x->depth++;
	x->chain[x->depth] = real;
	x->chain_name[x->depth] = sf->name;
	char *dir = arena_strdup(x->a, path);
	char *slash = strrchr(dir, '/');
	if (slash)
		slash[1] = 0;
	else
		dir[0] = 0;
	import_program(x, p, dir);
	x->depth--;
	for (uint32_t i = 0; i < p->nprobes; i++) {
		GROW(x, x->probes, x->nprobes, x->capprobes);
		x->probes[x->nprobes++] = p->probes[i];
	}
	for (uint32_t i = 0; i < p->nmacros; i++) {
		GROW(x, x->macros, x->nmacros, x->capmacros);
		x->macros[x->nmacros++] = p->macros[i];
	}
}

static void import_h(struct imp *x, const struct ast_import *at,
		     const char *path, const char *real)
{
	if (was_seen(x, real))
		return;
	GROW(x, x->seen, x->nseen, x->capseen);
	x->seen[x->nseen++] = real;
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "#include \"%s\"", real);
	GROW(x, x->headers, x->nheaders, x->capheaders);
	x->headers[x->nheaders++] = (struct ast_directive){
		at->span, arena_strdup(x->a, sb_str(&sb)) };
	sb_free(&sb);
}

/* One file: by its extension. In a directory, other files are skipped
 * (in_dir); named directly, they are an error. */
static void import_file(struct imp *x, const struct ast_import *at,
			const char *path, bool in_dir)
{
	char real[PATH_MAX];
	if (!realpath(path, real)) {
		diag_error(x->d, at->span, "error reading import \"%s\": %s",
			   path, strerror(errno));
		return;
	}
	const char *r = arena_strdup(x->a, real);
	if (ends_with(path, ".bt"))
		import_bt(x, at, path, r);
	else if (ends_with(path, ".h"))
		import_h(x, at, path, r);
	else if (ends_with(path, ".bpf.c") || ends_with(path, ".bpf.o"))
		diag_error(x->d, at->span, "importing BPF C (%s) is not "
			   "supported by sonde: it compiles no C",
			   strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	else if (!in_dir)
		diag_error(x->d, at->span, "unknown import type: \"%s\"",
			   strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A package (or a file) of bpftrace 0.26's standard library in BPF C,
 * which it embeds and compiles with clang when imported by that name
 * (import "stdlib/test" brings __always_true() of test/test.bpf.c). */
static bool stdlib_c(const char *name)
{
	static const char *const pkgs[] = { "map", "process", "stack",
		"strings", "system", "task", "test", "usdt" };
	if (strncmp(name, "stdlib/", 7))
		return false;
	name += 7;
	if (!strcmp(name, "base.bpf.c"))
		return true;
	for (size_t i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++) {
		size_t n = strlen(pkgs[i]);
		if (!strncmp(name, pkgs[i], n) &&
		    (name[n] == 0 || name[n] == '/'))
			return true;
	}
	return false;
}

static void import_one(struct imp *x, const struct ast_import *at,
		       const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	if (at->path[0] == '/')
		sb_append(&sb, at->path);
	else
		sb_printf(&sb, "%s%s", dir, at->path);
	const char *path = arena_strdup(x->a, sb_str(&sb));
	sb_free(&sb);
	struct stat st;
	if (stat(path, &st) < 0 && stdlib_c(at->path)) {
		diag_error(x->d, at->span, "importing bpftrace's BPF C library "
			   "\"%s\" is not supported by sonde: it compiles no C",
			   at->path);
		return;
	}
	if (stat(path, &st) < 0) {
		diag_error(x->d, at->span, "Unable to find suitable path for "
			   "import");
		diag_report(x->d, "HINT", (struct span){ 0 }, "checked: %s",
			    path);
		return;
	}
	if (world_writable(path)) {
		diag_error(x->d, at->span, "cowardly refusing to import from a "
			   "directory with global write permissions: \"%s\"",
			   path);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		import_file(x, at, path, false);
		return;
	}
	/* a directory: its files, in name order so runs are alike */
	DIR *d = opendir(path);
	if (!d) {
		diag_error(x->d, at->span, "error reading import \"%s\": %s",
			   path, strerror(errno));
		return;
	}
	const char **names = NULL;
	uint32_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		struct strbuf e = STRBUF_INIT;
		sb_printf(&e, "%s%s%s", path,
			  path[strlen(path) - 1] == '/' ? "" : "/", de->d_name);
		struct stat es;
		if (stat(sb_str(&e), &es) == 0 && S_ISREG(es.st_mode)) {
			GROW(x, names, n, cap);
			names[n++] = arena_strdup(x->a, sb_str(&e));
		}
		sb_free(&e);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (uint32_t i = 0; i < n; i++)
		import_file(x, at, names[i], true);
}

static void import_program(struct imp *x, struct ast_program *p,
			   const char *dir)
{
	for (uint32_t i = 0; i < p->nimports; i++)
		import_one(x, &p->imports[i], dir);
}

int import_resolve(struct arena *a, struct diag *d, struct ast_program *prog)
{
	if (!prog->nimports)
		return 0;
	int before = d->nerrors;
	struct imp x;
	memset(&x, 0, sizeof(x));
	x.a = a;
	x.d = d;
	x.root = prog;
	const char *name = prog->file->name;
	bool from_file = strcmp(name, "stdin") != 0;
	char real[PATH_MAX];
	x.chain[0] = from_file && realpath(name, real) ?
		arena_strdup(a, real) : "";
	x.chain_name[0] = name;
	if (x.chain[0][0]) {
		GROW(&x, x.seen, x.nseen, x.capseen);
		x.seen[x.nseen++] = x.chain[0];
	}
	char *dir = arena_strdup(a, from_file ? name : "");
	char *slash = strrchr(dir, '/');
	if (slash)
		slash[1] = 0;
	else
		dir[0] = 0;
	import_program(&x, prog, dir);
	if (d->nerrors > before)
		return -1;
	/* the imports' probes first, then the script's */
	uint32_t total = x.nprobes + prog->nprobes;
	struct ast_probe *probes = arena_alloc(a, sizeof(*probes) *
						       (total + 1));
	if (x.nprobes)
		memcpy(probes, x.probes, sizeof(*probes) * x.nprobes);
	if (prog->nprobes)
		memcpy(probes + x.nprobes, prog->probes,
		       sizeof(*probes) * prog->nprobes);
	for (uint32_t i = 0; i < total; i++)
		probes[i].index = i;
	prog->probes = probes;
	prog->nprobes = total;
	struct ast_macro *macros = arena_alloc(a, sizeof(*macros) *
						       (x.nmacros +
							prog->nmacros + 1));
	/* the script's macros first: a redefinition is the import's */
	if (prog->nmacros)
		memcpy(macros, prog->macros, sizeof(*macros) * prog->nmacros);
	if (x.nmacros)
		memcpy(macros + prog->nmacros, x.macros,
		       sizeof(*macros) * x.nmacros);
	prog->macros = macros;
	prog->nmacros += x.nmacros;
	if (x.nheaders) {
		/* in the script's order: a header's place is its import's */
		uint32_t n = prog->ndirectives + x.nheaders;
		struct ast_directive *all = arena_alloc(a, sizeof(*all) *
							      (n + 1));
		uint32_t i = 0, j = 0, k = 0;
		while (i < prog->ndirectives || j < x.nheaders) {
			if (j == x.nheaders ||
			    (i < prog->ndirectives &&
			     prog->directives[i].span.off <
				     x.headers[j].span.off))
				all[k++] = prog->directives[i++];
			else
				all[k++] = x.headers[j++];
		}
		prog->directives = all;
		prog->ndirectives = n;
	}
	if (!prog->nprobes) {
		struct span sp = { prog->file, 0, 0, 1, 1 };
		diag_error(d, sp, "the script has no probes");
		return -1;
	}
	return 0;
}
