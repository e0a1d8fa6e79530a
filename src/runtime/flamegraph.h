/*
 * Flame graphs of stack-keyed maps, written at exit: folded stacks (the
 * input of Brendan Gregg's flamegraph.pl: "root;caller;callee N" per line)
 * and a self-contained interactive SVG (its script lays the frames out;
 * hover names a frame and its share, click zooms; no external resources).
 *
 * A map qualifies when its key holds a kstack or ustack and its value is a
 * count(), sum() or an integer. Each entry becomes one line, root first:
 * the key's other fields (comm, pid, ...), the user stack from main down,
 * then the kernel stack from the syscall entry down, kernel frames marked
 * "_[k]" as bcc's profile -f does. Frames are function names without
 * offsets; unknown frames are hex addresses. Identical lines are merged.
 * With several such maps each line starts with the map's name.
 */
#ifndef SONDE_FLAMEGRAPH_H
#define SONDE_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct mapdump_map;
struct out_resolver;
struct type;

struct flame_line {
	char *frames; /* "a;b;c" */
	uint64_t count;
};

/* Whether a map with this key type can be drawn. */
bool flamegraph_can_draw(const struct type *key, const struct type *value);

/* Writes every drawable map among maps to the files named (either may be
 * NULL). Messages go to err. Returns 0 or -errno; -ENOENT when no map can
 * be drawn. */
int flamegraph_write(const struct mapdump_map *maps, size_t n,
		     const struct out_resolver *res, const char *folded_path,
		     const char *svg_path, FILE *err);

/* Appends the frames of one kstack/ustack value, root first, joined by
 * ';' (after a ';' when line is not empty); kernel frames end in "_[k]". */
struct strbuf;
void flamegraph_fold_stack(struct strbuf *line, const struct out_resolver *res,
			  const struct type *t, const uint8_t *data);

/* Writes s as a JSON string that is also safe inside an SVG's CDATA
 * section (the SVG files' embedded data). */
void flamegraph_js_string(FILE *f, const char *s);

/* The renderers, on lines sorted by frames with no duplicates. */
void flamegraph_folded(FILE *f, const struct flame_line *lines, size_t n);
void flamegraph_svg(FILE *f, const struct flame_line *lines, size_t n,
		    const char *title);

#endif
