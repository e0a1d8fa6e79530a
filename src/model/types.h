/*
 * The types of sonde values. Sema assigns one to every expression; codegen
 * uses size/layout; the runtime uses them to decode map keys/values and
 * event records. A type fully describes its byte layout.
 */
#ifndef SONDE_TYPES_H
#define SONDE_TYPES_H

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct strbuf;

enum type_kind {
	TY_NONE,   /* not (yet) known */
	TY_VOID,
	TY_INT,    /* size 1, 2, 4 or 8; is_signed */
	TY_STRING, /* char[size], NUL-padded */
	TY_BUF,    /* struct { u32 len; u8 data[size - 4]; }, printed as \xNN */
	TY_TUPLE,  /* fields, C-aligned */
	TY_RECORD, /* struct/union (BTF or script-defined) */
	TY_PTR,    /* elem; is_user says which address space */
	TY_ARRAY,  /* elem[count] */
	TY_KSTACK, /* struct { u64 nframes; u64 ips[stack_limit]; } */
	TY_USTACK, /* struct { u64 nframes; u64 pid; u64 ips[stack_limit]; }
		    * ips past nframes are zero, so equal stacks are equal
		    * bytes (map keys); in build_id mode the ips are struct
		    * bpf_stack_build_id of 32 bytes: s32 status; u8
		    * build_id[20]; u64 offset (or ip) */
	TY_KSYM,   /* u64 address */
	TY_USYM,   /* struct { u64 addr; u64 pid; } */
	TY_INET,   /* struct { u64 af; u8 addr[16]; } from ntop() */
	TY_MACADDR, /* u8[6] */
	TY_USERNAME, /* u64 uid, printed as the user's name */
	TY_PROBE,  /* u64 probe index, printed as the probe's name */
	TY_CGROUP_PATH, /* struct { u64 id; } printed as a path */
	TY_STRERROR, /* struct { u64 errno; } printed as strerror(errno) */
	TY_SIGNAME,  /* struct { u64 sig; } printed as signal_name(sig) */
	TY_SYSCALL_NAME, /* struct { u64 nr; } printed as syscall_name(nr) */
	TY_TIMESTAMP, /* u64 nanoseconds */
	/* Aggregations: only ever map values. Per-CPU layouts: */
	TY_COUNT,  /* u64 */
	TY_SUM,    /* s64 (u64 when is_signed is false) */
	TY_MIN,    /* struct { s64 val; u64 set; } */
	TY_MAX,    /* struct { s64 val; u64 set; } */
	TY_AVG,    /* struct { s64 sum; u64 count; } */
	TY_STATS,  /* struct { s64 sum; u64 count; } */
	TY_HIST,   /* u64 count; the map key ends with a u64 bucket */
	TY_LHIST,  /* u64 count; the map key ends with a u64 bucket */
	/* (after the aggregations: kinds are numbered in serialised
	 * programs) */
	TY_BOOL,   /* u8 0 or 1 (any other byte reads as true), printed
		    * true/false: comparisons, !, && and || make one */
	TY_TSERIES, /* struct { s64 val; s64 meta; u64 epoch; }; the key ends
		     * with a u64 bucket (epoch % intervals); lmin: the
		     * interval in ns, lmax: the number of intervals, lstep:
		     * enum tseries_agg; is_signed: the values' sign */
	TY_FLOAT,  /* float, double, long double of a C definition (size 4,
		    * 8, 16): 0.26 has no floating point, and prints null */
};

/* tseries(v, interval, n[, agg]): what one interval keeps. */
enum tseries_agg { TSERIES_LAST, TSERIES_AVG, TSERIES_MAX, TSERIES_MIN,
		   TSERIES_SUM };

/* STACK_BUILD_ID (ustack only): no addresses but the build id of the file
 * and the offset in it, as the kernel's BPF_F_USER_BUILD_ID gives them. */
enum stack_mode { STACK_BPFTRACE, STACK_PERF, STACK_RAW, STACK_BUILD_ID };

/* Which memory an integer that holds an address points into, as bpftrace
 * keeps it with the type: a pointer stored in a map, a tuple or cast to an
 * integer stays a user or kernel address. AS_NONE: not known to be an
 * address (read in the space of the probe that reads it); AS_MIXED: both
 * spaces were stored in one place (read with the helper that tries both,
 * as bpftrace does for an unset address space). */
enum addr_space { AS_NONE, AS_KERNEL, AS_USER, AS_MIXED };

struct type;

/* A C enum's enumerators: an integer of its type prints as the name of
 * its value (bpftrace 0.26's Symbolic), the number when none has it. */
struct type_enumerator {
	const char *name;
	uint64_t value;
};
struct type_enum {
	const char *name; /* "Foo" of enum Foo; NULL: anonymous */
	uint32_t n;
	const struct type_enumerator *vals;
};

struct type_field {
	const char *name;
	const struct type *type;
	uint32_t offset;    /* bytes */
	uint16_t bit_off;   /* bitfields: bit offset within offset..size */
	uint16_t bit_size;  /* 0: not a bitfield */
	/* Tracepoint dynamic arrays: the field is a u32 loc word, offset |
	 * len << 16; DATA_LOC offsets count from the record, REL_LOC ones
	 * from the end of the word. The field's type is what it points to. */
	enum { FIELD_PLAIN, FIELD_DATA_LOC, FIELD_REL_LOC } loc;
};

struct type {
	enum type_kind kind;
	uint32_t size;  /* bytes of the value's storage */
	uint32_t align;
	bool is_signed;
	bool is_user;   /* PTR/RECORD/ARRAY/STRING read from user memory; INT:
			 * a user pointer stored in a map */
	bool is_union;  /* RECORD */
	bool str_whole; /* STRING: a char[N] the script declared in C, whose
			 * N bytes are the whole string: one that fills them
			 * was not cut (bpftrace 0.26 reads such a field with
			 * one byte more, so that a NUL after it ends it) */
	uint8_t addr;   /* INT: enum addr_space of the address it holds;
			 * PTR/ARRAY (not is_user): AS_MIXED when the space
			 * is unknown (a cast in a probe of no space) */
	const struct type *elem; /* PTR pointee, ARRAY element */
	uint32_t count;          /* ARRAY length */
	uint32_t nfields;        /* TUPLE, RECORD */
	struct type_field *fields;
	const char *name;        /* RECORD: "struct foo"; INT: typedef name;
				  * CGROUP_PATH: the hierarchies' glob */
	int32_t btf_id;          /* RECORD from kernel BTF (0: none) */
	/* LHIST parameters */
	int64_t lmin, lmax, lstep;
	/* HIST: hist(n, k)'s k, 2^k buckets per power of 2 (0..5) */
	uint32_t hbits;
	/* KSTACK/USTACK */
	enum stack_mode stack_mode;
	uint32_t stack_limit;
	/* USTACK: unwound by the walker over .eh_frame tables
	 * (model/unwind.h: dw_ustack, ustack_unwind = dwarf); the pid word
	 * then carries UW_FLAG_* above the pid */
	bool stack_dwarf;
	/* INT: the enum whose value it is (NULL: a plain integer). Not part
	 * of the layout: type_equal leaves it out. */
	const struct type_enum *enm;
};

/* Shared, immutable instances of the common scalars. */
extern const struct type type_none, type_void, type_u8, type_u16, type_u32,
	type_u64, type_s8, type_s16, type_s32, type_s64, type_bool;

const struct type *type_int(int size, bool is_signed);
/* The integer t (INT) marked as an address into space as (AS_NONE: t
 * unmarked). */
const struct type *type_int_addr(struct arena *a, const struct type *t,
				 enum addr_space as);
/* The address space of an address held in t: a pointer's, or what an
 * integer was marked with. */
enum addr_space type_addr_space(const struct type *t);
struct type *type_new(struct arena *a, enum type_kind kind, uint32_t size);
const struct type *type_string(struct arena *a, uint32_t size);
/* An array of n elements of type el. */
const struct type *type_array(struct arena *a, const struct type *el,
			      uint32_t n);
/* The bytes one step of pointer type p moves: what it points to (8 for
 * a pointer), 1 for void * (GNU C's rule, and bpftrace's: its stdlib's
 * container_of steps a void * by bytes); 0 for other sizeless types. */
uint32_t type_ptr_step(const struct type *p);
const struct type *type_ptr(struct arena *a, const struct type *elem,
			    bool is_user);
/* A pointer into space as (AS_NONE: kernel). */
const struct type *type_ptr_in(struct arena *a, const struct type *elem,
			       enum addr_space as);
/* Builds a tuple, laying its fields out with C alignment. */
const struct type *type_tuple(struct arena *a, const struct type **elems,
			      uint32_t n);
/* A record, (name = "x", size = 2): a tuple whose fields have names. */
const struct type *type_record(struct arena *a, const struct type **elems,
			       const char *const *names, uint32_t n);
/* Whether tuple t is a record (its fields named). */
static inline bool type_is_record(const struct type *t)
{
	return t->kind == TY_TUPLE && t->nfields && t->fields[0].name;
}
/* The field of record t named name, or NULL. */
const struct type_field *type_record_field(const struct type *t,
					   const char *name);
/* Whether t (NULL: no) or a field of a tuple t is of a kind in kinds
 * (a list ended by TY_NONE). */
bool type_holds(const struct type *t, const enum type_kind *kinds);
/* kstack/ustack of up to limit frames, printed in mode. */
const struct type *type_stack(struct arena *a, bool user,
			      enum stack_mode mode, uint32_t limit);
/* Bytes per frame of stack type t: 8, or 32 in build_id mode. */
uint32_t type_stack_frame_size(const struct type *t);
/* The frames of stack type t at data: how many (at most its limit, up to
 * the first zero or empty one); ips points to them. */
uint32_t type_stack_frames(const struct type *t, const uint8_t *data,
			   const uint8_t **ips);
/* Frame i of those: an address, or in build_id mode the offset in the
 * file whose 20-byte build id is build_id (NULL when the kernel could
 * read no build id and kept the address). */
struct stack_frame {
	uint64_t ip;
	const uint8_t *build_id;
};
struct stack_frame type_stack_frame(const struct type *t, const uint8_t *ips,
				    uint32_t i);
/* A C integer type name ("unsigned long", "const u32", "pid_t", "int8"):
 * qualifiers and "signed"/"unsigned" are understood. False if unknown. */
bool type_c_int(const char *text, uint32_t *size, bool *is_signed);
bool type_equal(const struct type *a, const struct type *b);
/* The integer type of size/sign that is a value of enum e (NULL: the
 * plain integer). */
const struct type *type_int_enum(struct arena *a, const struct type *t,
				 const struct type_enum *e);
/* The name of enum e's enumerator of value v, or NULL. */
const char *type_enum_name(const struct type_enum *e, uint64_t v);
/* Whether a and b are values of one enum (both plain: true). */
bool type_same_enum(const struct type *a, const struct type *b);
bool type_is_aggregation(const struct type *t);
/* count, sum, min, max, avg: aggregations that read as one integer (their
 * per-CPU values merged), as bpftrace 0.26's "castable" map types. */
bool type_is_castable_agg(const struct type *t);
bool type_is_integer_like(const struct type *t); /* INT, or PTR */
/* "int64", "string[16]", "(int64,string[64])", "struct task_struct *" ...
 * in bpftrace's spelling, for messages. */
void type_describe(const struct type *t, struct strbuf *sb);

#endif
