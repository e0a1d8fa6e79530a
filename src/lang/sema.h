/*
 * Semantic analysis: gives every expression a type, resolves variables and
 * maps (whose key and value types are unified across all probes), checks
 * every builtin and function call against the probe's context, and reports
 * errors with their spans. Codegen only runs on a program that passed.
 */
#ifndef SONDE_SEMA_H
#define SONDE_SEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "lang/ast.h"
#include "lang/namedopt.h"
#include "probes/provider.h"

struct arena;
struct diag;

/* A map as the program uses it. */
struct sema_map {
	const char *name;
	const struct type *key;   /* NULL: used without [] */
	const struct type *value; /* an aggregation kind, or a plain value */
	struct span first_use;
	uint32_t index;
	bool deleted; /* delete() is called on it somewhere */
	/* Some assignment stores a plain value (not another map's
	 * aggregation): only then may @m = @agg store the aggregation's
	 * value, as in bpftrace 0.26. */
	bool plain_stored;
	/* Per key part (nkey_names of them), how the script writes it
	 * ("comm", "pid", "$x"), for outputs that name key parts (pprof
	 * labels); "" where uses of the map write it differently. */
	const char **key_names;
	uint32_t nkey_names;
	/* let @m = hash(N): its BPF map type (0: not declared) and size */
	uint32_t decl_type;
	uint32_t decl_max;
};

/* The targets of one probe (from the providers). */
struct sema_probe {
	struct probe_target *targets;
	uint32_t ntargets;
};

struct sema_opts {
	char **params; /* $1.. */
	int nparams;
	bool unsafe;
	int64_t cpid;  /* -c child's pid, 0 when there is none */
	char **named;  /* `--name[=value]` after the script, without "--" */
	int nnamed;
};

struct sema;

struct sema_result {
	struct sema_map *maps;
	uint32_t nmaps;
	bool uses_ringbuf;
	struct namedopts named; /* getopt()'s options */
	struct sema *state; /* for sema_retarget() */
};

/* Checks prog. Errors go to d; returns 0 or -1. */
int sema_check(struct arena *a, struct diag *d, struct ast_program *prog,
	       const struct sema_probe *probes, const struct sema_opts *opts,
	       struct sema_result *out);

/* The AST of probe carries the annotations (types, resolved fields) of
 * one of its targets' contexts. Codegen calls this before compiling the
 * program of target t, so that they are t's. */
void sema_retarget(const struct sema_result *r, uint32_t probe,
		   const struct probe_target *t);

/* Whether the builtin registry gives builtin id a typing rule (for the
 * registry's unit test). */
bool sema_builtin_has_typing(int id);


#endif
