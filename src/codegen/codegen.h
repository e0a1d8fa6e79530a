/*
 * Code generation: the typed AST -> IR for each probe -> BPF, plus the maps
 * and the ring-buffer event kinds the runtime needs (codegen/compiled.h).
 */
#ifndef SONDE_CODEGEN_H
#define SONDE_CODEGEN_H

#include <stdbool.h>
#include <stdint.h>

#include "model/compiled.h"
#include "lang/ast.h"
#include "lang/sema.h"

struct arena;
struct diag;
struct strbuf;

struct codegen_opts {
	int64_t cpid;      /* -c child's pid, 0 without -c */
	int64_t pid;       /* -p's pid, 0 without -p */
	uint64_t start_ns; /* bpf_ktime_get_ns() at start, for `elapsed` */
	struct strbuf *dump_ir; /* when set, -d ir text is appended here */
	/* bpftrace 0.26's warning level (cg_helper_check): 0 with
	 * --no-warnings, 1 by default, 2 with -k */
	int helper_check;
	/* no program stands for several syscall tracepoints (--emit-elf:
	 * an object's programs attach as its attach points expand) */
	bool no_dispatch;
};

/* Compiles a program that passed sema. Everything in out lives in a.
 * Returns 0, or -1 after reporting an error (e.g. a program too large for
 * BPF's limits) through d. */
int codegen(struct arena *a, struct diag *d, struct ast_program *prog,
	    const struct sema_probe *probes, const struct sema_result *sr,
	    const struct codegen_opts *opts, struct compiled *out);

/* Whether the builtin registry gives builtin id a code generator (for the
 * registry's unit test). */
bool codegen_builtin_has_emitter(int id);

/* Frees the programs' code (the rest lives in the arena). */
void codegen_free(struct compiled *c);

#endif
