/*
 * tracefs: where it is, what tracepoints exist, and the layout of their
 * records (events/CAT/NAME/format), turned into sonde types for `args`.
 */
#ifndef SONDE_TRACEFS_H
#define SONDE_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct type;

enum tracefs_loc {
	TRACEFS_PLAIN,
	/* The field is a u32 holding offset | len << 16 of a dynamic array.
	 * DATA_LOC offsets count from the record start, REL_LOC offsets
	 * from the end of the u32 itself. */
	TRACEFS_DATA_LOC,
	TRACEFS_REL_LOC,
};

struct tracefs_field {
	const char *name;
	const char *ctype;   /* element C type: "const char *", "char", "pid_t" */
	uint32_t offset;     /* from the record start (= raw ctx start) */
	uint32_t size;       /* bytes of storage in the record */
	uint32_t array_len;  /* "char comm[16]": 16; 0 when not an array */
	bool is_array;       /* also true for "[]" and __data_loc char[] */
	bool is_signed;      /* the format's own signed: flag */
	bool is_common;      /* common_* header: not part of args */
	enum tracefs_loc loc;
};

struct tracefs_format {
	const char *category, *name;
	uint32_t id;
	uint32_t nfields;
	struct tracefs_field *fields;
};

/* The tracefs mount point ("/sys/kernel/tracing" or the debugfs one),
 * mounting it at /sys/kernel/tracing if neither is there. NULL, with errno
 * set, when tracefs cannot be had. The answer is cached. */
const char *tracefs_dir(void);
/* Formats tracefs_dir()/REL into buf. -ENOENT without tracefs,
 * -ENAMETOOLONG if buf is too small. */
int tracefs_path(char *buf, size_t n, const char *rel);

/* Parses the text of a format file. Strings and fields live in a. */
int tracefs_parse_format(struct arena *a, const char *text,
			 struct tracefs_format *out);
/* Reads and parses events/CAT/NAME/format: -ENOENT for no such event. */
int tracefs_format(struct arena *a, const char *cat, const char *name,
		   struct tracefs_format *out);
/* events/CAT/NAME/id, for perf_event_open: the id, or -errno. */
int tracefs_event_id(const char *cat, const char *name);
bool tracefs_event_exists(const char *cat, const char *name);

/* The sonde type of one field, as bpftrace types it: integers sized by the
 * record (an "int" stored in 8 bytes is an int64) and signed as the C type
 * says; "char x[N]" is string[N]; other arrays are arrays; pointers are
 * u64-sized, is_user when user_ptrs (syscalls: args are user addresses);
 * a __data_loc/__rel_loc field is a kernel char * that codegen computes
 * from the loc word (see tracefs_field.loc). */
const struct type *tracefs_field_type(struct arena *a,
				      const struct tracefs_field *f,
				      bool user_ptrs);
/* The record type of `args`: every non-common field at its offset in the
 * raw record. Named "struct CAT_NAME_args". */
const struct type *tracefs_args_type(struct arena *a,
				     const struct tracefs_format *fmt);
/* The field called name, or NULL. */
const struct tracefs_field *tracefs_find_field(const struct tracefs_format *fmt,
					       const char *name);

/* Calls cb for every event matching the patterns ('*', '?'), stopping at
 * the first non-zero return, which is returned. Patterns without
 * wildcards cost one access(), not a scan of available_events. Returns
 * the number of matches otherwise, or -errno. */
typedef int (*tracefs_match_cb)(const char *cat, const char *name, void *ctx);
int tracefs_match(const char *pat_cat, const char *pat_name,
		  tracefs_match_cb cb, void *ctx);

/* kprobe_events: probes sonde makes itself, where the perf PMU cannot say
 * what it needs (a kretprobe's maxactive, and how many it missed). */

/* Appends one definition ("r64:GROUP/EVENT FUNC", "-:GROUP/EVENT") to
 * kprobe_events. Returns 0, or -errno: the open's when the file cannot
 * be written at all (no tracefs, no permission), the kernel's refusal of
 * the line otherwise. */
int tracefs_kprobe_write(const char *def);
/* Removes GROUP/EVENT, waiting a little while the kernel still holds it
 * (-EBUSY just after its perf event closed). 0 or -errno. */
int tracefs_kprobe_remove(const char *group, const char *event);
/* The probes of kprobe_events (text, as read) in turn: fn gets each
 * line's group and event names (NUL-terminated copies) and the line;
 * stops at a non-zero return, which is returned. */
int tracefs_kprobe_each(const char *text,
			int (*fn)(const char *group, const char *event,
				  const char *line, void *ctx),
			void *ctx);
/* From the text of kprobe_profile ("  EVENT HITS MISSED" lines): the
 * MISSED of EVENT into *missed. 0, or -ENOENT when EVENT is not there. */
int tracefs_profile_missed(const char *text, const char *event,
			   uint64_t *missed);

#endif
