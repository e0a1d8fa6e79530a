/*
 * Named program options: getopt("name", default, "description") in a
 * script, given as `--name=value` after the script's `--`. Sema defines
 * the options (one per name, every use with the same default) and folds
 * each call into its value; namedopt_check() then reports, in bpftrace
 * 0.26's words, the options the command line names that the script does
 * not define, values of the wrong kind, and --help's list.
 */
#ifndef SONDE_NAMEDOPT_H
#define SONDE_NAMEDOPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct arena;

enum namedopt_kind {
	NOPT_BOOL,
	NOPT_UINT,   /* a non-negative integer default */
	NOPT_INT,    /* a negative integer default */
	NOPT_STRING,
};

struct namedopt {
	const char *name;
	enum namedopt_kind kind;
	const char *description; /* "" without one */
	uint64_t def_num;        /* the default: bool, int or uint */
	const char *def_str;     /* NOPT_STRING's default */
	uint64_t num;            /* the value (the default when not given) */
	const char *str;
	/* The command line's value for it does not parse: 0.26's words
	 * ("invalid integer") and the value as given. */
	const char *bad, *bad_value;
	struct namedopt *next;
};

/* The named options, in the order the script first uses them. */
struct namedopts {
	struct namedopt *first, **tail;
	uint32_t n;
};

/* The option called name, or NULL. */
struct namedopt *namedopt_find(struct namedopts *ops, const char *name);

/* Adds o (copied into the arena) and resolves its value from the raw
 * command-line words (`name=value` or `name`, without their `--`). */
struct namedopt *namedopt_add(struct arena *a, struct namedopts *ops,
			      const struct namedopt *o, char *const *named,
			      int nnamed);

/* Checks the command line against the options the script defines and
 * prints 0.26's ERROR and HINT lines to err. Returns 0, or -1 when the
 * run must stop (exit 1): an unknown option, a bad value, or --help. */
int namedopt_check(const struct namedopts *ops, char *const *named,
		   int nnamed, FILE *err);

/* 0.26's integer parser for option values (0x, 0b, 0 prefixes, `_`,
 * 1e9 exponents, u/l and time suffixes). Returns 0, or -1 with *why. */
int namedopt_to_uint(const char *s, uint64_t *v, const char **why);
int namedopt_to_int(const char *s, int64_t *v, const char **why);

#endif
