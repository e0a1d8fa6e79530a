/*
 * The compiled program: everything the runtime needs, produced by codegen
 * and consumed by the loader and the run loop. Nothing here refers back to
 * the AST, so the compile arena's AST can be forgotten after codegen; the
 * types and formats referenced live in the run arena.
 *
 * Ring buffer records start with struct event_hdr; the payload layout is
 * described by the event at hdr.id.
 */
#ifndef SONDE_COMPILED_H
#define SONDE_COMPILED_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/bytecode.h"
#include "util/diag.h"

struct fmt;
struct probe_target; /* probes/provider.h */
struct type;

/* A BPF map to create. User maps (@x) also carry what printing needs. */
struct cmap {
	const char *name;       /* "@x", "@"; internal maps: ".ringbuf" ... */
	enum bpf_map_type type;
	uint32_t key_size, value_size, max_entries;
	uint32_t flags;
	bool is_user;           /* printed at exit */
	bool percpu;
	bool declared;          /* let @m = TYPE(N): its type and size */
	const struct type *key; /* NULL: key-less (see runtime/mapdump.h) */
	const struct type *value;
	/* How the script writes each key part ("comm", "pid"; "" when its
	 * uses differ), for pprof labels; NULL when unknown (not carried by
	 * --emit-elf objects). */
	const char *const *key_names;
	uint32_t nkey_names;
	/* Map index of the counter (an array of one u64) of aggregation
	 * inserts lost because this map was full, reported at exit; 0: none
	 * (map 0 is never a counter: the user maps are declared first). */
	int32_t full_counter;
	uint32_t full_off;      /* of this map's u64 in full_counter's value */
	/* Where len(@m) cannot iterate the map (no bpf_for_each_map_elem,
	 * before 5.13): map index of the mmapable array whose u64 at
	 * len_off counts its keys, kept by the program as it inserts and
	 * deletes them and by the runtime as clear() deletes them; 0: none. */
	int32_t len_counter;
	uint32_t len_off;
	/* A key-less plain map kept as entry slot_key of map host, a hash
	 * shared by the key-less maps of one value size, so that many of
	 * them stay far from the kernel's 64 maps per program. The loader
	 * gives it a dup of host's fd. */
	bool shared;
	uint32_t host;
	uint64_t slot_key;
	/* Where hash keys stop at 512 bytes (model/stackids.h): a user map
	 * whose keys hold each stack as its id (key_size is the stored
	 * size; key stays the whole key, as printed), and a stack table
	 * (u64 id -> the stack; value is its type, full_counter counts the
	 * stacks it had no room for). */
	bool stack_ids;
	bool stack_table;
	/* What set its size, where the kernel's refusal to create it is
	 * reported: its declaration (let @m = hash(N)), the config's
	 * max_map_keys, or its first use; none (file NULL) for internal
	 * maps and objects read back (--emit-elf). */
	struct span at;
};

/* One BPF program and where it attaches. */
struct cprog {
	const char *name;         /* for messages: the probe as written */
	struct bpf_code code;      /* insns + map relocations (map indexes) */
	enum bpf_prog_type type;
	enum bpf_attach_type expected_attach_type;
	uint32_t attach_btf_id;
	int attach_btf_obj_fd;    /* module BTF, 0: vmlinux */
	const struct probe_target *targets;
	uint32_t ntargets;
	/* Per target: its attach cookie, the targets attached all at once
	 * by their provider's attach_multi; NULL: one attach per target. */
	const uint64_t *cookies;
	/* the probes it stands for in "Attached N probes" (0: ntargets):
	 * one program dispatching on the syscall number counts each */
	uint32_t ncounted;
	/* another site of the probe of the program before it (a USDT
	 * marker the compiler duplicated): bpftrace counts a probe once,
	 * however many sites it has */
	bool uncounted;
	bool is_begin, is_end;    /* run once through BPF_PROG_TEST_RUN */
	bool is_signal;           /* ... on each SIGUSR1 (self:signal) */
	bool is_bench, is_test;   /* ... under --bench, --test */
	/* "FILE:LINE:COL" of the program's first while loop (NULL: none),
	 * named when the verifier gives up on following it */
	const char *loop_at;
};

enum event_kind {
	EV_PRINTF,      /* fmt + args */
	EV_SYSTEM,      /* fmt + args, then run the command (--unsafe) */
	EV_CAT,         /* fmt + args name a file to print */
	EV_TIME,        /* fmt: strftime format of the current time */
	EV_EXIT,        /* stop tracing */
	EV_PRINT_MAP,   /* map, top, div */
	EV_PRINT_VALUE, /* args[0] is the value */
	EV_CLEAR,       /* map */
	EV_ZERO,        /* map */
	EV_JOIN,        /* args[0]: array of strings; sep */
	EV_UNWATCH,     /* args[0]: an address whose watchpoints go */
	EV_HELPER_ERROR, /* -k/-kk: args[0] the s64 a helper returned;
			  * text: the helper's name; at: the expression */
	EV_RUNTIME_ERROR, /* bpftrace 0.26's runtime warnings (a division
			   * by 0): text says what, at where; no args */
	EV_WARNF,       /* fmt + args, a located WARNING; at: the call */
	EV_ERRORF,      /* fmt + args, a located ERROR; at: the call */
};

struct event_hdr {
	uint32_t id;  /* index into compiled.events */
	uint32_t pad;
};

/* What a record kind means and how its payload (after the header) is
 * laid out: argument i is at offsets[i] with type args[i]. */
struct cevent {
	enum event_kind kind;
	const struct fmt *fmt;       /* PRINTF/SYSTEM/CAT */
	const char *text;            /* TIME: format; JOIN: separator */
	const struct type **args;
	const uint32_t *offsets;
	uint32_t nargs;
	uint32_t size;               /* payload bytes */
	int32_t map;                 /* PRINT_MAP/CLEAR/ZERO: map index */
	uint32_t top, div;           /* PRINT_MAP */
	struct span at;              /* HELPER_ERROR, WARNF, ERRORF */
	/* WARNF, ERRORF: the calls of the macros at is in, innermost
	 * first, printed as "expanded from" after it */
	const struct span *from;
	uint32_t nfrom;
};

struct compiled {
	struct cmap *maps;
	uint32_t nmaps;
	struct cprog *progs;
	uint32_t nprogs;
	struct cevent *events;
	uint32_t nevents;
	int32_t ringbuf;          /* map index of the ring buffer, or -1 */
	/* Array (one u64) that the attached programs check first and return
	 * at when non-zero, so that a script with many probes stops counting
	 * at once at exit and prints before its slow detach; -1: none (the
	 * few probes are detached before printing instead). */
	int32_t stop_flag;
	int32_t lost_counter;     /* array (one u64) counting failed sends,
				     or -1 */
	const char **probe_names; /* for the `probe` builtin's values */
	uint32_t nprobe_names;
};

#endif
