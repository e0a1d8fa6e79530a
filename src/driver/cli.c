/* The command line: the option table, parsing and --help (cli.h). */
#include "driver/cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/features.h"
#include "kernel/kallsyms.h"
#include "model/limits.h"
#include "model/settings.h"
#include "runtime/run.h"
#include "tools/toolfind.h"
#include "util/xalloc.h"

/* Where an option shows in --help (CLI_HIDDEN: not at all). */
enum cli_section { CLI_BPFTRACE, CLI_SONDE, CLI_TROUBLE, CLI_HIDDEN };

/* What a handler sees. */
struct cli_ctx {
	struct options *o;
	const char *name; /* the option's long name, or its short one */
	FILE *out, *err;
	bool dwarf_pid_seen; /* --dwarf-pid was given */
};

/* How a row acts: it sets a bool, or a string, of struct options at
 * off; or its handler does more. A handler returns 0, -1 after saying
 * why on c->err, or 1 when the run is over (--help). */
enum cli_how { SET_FLAG, SET_STR, CALL };

struct cli_opt {
	const char *lname;      /* long name without "--", or NULL */
	char sname;             /* short name, or 0 */
	const char *arg;        /* its argument's name in --help; NULL: none */
	bool arg_after;         /* the argument is a word after the options
				   (-l [search|filename]), not the option's */
	enum cli_section sec;
	const char *help;       /* '\n' between lines */
	enum cli_how how;
	size_t off;             /* SET_FLAG, SET_STR */
	int (*call)(struct cli_ctx *c, const char *arg);
};

#define FLAG(field) SET_FLAG, offsetof(struct options, field), NULL
#define STR(field) SET_STR, offsetof(struct options, field), NULL
#define CALLS(fn) CALL, 0, fn

/*
 * A number as bpftrace 0.26's util::to_uint reads it (so -p reads it):
 * '_' separators, 0x/0b/0 prefixes, a 1e9 exponent, an integer type or a
 * time unit suffix. NULL, or the reason in bpftrace's words.
 */
static const char *to_uint(const char *arg, uint64_t *out)
{
	static char why[160];
	char n[64];
	size_t len = 0;
	for (const char *c = arg; *c && len + 1 < sizeof(n); c++)
		if (*c != '_')
			n[len++] = *c;
	n[len] = '\0';
	int base = 10;
	const char *digits = n;
	if (len >= 2 && n[0] == '0' && (n[1] == 'x' || n[1] == 'X'))
		base = 16, digits = n + 2;
	else if (len >= 2 && n[0] == '0' && (n[1] == 'b' || n[1] == 'B'))
		base = 2, digits = n + 2;
	else if (len >= 2 && n[0] == '0' && n[1] >= '0' && n[1] <= '7')
		base = 8, digits = n + 1;
	/* bpftrace reads a prefixed number again without its prefix (and
	 * its '_'), and names that in its messages */
	if (base != 10)
		arg = digits;
	char *end;
	errno = 0;
	uint64_t v = strtoull(digits, &end, base);
	if (end == digits || *digits == '-' || *digits == '+' ||
	    isspace((unsigned char)*digits)) {
		snprintf(why, sizeof(why), "invalid integer: %s", arg);
		return why;
	}
	if (errno == ERANGE) {
		snprintf(why, sizeof(why), "overflow error, maximum value is "
			 "%llu: %s", (unsigned long long)UINT64_MAX, arg);
		return why;
	}
	if ((*end == 'e' || *end == 'E') && end[1] >= '1' && end[1] <= '9') {
		if (v == 0 || v >= 10) {
			snprintf(why, sizeof(why), "coefficient part of "
				 "scientific literal must be 1-9: %s", arg);
			return why;
		}
		uint64_t e = strtoull(end + 1, &end, 10);
		for (; e > 0; e--) {
			if (v > UINT64_MAX / 10) {
				snprintf(why, sizeof(why), "overflow error, "
					 "maximum value is %llu: %s",
					 (unsigned long long)UINT64_MAX, arg);
				return why;
			}
			v *= 10;
		}
	}
	static const struct { const char *s; uint64_t max, mul; } sfx[] = {
		{ "", UINT64_MAX, 1 }, { "u", UINT32_MAX, 1 },
		{ "ul", UINT64_MAX, 1 }, { "ull", UINT64_MAX, 1 },
		{ "l", INT64_MAX, 1 }, { "ll", INT64_MAX, 1 },
		{ "ns", UINT64_MAX, 1 }, { "us", UINT64_MAX, 1000 },
		{ "ms", UINT64_MAX, 1000000 },
		{ "s", UINT64_MAX, 1000000000 },
		{ "m", UINT64_MAX, 60000000000ull },
		{ "h", UINT64_MAX, 3600000000000ull },
		{ "d", UINT64_MAX, 86400000000000ull },
	};
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		if (strcmp(end, sfx[i].s))
			continue;
		if (v > sfx[i].max / sfx[i].mul) {
			snprintf(why, sizeof(why), "overflow error, maximum "
				 "value is %llu: %s",
				 (unsigned long long)sfx[i].max, arg);
			return why;
		}
		*out = v * sfx[i].mul;
		return NULL;
	}
	snprintf(why, sizeof(why), "invalid trailing bytes: %s", arg);
	return why;
}

/* A pid (-p, --dwarf-pid), checked as bpftrace 0.26's parse_pid checks
 * it, with its sentences: the pid, or -1. */
static long parse_pid(struct cli_ctx *c, const char *arg)
{
	uint64_t v;
	const char *why = to_uint(arg, &v);
	if (why) {
		fprintf(c->err, "ERROR: Failed to parse pid: %s\n", why);
		return -1;
	}
	/* the nominal maximum pid_max of 64-bit systems */
	if (v > 0x400000) {
		fprintf(c->err, "ERROR: Pid out of range: %llu\n",
			(unsigned long long)v);
		return -1;
	}
	return (long)v;
}

static int opt_pid(struct cli_ctx *c, const char *arg)
{
	long pid = parse_pid(c, arg);
	if (pid < 0)
		return -1;
	c->o->pid = pid;
	c->o->pid_set = true;
	return 0;
}

/* --dwarf-pid PID: a process dw_ustack loads the unwind tables of,
 * besides -p's or -c's (limits.dwarf_pid, which the runtime reads).
 * 0.26 takes the option again for more processes; sonde takes one, and
 * refuses a second rather than drop either. */
static int opt_dwarf_pid(struct cli_ctx *c, const char *arg)
{
	long pid = parse_pid(c, arg);
	if (pid < 0)
		return -1;
	if (c->dwarf_pid_seen) {
		fputs("ERROR: sonde takes one --dwarf-pid (with -p or -c, two "
		      "processes)\n", c->err);
		return -1;
	}
	if (!pid) {
		fputs("ERROR: --dwarf-pid needs a process id, not 0\n", c->err);
		return -1;
	}
	limits.dwarf_pid = (int32_t)pid;
	c->dwarf_pid_seen = true;
	return 0;
}

/* Appends a repeatable option's value to list (at most CLI_MAX_REPEAT). */
static int add_repeated(struct cli_ctx *c, const char **list, size_t *n,
			const char *v)
{
	if (*n == CLI_MAX_REPEAT) {
		fprintf(c->err, "ERROR: too many %s%s options (at most %d)\n",
			c->name[1] ? "--" : "-", c->name, CLI_MAX_REPEAT);
		return -1;
	}
	list[(*n)++] = v;
	return 0;
}

static int opt_incdir(struct cli_ctx *c, const char *arg)
{
	return add_repeated(c, c->o->incdirs, &c->o->nincdirs, arg);
}

static int opt_include(struct cli_ctx *c, const char *arg)
{
	return add_repeated(c, c->o->includes, &c->o->nincludes, arg);
}

static int opt_prog(struct cli_ctx *c, const char *arg)
{
	return add_repeated(c, c->o->obj_progs, &c->o->nobj_progs, arg);
}

static int opt_set(struct cli_ctx *c, const char *arg)
{
	return add_repeated(c, c->o->obj_sets, &c->o->nobj_sets, arg);
}

/* -d STAGE[,STAGE]: bpftrace 0.26's debug stages, as sonde's listings
 * (printed on stderr, and the run goes on). */
static int opt_debug(struct cli_ctx *c, const char *arg)
{
	static const struct { const char *name; unsigned dump; bool verbose; }
	stages[] = {
		{ "ast", DUMP_AST, 0 }, { "parse", DUMP_AST, 0 },
		{ "types", DUMP_AST, 0 }, { "codegen", DUMP_IR, 0 },
		{ "codegen-opt", DUMP_IR, 0 }, { "dis", DUMP_BPF, 0 },
		{ "libbpf", 0, 1 }, { "verifier", 0, 1 },
		{ "all", DUMP_AST | DUMP_IR | DUMP_BPF, 1 },
	};
	char *copy = xstrdup(arg), *save = NULL;
	int rc = 0;
	for (char *w = strtok_r(copy, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		size_t i = 0;
		while (i < sizeof(stages) / sizeof(stages[0]) &&
		       strcmp(stages[i].name, w))
			i++;
		if (i == sizeof(stages) / sizeof(stages[0])) {
			fprintf(c->err, "ERROR: USAGE: invalid option for -d: "
				"%s\n", w);
			rc = -1;
			break;
		}
		c->o->debug |= stages[i].dump;
		c->o->verbose |= stages[i].verbose;
	}
	free(copy);
	return rc;
}

static int opt_dump(struct cli_ctx *c, const char *arg)
{
	static const struct { const char *name; unsigned dump; } what[] = {
		{ "ast", DUMP_AST }, { "ir", DUMP_IR }, { "bpf", DUMP_BPF },
	};
	for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		if (!strcmp(what[i].name, arg)) {
			c->o->dump |= what[i].dump;
			return 0;
		}
	fprintf(c->err, "sonde: unknown --dump listing '%s' (known: ast, ir, "
		"bpf)\n", arg);
	return -1;
}

/* --no-feature FEATURE[,FEATURE]: what sonde must not use although this
 * kernel has it; any name --info lists (feat_name). sonde attaches no
 * kprobe_multi or kprobe_session links, so those only need to be known
 * names. The others make sonde compile as for a kernel without them:
 * bpf_loop and for_each_map_elem as before 5.17 and 5.13, big_map_keys
 * as before hash keys could pass 512 bytes, get_tai_ns as before 6.1,
 * so that each fallback is testable on any kernel. bpftrace's sentence
 * still names bpftrace's values. */
static int opt_no_feature(struct cli_ctx *c, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;
	int rc = 0;
	for (char *w = strtok_r(copy, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		int f = 0;
		while (f < FEAT__COUNT && strcmp(w, feat_name((enum feat_id)f)))
			f++;
		if (f < FEAT__COUNT)
			feat_disable((enum feat_id)f, "--no-feature");
		else
			rc = -1;
	}
	free(copy);
	if (rc)
		fputs("ERROR: USAGE: --no-feature can only have values "
		      "'kprobe_multi,kprobe_session,uprobe_multi'.\n", c->err);
	return rc;
}

/* --mode MODE, and its aliases --test, --bench and --fmt (whose name is
 * the mode, but for --fmt's). */
static int opt_mode(struct cli_ctx *c, const char *arg)
{
	static const struct { const char *name; enum run_mode mode; }
	modes[] = {
		{ "codegen", MODE_CODEGEN },
		{ "compiler-bench", MODE_COMPILER_BENCH },
		{ "bench", MODE_BENCH }, { "test", MODE_TEST },
		{ "format", MODE_FORMAT },
	};
	bool alias = strcmp(c->name, "mode") != 0;
	if (alias) {
		if (c->o->mode != MODE_RUN) {
			fprintf(c->err, "ERROR: USAGE: --%s conflicts with "
				"existing --mode\n", c->name);
			return -1;
		}
		arg = strcmp(c->name, "fmt") ? c->name : "format";
	}
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(modes[i].name, arg)) {
			c->o->mode = modes[i].mode;
			return 0;
		}
	fputs("ERROR: USAGE: --mode can only be 'codegen', 'compiler-bench', "
	      "'bench', 'test' or 'format'.\n", c->err);
	return -1;
}

/* --probe-filter REGEX, compiled once (a POSIX extended regex). */
static int opt_probe_filter(struct cli_ctx *c, const char *arg)
{
	struct options *o = c->o;
	if (o->probe_filter) {
		regfree(&o->filter_re); /* the last one counts */
		o->probe_filter = NULL;
	}
	int e = regcomp(&o->filter_re, arg, REG_EXTENDED | REG_NOSUB);
	if (e) {
		char why[200];
		regerror(e, &o->filter_re, why, sizeof(why));
		fprintf(c->err, "ERROR: Invalid --probe-filter regex '%s': "
			"%s\n", arg, why);
		return -1;
	}
	o->probe_filter = arg;
	return 0;
}

/* --traceable-functions FILE: the kernel functions kprobes may trace,
 * instead of tracefs's available_filter_functions. */
static int opt_traceable(struct cli_ctx *c, const char *arg)
{
	if (access(arg, R_OK)) {
		fprintf(c->err, "ERROR: Failed to open kernel function info: "
			"%s: %s\n", arg, strerror(errno));
		return -1;
	}
	ksyms_traceable_from(arg);
	return 0;
}

static int opt_debuginfo(struct cli_ctx *c, const char *arg)
{
	sb_append(&c->o->debuginfo, arg);
	sb_putc(&c->o->debuginfo, ':');
	return 0;
}

/* LLVM's options: sonde has none to give. */
static int opt_no_llvm(struct cli_ctx *c, const char *arg)
{
	fprintf(c->err, "ERROR: --%s: sonde compiles to BPF without LLVM "
		"(--emit-elf writes a BPF object)\n", c->name);
	return -1;
}

static int opt_format(struct cli_ctx *c, const char *arg)
{
	if (strcmp(arg, "text") && strcmp(arg, "json")) {
		fprintf(c->err, "ERROR: Invalid output format \"%s\"\nValid "
			"formats: 'text', 'json'\n", arg);
		return -1;
	}
	c->o->format = arg;
	return 0;
}

static int opt_buffering(struct cli_ctx *c, const char *arg)
{
	static const struct { const char *name; int mode; } modes[] = {
		{ "none", RUN_BUF_NONE }, { "line", RUN_BUF_LINE },
		{ "full", RUN_BUF_FULL },
	};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(modes[i].name, arg)) {
			c->o->buffering = modes[i].mode;
			return 0;
		}
	fputs("ERROR: USAGE: -B must be either 'line', 'full', or "
	      "'none'.\n", c->err);
	return -1;
}

static const char warnings_conflict[] =
	"ERROR: USAGE: -k, --warnings conflicts with --no-warnings\n";

static int opt_warnings(struct cli_ctx *c, const char *arg)
{
	if (c->o->warnings) {
		fputs("ERROR: USAGE: -kk has been deprecated. Use a single -k "
		      "for runtime warnings for errors in map lookups and "
		      "probe reads.\n", c->err);
		return -1;
	}
	if (c->o->no_warnings) {
		fputs(warnings_conflict, c->err);
		return -1;
	}
	c->o->warnings = true;
	return 0;
}

static int opt_no_warnings(struct cli_ctx *c, const char *arg)
{
	if (c->o->warnings) {
		fputs(warnings_conflict, c->err);
		return -1;
	}
	c->o->no_warnings = true;
	return 0;
}

static int opt_help(struct cli_ctx *c, const char *arg)
{
	cli_usage(c->out);
	return 1;
}

static int opt_version(struct cli_ctx *c, const char *arg)
{
	fprintf(c->out, "sonde v%s\n", SONDE_VERSION);
	return 1;
}

static int opt_ignored(struct cli_ctx *c, const char *arg)
{
	return 0;
}

/*
 * Every option, in --help's order within its section. The bpftrace
 * options keep bpftrace 0.26's names and help words; a row's help is
 * NULL where --help does not show it.
 */
static const struct cli_opt opts[] = {
	/* bpftrace 0.26's */
	{ NULL, 'B', "MODE", false, CLI_BPFTRACE,
	  "output buffering mode ('line', 'full', 'none')",
	  CALLS(opt_buffering) },
	{ NULL, 'f', "FORMAT", false, CLI_BPFTRACE,
	  "output format ('text', 'json')", CALLS(opt_format) },
	{ "output", 'o', "FILE", false, CLI_BPFTRACE,
	  "redirect the program's output to FILE", STR(out_path) },
	{ NULL, 'e', "'program'", false, CLI_BPFTRACE, "execute this program",
	  STR(prog_text) },
	{ "help", 'h', NULL, false, CLI_BPFTRACE, "show this help message",
	  CALLS(opt_help) },
	{ NULL, 'I', "DIR", false, CLI_BPFTRACE,
	  "add the directory to the include search path", CALLS(opt_incdir) },
	{ "include", 0, "FILE", false, CLI_BPFTRACE,
	  "add an #include file before preprocessing", CALLS(opt_include) },
	{ "list", 'l', "[search|filename]", true, CLI_BPFTRACE,
	  "list kernel probes or probes in a program", FLAG(list) },
	{ "pid", 'p', "PID", false, CLI_BPFTRACE,
	  "filter actions and enable USDT probes on PID", CALLS(opt_pid) },
	{ "cmd", 'c', "CMD", false, CLI_BPFTRACE,
	  "run CMD and enable USDT probes on resulting process", STR(cmd) },
	{ "dwarf-pid", 0, "PID", false, CLI_BPFTRACE,
	  "add additional pids to the DWARF-unwinder",
	  CALLS(opt_dwarf_pid) },
	{ "no-feature", 0, "FEATURE[,FEATURE]", false, CLI_BPFTRACE,
	  "disable use of detected features", CALLS(opt_no_feature) },
	/* bpftrace's way to raise USDT semaphores in every process running
	 * the file: sonde always hands semaphores to the kernel (the
	 * uprobe's ref_ctr_offset), which raises them in every process
	 * that maps the file, or only in the -p one. */
	{ "usdt-file-activation", 0, NULL, false, CLI_BPFTRACE,
	  "activate usdt semaphores based on file path",
	  FLAG(usdt_file_activation) },
	{ "unsafe", 0, NULL, false, CLI_BPFTRACE,
	  "allow unsafe/destructive functionality", FLAG(unsafe) },
	{ "quiet", 'q', NULL, false, CLI_BPFTRACE, "keep messages quiet",
	  FLAG(quiet) },
	{ "info", 0, NULL, false, CLI_BPFTRACE,
	  "Print information about kernel BPF support", FLAG(info) },
	{ "warnings", 'k', NULL, false, CLI_BPFTRACE,
	  "emit a warning when probe read helpers return an error",
	  CALLS(opt_warnings) },
	{ "version", 'V', NULL, false, CLI_BPFTRACE, "sonde version",
	  CALLS(opt_version) },
	{ "no-warnings", 0, NULL, false, CLI_BPFTRACE, "disable all warning messages",
	  CALLS(opt_no_warnings) },
	{ "mode", 0, "MODE", false, CLI_BPFTRACE,
	  "used for benchmarking and testing\n"
	  "('codegen', 'compiler-bench', 'bench', 'test', 'format')",
	  CALLS(opt_mode) },
	{ "test", 0, NULL, false, CLI_BPFTRACE,
	  "run all test: probes (same as --mode test)", CALLS(opt_mode) },
	{ "bench", 0, NULL, false, CLI_BPFTRACE,
	  "run all bench: probes (same as --mode bench)", CALLS(opt_mode) },
	{ "probe-filter", 0, "REGEX", false, CLI_BPFTRACE,
	  "only run probes whose name matches REGEX",
	  CALLS(opt_probe_filter) },
	{ "traceable-functions", 0, "FILE", false, CLI_BPFTRACE,
	  "load the list of traceable kernel functions from FILE",
	  CALLS(opt_traceable) },
	{ "debuginfo", 0, "DIR[:DIR]", false, CLI_BPFTRACE,
	  "add directories to the debug info search path",
	  CALLS(opt_debuginfo) },
	{ "fmt", 0, NULL, false, CLI_HIDDEN, NULL, CALLS(opt_mode) },
	/* bpftrace accepts and ignores --btf too */
	{ "btf", 'b', NULL, false, CLI_HIDDEN, NULL, CALLS(opt_ignored) },
	/* LLVM's: sonde has no LLVM (refused) */
	{ "aot", 0, "FILE", false, CLI_HIDDEN, NULL, CALLS(opt_no_llvm) },
	{ "emit-llvm", 0, "FILE", false, CLI_HIDDEN, NULL, CALLS(opt_no_llvm) },
	{ "verify-llvm-ir", 0, NULL, false, CLI_HIDDEN, NULL, CALLS(opt_no_llvm) },

	/* sonde's */
	{ NULL, 't', "TOOL", false, CLI_SONDE,
	  "run sonde's tool TOOL (tools/TOOL.bt); a bare TOOL that\n"
	  "is no file in the current directory works too", STR(tool) },
	{ "tools", 0, NULL, false, CLI_SONDE,
	  "list the tools and where they were looked for", FLAG(list_tools) },
	{ "settings", 0, NULL, false, CLI_SONDE,
	  "list the settings (config block and environment) with\n"
	  "their values after the environment, and what each accepts",
	  FLAG(list_settings) },
	{ "dump", 0, "ast|ir|bpf", false, CLI_SONDE,
	  "print only the syntax tree, the IR or the BPF code\n"
	  "(repeatable); run nothing", CALLS(opt_dump) },
	{ "verify", 0, NULL, false, CLI_SONDE,
	  "also load every program (the kernel's verifier checks\n"
	  "it), then exit without attaching anything", FLAG(verify) },
	{ "folded", 0, "FILE", false, CLI_SONDE,
	  "at exit, write the maps keyed by kstack/ustack (with\n"
	  "count() values) as folded stacks, flamegraph.pl's input",
	  STR(folded) },
	{ "flamegraph", 0, "FILE.svg", false, CLI_SONDE,
	  "at exit, draw them as an interactive SVG flame graph",
	  STR(flamegraph) },
	{ "pprof", 0, "FILE", false, CLI_SONDE,
	  "at exit, write them (count() or sum() values) as a gzipped\n"
	  "pprof profile (go tool pprof, Parca, Pyroscope)", STR(pprof) },
	{ "heatmap", 0, NULL, false, CLI_SONDE,
	  "draw each print of a hist()/lhist() map as a heatmap row\n"
	  "(time down, buckets across, shade = count)", FLAG(heatmap) },
	{ "heatmap-svg", 0, "FILE.svg", false, CLI_SONDE,
	  "at exit, draw those prints as an SVG heatmap (time across)",
	  STR(heatmap_svg) },
	{ "metrics", 0, "[ADDR:]PORT", false, CLI_SONDE,
	  "serve the maps at http://ADDR:PORT/metrics for Prometheus\n"
	  "(ADDR defaults to 127.0.0.1), and their stacks at\n"
	  "/debug/pprof/profile?seconds=N", STR(metrics) },
	{ "object", 0, "FILE.bpf.o", false, CLI_SONDE,
	  "run a clang-built BPF object: attach its programs by\n"
	  "section name, print its maps at exit", STR(object) },
	{ "prog", 0, "NAME", false, CLI_SONDE,
	  "(object) attach only program NAME (repeatable)", CALLS(opt_prog) },
	{ "set", 0, "VAR=VALUE", false, CLI_SONDE,
	  "(object) set a const volatile variable (repeatable)",
	  CALLS(opt_set) },
	{ "perf-event", 0, "NAME:FREQ", false, CLI_SONDE,
	  "(object) event and frequency for SEC(\"perf_event\")",
	  STR(perf_event) },

	/* bpftrace's troubleshooting options */
	{ "verbose", 'v', NULL, false, CLI_TROUBLE,
	  "verbose messages (libbpf's, and verifier logs)", FLAG(verbose) },
	{ "dry-run", 0, NULL, false, CLI_TROUBLE,
	  "terminate execution right after attaching all the probes",
	  FLAG(dry_run) },
	{ "debug", 'd', "STAGE", false, CLI_TROUBLE,
	  "debug info for various stages of sonde's execution\n"
	  "('all', 'ast', 'types', 'parse', 'codegen',\n"
	  "'codegen-opt', 'dis', 'libbpf', 'verifier')", CALLS(opt_debug) },
	{ "emit-elf", 0, "FILE", false, CLI_TROUBLE,
	  "(dry run) generate ELF file with bpf programs and\n"
	  "write to FILE, which --object runs", STR(emit_elf) },
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

/* The option's names and argument as --help shows them: "-o, --output
 * FILE", "-B MODE", "--include FILE". */
static void opt_names(const struct cli_opt *p, struct strbuf *sb)
{
	if (p->sname)
		sb_printf(sb, "-%c", p->sname);
	if (p->sname && p->lname)
		sb_append(sb, ", ");
	if (p->lname)
		sb_printf(sb, "--%s", p->lname);
	if (p->arg)
		sb_printf(sb, " %s", p->arg);
}

/* One section: each option's names, then its help from column col (on
 * the next line when the names reach it), each help line indented so. */
static void usage_section(FILE *out, const char *title,
			  enum cli_section sec, int col)
{
	fprintf(out, "%s:\n", title);
	struct strbuf names = STRBUF_INIT;
	for (size_t i = 0; i < NOPTS; i++) {
		const struct cli_opt *p = &opts[i];
		if (p->sec != sec)
			continue;
		sb_reset(&names);
		opt_names(p, &names);
		int at = fprintf(out, "    %s", sb_str(&names));
		for (const char *h = p->help; *h;) {
			const char *nl = strchr(h, '\n');
			int len = nl ? (int)(nl - h) : (int)strlen(h);
			if (at >= col) {
				fputc('\n', out);
				at = 0;
			}
			fprintf(out, "%*s%.*s\n", col - at, "", len, h);
			at = 0;
			h += len + (nl != NULL);
		}
	}
	sb_free(&names);
	fputc('\n', out);
}

void cli_usage(FILE *out)
{
	fputs("USAGE:\n"
	      "    sonde [options] filename [ARGS...]\n"
	      "    sonde [options] - <stdin input>\n"
	      "    sonde [options] -e 'program' [ARGS...]\n"
	      "    sonde [options] -t TOOL [ARGS...]\n"
	      "\n", out);
	usage_section(out, "OPTIONS", CLI_BPFTRACE, 19);
	usage_section(out, "SONDE OPTIONS", CLI_SONDE, 19);
	usage_section(out, "TROUBLESHOOTING OPTIONS", CLI_TROUBLE, 28);
	/* the settings that have an environment name (model/settings.c) */
	fputs("ENVIRONMENT (BPFTRACE_NAME or SONDE_NAME):\n", out);
	for (size_t i = 0; i < nsettings; i++) {
		const struct setting *st = &settings[i];
		if (!st->env || !st->help)
			continue;
		char name[64];
		snprintf(name, sizeof(name), "BPFTRACE_%s", st->env);
		const char *h = st->help, *nl;
		fprintf(out, "    %-24s ", name);
		while ((nl = strchr(h, '\n'))) {
			fprintf(out, "%.*s\n%29s", (int)(nl - h), h, "");
			h = nl + 1;
		}
		fprintf(out, "%s\n", h);
	}
	fputs("\n"
	      "EXAMPLES:\n"
	      "sonde -l '*sleep*'\n"
	      "    list probes containing \"sleep\"\n"
	      "sonde -e 'tracepoint:syscalls:sys_enter_nanosleep { "
	      "printf(\"PID %d sleeping...\\n\", pid); }'\n"
	      "    trace processes calling sleep\n"
	      "sonde -e 'tracepoint:raw_syscalls:sys_enter { @[comm] = "
	      "count(); }'\n"
	      "    count syscalls by process name\n",
	      out);
}

/* getopt_long's tables, made from opts: the short string ("e:t:...")
 * and the long options, whose val is the row's index + 256. */
static void getopt_tables(char *shorts, struct option *longs)
{
	size_t ns = 0, nl = 0;
	for (size_t i = 0; i < NOPTS; i++) {
		const struct cli_opt *p = &opts[i];
		bool has_arg = p->arg && !p->arg_after;
		if (p->sname) {
			shorts[ns++] = p->sname;
			if (has_arg)
				shorts[ns++] = ':';
		}
		if (p->lname)
			longs[nl++] = (struct option){
				p->lname, has_arg ? required_argument :
						    no_argument,
				NULL, (int)(i + 256) };
	}
	shorts[ns] = '\0';
	longs[nl] = (struct option){ NULL, 0, NULL, 0 };
}

static const struct cli_opt *find_short(int c)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (opts[i].sname == c)
			return &opts[i];
	return NULL;
}

/* Does what row p says with its argument arg. */
static int apply(const struct cli_opt *p, struct cli_ctx *c,
		 const char *arg)
{
	char *field = (char *)c->o + p->off;
	switch (p->how) {
	case SET_FLAG:
		*(bool *)field = true;
		return 0;
	case SET_STR:
		*(const char **)field = arg;
		return 0;
	case CALL:
		break;
	}
	char name[2] = { p->sname, '\0' };
	c->name = p->lname ? p->lname : name;
	return p->call(c, arg);
}

/* -l [SEARCH|FILE] -e PROGRAM lists the program's probes, a file that
 * exists is a program, "*" is everything. -e without braces is a search
 * too (sonde's; the test harness passes its one-line PROG that way). */
static enum cli_result list_words(struct options *o, int argc, char **argv,
				  FILE *err)
{
	if (o->prog_text && !strchr(o->prog_text, '{')) {
		o->list_search = o->prog_text;
		o->prog_text = NULL;
	}
	if (optind + 1 < argc) {
		cli_usage(err);
		return CLI_ERROR;
	}
	if (optind < argc) {
		const char *val = argv[optind++];
		if (access(val, F_OK) == 0)
			o->prog_path = val;
		else
			o->list_search = val;
	}
	if (o->list_search && !strcmp(o->list_search, "*"))
		o->list_search = NULL;
	return CLI_RUN;
}

/* Options that cannot go together. */
static int check_combinations(const struct options *o, FILE *err)
{
	bool json = o->format && !strcmp(o->format, "json");
	if (o->metrics && json) {
		fputs("sonde: --metrics cannot be used with -f json: the "
		      "metrics are Prometheus text, served apart from the "
		      "program's output\n", err);
		return -1;
	}
	if (o->heatmap && json) {
		fputs("sonde: --heatmap draws text rows and cannot be used with "
		      "-f json (--heatmap-svg FILE can)\n", err);
		return -1;
	}
	if (o->object && (o->metrics || o->heatmap || o->heatmap_svg)) {
		fputs("sonde: --metrics, --heatmap and --heatmap-svg work on "
		      "programs, not on --object\n", err);
		return -1;
	}
	/* the modes sonde has no part of: said at once, not attempted */
	if (o->mode == MODE_COMPILER_BENCH) {
		fputs("ERROR: --mode compiler-bench times bpftrace's compiler "
		      "passes, which sonde does not have; its -d and --dump "
		      "show its own stages\n", err);
		return -1;
	}
	if (o->mode == MODE_FORMAT) {
		fputs("ERROR: --mode format (a source formatter) is not "
		      "supported by sonde\n", err);
		return -1;
	}
	if (o->cmd && o->pid_set) {
		fputs("ERROR: USAGE: Cannot use both -c and -p.\n", err);
		cli_usage(err);
		return -1;
	}
	return 0;
}

/* The script: -t TOOL, -e, or the first word after the options (a
 * bare word that is no file here may name a tool). */
static int find_script(struct options *o, int argc, char **argv, FILE *err)
{
	if (o->tool) {
		if (o->prog_text) {
			fputs("sonde: -t and -e exclude each other\n", err);
			return -1;
		}
		if (toolfind_path(o->tool, o->tool_path,
				  sizeof(o->tool_path)) < 0) {
			fprintf(err, "sonde: no tool named '%s' (sonde --tools "
				"lists them)\n", o->tool);
			return -1;
		}
		o->prog_path = o->tool_path;
	} else if (!o->prog_text && !o->object) {
		if (optind >= argc) {
			fputs("ERROR: USAGE: filename or -e 'program' "
			      "required.\n", err);
			return -1;
		}
		o->prog_path = argv[optind++];
		if (access(o->prog_path, F_OK) && errno == ENOENT &&
		    toolfind_is_name(o->prog_path) &&
		    !toolfind_path(o->prog_path, o->tool_path,
				   sizeof(o->tool_path)))
			o->prog_path = o->tool_path;
	}
	return 0;
}

enum cli_result cli_parse(int argc, char **argv, struct options *o,
			  FILE *out, FILE *err)
{
	char shorts[2 * NOPTS + 1];
	struct option longs[NOPTS + 1];
	getopt_tables(shorts, longs);
	struct cli_ctx ctx = { .o = o, .out = out, .err = err };
	/* the command line is what sets it: none unless this one does (a
	 * second parse, the fuzz target, starts afresh) */
	limits.dwarf_pid = 0;
	int c, li;
	/* As bpftrace's getopt, options may follow the script or the
	 * pattern (`sonde script.bt -c CMD`): GNU getopt moves the
	 * non-options (the script, $1, ...) after them, in their order. A
	 * positional parameter that starts with '-' comes after `--`. */
	optind = 0; /* GNU getopt: start afresh (a second parse, the fuzz target) */
	while ((c = getopt_long(argc, argv, shorts, longs, &li)) != -1) {
		const struct cli_opt *p = c >= 256 ? &opts[c - 256] :
						     find_short(c);
		if (!p) {
			cli_usage(err);
			return CLI_ERROR;
		}
		int rc = apply(p, &ctx, optarg);
		if (rc)
			return rc < 0 ? CLI_ERROR : CLI_DONE;
	}
	if (argc == 1) {
		cli_usage(err);
		return CLI_ERROR;
	}
	o->helper_check = o->no_warnings ? 0 : o->warnings ? 2 : 1;
	if (check_combinations(o, err) < 0)
		return CLI_ERROR;
	if (o->info || o->list_settings)
		return CLI_RUN;
	if (o->list)
		return list_words(o, argc, argv, err);
	if (o->list_tools)
		return CLI_RUN;
	if (find_script(o, argc, argv, err) < 0)
		return CLI_ERROR;
	/* As bpftrace 0.26, a word after the script that starts with "--"
	 * is a named program option (getopt()), the others are $1.. */
	o->params = argv + optind;
	o->nparams = 0;
	o->named = xcalloc((size_t)(argc - optind) + 1, sizeof(*o->named));
	for (int i = optind; i < argc; i++) {
		if (!strncmp(argv[i], "--", 2))
			o->named[o->nnamed++] = argv[i] + 2;
		else
			o->params[o->nparams++] = argv[i];
	}
	return CLI_RUN;
}

void cli_free(struct options *o)
{
	if (o->probe_filter)
		regfree(&o->filter_re);
	sb_free(&o->debuginfo);
	free(o->named);
	o->named = NULL;
}

bool cli_will_run(const struct options *o)
{
	return o->mode != MODE_CODEGEN && !o->dump && !o->emit_elf;
}
