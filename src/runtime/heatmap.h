/*
 * Latency heatmaps over time, for hist() and lhist() maps (--heatmap,
 * --heatmap-svg FILE).
 *
 * The data are the maps' own prints: every print(@h) of a histogram (and
 * its print at exit) is one row in time, one cell per bucket, shaded by
 * the bucket's count. A script that prints and clears its histogram every
 * interval gets one row per interval.
 *
 * Terminal (--heatmap): the row replaces the text histogram. A map's
 * first row comes after a header of bucket edges and a legend; the
 * columns run from the lowest to the highest bucket seen so far (the
 * header is printed again when they widen). Shades double per step: ' '
 * 0, '.' 1, ':' 2-3, '-' 4-7, ... '@' 256 and more; when a row's largest
 * count passes twice the top, the scale doubles and the legend is printed
 * again. 256-colour greys when the output is a terminal whose TERM has
 * 256 colours and NO_COLOR is unset, else those ASCII shades.
 *
 * SVG (--heatmap-svg): at exit, one self-contained file (no external
 * resources): per map and key, time on x, buckets on y, colour for the
 * count (log scale), hover text naming the time, bucket and count.
 *
 * heatmap_start() wraps an out (output.h): prints of other maps and all
 * other output go to the wrapped format unchanged.
 */
#ifndef SONDE_HEATMAP_H
#define SONDE_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct mapdump_map;
struct out;
struct heatmap;

struct heatmap_opts {
	bool term;       /* --heatmap */
	const char *svg; /* --heatmap-svg FILE; NULL: none */
	/* Shades: 1 forces 256-colour greys, 0 ASCII, -1 decides from the
	 * output (a tty), TERM and NO_COLOR. */
	int color;
	/* The stream under the output (runtime/sink.h wraps it), whose
	 * being a terminal decides; NULL: the output's own. */
	FILE *tty;
};

/* Returns 0, or -EINVAL after saying on err that no map among maps is a
 * hist() or lhist() (naming what they are). */
int heatmap_start(struct heatmap **h, struct out *o,
		  const struct heatmap_opts *opts,
		  const struct mapdump_map *maps, size_t n, FILE *err);
/* At exit: writes the SVG (when asked). Returns 0 or -errno. */
int heatmap_finish(struct heatmap *h, FILE *err);
/* Restores the wrapped out and frees everything. NULL is fine. */
void heatmap_free(struct heatmap *h, struct out *o);

#endif
