/* Every setting: the table settings.h describes. */
#include "model/settings.h"

#include <string.h>

#include "model/limits.h"

static const char *const stack_modes[] = { "bpftrace", "perf", "raw",
					   "build_id", NULL };
static const char *const missing_words[] = { "error", "warn", "ignore",
					     NULL };
/* enum unstable's order */
static const char *const unstable_words[] = { "enable", "warn", "error",
					      NULL };
/* enum ustack_unwind's order */
static const char *const unwind_words[] = { "fp", "dwarf", NULL };

#define NUM32(f) .u32 = &limits.f
#define NUM64(f) .u64 = &limits.f

/*
 * The rows with an environment name first, in --help's order; then the
 * config variables that have only bpftrace's BPFTRACE_<NAME> form.
 */
const struct setting settings[] = {
	/* strings over 200 bytes live in the per-CPU scratch (codegen's
	 * bigstr.h), whose value the kernel caps at 32 KiB */
	{ .name = "max_strlen", .env = "STRLEN", .kind = SK_NUM,
	  .lo = 1, .hi = 9999, NUM32(strlen),
	  .help = "[64] bytes of a str() value (1..9999)" },
	{ .name = "max_map_keys", .env = "MAP_KEYS_MAX", .kind = SK_NUM,
	  .lo = 1, .hi = UINT32_MAX, NUM32(map_keys_max),
	  .help = "[4096] keys of a map" },
	{ .name = "max_cat_bytes", .env = "CAT_BYTES_MAX", .kind = SK_NUM,
	  .lo = 1, .hi = UINT64_MAX / 2, NUM64(cat_bytes_max),
	  .help = "[10240] bytes cat() prints" },
	{ .name = "stack_mode", .env = "STACK_MODE", .kind = SK_WORD,
	  .word = &limits.stack_mode, .words = stack_modes,
	  .accepts = "bpftrace, perf, raw or build_id",
	  .invalid = "Invalid value for stack_mode: valid values are "
		     "bpftrace, raw, perf, and build_id.",
	  .help = "[bpftrace] default stack mode (bpftrace, perf, raw)" },
	/* sonde's: ustack by frame pointers (bpf_get_stack), or by the
	 * in-kernel DWARF unwinder that dw_ustack uses, for every process
	 * (model/unwind.h) */
	{ .name = "ustack_unwind", .env = "USTACK_UNWIND", .kind = SK_WORD,
	  .word = &limits.ustack_dwarf, .words = unwind_words,
	  .accepts = "fp or dwarf",
	  .invalid = "Invalid value for ustack_unwind: valid values are fp "
		     "and dwarf.",
	  .help = "[fp] how ustack walks user stacks: fp (frame pointers)\n"
		  "or dwarf (.eh_frame tables, every process; x86_64)" },
	{ .name = "max_probes", .env = "MAX_PROBES", .kind = SK_NUM,
	  .lo = 1, .hi = UINT32_MAX, NUM32(max_probes),
	  .help = "[512] attach points of a run" },
	{ .name = "max_bpf_progs", .env = "MAX_BPF_PROGS", .kind = SK_NUM,
	  .lo = 1, .hi = UINT32_MAX, NUM32(max_bpf_progs),
	  .help = "[512] BPF programs of a run" },
	/* the ring buffer is one map of at most 1 GiB in all */
	{ .name = "perf_rb_pages", .env = "PERF_RB_PAGES", .kind = SK_NUM,
	  .lo = 1, .hi = 262144, NUM32(perf_rb_pages),
	  .help = "[1 MiB in all] event buffer pages per CPU" },
	/* the kernel refuses a verifier log above UINT32_MAX >> 2; one too
	 * small fails the load under -v (ENOSPC), as in bpftrace 0.26 */
	{ .name = "log_size", .env = "LOG_SIZE", .kind = SK_NUM,
	  .lo = 1, .hi = UINT32_MAX >> 2, NUM32(log_size),
	  .help = "[16 MiB] verifier log bytes (-v)" },
	{ .name = "cpp_demangle", .env = "NO_CPP_DEMANGLE", .kind = SK_BOOL,
	  .flag = &limits.no_cpp_demangle, .inverted = true,
	  .help = "[0] print C++ symbols mangled" },
	{ .env = "BTF", .kind = SK_FILE, .str = &limits.btf,
	  .help = "[none] a BTF file instead of the kernel's" },
	{ .env = "KERNEL_SOURCE", .kind = SK_DIR, .str = &limits.kernel_source,
	  .help = "[none] kernel tree whose include/ #include searches" },
	{ .name = "missing_probes", .env = "MISSING_PROBES", .kind = SK_WORD,
	  .word = &limits.missing_probes, .words = missing_words,
	  .accepts = "error, warn or ignore", .nocase = true,
	  .invalid = "Invalid value for missing_probes: valid values are "
		     "ignore, warn, and error.",
	  .help = "[error] an attach point that does not exist\n"
		  "(error, warn, ignore)" },

	/* sonde keeps each file's symbols once for all processes and each
	 * process's mappings apart: what both caches give */
	{ .name = "cache_user_symbols", .kind = SK_CACHE },
	/* sonde symbolicates when it prints, never ahead of time */
	{ .name = "lazy_symbolication", .kind = SK_BOOL, .only = ONLY_TRUE },
	{ .name = "license", .kind = SK_LICENSE, .str = &limits.license },
	/* where values live is sonde's choice (stacks in a scratch map, the
	 * rest on the BPF stack, a program past 512 bytes refused with a
	 * located error): no result depends on it, so any limit is taken */
	{ .name = "on_stack_limit", .kind = SK_NUM, .lo = 0,
	  .hi = UINT64_MAX, NUM64(on_stack_limit) },
	{ .name = "str_trunc_trailer", .kind = SK_STRING,
	  .str = &limits.str_trunc_trailer },
	{ .name = "print_maps_on_exit", .kind = SK_BOOL,
	  .flag = &limits.no_print_maps_on_exit, .inverted = true },
	/* sonde is not built with blazesym */
	{ .name = "use_blazesym", .kind = SK_BOOL, .only = ONLY_FALSE },
	{ .name = "show_debug_info", .kind = SK_BOOL,
	  .flag = &limits.no_debug_info, .inverted = true },
	{ .name = "unstable_import_statement", .kind = SK_UNSTABLE },
	{ .name = "unstable_tseries", .kind = SK_UNSTABLE },
	{ .name = "unstable_typeinfo", .kind = SK_UNSTABLE },
	/* the only one that gates something: dw_ustack (lang/sema_stack.c) */
	{ .name = "unstable_dw_ustack", .kind = SK_UNSTABLE,
	  .word = &limits.unstable_dw_ustack },
};

const size_t nsettings = sizeof(settings) / sizeof(settings[0]);

void settings_print(FILE *out)
{
	for (size_t i = 0; i < nsettings; i++) {
		const struct setting *s = &settings[i];
		char env[48] = "";
		if (s->env)
			snprintf(env, sizeof(env), "BPFTRACE_%s", s->env);
		fprintf(out, "%-26s ", s->name ? s->name : env);
		switch (s->kind) {
		case SK_NUM:
			if ((s->u32 || s->u64) &&
			    !(s->u32 ? *s->u32 : *s->u64) && s->lo)
				fputs("(sonde's default)", out);
			else if (s->u32 || s->u64)
				fprintf(out, "%llu", (unsigned long long)(
					s->u32 ? *s->u32 : *s->u64));
			else
				fputs("(any)", out);
			fprintf(out, "  [%llu..%llu]", (unsigned long long)s->lo,
				(unsigned long long)s->hi);
			break;
		case SK_BOOL:
			if (s->flag)
				fputs(*s->flag != s->inverted ? "true" : "false",
				      out);
			else
				fputs(s->only == ONLY_TRUE ? "true" : "false",
				      out);
			if (s->only != ONLY_ANY)
				fputs("  (the only value sonde honours)", out);
			break;
		case SK_WORD:
			fprintf(out, "%s  [", s->words[*s->word]);
			for (size_t w = 0; s->words[w]; w++)
				fprintf(out, "%s%s", w ? ", " : "", s->words[w]);
			fputc(']', out);
			break;
		case SK_LICENSE:
		case SK_STRING:
		case SK_FILE:
		case SK_DIR:
			fprintf(out, "%s%s%s", *s->str ? "\"" : "",
				*s->str ? *s->str : "(none)",
				*s->str ? "\"" : "");
			break;
		case SK_UNSTABLE:
			if (s->word)
				fprintf(out, "%s  [enable, warn, error]",
					unstable_words[*s->word]);
			else
				fputs("enable  (gates nothing in sonde)", out);
			break;
		case SK_CACHE:
			fputs("PER_PID  [PER_PID, PER_PROGRAM]", out);
			break;
		}
		if (s->name && s->env)
			fprintf(out, "  (also %s)", env);
		fputc('\n', out);
	}
}

const struct setting *settings_find(const char *name)
{
	for (size_t i = 0; i < nsettings; i++)
		if (settings[i].name && !strcmp(settings[i].name, name))
			return &settings[i];
	return NULL;
}
