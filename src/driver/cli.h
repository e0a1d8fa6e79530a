/*
 * The command line: one table (cli.c) names every option, its short and
 * long names, its argument, its help text and its handler. Parsing,
 * `sonde --help` and the docs layer's check against the man page all
 * come from it. A new option is one row plus, where it does more than
 * set a field, one handler.
 */
#ifndef SONDE_DRIVER_CLI_H
#define SONDE_DRIVER_CLI_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/strbuf.h"

#define SONDE_VERSION "0.1.0"

enum dump_what { DUMP_AST = 1, DUMP_IR = 2, DUMP_BPF = 4 };

/* bpftrace 0.26's --mode (and --test, --bench, --fmt). */
enum run_mode { MODE_RUN, MODE_CODEGEN, MODE_COMPILER_BENCH, MODE_BENCH,
		MODE_TEST, MODE_FORMAT };

/* At most this many of each repeatable option (-I, --include, --prog,
 * --set). */
#define CLI_MAX_REPEAT 64

struct options {
	const char *prog_text; /* -e */
	const char *prog_path; /* script file */
	const char *tool;      /* -t NAME, before it is found */
	unsigned dump;         /* DUMP_* bits of --dump: print, run nothing */
	unsigned debug;        /* DUMP_* bits of -d STAGE: print (on stderr),
				  then run */
	enum run_mode mode;
	bool dry_run, verify;  /* --dry-run: load, attach, stop */
	int buffering;         /* -B: RUN_BUF_* */
	bool list;             /* -l [PATTERN] */
	const char *list_search; /* -l's PATTERN (NULL: everything) */
	bool unsafe, verbose, quiet;
	const char *format;    /* -f */
	const char *out_path;  /* -o */
	const char *cmd;       /* -c */
	long pid;              /* -p */
	bool pid_set;
	char **params;         /* $1.. */
	int nparams;
	char **named;          /* --name[=value] after them, without "--" */
	int nnamed;
	/* object mode */
	const char *object;    /* --object FILE.bpf.o */
	const char *emit_elf;  /* --emit-elf FILE.o */
	const char *obj_progs[CLI_MAX_REPEAT], *obj_sets[CLI_MAX_REPEAT];
	size_t nobj_progs, nobj_sets;
	const char *perf_event;
	const char *folded, *flamegraph; /* --folded, --flamegraph */
	const char *pprof;       /* --pprof */
	bool list_tools;       /* --tools */
	bool list_settings;    /* --settings */
	char tool_path[4096];  /* -t NAME, or a bare NAME, found */
	bool heatmap;            /* --heatmap */
	const char *heatmap_svg; /* --heatmap-svg */
	const char *metrics;     /* --metrics */
	/* bpftrace's options */
	bool info, no_warnings;     /* --info, --no-warnings */
	bool warnings;              /* -k, --warnings */
	/* bpftrace 0.26's warning level: 0 with --no-warnings, 2 with -k,
	 * else 1 (codegen's cg_helper_check) */
	int helper_check;
	bool usdt_file_activation;  /* --usdt-file-activation */
	const char *includes[CLI_MAX_REPEAT]; /* --include FILE */
	const char *incdirs[CLI_MAX_REPEAT];  /* -I DIR */
	size_t nincludes, nincdirs;
	const char *probe_filter;   /* --probe-filter REGEX */
	regex_t filter_re;
	struct strbuf debuginfo;    /* --debuginfo DIR[:DIR], each ':'-ended */
};

/* What cli_parse() found. */
enum cli_result {
	CLI_ERROR = -1, /* said on stderr: exit 1 */
	CLI_RUN = 0,    /* o describes the run */
	CLI_DONE = 1,   /* --help or --version printed: exit 0 */
};

/* Fills o (zeroed by the caller) from argv. Messages go to err, --help
 * and --version to out. */
enum cli_result cli_parse(int argc, char **argv, struct options *o,
			  FILE *out, FILE *err);

/* `sonde --help`, generated from the table. */
void cli_usage(FILE *out);

/* Frees what cli_parse() allocated in o. */
void cli_free(struct options *o);

/* Whether a run compiles and then runs (not only dumps or emits). */
bool cli_will_run(const struct options *o);

#endif
