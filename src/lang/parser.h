/* Recursive-descent parser: source text -> AST (lang/ast.h). */
#ifndef SONDE_PARSER_H
#define SONDE_PARSER_H

#include "lang/ast.h"
#include "util/arena.h"
#include "util/diag.h"

/* Parses a whole script. Errors go to d (d->nerrors > 0); the returned AST
 * may then be partial and must not be compiled. Never returns NULL. */
struct ast_program *parse_program(struct arena *a, struct diag *d,
				  const struct src_file *file);
/* The same, with the positional parameters that $N in attach points
 * stands for (bpftrace's BEGIN$1, uprobe:$1:f). */
struct ast_program *parse_program_params(struct arena *a, struct diag *d,
					 const struct src_file *file,
					 const char *const *params,
					 uint32_t nparams);

/* parse_program_params with flags: PARSE_NO_PROBES_OK for an imported
 * file, which may hold macros only. */
#define PARSE_NO_PROBES_OK 1u
struct ast_program *parse_program_flags(struct arena *a, struct diag *d,
					const struct src_file *file,
					const char *const *params,
					uint32_t nparams, unsigned flags);

/* Parses file as one expression (a macro's body); NULL when it is not
 * one (errors, if any, in d). */
struct ast_expr *parse_expression(struct arena *a, struct diag *d,
				  const struct src_file *file);

/* Parses file's whole text as one attach point, as a probe's is written
 * ("tracepoint:block:block_io_start"; probe_exist's argument). Errors go
 * to d; returns 0 or -1. */
int parse_attach_text(struct arena *a, struct diag *d,
		      const struct src_file *file, struct attach_point *out);

#endif
