/* sonde: command line -> one run. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backend/disasm.h"
#include "codegen/codegen.h"
#include "kernel/dwarf.h"
#include "kernel/features.h"
#include "kernel/kallsyms.h"
#include "lang/ast.h"
#include "lang/builtins.h"
#include "lang/cmacro.h"
#include "lang/import.h"
#include "lang/include.h"
#include "lang/macro.h"
#include "lang/config.h"
#include "lang/parser.h"
#include "lang/sema.h"
#include "runtime/value_fmt.h"
#include "model/limits.h"
#include "model/serial.h"
#include "object/emit.h"
#include "object/emitted.h"
#include "object/object.h"
#include "probes/provider.h"
#include "runtime/child.h"
#include "runtime/privilege.h"
#include "runtime/info.h"
#include "runtime/run.h"
#include "tools/toolfind.h"
#include "util/files.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define SONDE_VERSION "0.1.0"

enum dump_what { DUMP_AST = 1, DUMP_IR = 2, DUMP_BPF = 4 };

/* bpftrace 0.26's --mode (and --test, --bench, --fmt). */
enum run_mode { MODE_RUN, MODE_CODEGEN, MODE_COMPILER_BENCH, MODE_BENCH,
		MODE_TEST, MODE_FORMAT };

struct options {
	const char *prog_text; /* -e */
	const char *prog_path; /* script file */
	unsigned dump;         /* DUMP_* bits of --dump: print, run nothing */
	unsigned debug;        /* DUMP_* bits of -d STAGE: print (on stderr),
				  then run */
	enum run_mode mode;
	int dry_run, verify;   /* --dry-run: load, attach, stop */
	int buffering;         /* -B: RUN_BUF_* */
	int list;              /* -l [PATTERN] */
	const char *list_search; /* -l's PATTERN (NULL: everything) */
	int unsafe, verbose, quiet;
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
	const char *obj_progs[64], *obj_sets[64];
	size_t nobj_progs, nobj_sets;
	const char *perf_event;
	const char *folded, *flamegraph; /* --folded, --flamegraph */
	const char *pprof;       /* --pprof */
	int list_tools;        /* --tools */
	char tool_path[4096];  /* -t NAME, or a bare NAME, found */
	int heatmap;             /* --heatmap */
	const char *heatmap_svg; /* --heatmap-svg */
	const char *metrics;     /* --metrics */
	/* bpftrace's options */
	bool info, no_warnings;     /* --info, --no-warnings */
	bool warnings;              /* -k, --warnings */
	/* bpftrace 0.26's warning level: 0 with --no-warnings, 2 with -k,
	 * else 1 (codegen's cg_helper_check) */
	int helper_check;
	bool usdt_file_activation;  /* --usdt-file-activation */
	const char *includes[64];   /* --include FILE */
	const char *incdirs[64];    /* -I DIR */
	size_t nincludes, nincdirs;
	const char *probe_filter;   /* --probe-filter REGEX */
	regex_t filter_re;
	struct strbuf debuginfo;    /* --debuginfo DIR[:DIR], each ':'-ended */
};

static void usage(FILE *out)
{
	fputs("USAGE:\n"
	      "    sonde [options] filename [ARGS...]\n"
	      "    sonde [options] - <stdin input>\n"
	      "    sonde [options] -e 'program' [ARGS...]\n"
	      "    sonde [options] -t TOOL [ARGS...]\n"
	      "\n"
	      "OPTIONS:\n"
	      "    -B MODE        output buffering mode ('line', 'full', "
	      "'none')\n"
	      "    -f FORMAT      output format ('text', 'json')\n"
	      "    -o, --output FILE\n"
	      "                   redirect the program's output to FILE\n"
	      "    -e 'program'   execute this program\n"
	      "    -h, --help     show this help message\n"
	      "    -I DIR         add the directory to the include search "
	      "path\n"
	      "    --include FILE add an #include file before preprocessing\n"
	      "    -l, --list [search|filename]\n"
	      "                   list kernel probes or probes in a program\n"
	      "    -p, --pid PID  filter actions and enable USDT probes on "
	      "PID\n"
	      "    -c, --cmd CMD  run CMD and enable USDT probes on resulting "
	      "process\n"
	      "    --no-feature FEATURE[,FEATURE]\n"
	      "                   disable use of detected features\n"
	      "    --usdt-file-activation\n"
	      "                   activate usdt semaphores based on file path\n"
	      "    --unsafe       allow unsafe/destructive functionality\n"
	      "    -q, --quiet    keep messages quiet\n"
	      "    --info         Print information about kernel BPF support\n"
	      "    -k, --warnings emit a warning when probe read helpers "
	      "return an error\n"
	      "    -V, --version  sonde version\n"
	      "    --no-warnings  disable all warning messages\n"
	      "    --mode MODE    used for benchmarking and testing\n"
	      "                   ('codegen', 'compiler-bench', 'bench', "
	      "'test', 'format')\n"
	      "    --test         run all test: probes (same as --mode test)\n"
	      "    --bench        run all bench: probes (same as --mode "
	      "bench)\n"
	      "    --probe-filter REGEX\n"
	      "                   only run probes whose name matches REGEX\n"
	      "    --traceable-functions FILE\n"
	      "                   load the list of traceable kernel functions "
	      "from FILE\n"
	      "    --debuginfo DIR[:DIR]\n"
	      "                   add directories to the debug info search "
	      "path\n"
	      "\n"
	      "SONDE OPTIONS:\n"
	      "    -t TOOL        run sonde's tool TOOL (tools/TOOL.bt); a "
	      "bare TOOL that\n"
	      "                   is no file in the current directory works "
	      "too\n"
	      "    --tools        list the tools and where they were looked "
	      "for\n"
	      "    --dump ast|ir|bpf\n"
	      "                   print only the syntax tree, the IR or the "
	      "BPF code\n"
	      "                   (repeatable); run nothing\n"
	      "    --verify       also load every program (the kernel's "
	      "verifier checks\n"
	      "                   it), then exit without attaching anything\n"
	      "    --folded FILE  at exit, write the maps keyed by "
	      "kstack/ustack (with\n"
	      "                   count() values) as folded stacks, "
	      "flamegraph.pl's input\n"
	      "    --flamegraph FILE.svg\n"
	      "                   at exit, draw them as an interactive SVG "
	      "flame graph\n"
	      "    --pprof FILE   at exit, write them (count() or sum() "
	      "values) as a gzipped\n"
	      "                   pprof profile (go tool pprof, Parca, "
	      "Pyroscope)\n"
	      "    --heatmap      draw each print of a hist()/lhist() map as "
	      "a heatmap row\n"
	      "                   (time down, buckets across, shade = count)\n"
	      "    --heatmap-svg FILE.svg\n"
	      "                   at exit, draw those prints as an SVG "
	      "heatmap (time across)\n"
	      "    --metrics [ADDR:]PORT\n"
	      "                   serve the maps at http://ADDR:PORT/metrics "
	      "for Prometheus\n"
	      "                   (ADDR defaults to 127.0.0.1), and their "
	      "stacks at\n"
	      "                   /debug/pprof/profile?seconds=N\n"
	      "    --object FILE.bpf.o\n"
	      "                   run a clang-built BPF object: attach its "
	      "programs by\n"
	      "                   section name, print its maps at exit\n"
	      "    --prog NAME    (object) attach only program NAME "
	      "(repeatable)\n"
	      "    --set VAR=VALUE\n"
	      "                   (object) set a const volatile variable "
	      "(repeatable)\n"
	      "    --perf-event NAME:FREQ\n"
	      "                   (object) event and frequency for "
	      "SEC(\"perf_event\")\n"
	      "\n"
	      "TROUBLESHOOTING OPTIONS:\n"
	      "    -v, --verbose           verbose messages (libbpf's, and "
	      "verifier logs)\n"
	      "    --dry-run               terminate execution right after "
	      "attaching all the probes\n"
	      "    -d, --debug STAGE       debug info for various stages of "
	      "sonde's execution\n"
	      "                            ('all', 'ast', 'types', 'parse', "
	      "'codegen',\n"
	      "                            'codegen-opt', 'dis', 'libbpf', "
	      "'verifier')\n"
	      "    --emit-elf FILE         (dry run) generate ELF file with "
	      "bpf programs and\n"
	      "                            write to FILE, which --object "
	      "runs\n"
	      "\n"
	      "ENVIRONMENT (BPFTRACE_NAME or SONDE_NAME):\n"
	      "    BPFTRACE_STRLEN          [64] bytes of a str() value "
	      "(1..200)\n"
	      "    BPFTRACE_MAP_KEYS_MAX    [4096] keys of a map\n"
	      "    BPFTRACE_CAT_BYTES_MAX   [10240] bytes cat() prints\n"
	      "    BPFTRACE_STACK_MODE      [bpftrace] default stack mode "
	      "(bpftrace, perf, raw)\n"
	      "    BPFTRACE_MAX_PROBES      [512] attach points of a run\n"
	      "    BPFTRACE_MAX_BPF_PROGS   [512] BPF programs of a run\n"
	      "    BPFTRACE_PERF_RB_PAGES   [1 MiB in all] event buffer pages "
	      "per CPU\n"
	      "    BPFTRACE_LOG_SIZE        [16 MiB] verifier log bytes (-v)\n"
	      "    BPFTRACE_NO_CPP_DEMANGLE [0] print C++ symbols mangled\n"
	      "    BPFTRACE_BTF             [none] a BTF file instead of the "
	      "kernel's\n"
	      "    BPFTRACE_KERNEL_SOURCE   [none] kernel tree whose include/ "
	      "#include searches\n"
	      "    BPFTRACE_MISSING_PROBES  [error] an attach point that does "
	      "not exist\n"
	      "                             (error, warn, ignore)\n"
	      "\n"
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

/* Reads a whole file, NUL bytes included. */
static char *read_file(const char *path, uint32_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f)
		return NULL;
	struct stat st;
	if (f != stdin && !fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR; /* reading it would say EIO */
		return NULL;
	}
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

static int parse_dump(struct options *o, const char *what)
{
	if (!strcmp(what, "ast"))
		o->dump |= DUMP_AST;
	else if (!strcmp(what, "ir"))
		o->dump |= DUMP_IR;
	else if (!strcmp(what, "bpf"))
		o->dump |= DUMP_BPF;
	else {
		fprintf(stderr, "sonde: unknown --dump listing '%s' (known: "
				"ast, ir, bpf)\n", what);
		return -1;
	}
	return 0;
}

/* Output options that cannot go together. */
static int check_outputs(const struct options *o)
{
	bool json = o->format && !strcmp(o->format, "json");
	if (o->metrics && json) {
		fputs("sonde: --metrics cannot be used with -f json: the "
		      "metrics are Prometheus text, served apart from the "
		      "program's output\n", stderr);
		return -1;
	}
	if (o->heatmap && json) {
		fputs("sonde: --heatmap draws text rows and cannot be used with "
		      "-f json (--heatmap-svg FILE can)\n", stderr);
		return -1;
	}
	if (o->object && (o->metrics || o->heatmap || o->heatmap_svg)) {
		fputs("sonde: --metrics, --heatmap and --heatmap-svg work on "
		      "programs, not on --object\n", stderr);
		return -1;
	}
	return 0;
}

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

/* -p PID, checked as bpftrace 0.26 checks it, with its sentences. */
static int parse_pid(const char *arg, long *pid)
{
	uint64_t v;
	const char *why = to_uint(arg, &v);
	if (why) {
		fprintf(stderr, "ERROR: Failed to parse pid: %s\n", why);
		return -1;
	}
	/* the nominal maximum pid_max of 64-bit systems */
	if (v > 0x400000) {
		fprintf(stderr, "ERROR: Pid out of range: %llu\n",
			(unsigned long long)v);
		return -1;
	}
	*pid = (long)v;
	return 0;
}

/* Appends a repeatable option's value to list (at most 64). */
static int add_repeated(const char **list, size_t *n, const char *opt,
			const char *v)
{
	if (*n == 64) {
		fprintf(stderr, "ERROR: too many %s options (at most 64)\n",
			opt);
		return -1;
	}
	list[(*n)++] = v;
	return 0;
}

/* -d STAGE[,STAGE]: bpftrace 0.26's debug stages, as sonde's listings
 * (printed on stderr, and the run goes on). */
static int parse_debug(struct options *o, const char *arg)
{
	static const struct { const char *name; unsigned dump; int verbose; }
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
			fprintf(stderr, "ERROR: USAGE: invalid option for -d: "
				"%s\n", w);
			rc = -1;
			break;
		}
		o->debug |= stages[i].dump;
		o->verbose |= stages[i].verbose;
	}
	free(copy);
	return rc;
}

/* --no-feature FEATURE[,FEATURE]: what sonde must not use although this
 * kernel has it. sonde attaches no kprobe_multi or kprobe_session links,
 * so those only need to be known names. */
static int parse_no_feature(const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;
	int rc = 0;
	for (char *w = strtok_r(copy, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "uprobe_multi"))
			feat_disable(FEAT_UPROBE_MULTI, "--no-feature");
		else if (!strcmp(w, "kprobe_multi"))
			feat_disable(FEAT_KPROBE_MULTI, "--no-feature");
		else if (!strcmp(w, "kprobe_session"))
			feat_disable(FEAT_KPROBE_SESSION, "--no-feature");
		else
			rc = -1;
	}
	free(copy);
	if (rc)
		fputs("ERROR: USAGE: --no-feature can only have values "
		      "'kprobe_multi,kprobe_session,uprobe_multi'.\n", stderr);
	return rc;
}

/* --mode, or its aliases --test, --bench and --fmt (alias: NULL). */
static int parse_mode(struct options *o, const char *arg, const char *alias)
{
	static const struct { const char *name; enum run_mode mode; }
	modes[] = {
		{ "codegen", MODE_CODEGEN },
		{ "compiler-bench", MODE_COMPILER_BENCH },
		{ "bench", MODE_BENCH }, { "test", MODE_TEST },
		{ "format", MODE_FORMAT },
	};
	if (alias && o->mode != MODE_RUN) {
		fprintf(stderr, "ERROR: USAGE: --%s conflicts with existing "
			"--mode\n", alias);
		return -1;
	}
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(modes[i].name, arg)) {
			o->mode = modes[i].mode;
			return 0;
		}
	fputs("ERROR: USAGE: --mode can only be 'codegen', 'compiler-bench', "
	      "'bench', 'test' or 'format'.\n", stderr);
	return -1;
}

/* The modes sonde has no part of yet: said at once, not attempted. */
static int refuse_mode(const struct options *o)
{
	switch (o->mode) {
	case MODE_COMPILER_BENCH:
		fputs("ERROR: --mode compiler-bench times bpftrace's compiler "
		      "passes, which sonde does not have; its -d and --dump "
		      "show its own stages\n", stderr);
		return -1;
	case MODE_FORMAT:
		fputs("ERROR: --mode format (a source formatter) is not "
		      "supported by sonde\n", stderr);
		return -1;
	default:
		return 0;
	}
}

/* --probe-filter REGEX, compiled once (a POSIX extended regex). */
static int parse_probe_filter(struct options *o, const char *arg)
{
	int e = regcomp(&o->filter_re, arg, REG_EXTENDED | REG_NOSUB);
	if (e) {
		char why[200];
		regerror(e, &o->filter_re, why, sizeof(why));
		fprintf(stderr, "ERROR: Invalid --probe-filter regex '%s': %s\n",
			arg, why);
		return -1;
	}
	o->probe_filter = arg;
	return 0;
}

/* --traceable-functions FILE: the kernel functions kprobes may trace,
 * instead of tracefs's available_filter_functions. */
static int parse_traceable(const char *arg)
{
	if (access(arg, R_OK)) {
		fprintf(stderr, "ERROR: Failed to open kernel function info: "
			"%s: %s\n", arg, strerror(errno));
		return -1;
	}
	ksyms_traceable_from(arg);
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_DRY_RUN = 256, OPT_VERSION, OPT_UNSAFE, OPT_OBJECT,
	       OPT_PROG, OPT_SET, OPT_PERF_EVENT, OPT_VERIFY, OPT_FOLDED,
	       OPT_FLAMEGRAPH, OPT_TOOLS, OPT_HEATMAP, OPT_HEATMAP_SVG,
	       OPT_METRICS, OPT_USDT_FILE_ACTIVATION, OPT_DUMP, OPT_INFO,
	       OPT_NO_WARNINGS, OPT_INCLUDE, OPT_EMIT_ELF, OPT_WARNINGS,
	       OPT_MODE, OPT_TEST, OPT_BENCH, OPT_FMT, OPT_PROBE_FILTER,
	       OPT_NO_FEATURE, OPT_TRACEABLE, OPT_DEBUGINFO, OPT_BTF,
	       OPT_NO_LLVM, OPT_PPROF };
	static const char warnings_conflict[] =
		"ERROR: USAGE: -k, --warnings conflicts with --no-warnings\n";
	static const struct option longopts[] = {
		/* bpftrace 0.26's */
		{ "bench", no_argument, NULL, OPT_BENCH },
		{ "btf", no_argument, NULL, 'b' },
		{ "cmd", required_argument, NULL, 'c' },
		{ "debug", required_argument, NULL, 'd' },
		{ "debuginfo", required_argument, NULL, OPT_DEBUGINFO },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "emit-elf", required_argument, NULL, OPT_EMIT_ELF },
		{ "fmt", no_argument, NULL, OPT_FMT },
		{ "help", no_argument, NULL, 'h' },
		{ "include", required_argument, NULL, OPT_INCLUDE },
		{ "info", no_argument, NULL, OPT_INFO },
		{ "list", no_argument, NULL, 'l' },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "no-feature", required_argument, NULL, OPT_NO_FEATURE },
		{ "no-warnings", no_argument, NULL, OPT_NO_WARNINGS },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "probe-filter", required_argument, NULL, OPT_PROBE_FILTER },
		{ "quiet", no_argument, NULL, 'q' },
		{ "test", no_argument, NULL, OPT_TEST },
		{ "traceable-functions", required_argument, NULL,
		  OPT_TRACEABLE },
		{ "unsafe", no_argument, NULL, OPT_UNSAFE },
		{ "usdt-file-activation", no_argument, NULL,
		  OPT_USDT_FILE_ACTIVATION },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "warnings", no_argument, NULL, OPT_WARNINGS },
		/* LLVM's: sonde has no LLVM (refused) */
		{ "aot", required_argument, NULL, OPT_NO_LLVM },
		{ "emit-llvm", required_argument, NULL, OPT_NO_LLVM },
		{ "verify-llvm-ir", no_argument, NULL, OPT_NO_LLVM },
		/* sonde's */
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "object", required_argument, NULL, OPT_OBJECT },
		{ "prog", required_argument, NULL, OPT_PROG },
		{ "set", required_argument, NULL, OPT_SET },
		{ "perf-event", required_argument, NULL, OPT_PERF_EVENT },
		{ "folded", required_argument, NULL, OPT_FOLDED },
		{ "flamegraph", required_argument, NULL, OPT_FLAMEGRAPH },
		{ "pprof", required_argument, NULL, OPT_PPROF },
		{ "tools", no_argument, NULL, OPT_TOOLS },
		{ "heatmap", no_argument, NULL, OPT_HEATMAP },
		{ "heatmap-svg", required_argument, NULL, OPT_HEATMAP_SVG },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "dump", required_argument, NULL, OPT_DUMP },
		{ NULL, 0, NULL, 0 },
	};
	int c, li;
	/* As bpftrace's getopt, options may follow the script or the
	 * pattern (`sonde script.bt -c CMD`): GNU getopt moves the
	 * non-options (the script, $1, ...) after them, in their order. A
	 * positional parameter that starts with '-' comes after `--`. */
	const char *tool = NULL;
	while ((c = getopt_long(argc, argv, "e:t:d:bhc:p:f:o:qvlB:VI:k",
				longopts, &li)) != -1) {
		switch (c) {
		case 'e': o->prog_text = optarg; break;
		case 't': tool = optarg; break;
		case OPT_TOOLS: o->list_tools = 1; break;
		case 'd':
			if (parse_debug(o, optarg) < 0)
				return -1;
			break;
		case 'b': break; /* bpftrace accepts and ignores --btf too */
		case OPT_DUMP:
			if (parse_dump(o, optarg) < 0)
				return -1;
			break;
		case OPT_MODE:
		case OPT_TEST:
		case OPT_BENCH:
		case OPT_FMT:
			if (parse_mode(o, c == OPT_MODE ? optarg :
				       c == OPT_TEST ? "test" :
				       c == OPT_BENCH ? "bench" : "format",
				       c == OPT_MODE ? NULL :
				       longopts[li].name) < 0)
				return -1;
			break;
		case OPT_PROBE_FILTER:
			if (parse_probe_filter(o, optarg) < 0)
				return -1;
			break;
		case OPT_NO_FEATURE:
			if (parse_no_feature(optarg) < 0)
				return -1;
			break;
		case OPT_TRACEABLE:
			if (parse_traceable(optarg) < 0)
				return -1;
			break;
		case OPT_DEBUGINFO:
			sb_append(&o->debuginfo, optarg);
			sb_putc(&o->debuginfo, ':');
			break;
		case OPT_NO_LLVM:
			fprintf(stderr, "ERROR: --%s: sonde compiles to BPF "
				"without LLVM (--emit-elf writes a BPF "
				"object)\n", longopts[li].name);
			return -1;
		case 'c': o->cmd = optarg; break;
		case 'p':
			if (parse_pid(optarg, &o->pid) < 0)
				return -1;
			o->pid_set = true;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				fprintf(stderr, "ERROR: Invalid output format "
					"\"%s\"\nValid formats: 'text', "
					"'json'\n", optarg);
				return -1;
			}
			o->format = optarg;
			break;
		case 'o': o->out_path = optarg; break;
		case 'B':
			if (!strcmp(optarg, "none"))
				o->buffering = RUN_BUF_NONE;
			else if (!strcmp(optarg, "line"))
				o->buffering = RUN_BUF_LINE;
			else if (!strcmp(optarg, "full"))
				o->buffering = RUN_BUF_FULL;
			else {
				fputs("ERROR: USAGE: -B must be either 'line', "
				      "'full', or 'none'.\n", stderr);
				return -1;
			}
			break;
		case 'q': o->quiet = 1; break;
		case 'k':
		case OPT_WARNINGS:
			if (o->warnings) {
				fputs("ERROR: USAGE: -kk has been deprecated. Use "
				      "a single -k for runtime warnings for "
				      "errors in map lookups and probe reads.\n",
				      stderr);
				return -1;
			}
			if (o->no_warnings) {
				fputs(warnings_conflict, stderr);
				return -1;
			}
			o->warnings = true;
			break;
		case 'v': o->verbose = 1; break;
		case 'l': o->list = 1; break;
		case OPT_DRY_RUN: o->dry_run = 1; break;
		case OPT_UNSAFE: o->unsafe = 1; break;
		case OPT_VERIFY: o->verify = 1; break;
		case OPT_OBJECT: o->object = optarg; break;
		case OPT_EMIT_ELF: o->emit_elf = optarg; break;
		case OPT_PERF_EVENT: o->perf_event = optarg; break;
		case OPT_FOLDED: o->folded = optarg; break;
		case OPT_FLAMEGRAPH: o->flamegraph = optarg; break;
		case OPT_PPROF: o->pprof = optarg; break;
		case OPT_HEATMAP: o->heatmap = 1; break;
		case OPT_HEATMAP_SVG: o->heatmap_svg = optarg; break;
		case OPT_METRICS: o->metrics = optarg; break;
		case OPT_PROG:
		case OPT_SET: {
			bool prog = c == OPT_PROG;
			size_t *n = prog ? &o->nobj_progs : &o->nobj_sets;
			if (*n == 64) {
				fprintf(stderr, "sonde: too many --%s options\n",
					prog ? "prog" : "set");
				return -1;
			}
			(prog ? o->obj_progs : o->obj_sets)[(*n)++] = optarg;
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
		case OPT_VERSION:
			printf("sonde v%s\n", SONDE_VERSION);
			exit(0);
		case OPT_INFO: o->info = true; break;
		case OPT_NO_WARNINGS:
			if (o->warnings) {
				fputs(warnings_conflict, stderr);
				return -1;
			}
			o->no_warnings = true;
			break;
		/* bpftrace's way to raise USDT semaphores in every process
		 * running the file: sonde always hands semaphores to the
		 * kernel (the uprobe's ref_ctr_offset), which raises them in
		 * every process that maps the file, or only in the -p one. */
		case OPT_USDT_FILE_ACTIVATION:
			o->usdt_file_activation = true;
			break;
		case OPT_INCLUDE:
		case 'I':
			if (c == 'I' ? add_repeated(o->incdirs, &o->nincdirs,
						    "-I", optarg) :
				       add_repeated(o->includes, &o->nincludes,
						    "--include", optarg))
				return -1;
			break;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (argc == 1) {
		usage(stderr);
		return -1;
	}
	o->helper_check = o->no_warnings ? 0 : o->warnings ? 2 : 1;
	if (check_outputs(o) < 0 || refuse_mode(o) < 0)
		return -1;
	if (o->cmd && o->pid_set) {
		fputs("ERROR: USAGE: Cannot use both -c and -p.\n", stderr);
		usage(stderr);
		return -1;
	}
	if (o->info)
		return 0;
	if (o->list) {
		/* -l [SEARCH|FILE] -e PROGRAM lists the program's probes, a
		 * file that exists is a program, "*" is everything. -e
		 * without braces is a search too (sonde's; the test harness
		 * passes its one-line PROG that way). */
		if (o->prog_text && !strchr(o->prog_text, '{')) {
			o->list_search = o->prog_text;
			o->prog_text = NULL;
		}
		if (optind + 1 < argc) {
			usage(stderr);
			return -1;
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
		return 0;
	}
	if (o->list_tools)
		return 0;
	if (tool) {
		if (o->prog_text) {
			fputs("sonde: -t and -e exclude each other\n", stderr);
			return -1;
		}
		int err = toolfind_path(tool, o->tool_path,
					sizeof(o->tool_path));
		if (err < 0) {
			fprintf(stderr, "sonde: no tool named '%s' (sonde "
					"--tools lists them)\n", tool);
			return -1;
		}
		o->prog_path = o->tool_path;
	} else if (!o->prog_text && !o->object) {
		if (optind >= argc) {
			fputs("ERROR: USAGE: filename or -e 'program' "
			      "required.\n", stderr);
			return -1;
		}
		o->prog_path = argv[optind++];
		/* A bare word that is no file here may name a tool. */
		if (access(o->prog_path, F_OK) && errno == ENOENT &&
		    toolfind_is_name(o->prog_path) &&
		    !toolfind_path(o->prog_path, o->tool_path,
				   sizeof(o->tool_path)))
			o->prog_path = o->tool_path;
	}
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
	return 0;
}

/* BEGIN and END run whatever --probe-filter says, as bpftrace's. */
static bool filter_exempt(const char *provider)
{
	return !strcasecmp(provider, "BEGIN") || !strcasecmp(provider, "END");
}

/* --probe-filter: whether the probe named name ("interval:ms:200") runs. */
static bool filter_keeps(const struct options *o, const char *name)
{
	return !o->probe_filter ||
	       regexec(&o->filter_re, name, 0, NULL, 0) == 0;
}

/* The attach points of a probe --probe-filter lets through before they
 * expand (so that an attach point filtered out is never looked up): by
 * their canonical name, and any with a wildcard, whose targets are
 * filtered once expanded. */
static uint32_t filter_attach_points(struct arena *a,
				     const struct options *o,
				     struct attach_point **att, uint32_t n)
{
	struct attach_point *keep = arena_alloc(a, sizeof(*keep) * (n + 1));
	uint32_t k = 0;
	struct strbuf name = STRBUF_INIT;
	for (uint32_t i = 0; i < n; i++) {
		const struct attach_point *p = &(*att)[i];
		sb_reset(&name);
		sb_append(&name, p->provider);
		for (uint32_t j = 0; j < p->nparts; j++)
			sb_printf(&name, ":%s", p->parts[j]);
		if (filter_exempt(p->provider) || strpbrk(p->text, "*?[") ||
		    filter_keeps(o, sb_str(&name)))
			keep[k++] = *p;
	}
	sb_free(&name);
	*att = keep;
	return k;
}

/* ... and their targets, by name. */
static uint32_t filter_targets(const struct options *o,
			       struct probe_target *t, uint32_t n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!t[i].prov || filter_exempt(t[i].prov->name) ||
		    filter_keeps(o, t[i].name))
			t[k++] = t[i];
	return k;
}

/* Expands every attach point of every probe into its targets. A probe
 * none of whose attach points exists here is removed from prog when
 * missing probes are only warned about or ignored, and one
 * --probe-filter leaves nothing of too. */
static int expand_probes(struct arena *a, struct diag *d,
			 const struct options *o, struct ast_program *prog,
			 int cpid, struct sema_probe **out)
{
	struct sema_probe *sp = arena_alloc(a, sizeof(*sp) *
						       (prog->nprobes + 1));
	struct probe_env env = { .arena = a, .diag = d, .params = o->params,
				 .nparams = o->nparams, .pid = (int)o->pid,
				 .cpid = cpid, .cmd = o->cmd,
				 .no_attach = o->verify || o->dump ||
					      o->mode == MODE_CODEGEN ||
					      o->emit_elf,
				 .unsafe = o->unsafe };
	int rc = 0;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < prog->nprobes; i++) {
		struct ast_probe p = prog->probes[i];
		if (o->probe_filter &&
		    !(p.nattach = filter_attach_points(a, o, &p.attach,
						       p.nattach)))
			continue;
		env.want_args = ast_probe_uses_builtin(&p, BI_ARGS);
		int e = probe_expand_probe(&env, p.attach, p.nattach,
					   &sp[kept].targets,
					   &sp[kept].ntargets);
		if (e < 0)
			rc = -1;
		if (e == 1)
			continue;
		if (e == 0 && o->probe_filter &&
		    !(sp[kept].ntargets = filter_targets(o, sp[kept].targets,
							 sp[kept].ntargets)))
			continue;
		prog->probes[kept++] = p;
	}
	prog->nprobes = kept;
	*out = sp;
	return rc;
}

/* -l with a program: what each of its attach points matches here, in
 * the program's order, as bpftrace 0.26 lists a program. */
static int list_program(const struct options *o, const struct src_file *file)
{
	struct arena a;
	arena_init(&a);
	struct diag d;
	diag_init(&d, stderr);
	d.no_warnings = o->no_warnings;
	struct ast_program *prog = parse_program(&a, &d, file);
	int rc = d.nerrors || import_resolve(&a, &d, prog) < 0 ? 1 : 0;
	for (uint32_t i = 0; !rc && i < prog->nprobes; i++) {
		const struct ast_probe *p = &prog->probes[i];
		for (uint32_t j = 0; !rc && j < p->nattach; j++) {
			int err = probe_list_attach(&p->attach[j], o->verbose,
						    stdout);
			if (err < 0) {
				fprintf(stderr, "sonde: cannot list probes: "
						"%s\n", strerror(-err));
				rc = 1;
			}
		}
	}
	arena_release(&a);
	return rc;
}

/* BPFTRACE_MAX_BPF_PROGS, as bpftrace words it (BPFTRACE_MAX_PROBES is
 * checked, located, as the attach points expand). */
static int within_limits(uint32_t nprogs)
{
	if (nprogs > limits.max_bpf_progs) {
		fprintf(stderr, "ERROR: Your program is trying to generate more "
			"than %u BPF programs (%u), the limit "
			"BPFTRACE_MAX_BPF_PROGS sets\n", limits.max_bpf_progs,
			nprogs);
		return -1;
	}
	return 0;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void dump_bpf(const struct compiled *c, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	for (uint32_t i = 0; i < c->nprogs; i++) {
		sb_printf(&sb, "%s:\n", c->progs[i].name);
		disasm_prog(c->progs[i].code.insns, c->progs[i].code.ninsns,
			    &sb);
	}
	fputs(sb_str(&sb), out);
	sb_free(&sb);
}

/* Everything a run owns, released in reverse order by run_cleanup(). */
struct run {
	char *owned_text;
	struct arena arena;
	struct child child;
	bool have_child;
	struct compiled compiled;
	bool have_compiled;
	FILE *out;
	/* --emit-elf: cpid and the start time compiled in are stand-ins
	 * (emit_program), and the probes are kept for the object */
	bool stand_ins;
	int64_t stand_in_cpid;
	uint64_t stand_in_start;
	struct ast_program *prog;
	struct sema_probe *probes;
};

static void run_cleanup(struct run *r)
{
	if (r->out && r->out != stdout)
		fclose(r->out);
	if (r->have_compiled)
		codegen_free(&r->compiled);
	if (r->have_child)
		child_release(&r->child);
	arena_release(&r->arena);
	free(r->owned_text);
}

/* parse -> probes -> sema -> codegen. Returns 0, or 1 after errors. */
static int compile(struct run *r, const struct options *o,
		   const struct src_file *file, struct diag *diag)
{
	struct ast_program *prog = parse_program_params(
		&r->arena, diag, file, (const char *const *)o->params,
		(uint32_t)o->nparams);
	if (diag->nerrors)
		return 1;
	if (import_resolve(&r->arena, diag, prog) < 0 ||
	    config_apply(diag, prog->config) < 0 ||
	    macro_expand(&r->arena, diag, prog) < 0)
		return 1;
	vfmt_set_str_trailer(limits.str_trunc_trailer);
	vfmt_set_debug_info(!limits.no_debug_info);
	if ((o->dump | o->debug) & DUMP_AST) {
		struct strbuf sb = STRBUF_INIT;
		ast_dump(prog, &sb);
		fputs(sb_str(&sb), (o->dump & DUMP_AST) ? stdout : stderr);
		sb_free(&sb);
		if (o->dump == DUMP_AST)
			return 0;
	}
	struct include_opts iopts = { o->includes, o->nincludes, o->incdirs,
				      o->nincdirs, limits.kernel_source };
	if (include_expand(&r->arena, diag, prog, &iopts) < 0 ||
	    cmacro_expand(&r->arena, diag, prog) < 0)
		return 1;
	struct sema_probe *probes;
	/* -c without running has a stand-in child pid: still a process. */
	int cpid = o->cmd ? r->child.pid : 0;
	struct sema_opts sopts = { o->params, o->nparams, o->unsafe,
				   r->stand_ins ? r->stand_in_cpid : cpid,
				   o->named, o->nnamed };
	struct sema_result sres;
	if (expand_probes(&r->arena, diag, o, prog, cpid, &probes) < 0 ||
	    sema_check(&r->arena, diag, prog, probes, &sopts, &sres) < 0 ||
	    namedopt_check(&sres.named, o->named, o->nnamed, stderr) < 0)
		return 1;
	r->prog = prog;
	r->probes = probes;
	struct strbuf ir_text = STRBUF_INIT;
	struct codegen_opts copts = { sopts.cpid, o->pid, r->stand_ins ?
				      r->stand_in_start : monotonic_ns(),
				      ((o->dump | o->debug) & DUMP_IR) ?
					      &ir_text : NULL,
				      o->helper_check, o->emit_elf != NULL };
	int rc = codegen(&r->arena, diag, prog, probes, &sres, &copts,
			 &r->compiled);
	r->have_compiled = true;
	if ((o->dump | o->debug) & DUMP_IR)
		fputs(sb_str(&ir_text), (o->dump & DUMP_IR) ? stdout : stderr);
	sb_free(&ir_text);
	if (rc < 0 || within_limits(r->compiled.nprogs) < 0)
		return 1;
	if ((o->dump | o->debug) & DUMP_BPF)
		dump_bpf(&r->compiled, (o->dump & DUMP_BPF) ? stdout : stderr);
	return 0;
}

static int start_child(void *ctx)
{
	int err = child_start(ctx);
	if (err < 0)
		fprintf(stderr, "sonde: cannot start the command: %s\n",
			strerror(-err));
	return err;
}

/* --object: run a clang-built BPF object instead of a program. */
static int run_object(const struct options *o)
{
	struct child child;
	memset(&child, 0, sizeof(child));
	struct obj_opts oo = {
		.path = o->object,
		.progs = o->obj_progs, .nprogs = o->nobj_progs,
		.sets = o->obj_sets, .nsets = o->nobj_sets,
		.perf_event = o->perf_event, .format = o->format,
		.verbose = o->verbose, .stop_pid = (pid_t)o->pid,
		.out_name = o->out_path,
	};
	if (o->out_path && !(oo.out = fopen(o->out_path, "w"))) {
		fprintf(stderr, "sonde: cannot write %s: %s\n", o->out_path,
			strerror(errno));
		return 1;
	}
	if (o->cmd) {
		int err = child_spawn_cmd(&child, o->cmd);
		if (err < 0) {
			fprintf(stderr, "sonde: cannot run '%s': %s\n", o->cmd,
				strerror(-err));
			if (oo.out)
				fclose(oo.out);
			return 1;
		}
		oo.stop_pid = child.pid;
		oo.stop_pid_is_child = true;
		oo.ready = start_child;
		oo.ready_ctx = &child;
	}
	int rc = obj_run(&oo) < 0 ? 1 : 0;
	if (o->cmd)
		child_release(&child);
	if (oo.out)
		fclose(oo.out);
	return rc;
}

/* Stand-ins for the values only the object's run knows: no pid is above
 * PID_MAX_LIMIT (4194304) and no clock this far, and the two of a pair
 * differ, so that compiling with each shows where they landed. */
static const int64_t stand_in_cpid[2] = { 0x7ead0001, 0x7ead0002 };
static const uint64_t stand_in_start[2] = { 0x5eed0000deadull << 16,
					    0x5eed0000beefull << 16 };

/* Where the stand-ins of compile 0 sit in program p's code, found by
 * comparing with compile 1: each difference must be a stand-in, whole,
 * else the value was folded into something the run cannot patch. */
static int find_patches(struct arena *a, const struct cprog *p0,
			const struct cprog *p1, struct serial_prog *sp)
{
	const struct bpf_code *c0 = &p0->code, *c1 = &p1->code;
	if (c0->ninsns != c1->ninsns)
		return -1;
	sp->patches = arena_alloc(a, sizeof(*sp->patches) * (c0->ninsns + 1));
	for (uint32_t i = 0; i < c0->ninsns; i++) {
		const struct bpf_insn *x = &c0->insns[i], *y = &c1->insns[i];
		if (!memcmp(x, y, sizeof(*x)))
			continue;
		bool ld64 = x->code == (BPF_LD | BPF_IMM | BPF_DW) &&
			    i + 1 < c0->ninsns;
		struct bpf_insn xs = *x, ys = *y;
		xs.imm = ys.imm = 0;
		if (memcmp(&xs, &ys, sizeof(xs)))
			return -1;
		int64_t v0 = (uint32_t)x->imm, v1 = (uint32_t)y->imm;
		if (ld64) {
			v0 |= (int64_t)((uint64_t)(uint32_t)x[1].imm << 32);
			v1 |= (int64_t)((uint64_t)(uint32_t)y[1].imm << 32);
		} else {
			v0 = x->imm;
			v1 = y->imm;
		}
		struct serial_patch pt = { i, SERIAL_PATCH_CPID };
		if (v0 == stand_in_cpid[0] && v1 == stand_in_cpid[1])
			;
		else if (ld64 && (uint64_t)v0 == stand_in_start[0] &&
			 (uint64_t)v1 == stand_in_start[1])
			pt.kind = SERIAL_PATCH_START;
		else
			return -1;
		sp->patches[sp->npatches++] = pt;
		if (ld64)
			i++;
	}
	return 0;
}

/* The script's probe that target t belongs to. */
static uint32_t probe_of(const struct run *r, const struct probe_target *t)
{
	for (uint32_t i = 0; i < r->prog->nprobes; i++)
		if (t >= r->probes[i].targets &&
		    t < r->probes[i].targets + r->probes[i].ntargets)
			return i;
	return 0;
}

/* Fills the .sonde description of compile r[0], its stand-ins found by
 * comparing with r[1]. Returns 0, or 1 after an error. */
static int describe(struct run *r, const struct options *o,
		    struct serial_object *so)
{
	const struct compiled *c = &r[0].compiled;
	so->c = *c;
	so->uses_cpid = o->cmd != NULL;
	so->ngroups = r[0].prog->nprobes;
	so->groups = arena_alloc(&r[0].arena, sizeof(*so->groups) *
						      (so->ngroups + 1));
	for (uint32_t i = 0; i < so->ngroups; i++) {
		const struct ast_probe *ap = &r[0].prog->probes[i];
		so->groups[i] = (struct serial_group){
			ap->attach, ap->nattach,
			ast_probe_uses_builtin(ap, BI_ARGS) };
	}
	so->progs = arena_alloc(&r[0].arena, sizeof(*so->progs) *
						     (c->nprogs + 1));
	if (r[1].compiled.nprogs != c->nprogs)
		return 1;
	for (uint32_t i = 0; i < c->nprogs; i++) {
		const struct cprog *p = &c->progs[i];
		struct serial_prog *sp = &so->progs[i];
		if (p->targets->prov->not_emittable) {
			fprintf(stderr, "sonde: --emit-elf cannot carry %s "
				"probes (%s): their programs depend on this "
				"machine or run: %s\n", p->targets->prov->name,
				p->name, p->targets->prov->not_emittable);
			return 1;
		}
		sp->group = probe_of(&r[0], p->targets);
		sp->context = probe_target_hash(p->targets);
		if (find_patches(&r[0].arena, p, &r[1].compiled.progs[i],
				 sp) < 0) {
			fprintf(stderr, "sonde: --emit-elf: the program for %s "
				"computes with cpid or the start time at "
				"compile time, which the object cannot carry\n",
				p->name);
			return 1;
		}
	}
	return 0;
}

/* --emit-elf FILE: compiles twice, with two sets of stand-ins for cpid
 * and the start time, and writes the first with where they are. */
static int emit_program(const struct options *o, const struct src_file *f,
			struct diag *diag)
{
	if (o->pid || o->out_path || o->format || o->verify || o->dry_run ||
	    o->dump || o->object || o->folded || o->flamegraph ||
	    o->pprof || o->heatmap || o->heatmap_svg || o->metrics) {
		fputs("sonde: --emit-elf only compiles: -p, -o, -f, --verify, "
		      "--dry-run, -d, --object and the output options belong "
		      "to the run (sonde --object FILE ...)\n", stderr);
		return 1;
	}
	struct run r[2];
	memset(r, 0, sizeof(r));
	struct diag quiet;
	FILE *devnull = fopen("/dev/null", "w");
	diag_init(&quiet, devnull ? devnull : stderr);
	quiet.no_warnings = true;
	int rc = 0;
	for (int k = 0; k < 2 && !rc; k++) {
		arena_init(&r[k].arena);
		r[k].child.pid = 1; /* -c: a stand-in, nothing runs */
		r[k].stand_ins = true;
		r[k].stand_in_cpid = o->cmd ? stand_in_cpid[k] : 0;
		r[k].stand_in_start = stand_in_start[k];
		rc = compile(&r[k], o, f, k ? &quiet : diag);
	}
	struct serial_object so;
	memset(&so, 0, sizeof(so));
	if (!rc)
		rc = describe(r, o, &so);
	char why[300];
	if (!rc && emit_elf(o->emit_elf, &so, why, sizeof(why)) < 0) {
		fprintf(stderr, "sonde: --emit-elf: %s\n", why);
		rc = 1;
	}
	for (int k = 1; k >= 0; k--)
		run_cleanup(&r[k]);
	if (devnull)
		fclose(devnull);
	return rc;
}

/* --object FILE for an object --emit-elf wrote: its compiled program
 * rebuilt, its probes resolved here, then run as the script would. */
static int run_emitted(const struct options *o)
{
	if (o->nobj_progs || o->nobj_sets || o->perf_event || o->nparams ||
	    o->warnings || o->prog_text || o->nincludes || o->nincdirs) {
		fputs("sonde: an object --emit-elf wrote was compiled whole: "
		      "--prog, --set, --perf-event, -e, -k, -I, --include and "
		      "positional parameters are given to --emit-elf instead\n",
		      stderr);
		return 1;
	}
	struct run r;
	memset(&r, 0, sizeof(r));
	arena_init(&r.arena);
	struct serial_object so;
	int rc = 1;
	if (emitted_open(&r.arena, o->object, &so, stderr) < 0)
		goto out;
	if (so.uses_cpid && !o->cmd) {
		fprintf(stderr, "sonde: %s was emitted with -c: run it with -c "
			"CMD\n", o->object);
		goto out;
	}
	if (o->cmd) {
		int err = child_spawn_cmd(&r.child, o->cmd);
		if (err < 0) {
			fprintf(stderr, "sonde: cannot run '%s': %s\n", o->cmd,
				strerror(-err));
			goto out;
		}
		r.have_child = true;
	}
	struct emitted_env env = { (int)o->pid, r.have_child ? r.child.pid : 0,
				   o->cmd, monotonic_ns() };
	if (emitted_resolve(&r.arena, &so, &env, stderr) < 0)
		goto out;
	if (o->out_path && !(r.out = fopen(o->out_path, "w"))) {
		fprintf(stderr, "sonde: cannot write %s: %s\n", o->out_path,
			strerror(errno));
		goto out;
	}
	struct run_opts ropts = {
		.format = o->format, .out = r.out, .out_name = o->out_path,
		.err = stderr,
		.console = stdout, .verbose = o->verbose,
		.unsafe = o->unsafe, .quiet = o->quiet,
		.child = r.have_child ? &r.child : NULL,
		.pid = (pid_t)o->pid, .verify_only = o->verify,
		.buffering = o->buffering,
		.folded = o->folded, .flamegraph = o->flamegraph,
		.pprof = o->pprof,
		.no_warnings = o->no_warnings, .dry_run = o->dry_run,
		.bench = o->mode == MODE_BENCH,
		.test = o->mode == MODE_TEST,
	};
	rc = run_program(&so.c, &ropts);
	if (rc < 0)
		rc = 1;
out:
	run_cleanup(&r); /* so's code lives in the arena */
	return rc;
}

/* The command line lives as long as the process; what parsing it
 * allocated is freed on the way out, whichever way that is. */
static struct options o;

static void free_options(void)
{
	if (o.probe_filter)
		regfree(&o.filter_re);
	sb_free(&o.debuginfo);
}

int main(int argc, char **argv)
{
	files_guard_stdio(); /* first: nothing opened may become stdout */
	atexit(free_options);
	if (parse_options(argc, argv, &o) < 0 || limits_from_env(stderr) < 0 ||
	    config_from_env(stderr) < 0)
		return 1;
	if (o.info)
		return info_print(stdout, SONDE_VERSION) < 0;
	if (o.debuginfo.len) {
		o.debuginfo.buf[--o.debuginfo.len] = '\0'; /* the last ':' */
		dwarf_debuginfo_dirs(o.debuginfo.buf);
	}
	/* as bpftrace, a -p process must exist now */
	if (o.pid_set) {
		int fd = (int)syscall(SYS_pidfd_open, (pid_t)o.pid, 0);
		if (fd < 0) {
			fputs("ERROR: Failed to attach to pid: Unable to open "
			      "pidfd\n", stderr);
			return 1;
		}
		close(fd);
	}

	bool will_run = o.mode != MODE_CODEGEN && !o.dump && !o.emit_elf;
	const char *why;
	if ((o.object || (will_run && !o.list)) &&
	    !privilege_can_trace(&why)) {
		fprintf(stderr, "sonde: %s\n", why);
		return 1;
	}
	if (o.object) {
		/* an unreadable file goes to object mode, which says why */
		if (emitted_detect(o.object) > 0)
			return run_emitted(&o);
		return run_object(&o);
	}
	if (o.list_tools) {
		return toolfind_list(stdout) > 0 ? 0 : 1;
	}
	if (o.list)
		probe_list_set_pid((int)o.pid);
	if (o.list && !o.prog_text && !o.prog_path) {
		struct diag ld;
		diag_init(&ld, stderr);
		if (o.list_search && probe_list_check(o.list_search, &ld) < 0)
			return 1;
		int err = probe_list_search(o.list_search, o.verbose, stdout);
		if (err < 0)
			fprintf(stderr, "sonde: cannot list probes: %s\n",
				strerror(-err));
		return err < 0;
	}

	struct run r;
	memset(&r, 0, sizeof(r));
	arena_init(&r.arena);
	struct src_file file;
	if (o.prog_text) {
		file.name = "stdin";
		file.text = o.prog_text;
		file.len = (uint32_t)strlen(o.prog_text);
	} else {
		r.owned_text = read_file(o.prog_path, &file.len);
		if (!r.owned_text) {
			fprintf(stderr, "ERROR: failed to open file '%s': %s\n",
				o.prog_path, strerror(errno));
			return 1;
		}
		file.name = o.prog_path;
		file.text = r.owned_text;
	}

	if (o.list) {
		int lrc = list_program(&o, &file);
		run_cleanup(&r);
		return lrc;
	}

	/* The child exists (paused) before compiling: cpid is a constant
	 * in the generated code. */
	if (o.cmd && will_run) {
		int err = child_spawn_cmd(&r.child, o.cmd);
		if (err < 0) {
			fprintf(stderr, "sonde: cannot run '%s': %s\n", o.cmd,
				strerror(-err));
			run_cleanup(&r);
			return 1;
		}
		r.have_child = true;
	} else if (o.cmd) {
		r.child.pid = 1; /* a stand-in: nothing runs */
	}

	struct diag diag;
	diag_init(&diag, stderr);
	diag.no_warnings = o.no_warnings;
	if (o.emit_elf) {
		int erc = emit_program(&o, &file, &diag);
		run_cleanup(&r);
		return erc;
	}
	int rc = compile(&r, &o, &file, &diag);
	if (diag.nerrors - diag.nrepeats > diag.max_errors)
		fprintf(stderr, "sonde: %d errors in all, only the first %d "
				"shown\n", diag.nerrors - diag.nrepeats,
			diag.max_errors);
	if (rc == 0 && will_run && !r.compiled.nprogs) {
		/* everything filtered out, or left out as missing */
		if (!o.quiet)
			puts("No probes to attach");
		rc = 1;
	}
	if (rc == 0 && will_run) {
		if (o.out_path) {
			r.out = fopen(o.out_path, "w");
			if (!r.out) {
				fprintf(stderr, "sonde: cannot write %s: %s\n",
					o.out_path, strerror(errno));
				run_cleanup(&r);
				return 1;
			}
		}
		struct run_opts ropts = {
			.format = o.format, .out = r.out,
			.out_name = o.out_path, .err = stderr,
			.console = stdout,
			.verbose = o.verbose, .unsafe = o.unsafe,
			.quiet = o.quiet,
			.child = r.have_child ? &r.child : NULL,
			.pid = (pid_t)o.pid,
			.verify_only = o.verify,
			.buffering = o.buffering,
			.folded = o.folded, .flamegraph = o.flamegraph,
			.pprof = o.pprof,
			.heatmap = o.heatmap, .heatmap_svg = o.heatmap_svg,
			.metrics = o.metrics,
			.usdt_file_activation = o.usdt_file_activation,
			.bench = o.mode == MODE_BENCH,
			.test = o.mode == MODE_TEST,
			.no_warnings = o.no_warnings,
			.dry_run = o.dry_run,
		};
		int status = run_program(&r.compiled, &ropts);
		rc = status < 0 ? 1 : status;
	}
	run_cleanup(&r);
	return rc;
}
