/*
 * Formatting of one typed value (struct type + bytes, laid out as
 * lang/types.h says) the way bpftrace 0.17 prints it in map keys, map
 * values and print(). Two styles: text, and JSON.
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
	/* Stack frames are indented by 8 in values and 4 in map keys. */
	int stack_indent;
	/* Records in map keys are written without spaces, {.a=1,.b=2},
	 * as bpftrace 0.17 does. */
	bool compact;
};

#define VFMT_VALUE_INDENT 8
#define VFMT_KEY_INDENT 4

/*
 * Appends the value. Text: 5, abc, (1, abc), ab\x01, 127.0.0.1,
 * { .a = 1 }, [1,2]. JSON: 5, "abc", [1,"abc"], { "a": 1 }; as in 0.17,
 * macaddr, cgroup_path and strftime values are not quoted in JSON.
 */
void vfmt_value(struct strbuf *sb, const struct vfmt *f, const struct type *t,
		const void *data);

/*
 * A map key. Text: "" when key-less, else "[a]" or "[a, b]" (a TUPLE key
 * type is a multi-key @m[a, b]). JSON: the text forms joined by ",", as a
 * JSON string: "a,b".
 */
void vfmt_key(struct strbuf *sb, const struct vfmt *f, const struct type *key,
	      const void *data);

/* A JSON string literal with bpftrace 0.17's escapes: \" \\ \n \r \t, and
 * \u%04x of the *signed* char for bytes < 0x20 and >= 0x80 (so é, c3 a9,
 * becomes \uffffffc3\uffffffa9 as 0.17 prints it). */
void vfmt_json_string(struct strbuf *sb, const char *s, size_t n);

/* Loads an integer of size 1, 2, 4 or 8; sign-extends when is_signed. */
uint64_t vfmt_load_int(const void *p, uint32_t size, bool is_signed);

#endif
