/* sonde: command line -> one run. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/ast.h"
#include "lang/parser.h"
#include "lang/sema.h"
#include "probes/provider.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define SONDE_VERSION "0.1.0"

enum dump_what { DUMP_NONE = 0, DUMP_AST = 1 };

struct options {
	const char *prog_text; /* -e */
	const char *prog_path; /* script file */
	unsigned dump;         /* DUMP_* bits from -d */
	int dry_run;
	int unsafe;
	char **params;         /* $1.. */
	int nparams;
};

static void usage(FILE *out)
{
	fputs("usage: sonde [options] PROGRAM_FILE [ARGS...]\n"
	      "       sonde [options] -e 'PROGRAM' [ARGS...]\n"
	      "\n"
	      "options:\n"
	      "  -e PROGRAM     the program to run, instead of a file\n"
	      "  -d ast         print the program's syntax tree and exit\n"
	      "  --dry-run      check the program (syntax, probes, types), "
	      "load nothing\n"
	      "  --unsafe       allow unsafe functions such as system()\n"
	      "  -h, --help     show this help\n"
	      "  --version      show the version\n",
	      out);
}

/* Expands every attach point of every probe into its targets. */
static int expand_probes(struct arena *a, struct diag *d,
			 const struct options *o,
			 const struct ast_program *prog,
			 struct sema_probe **out)
{
	struct sema_probe *sp = arena_alloc(a, sizeof(*sp) *
						       (prog->nprobes + 1));
	struct probe_env env = { a, d, o->params, o->nparams };
	int rc = 0;
	for (uint32_t i = 0; i < prog->nprobes; i++) {
		const struct ast_probe *p = &prog->probes[i];
		for (uint32_t k = 0; k < p->nattach; k++)
			if (probe_expand(&env, &p->attach[k], &sp[i].targets,
					 &sp[i].ntargets) < 0)
				rc = -1;
	}
	*out = sp;
	return rc;
}

/* Reads a whole file, NUL bytes included. */
static char *read_file(const char *path, uint32_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (sb.len + n > UINT32_MAX / 2) {
			errno = EFBIG;
			sb_free(&sb);
			if (f != stdin)
				fclose(f);
			return NULL;
		}
		sb_appendn(&sb, buf, n);
	}
	int err = ferror(f);
	if (f != stdin)
		fclose(f);
	if (err) {
		sb_free(&sb);
		errno = EIO;
		return NULL;
	}
	*len = (uint32_t)sb.len;
	if (!sb.buf)
		return xstrdup("");
	return sb.buf;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_DRY_RUN = 256, OPT_VERSION, OPT_UNSAFE };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "unsafe", no_argument, NULL, OPT_UNSAFE },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	/* '+': stop at the first non-option, which is the script or $1 */
	while ((c = getopt_long(argc, argv, "+e:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->prog_text = optarg;
			break;
		case 'd':
			if (!strcmp(optarg, "ast")) {
				o->dump |= DUMP_AST;
			} else {
				fprintf(stderr, "sonde: unknown -d listing "
						"'%s' (known: ast)\n", optarg);
				return -1;
			}
			break;
		case OPT_DRY_RUN:
			o->dry_run = 1;
			break;
		case OPT_UNSAFE:
			o->unsafe = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_VERSION:
			printf("sonde %s\n", SONDE_VERSION);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (!o->prog_text) {
		if (optind >= argc) {
			fputs("sonde: no program given (use -e 'PROGRAM' or a "
			      "file)\n", stderr);
			usage(stderr);
			return -1;
		}
		o->prog_path = argv[optind++];
	}
	o->params = argv + optind;
	o->nparams = argc - optind;
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	memset(&o, 0, sizeof(o));
	if (parse_options(argc, argv, &o) < 0)
		return 1;

	struct src_file file;
	char *owned = NULL;
	if (o.prog_text) {
		file.name = "stdin";
		file.text = o.prog_text;
		file.len = (uint32_t)strlen(o.prog_text);
	} else {
		owned = read_file(o.prog_path, &file.len);
		if (!owned) {
			fprintf(stderr, "sonde: cannot read %s: %s\n",
				o.prog_path, strerror(errno));
			return 1;
		}
		file.name = o.prog_path;
		file.text = owned;
	}

	struct arena arena;
	arena_init(&arena);
	struct diag diag;
	diag_init(&diag, stderr);
	int rc = 0;
	struct ast_program *prog = parse_program(&arena, &diag, &file);
	if (diag.nerrors) {
		if (diag.nerrors > diag.max_errors)
			fprintf(stderr, "sonde: %d errors in all, only the "
					"first %d shown\n",
				diag.nerrors, diag.max_errors);
		rc = 1;
	} else if (o.dump & DUMP_AST) {
		struct strbuf sb = STRBUF_INIT;
		ast_dump(prog, &sb);
		fputs(sb_str(&sb), stdout);
		sb_free(&sb);
	} else {
		struct sema_probe *probes;
		struct sema_opts sopts = { o.params, o.nparams, o.unsafe, 0 };
		struct sema_result sres;
		if (expand_probes(&arena, &diag, &o, prog, &probes) < 0 ||
		    sema_check(&arena, &diag, prog, probes, &sopts, &sres) < 0)
			rc = 1;
	}
	if (rc == 0 && !(o.dump & DUMP_AST) && !o.dry_run) {
		fputs("sonde: tracing is not built yet: use -d ast or "
		      "--dry-run\n", stderr);
		rc = 1;
	}
	arena_release(&arena);
	free(owned);
	return rc;
}
