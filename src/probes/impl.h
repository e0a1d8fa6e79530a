/* Shared by the provider files of src/probes/ only. */
#ifndef SONDE_PROBES_IMPL_H
#define SONDE_PROBES_IMPL_H

#include "probes/provider.h"

extern const struct provider probe_begin_prov, probe_end_prov,
	probe_tracepoint_prov, probe_interval_prov, probe_profile_prov,
	probe_rawtracepoint_prov, probe_kfunc_prov, probe_kretfunc_prov,
	probe_software_prov, probe_hardware_prov, probe_watchpoint_prov,
	probe_asyncwatchpoint_prov;
/* uprobe.c, usdt.c, kprobe.c */
extern const struct provider probe_uprobe_prov, probe_uretprobe_prov,
	probe_usdt_prov, probe_kprobe_prov, probe_kretprobe_prov;

/* For probe types this kernel cannot attach: unless nothing will be
 * attached (--dry-run, -d, --verify), reports at a's span "<type> probes
 * cannot run here: <why feature f is missing>; use <alt> instead" and
 * returns true. Checked in expand, so nothing is ever attached first. */
#include "kernel/features.h"
bool probe_refuse(struct probe_env *env, const struct attach_point *a,
		  enum feat_id f, const char *alt);

/* What a's function, tracepoint or probe name names does not exist here:
 * reports it at a's span (printf-style) as an error, or as a warning
 * when the probe has other attach points (env->missing_ok). Returns the
 * expand hook's result: -1 after an error, 0 (nothing added) after a
 * warning. */
int probe_missing(struct probe_env *env, const struct attach_point *a,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Parses a positive decimal count (or "$N", a positional parameter) from
 * an attach point part. Returns 0, -EINVAL when it is not a number, or
 * -ERANGE when it is zero or does not fit. */
int probe_parse_count(const struct probe_env *env, const char *s,
		      uint64_t *out);

/* Attaches prog_fd to perf event pfd and records both in att. Takes
 * ownership of pfd; pfd < 0 is an error passed through. */
int probe_attach_perf(int pfd, int prog_fd, struct probe_attachment *att);

/* Opens open(t, cpu) on every online CPU and attaches prog_fd to each. */
int probe_attach_cpus(const struct probe_target *t, int prog_fd,
		      struct probe_attachment *att,
		      int (*open)(const struct probe_target *t, int cpu));

/* rawtracepoint.c: attaches a raw_tp program to tracepoint t->a, or a
 * BPF_PROG_TYPE_TRACING one (t->prog_type set) to its BTF target. */
int probe_attach_raw_tp(const struct probe_target *t, int prog_fd,
			struct probe_attachment *att);

/* btf_args.c: contexts that are a u64 array of a BTF function's args
 * (rawtracepoint, kfunc). The `args` record: each param at 8 * its slot,
 * then retval when with_retval (fexit stores it after the args). */
struct kbtf_func;
struct arena;
const struct type *probe_btf_args_type(struct arena *a,
				       const struct kbtf_func *f,
				       const char *rec_name, bool with_retval);
/* How many u64 slots f's params take (where fexit's retval sits). */
uint32_t probe_btf_nslots(const struct kbtf_func *f);
/* Calls add for every BTF function (or, tp, BTF tracepoint) whose name
 * matches name and whose module matches module (NULL: any; "vmlinux" for
 * the kernel's own). Returns how many, or -errno. */
typedef void (*probe_btf_add_fn)(const struct kbtf_func *f, void *ctx);
int probe_btf_each(struct arena *a, const char *module, const char *name,
		   bool tp, probe_btf_add_fn add, void *ctx);
/* "TYPE:NAME", or "TYPE:MODULE:NAME" for a module's. */
const char *probe_btf_name(struct arena *a, const char *type,
			   const char *module, const char *name);
/* The list hook of TYPE over BTF functions (or, tp, tracepoints): with
 * verbose, "    CTYPE NAME" for every argument (and, for functions, the
 * return value as "retval"). */
int probe_btf_list(const char *type, bool tp, const char *pattern,
		   bool verbose, FILE *out);

struct elf_syms;
/* uprobe.c, shared with usdt.c: the file an attach point's first part
 * names (a path, or a library or program by name), in the arena; and its
 * ELF symbols (elfsym_free them). Both report errors with a's span, kind
 * ("uprobe", "usdt") leading the message, and return NULL then. */
const char *probe_user_path(struct probe_env *env, const struct attach_point *a,
			    const char *kind);
struct elf_syms *probe_user_elf(struct probe_env *env,
				const struct attach_point *a, const char *kind,
				const char *path);
/* kprobe.c: the provider ("kfunc", "kretfunc") that stands in for
 * provider ("kprobe", "kretprobe") with attach point spec when kprobes
 * cannot attach but fentry can, or NULL (an offset needs a kprobe). */
const char *probe_kprobe_fallback(bool kprobes, bool fentry,
				  const char *provider, const char *spec);
/* For -l: the symbols of the file a pattern "KIND:PATH:REST" names (PATH
 * resolved as an attach point's is, into path; no wildcards in it), and
 * REST ("*" when absent). NULL when the pattern names no ELF file. */
struct elf_syms *probe_user_list_elf(const char *pattern, const char *kind,
				     char *path, size_t len, const char **rest);
/* Attaches a uprobe or USDT target (t->a: path, t->offset, t->ref_ctr). */
int probe_uprobe_attach(const struct probe_target *t, int prog_fd,
			struct probe_attachment *att);

#endif
