/* Shared by the provider files of src/probes/ only. */
#ifndef SONDE_PROBES_IMPL_H
#define SONDE_PROBES_IMPL_H

#include "probes/provider.h"

extern const struct provider probe_begin_prov, probe_end_prov,
	probe_tracepoint_prov, probe_interval_prov, probe_profile_prov;
/* uprobe.c, usdt.c, kprobe.c */
extern const struct provider probe_uprobe_prov, probe_uretprobe_prov,
	probe_usdt_prov, probe_kprobe_prov, probe_kretprobe_prov;

/* Parses a positive decimal count (or "$N", a positional parameter) from
 * an attach point part. Returns 0, -EINVAL when it is not a number, or
 * -ERANGE when it is zero or does not fit. */
int probe_parse_count(const struct probe_env *env, const char *s,
		      uint64_t *out);

/* Attaches prog_fd to perf event pfd and records both in att. Takes
 * ownership of pfd; pfd < 0 is an error passed through. */
int probe_attach_perf(int pfd, int prog_fd, struct probe_attachment *att);

struct elf_syms;
/* uprobe.c, shared with usdt.c: the file an attach point's first part
 * names (a path, or a library or program by name), in the arena; and its
 * ELF symbols (elfsym_free them). Both report errors with a's span, kind
 * ("uprobe", "usdt") leading the message, and return NULL then. */
const char *probe_user_path(struct probe_env *env, const struct ast_attach *a,
			    const char *kind);
struct elf_syms *probe_user_elf(struct probe_env *env,
				const struct ast_attach *a, const char *kind,
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
