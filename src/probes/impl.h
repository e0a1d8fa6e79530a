/* Shared by the provider files of src/probes/ only. */
#ifndef SONDE_PROBES_IMPL_H
#define SONDE_PROBES_IMPL_H

#include "probes/provider.h"

/* For probe types this kernel cannot attach: unless nothing will be
 * attached (--mode codegen, --dump, --verify), reports at a's span "<type>
 * probes cannot run here: <why feature f is missing>; use <alt> instead"
 * and returns true. Checked in expand, so nothing is ever attached first. */
#include "kernel/features.h"
bool probe_refuse(struct probe_env *env, const struct attach_point *a,
		  enum feat_id f, const char *alt);

/* a names a function, tracepoint or probe that does not exist here: as
 * bpftrace 0.26's missing_probes config says (limits.missing_probes),
 * "No matches for PROVIDER TARGET:FUNC." is an error, a warning, or
 * nothing; a wildcard that matches nothing is always left out quietly.
 * Returns the expand hook's result: -1 after an error, else 0 (nothing
 * added). */
int probe_missing(struct probe_env *env, const struct attach_point *a);

/* a cannot be attached for the reason fmt says (a uprobe's address in no
 * function, a function of no size): bpftrace 0.26 finds these as it
 * attaches, and says them with no place, then "Unable to attach probe:
 * NAME.", as an error, a warning, or nothing, as missing_probes says.
 * Returns the expand hook's result: -1 after an error, else 0. */
int probe_attach_refused(struct probe_env *env, const struct attach_point *a,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A number of an attach point as bpftrace 0.26 reads it (probes/number.c:
 * 1e6, 1_000, 0x10, 100ms in nanoseconds), or of the positional parameter
 * "$N" names. Returns 0, or -errno with 0.26's words for what is wrong
 * ("invalid trailing bytes: 1b") in why. */
int probe_parse_part(const struct probe_env *env, const char *s,
		     uint64_t *out, char *why, size_t n);

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
/* Whether kernel function name is listed (kprobe, fentry), as bpftrace
 * 0.26 leaves out ".part." clones, which cannot be traced, and the
 * functions known to make the system unstable when traced (its
 * is_bad_func, from the kernel's BPF selftests: rcu_*, idle loops). */
bool probe_kernel_func_listed(const char *name);
/* Whether kernel function name is one of those (bpftrace 0.26's
 * is_bad_func): kprobes leave them out of wildcards and take them by
 * name only with --unsafe. */
bool probe_kernel_func_bad(const char *name);
/* The list hook of TYPE over BTF functions (or, tp, tracepoints), as
 * bpftrace 0.26 lists them: "TYPE:MODULE:NAME" ("vmlinux" for the
 * kernel's), the pattern's part after its type matched against
 * "MODULE:NAME" (a name alone against any module), functions only
 * where the kernel can trace them (probe_kernel_func_listed,
 * available_filter_functions) with their arguments in registers; with
 * verbose, "    CTYPE NAME" for every argument, and with ret the return
 * value as "retval". */
int probe_btf_list(const char *type, bool tp, bool ret, const char *pattern,
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
/* es if it is this machine's; else the error that it is another's
 * (es freed) and NULL. */
struct elf_syms *probe_user_elf_native(struct probe_env *env,
				       const struct attach_point *a,
				       const char *kind, const char *path,
				       struct elf_syms *es);
/* kprobe.c: the provider ("fentry", "fexit") that stands in for
 * provider ("kprobe", "kretprobe") with attach point spec when kprobes
 * cannot attach but fentry can, or NULL (an offset needs a kprobe). */
const char *probe_kprobe_fallback(bool kprobes, bool fentry,
				  const char *provider, const char *spec);
/* uprobe_offset.c: refuses (with a's span) an offset delta into func
 * (at file offset func_off of path) that is not an instruction's start.
 * Returns 0 or -1. */
int probe_uprobe_check_offset(struct probe_env *env,
			      const struct attach_point *a, const char *path,
			      const char *func, uint64_t func_off,
			      uint64_t delta);
/* userfiles.c: calls fn for each file an attach point's (or -l
 * pattern's) first part names: with pid > 0 and file "" or a wildcard,
 * each file the process has mapped executable whose absolute path matches
 * ("" matches all), as "/proc/PID/root/PATH"; else each regular file a
 * wildcard matches, or the one file a path or library name resolves to.
 * Stops at fn's first negative result and returns it; -errno when the
 * files cannot be found; else 0. */
typedef int (*probe_user_file_fn)(const char *path, void *ctx);
int probe_user_files(int pid, const char *file, probe_user_file_fn fn,
		     void *ctx);
/* The file to attach to for path: "/proc/PID/root/PATH" under -p (the
 * process may live in another mount namespace), else path itself. */
const char *probe_user_binary(struct probe_env *env, const char *path);
/* For -l: splits "TYPE:FILE[:REST]" when TYPE (a glob) matches kind;
 * false when the pattern names no file (one is needed unless -p). */
bool probe_user_list_split(const char *pattern, const char *kind,
			   char *file, size_t len, const char **rest);
/* -l 'struct NAME' (union, enum): the kernel's BTF types matching
 * pattern, their names or (verbose) definitions (list_types.c). */
int probe_list_types(const char *pattern, bool verbose, FILE *out);
/* The -p process of -l (0: none), set by probe_list_set_pid(). */
int probe_list_get_pid(void);
/* -l's line "TYPE:NAME:" (the empty part a count or period, as bpftrace
 * lists software, hardware, interval and profile probes) when pattern
 * matches it, with or without its final ':'. */
void probe_list_empty_part(FILE *out, const char *pattern, const char *type,
			   const char *name);
/* uprobe_args.c: types target t's `args` from the DWARF of its file
 * (t->binary, t->func at vaddr) when it has debug info, and notes the
 * file for casts to the structs it defines. For -lv: prints "    CTYPE
 * NAME" for each parameter of func. */
void probe_uprobe_args(struct probe_env *env, struct probe_target *t,
		       uint64_t vaddr);
int probe_uprobe_list_args(const char *path, const char *func,
			   uint64_t vaddr, FILE *out);
/* watchfunc.c: watchpoint:FUNC+argN:LEN:MODE (and async): expands FUNC (a
 * wildcard) over the traced process's program; attach arms breakpoints
 * as FUNC is entered, through att->service. */
int probe_watch_func_expand(struct probe_env *env,
			    const struct attach_point *a, uint32_t len,
			    struct probe_target **out, uint32_t *n);
int probe_watch_func_attach(const struct probe_target *t, int prog_fd,
			    struct probe_attachment *att);
/* uprobe.c: a uprobe's file: path as probes name it ("A.zip!/lib.so"),
 * the file to attach to, and where the ELF image starts in it (an entry
 * of a ZIP archive; 0 otherwise). */
struct uprobe_file {
	const char *path, *file;
	uint64_t base;
};
/* A target at file offset off (of the ELF image) for func at vaddr, named
 * "PROVIDER:PATH:SPEC" (SPEC "@FILE:LINE" joins without a ':'). */
void probe_uprobe_add(struct probe_env *env, const struct attach_point *a,
		      const struct uprobe_file *f, const char *func,
		      uint64_t off, uint64_t vaddr, const char *spec,
		      struct probe_target **out, uint32_t *n);
/* The targets a->parts[1] names in f, whose symbols es holds; many: one
 * of several files (a missing function is then no error). */
int probe_uprobe_expand_file(struct probe_env *env,
			     const struct attach_point *a,
			     const struct uprobe_file *f,
			     const struct elf_syms *es,
			     struct probe_target **out, uint32_t *n, bool many);
/* uprobe_where.c: the attach points placed otherwise than by a function
 * of an ELF file: FILE@SRC.c:LINE[:COL] (DWARF), ARCHIVE.zip!/FILE:...,
 * and under --unsafe a file that is no ELF at an address. Returns 1 when
 * it expanded a, 0 when a is none of those, -1 after an error. */
int probe_uprobe_where(struct probe_env *env, const struct attach_point *a,
		       struct probe_target **out, uint32_t *n);
/* Attaches a uprobe or USDT target (t->a: path, t->offset, t->ref_ctr). */
int probe_uprobe_attach(const struct probe_target *t, int prog_fd,
			struct probe_attachment *att);

#endif
