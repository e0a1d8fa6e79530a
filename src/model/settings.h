/*
 * One table of every setting (settings.c): bpftrace 0.26's config
 * variables and sonde's environment variables, each with its name in a
 * script's config block, its environment names, what it accepts and the
 * field of struct limits its value goes to. The config block
 * (lang/config.c), the environment (limits_from_env, config_from_env)
 * and `sonde --help`'s ENVIRONMENT section all read it. A new setting is
 * one row, plus its field in struct limits.
 */
#ifndef SONDE_SETTINGS_H
#define SONDE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum setting_kind {
	SK_NUM,      /* a number in [lo, hi], into u32 or u64 */
	SK_BOOL,     /* into flag (its negation when inverted) */
	SK_WORD,     /* one of words, its index into word */
	SK_LICENSE,  /* one of the licenses the kernel takes, into str */
	SK_STRING,   /* any text, into str (str_trunc_trailer) */
	SK_UNSTABLE, /* enable, warn or error: into word (enum unstable)
			when it has one; the others gate nothing in sonde */
	SK_CACHE,    /* cache_user_symbols */
	SK_FILE,     /* an existing file's path, into str (environment) */
	SK_DIR,      /* an existing directory's path, into str */
};

/* What sonde does, for a setting whose other values it cannot honour. */
enum setting_only { ONLY_ANY, ONLY_TRUE, ONLY_FALSE };

struct setting {
	/* the config block's name (bpftrace 0.26's); NULL: environment
	 * only. Its environment form is BPFTRACE_<NAME>. */
	const char *name;
	/* sonde's (and bpftrace 0.17's) environment name after SONDE_ or
	 * BPFTRACE_ (STRLEN for max_strlen), read by limits_from_env() and
	 * said with its range ("must be a number from 1 to 9999"); its
	 * sense is the field's (NO_CPP_DEMANGLE=1 sets no_cpp_demangle).
	 * NULL: none. */
	const char *env;
	enum setting_kind kind;
	uint64_t lo, hi;         /* SK_NUM */
	enum setting_only only;  /* SK_BOOL */
	uint32_t *u32;           /* SK_NUM: the field, one of */
	uint64_t *u64;
	bool *flag;              /* SK_BOOL */
	bool inverted;           /* SK_BOOL: flag holds the negation */
	int *word;               /* SK_WORD, SK_UNSTABLE */
	const char *const *words; /* SK_WORD: NULL-terminated, enum order */
	const char *accepts;     /* SK_WORD: the environment's words */
	const char *invalid;     /* SK_WORD: the config block's message */
	bool nocase;             /* SK_WORD: the config block's words match
				    in any case (as bpftrace 0.26's) */
	const char **str;        /* SK_LICENSE, SK_STRING, SK_FILE, SK_DIR */
	/* --help's ENVIRONMENT line for env: "[default] what (range)";
	 * '\n' between lines; NULL: not shown */
	const char *help;
};

extern const struct setting settings[];
extern const size_t nsettings;

/* `sonde --settings`: each setting's config name (or environment name),
 * its value now (after the environment) and what it accepts, one line
 * each. */
void settings_print(FILE *out);

/* The row named name in a config block, or NULL. */
const struct setting *settings_find(const char *name);

#endif
