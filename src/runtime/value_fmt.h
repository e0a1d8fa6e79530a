/*
 * Formatting of one typed value (struct type + bytes, laid out as
 * lang/types.h says) the way bpftrace 0.26 prints it in map keys, map
 * values and print() (its output/text.cpp and json.cpp). Two styles:
 * text, and JSON.
 */
#ifndef SONDE_VALUE_FMT_H
#define SONDE_VALUE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct out_resolver;
struct strbuf;
struct type;

struct vfmt {
	bool json;
	const struct out_resolver *res; /* may be NULL */
	/* Stack frames are indented by 8 (bpftrace, keys and values alike);
	 * sonde's own compact forms (heatmap rows, metric labels) use 4. */
	int stack_indent;
	/* Records without spaces, {.a=1,.b=2}, for those compact forms. */
	bool compact;
	/* print(@m, top, div): aggregations' values are divided by it */
	uint64_t div;
};

#define VFMT_VALUE_INDENT 8
#define VFMT_KEY_INDENT 4

/*
 * Appends the value. Text: 5, abc, (1, abc), ab\x01, 127.0.0.1, 0x1f
 * (pointers), { .a = 1 } ({} without fields), [1,2],
 * { .count = 1, .average = 2, .total = 2 }, a string that fills its type
 * with the trailer "..". JSON: 5, "abc", [1,"abc"], {"a": 1}, buffers as
 * byte numbers [104,105], every symbol, path or time a string, and an
 * integer a double cannot hold as a string ("18446744073709551615").
 */
void vfmt_value(struct strbuf *sb, const struct vfmt *f, const struct type *t,
		const void *data);

/*
 * A map key. Text: "" when key-less, else "[a]" or "[a, b]" (a TUPLE key
 * type is a multi-key @m[a, b]). JSON: the text form without the brackets
 * and with every space taken out, as a JSON string: "a,b".
 */
void vfmt_key(struct strbuf *sb, const struct vfmt *f, const struct type *key,
	      const void *data);

/* A JSON string literal with bpftrace's escapes: \" \\ \n \r \t, and
 * \u%04x of the *signed* char for bytes < 0x20 and >= 0x80 (so é, c3 a9,
 * becomes \uffffffc3\uffffffa9 as bpftrace prints it). */
void vfmt_json_string(struct strbuf *sb, const char *s, size_t n);
/* A JSON integer; quoted when a double cannot hold it exactly (RFC 8259's
 * interoperable range, as bpftrace 0.26's JsonEmitter does). */
void vfmt_json_int(struct strbuf *sb, uint64_t v, bool is_signed);
/* The trailer of a string cut to its type's size (config
 * str_trunc_trailer); NULL: none. */
void vfmt_set_str_trailer(const char *trailer);
/* Whether user stacks show the source lines and the inlined calls of
 * their frames where the files have debug info (show_debug_info). */
void vfmt_set_debug_info(bool on);
/* The average of an AVG/STATS value {sum; count}, divided by div (0: 1),
 * signed when t is: 0 when empty. */
uint64_t vfmt_average(const struct type *t, const void *data, uint64_t div);

/*
 * How many of the n frames of user stack t (frames at ips, of process pid)
 * are frames: those before the first whose address lies in no executable
 * mapping of the process (data, a stack: what a frame-pointer walk reads
 * where the code keeps no frame pointer), which ends it, *truncated then.
 * All n where the process's mappings are unknown. pid_word: the stack's
 * pid word, the pid in its low half and, for a stack unwound in the
 * kernel, UW_FLAG_TRUNCATED (model/unwind.h) where the walk stopped
 * before the stack's end (*truncated then too). The outputs mark the cut
 * with VFMT_TRUNCATED where the frames would go on.
 */
#define VFMT_TRUNCATED "[truncated]"
uint32_t vfmt_user_frames(const struct out_resolver *res, uint64_t pid_word,
			  const struct type *t, const uint8_t *ips, uint32_t n,
			  bool *truncated);

/* Loads an integer of size 1, 2, 4 or 8; sign-extends when is_signed. */
uint64_t vfmt_load_int(const void *p, uint32_t size, bool is_signed);

#endif
