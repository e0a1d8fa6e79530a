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
	/* key's parts as the script writes them, unwidened (a literal 1
	 * is int8): the types bpftrace 0.26's messages name */
	const struct type *shown_key;
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
	/* A count, sum or avg read as a value (@c > 5) on a kernel without
	 * bpf_map_lookup_percpu_elem (before 5.19): one value for all CPUs,
	 * added to atomically, instead of one per CPU (cmap.percpu). */
	bool read_shared;
	/* len(@m) on a kernel without bpf_for_each_map_elem (before 5.13):
	 * the program counts the keys it inserts and deletes (cmap.len_*) */
	bool counted;
	struct span len_at; /* its first such len(), for refusals */
	/* let @m = hash(N): its BPF map type (0: not declared) and size */
	uint32_t decl_type;
	uint32_t decl_max;
};

/* The targets of one probe (from the providers). */
struct sema_probe {
	struct probe_target *targets;
	uint32_t ntargets;
};

/* What sema learns from the machine it compiles on: each look-up that
 * reads a file or makes a system call goes through here, so that sema
 * itself does no I/O and a test or fuzzer can stand in for the machine.
 * Each returns 0 (or a count) on success, -errno when there is none.
 * BTF types and the feature table are not here: they are cached tables
 * of src/kernel that codegen and ctypes read too, and the two stages
 * must agree on them (--no-feature changes both). */
struct sema_kernel {
	/* cgroupid("/path"): the cgroup's id */
	int (*cgroup_id)(const char *path, uint64_t *id);
	/* kaddr("sym"), percpu_kaddr(): a kernel symbol's address */
	int (*ksym_addr)(const char *name, uint64_t *addr);
	/* uaddr("sym"): a symbol of an ELF file, its link-time address and
	 * size; *pie: the file is position-independent (ET_DYN) */
	int (*usym)(const char *binary, const char *name, uint64_t *addr,
		    uint64_t *size, bool *pie);
	/* ncpus: the number of possible CPUs */
	int (*ncpus)(void);
};

/* This machine (src/kernel's readers), as the driver passes it. */
extern const struct sema_kernel sema_kernel_host;
/* A machine with nothing: every look-up fails (-ENOENT). What sema uses
 * when sema_opts.kernel is NULL, so that a caller that did not ask for
 * the machine's facts never gets them by accident. */
extern const struct sema_kernel sema_kernel_none;

struct sema_opts {
	char **params; /* $1.. */
	int nparams;
	bool unsafe;
	int64_t cpid;  /* -c child's pid, 0 when there is none */
	char **named;  /* `--name[=value]` after the script, without "--" */
	int nnamed;
	const struct sema_kernel *kernel; /* NULL: sema_kernel_none */
	/* -p or -c names a process whose unwind tables dw_ustack loads
	 * (--dwarf-pid is limits.dwarf_pid), or --emit-elf compiles for an
	 * object whose run names it */
	bool dwarf_target;
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
