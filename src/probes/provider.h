/*
 * Probe providers: one table entry per probe type. A provider turns an
 * attach point as written into concrete targets (expanding wildcards),
 * says what its BPF context offers (args, argN, retval, func) for sema and
 * codegen, and attaches a loaded program to a target.
 */
#ifndef SONDE_PROVIDER_H
#define SONDE_PROVIDER_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/attach.h"

struct arena;
struct diag;
struct type;
struct usdt_arg;

/* What a program's context holds; sema refuses builtins a probe lacks. */
enum ctx_feature {
	CTX_ARGS = 1 << 0,   /* `args`: a record (tracefs format or BTF) */
	CTX_ARGN = 1 << 1,   /* arg0..argN from pt_regs or a u64 array */
	CTX_RETVAL = 1 << 2,
	CTX_FUNC = 1 << 3,
	CTX_REGS = 1 << 4,   /* reg("ip") */
	CTX_USER = 1 << 5,   /* integers used as addresses are user space */
	/* ... kernel space; a probe with neither (BEGIN, profile, raw
	 * tracepoints, perf events) reads them with the helper that tries
	 * both, as bpftrace does where it cannot tell the space */
	CTX_KERNEL = 1 << 6,
};

/* How codegen reaches the context's args. */
enum ctx_layout {
	CTXL_NONE,
	CTXL_TRACEPOINT, /* args fields at ctx + offset (raw tp record) */
	CTXL_U64_ARRAY,  /* raw_tp / tp_btf / fentry: ctx is u64 args[] */
	CTXL_PT_REGS,    /* kprobe / uprobe: struct pt_regs */
	CTXL_PERF,       /* perf_event: bpf_perf_event_data */
	CTXL_ITER,       /* iter: ctx points to struct bpf_iter__NAME (args:
			    its record type) */
};

struct provider;

/* What each provider keeps for attaching a target: read only by its own
 * provider file. */
struct probe_tracepoint_data {
	const char *category, *event;
	int32_t id;        /* tracefs event id */
};
struct probe_raw_tp_data {
	const char *name;  /* raw_tp / BTF function or tracepoint name */
	const char *module; /* kfunc: the BTF module, NULL: vmlinux */
	/* rawtracepoint with BTF: what a tp_btf program of it loads with
	 * (sema makes one where socket_cookie() needs a BTF-typed socket) */
	uint32_t tp_btf_id;
	int tp_btf_obj_fd;
};
struct probe_timer_data {
	const char *unit;
	uint64_t period;   /* nanoseconds, or a frequency (freq) */
	bool freq;
};
struct probe_perf_data {
	uint64_t config;   /* software/hardware event */
	uint64_t period;
};
struct probe_user_data {
	uint64_t offset;   /* file offset (uprobe, usdt), offset in func
			      (kprobe) */
	uint64_t ref_ctr;  /* USDT semaphore's file offset, 0: none */
	bool retprobe;
};
struct probe_iter_data {
	const char *pin;   /* path to pin the link at, or NULL: read it */
};
struct probe_watch_data {
	uint64_t addr;
	uint32_t len;
	const char *mode;  /* "rw", "w", "x" ... */
	/* FUNC+argN: the address is argument argn of the function at file
	 * offset func_off of path, known when a uprobe there fires */
	const char *path;  /* NULL: an absolute address */
	uint64_t func_off;
	uint32_t argn;
	bool async;        /* asyncwatchpoint: the tracee is not stopped */
};

/* One concrete attach point, after wildcard expansion. */
struct probe_target {
	const struct provider *prov;
	const char *name;  /* canonical, as the `probe` builtin prints it */
	const char *label; /* the attach point's NAME= (`probe` prints that
			      instead), or NULL */
	/* Fires in attach order even though its provider says
	 * attach_reversed (software cpu-clock and task-clock: each event's
	 * own hrtimer, started as it attaches, expires first) */
	bool in_attach_order;
	bool wild;         /* from an attach point with a wildcard: one that
			      cannot be attached is left out, whatever
			      missing_probes says of explicit ones */
	/* What the program's context offers, for sema and codegen: */
	const struct type *args; /* record type of `args`, or NULL */
	unsigned features; /* CTX_* available */
	enum ctx_layout layout;
	uint32_t nargs;    /* arg0..arg(nargs-1) */
	const struct type *retval; /* type of retval; NULL: u64 */
	const char *func;  /* uprobe, usdt, kprobe: the probed function,
			      which `func` names */
	const char *binary; /* uprobe, usdt: the probed file, in which
			       uaddr() looks symbols up */
	const struct usdt_arg *uargs; /* usdt: where arg0..arg(nargs-1) are */
	/* Program type when it differs from the provider's (0: the
	 * provider's), and what BPF_PROG_TYPE_TRACING loads need. */
	enum bpf_prog_type prog_type;
	enum bpf_attach_type attach_type;
	uint32_t btf_id;
	int btf_obj_fd;    /* module BTF fd, 0 for vmlinux */
	int32_t pid;       /* per-process perf events and uprobes: only that
			      process; 0: all */
	/* The provider's own, by provider. */
	union {
		struct probe_tracepoint_data tp;
		struct probe_raw_tp_data raw;
		struct probe_timer_data timer;
		struct probe_perf_data perf;
		struct probe_user_data user;
		struct probe_watch_data watch;
		struct probe_iter_data iter;
	} u;
};

struct probe_env {
	struct arena *arena;
	struct diag *diag;
	char **params; /* positional parameters, for $1 in attach points */
	int nparams;
	/* -p PID and the -c child (0: none). uprobes trace only the -p
	 * process (bpftrace traces all under -c); per-process perf events
	 * (watchpoints, usdt) take either. Library names are looked up in
	 * the -p process's mappings. */
	int pid, cpid;
	const char *cmd; /* -c CMD (NULL: none): its program is the file of
			    watchpoint:FUNC+argN under -c */
	/* Nothing will be attached (--mode codegen, --dump, --verify): a probe
	 * type this kernel cannot attach is no error then. */
	bool no_attach;
	/* --unsafe: a kprobe on a function the kernel does not list as
	 * traceable is still tried; uprobes on files that are no ELF, at
	 * an address */
	bool unsafe;
	/* Attach points expanded so far: iterators, and the other types that
	 * attach to events (an iterator runs alone, with begin and end) */
	uint32_t niter, nevents;
	/* The probe being expanded uses `args`: providers that type it at a
	 * cost (uprobes, from DWARF, per function) do so only then. */
	bool want_args;
	/* Targets expanded so far, against BPFTRACE_MAX_PROBES (read by
	 * probe_expand; over_limit once it refused). */
	uint64_t nexpanded;
	bool over_limit;
	/* Matches a provider counted without building them, the attach point
	 * having passed the limit already (kprobe:* matches 60,000
	 * functions); probe_expand adds them to nexpanded. */
	uint64_t nunbuilt;
};

/* What attaching one target left open (perf event and link fds), closed
 * in reverse order by probe_detach(). */
struct probe_attachment {
	int *fds;
	uint32_t nfds, cap;
	/* A target that needs user space while it runs (watchpoints armed
	 * when a function is entered): the runtime polls poll_fd and calls
	 * service when it is readable; release (before the fds close)
	 * frees priv. NULL service: none. */
	int poll_fd;
	int (*service)(struct probe_attachment *att);
	void (*release)(struct probe_attachment *att);
	/* unwatch(addr) in the program: stop watching addr (NULL: not a
	 * watchpoint) */
	void (*unwatch)(struct probe_attachment *att, uint64_t addr);
	/* How many of this target's events the kernel counted as missed,
	 * which its program never saw (a kretprobe's returns past its
	 * maxactive); *why gets the reason in a few words. The runtime
	 * reads it before detaching and warns of any. NULL: none counted. */
	uint64_t (*missed)(struct probe_attachment *att, char *why,
			   size_t n);
	void *priv;
};

/* Records fd in att (closing it if that fails). Returns 0 or -ENOMEM. */
int probe_att_push(struct probe_attachment *att, int fd);
/* Closes everything att holds, last first, and empties it. */
void probe_detach(struct probe_attachment *att);
/* probe_detach() of atts[0..n), in several threads: each close waits for
 * an RCU grace period (~30 ms), and waits that overlap end together, so
 * 2,000 probes detach in a fraction of a second rather than a minute
 * (where the kernel does not serialise them: uprobes take ~0.1 s each,
 * one after the other). tick (may be NULL) is called from the calling
 * thread as they go, at least every 100 ms, with how many of those that
 * held something (links, perf events) are done. */
void probe_detach_all(struct probe_attachment *atts, uint32_t n,
		      void (*tick)(void *ctx, uint32_t done), void *ctx);

/* When a provider's programs run. */
enum probe_run {
	PROBE_RUN_ATTACHED, /* on their events, through attach */
	PROBE_RUN_BEGIN,    /* once, before anything else (BEGIN) */
	PROBE_RUN_END,      /* once, at the end (END) */
	PROBE_RUN_SIGNAL,   /* on each SIGUSR1 to sonde (self:signal) */
	PROBE_RUN_BENCH,    /* repeatedly, timed, under --bench */
	PROBE_RUN_TEST,     /* once each, under --test */
};

struct provider {
	const char *name;
	/* The other names scripts may call it by ("t"), NULL-terminated;
	 * NULL: none. */
	const char *const *aliases;
	enum probe_run run;
	enum bpf_prog_type prog_type;
	/* Under -p, its programs return at once in other processes (0.24+:
	 * -p selects the process for every probe that fires on events);
	 * uprobes, USDT and watchpoints are attached to the process itself,
	 * the timers and the probes sonde runs are no process's. */
	bool pid_in_program;
	/* Appends the targets of attach point a; reports errors with a's
	 * span and returns -1 on failure. */
	int (*expand)(struct probe_env *env, const struct attach_point *a,
		      struct probe_target **out, uint32_t *n);
	/* Whether the targets of one probe need a program each (their
	 * contexts differ) rather than one shared program. */
	bool per_target_program;
	/* Attaches a loaded program to one target, recording every fd it
	 * opens in att even on failure (the caller then calls probe_detach).
	 * Returns 0 or -errno. NULL for the types that run once (BEGIN and
	 * END), which the runtime runs through BPF_PROG_TEST_RUN instead. */
	int (*attach)(const struct probe_target *t, int prog_fd,
		      struct probe_attachment *att);
	/* Attaches one program to targets t[0..n) at once, all of one file,
	 * process and kind, target i firing with cookies[i] (the program
	 * reads it with bpf_get_attach_cookie), in one kernel link that
	 * detaches in one grace period; the program is loaded with
	 * multi_attach_type. NULL: none, or multi_ok says no. */
	int (*attach_multi)(const struct probe_target *t, uint32_t n,
			    const uint64_t *cookies, int prog_fd,
			    struct probe_attachment *att);
	/* Whether targets t[0..n) can share one attach_multi, on this
	 * kernel. */
	bool (*multi_ok)(const struct probe_target *t, uint32_t n);
	/* The -errno the kernel is known to refuse attaching t with, before
	 * trying, or 0: one such target fails a whole attach_multi, which
	 * is then split down to it (seconds, for thousands of uprobes).
	 * NULL: none known. */
	int (*refuses)(const struct probe_target *t);
	uint32_t multi_attach_type;
	/* Why --emit-elf cannot carry this type's programs to another run
	 * (NULL: it can). */
	const char *not_emittable;
	/* The kernel runs the programs on one event last attached first
	 * (each uprobe perf event is its own consumer, a software event
	 * joins its CPU's list at the head, kprobes on one address and
	 * fentry programs likewise): the runtime attaches these targets in
	 * reverse, so that probes on one event fire in the script's order.
	 * The set is bpftrace's (attach_reverse() in its bpftrace.cpp). */
	bool attach_reversed;
	/* For -l: prints the probes of this type whose full name
	 * ("type:...", as `probe` prints it) matches the glob pattern, one
	 * per line; with verbose, each probe's arguments and their types
	 * follow it, indented. NULL when the type has nothing to list
	 * (BEGIN, interval, ...), or lists under another type (return
	 * probes under their entry type). Returns 0 or -errno. */
	int (*list)(const char *pattern, bool verbose, FILE *out);
	/* For targets whose program runs when read (BPF iterators): after
	 * attaching, the runtime calls this instead of waiting for events;
	 * it runs the program over every object, writing what it prints to
	 * out (or pins it, saying so). Returns 0 or -errno, having said
	 * what failed on stderr. NULL: none. */
	int (*iterate)(const struct probe_target *t,
		       struct probe_attachment *att, FILE *out);
};

/* The provider of a canonical probe type (attach_point.provider), or NULL
 * when sonde does not support that type yet. */
const struct provider *probe_provider(const char *canonical_name);

/* The canonical name of probe type name or one of its aliases ("t" ->
 * "tracepoint"), also for the types bpftrace has and sonde does not
 * support yet (whose probes probe_expand() then refuses); NULL when no
 * tracer knows it. */
const char *probe_type_canonical(const char *name);

/* The i-th provider, NULL past the last: for walking them all. */
const struct provider *probe_provider_at(size_t i);

/* Adds a provider after the built-in ones (tests, embedders). Returns 0,
 * -EEXIST when its name or an alias is taken, or -ENOSPC. */
int probe_register(const struct provider *p);

/* A rawtracepoint target with BTF arguments made a tp_btf program
 * (BPF_PROG_TYPE_TRACING), whose context the verifier types: what
 * socket_cookie() needs. False (t unchanged) for any other target or a
 * kernel without tp_btf. */
bool probe_rawtp_as_tp_btf(struct probe_target *t);

/* Expands an attach point through its provider. Unsupported probe types
 * ("kprobe probes are not supported yet") and bad attach points are
 * reported with a's span; returns -1 then, else 0. */
int probe_expand(struct probe_env *env, const struct attach_point *a,
		 struct probe_target **out, uint32_t *n);
/* Expands the nattach attach points of one probe into *out. What does
 * not exist here is judged by limits.missing_probes (probe_missing); a
 * probe left with no target is an error, or, when missing probes are
 * warned about or ignored, removed. Returns -1 after an error, 1 when the
 * probe is to be removed, else 0. */
int probe_expand_probe(struct probe_env *env, const struct attach_point *att,
		       uint32_t nattach, struct probe_target **out,
		       uint32_t *n);

/* -l: prints the probes matching pattern (all of them when NULL) of every
 * type that has a list hook, sorted as bpftrace prints them. 0 or -errno
 * (of the first hook that failed; the others still print). */
int probe_list(const char *pattern, bool verbose, FILE *out);
/* -l SEARCH: bpftrace 0.26's reading of the search: comma-separated
 * patterns, each listed in turn (white space trimmed and squeezed), those
 * naming a type ("struct task_struct", "union *", "enum *") listing the
 * kernel's BTF types (-lv: their definitions) instead of probes; with a
 * warning when the search looks like a file name that does not exist.
 * NULL lists everything. 0 or -errno. */
int probe_list_search(const char *search, bool verbose, FILE *out);
/* -l with a program: what one of its attach points matches (BEGIN and
 * END nothing; software, hardware, interval and profile probes without
 * their count, "interval:s:"). 0 or -errno. */
int probe_list_attach(const struct attach_point *ap, bool verbose,
		      FILE *out);
/* -l: a located error for a character no attach point holds (a control
 * character, a backslash outside quotes); bpftrace reads the pattern as
 * a probe and refuses it too. 0, or -1 after reporting to d. */
struct diag;
int probe_list_check(const char *pattern, struct diag *d);
/* -l with -p PID: uprobe and usdt list the files that process has mapped
 * (0: none, the default). */
void probe_list_set_pid(int pid);

/* A fingerprint of what codegen compiles against in target t (its name,
 * program type, context layout, the types of args and retval): an object
 * --emit-elf wrote runs only where its targets still have the one each
 * program was compiled for. */
uint32_t probe_target_hash(const struct probe_target *t);

/* What the `probe` builtin names target t by. */
static inline const char *probe_target_label(const struct probe_target *t)
{
	return t->label ? t->label : t->name;
}

/* Appends one target to a growable array in the arena. */
struct probe_target *probe_target_add(struct arena *a,
				      struct probe_target **arr, uint32_t *n);

#endif
