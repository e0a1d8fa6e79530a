/*
 * The output interface: everything the runtime prints goes through one
 * struct out, whose ops table is a format. output_text.c and output_json.c
 * are the two formats; a new format is a new file plus one line in the
 * table of output.c.
 *
 * Formats only render: reading, merging and sorting maps is mapdump's job,
 * and values are decoded by value_fmt from (struct type, bytes).
 */
#ifndef SONDE_OUTPUT_H
#define SONDE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/diag.h"

struct strbuf;
struct type;
struct out_tpoint;

/*
 * What a value cannot print by itself: symbols, stacks, probe and cgroup
 * names, the wall clock. The runtime fills it in; every member may be left
 * zero, and then the fallback in brackets is used.
 */
struct srcline;

struct out_resolver {
	void *ctx;
	/* Appends the symbol of addr: "func", or "func+0x1f" when offset.
	 * pid < 0: a kernel address. Returns 0, or -errno (e.g. -ENOENT)
	 * when unknown. [the address as "0x1f2e"] */
	int (*sym)(void *ctx, uint64_t addr, int32_t pid, bool offset,
		   struct strbuf *sb);
	/* Appends the file holding user address addr of pid (perf-mode
	 * stacks print it). [unknown] */
	int (*module)(void *ctx, uint64_t addr, int32_t pid,
		      struct strbuf *sb);
	/* Whether user address addr lies in an executable mapping of pid:
	 * 1, 0 (a false frame: the stack ends there, truncated), or -1 when
	 * pid's mappings are unknown. [-1] */
	int (*mapped)(void *ctx, uint64_t addr, int32_t pid);
	/* Appends "FILE+0xOFFSET" for user address addr of pid: the base
	 * name of the file mapped there and addr's offset in that file, which
	 * is the same in every run and process (profiles key a frame with no
	 * symbol by it). -ENOENT where no file is mapped. [the address] */
	int (*file_offset)(void *ctx, uint64_t addr, int32_t pid,
			   struct strbuf *sb);
	/* The frames at user address addr of pid: the calls inlined there,
	 * innermost first, then the function addr is in, with their source
	 * lines (leaf: addr is the frame's own, not a return address); at
	 * most max. Returns their number: 0 without debug info. */
	int (*lines)(void *ctx, uint64_t addr, int32_t pid, bool leaf,
		     struct srcline *out, int max);
	/* Appends the path(s) of a cgroup id in the hierarchies whose names
	 * match glob (NULL: all). [the id in decimal] */
	int (*cgroup_path)(void *ctx, uint64_t cgid, const char *glob,
			   struct strbuf *sb);
	/* probe() values index this table. [the index in decimal] */
	const char *const *probe_names;
	uint32_t nprobes;
	/* CLOCK_REALTIME - CLOCK_BOOTTIME in ns, to turn strftime()'s
	 * boot-relative timestamps into wall-clock time. */
	int64_t boot_wall_ns;
};

/* One map entry, decoded and merged across CPUs. */
struct out_entry {
	const uint8_t *key;       /* key type's bytes; NULL when key-less */
	const uint8_t *value;     /* value type's layout (merged); not hists */
	const uint64_t *buckets;  /* HIST/LHIST: count per bucket index */
	uint32_t nbuckets;
	const struct out_tpoint *points; /* TSERIES: its intervals */
	uint32_t npoints;
};

/* A map ready to print: entries already sorted and cut to top. */
struct out_map {
	const char *name;          /* "@", "@name" */
	const struct type *key;    /* NULL: key-less; TUPLE: @m[a, b, ...] */
	const struct type *value;  /* COUNT, SUM, ..., HIST, LHIST, or plain */
	const struct out_entry *entries;
	size_t n;
	uint64_t div;              /* print(@m, top, div); 0: none */
};

struct out;

struct out_ops {
	const char *name; /* "text", "json" */
	/* "Attached N probes", once everything is attached */
	void (*attached_probes)(struct out *o, uint32_t n);
	/* Formatted printf() text, time() text, cat() file contents,
	 * system() output, join() result (without its newline). */
	void (*printf_)(struct out *o, const char *s, size_t len);
	void (*time)(struct out *o, const char *s, size_t len);
	void (*cat)(struct out *o, const char *s, size_t len);
	void (*syscall)(struct out *o, const char *s, size_t len);
	void (*join)(struct out *o, const char *s, size_t len);
	void (*lost_events)(struct out *o, uint64_t n);
	/* -k/-kk: helper failed with ret in the expression at */
	void (*helper_error)(struct out *o, const char *helper, int64_t ret,
			     struct span at);
	/* a runtime warning of the program (msg: what happened) at an
	 * expression; may be NULL (nothing printed) */
	void (*runtime_error)(struct out *o, const char *msg, struct span at);
	/* warnf()/errorf(): the formatted text, located at the call, and
	 * the calls of the macros it is in (innermost first) */
	void (*located)(struct out *o, bool error, const char *s, size_t len,
			struct span at, const struct span *from,
			uint32_t nfrom);
	/* print(expr) of a non-map value */
	void (*value)(struct out *o, const struct type *t, const void *data);
	/* print(@m) and the maps printed at exit */
	void (*map)(struct out *o, const struct out_map *m);
	/* Once, after END, before the maps printed at exit (out_end). */
	void (*end)(struct out *o);
};

struct out {
	const struct out_ops *ops;
	FILE *f;
	FILE *console; /* the exit newlines: stdout with -o FILE, else f */
	FILE *err;     /* what text prints beside the program's output
			  (bpftrace 0.24+'s "Attached N probes"): stderr */
	const struct out_resolver *res; /* NULL: all fallbacks */
	void *ctx; /* the state of a wrapper of ops (runtime/heatmap.c) */
	bool no_warnings; /* --no-warnings: text prints no -k warnings */
};

/* Sets up o for format "text" or "json". Returns 0 or -EINVAL. */
int out_init(struct out *o, const char *format, FILE *f,
	     const struct out_resolver *res);

extern const struct out_ops out_text_ops, out_json_ops;

static inline void out_attached_probes(struct out *o, uint32_t n)
{
	o->ops->attached_probes(o, n);
}
static inline void out_printf(struct out *o, const char *s, size_t len)
{
	o->ops->printf_(o, s, len);
}
static inline void out_time(struct out *o, const char *s, size_t len)
{
	o->ops->time(o, s, len);
}
static inline void out_helper_error(struct out *o, const char *helper,
				    int64_t ret, struct span at)
{
	o->ops->helper_error(o, helper, ret, at);
}
static inline void out_runtime_error(struct out *o, const char *msg,
				     struct span at)
{
	if (o->ops->runtime_error)
		o->ops->runtime_error(o, msg, at);
}

static inline void out_located(struct out *o, bool error, const char *s,
			       size_t len, struct span at,
			       const struct span *from, uint32_t nfrom)
{
	o->ops->located(o, error, s, len, at, from, nfrom);
}
static inline void out_cat(struct out *o, const char *s, size_t len)
{
	o->ops->cat(o, s, len);
}
static inline void out_syscall(struct out *o, const char *s, size_t len)
{
	o->ops->syscall(o, s, len);
}
static inline void out_join(struct out *o, const char *s, size_t len)
{
	o->ops->join(o, s, len);
}
static inline void out_lost_events(struct out *o, uint64_t n)
{
	o->ops->lost_events(o, n);
}
static inline void out_value(struct out *o, const struct type *t,
			     const void *data)
{
	o->ops->value(o, t, data);
}
static inline void out_map(struct out *o, const struct out_map *m)
{
	o->ops->map(o, m);
}
/* Once, after END, before the maps printed at exit: text writes two
 * newlines to o->console (bpftrace writes them to stdout even when -o
 * sends the rest to a file); JSON writes nothing, as bpftrace 0.26. */
static inline void out_exit_begin(struct out *o)
{
	o->ops->end(o);
}

/* Helpers shared by the formats. */

/* Writes sb to o->f and flushes, so output interleaves with the
 * workload's as it happens (bpftrace ends every line with std::endl). */
void out_write(struct out *o, const struct strbuf *sb);
/* Average of a merged AVG/STATS value {s64 sum; u64 count}: 0 when empty. */
int64_t out_average(const void *value);
/* The (divided) integer of a COUNT/SUM/MIN/MAX/INT value, as text. */
void out_scalar(struct strbuf *sb, const struct type *t, const void *value,
		uint64_t div);

#endif
