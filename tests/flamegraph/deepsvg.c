/* Writes to stdout the flame graph SVG of stacks DEPTH frames deep (argv[1],
 * default 120: a deep kernel + user stack), so the screenshot test sees a
 * graph far taller than a 800-pixel screen at 16 pixels a frame. Under the
 * root: "app" in every sample, then "main" (80%) and "other" (20%). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/flamegraph.h"

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 120;
	static char deep[65536], shallow[] = "app;main;g1;g2",
		    other[] = "app;other";
	char *p = deep;
	p += sprintf(p, "app;main");
	for (int i = 1; i < depth - 1 && p < deep + sizeof(deep) - 32; i++)
		p += sprintf(p, ";f%d", i);
	/* sorted by frames, as flamegraph_svg wants them */
	struct flame_line l[] = {
		{ deep, 50 }, { shallow, 30 }, { other, 20 },
	};
	flamegraph_svg(stdout, l, 3, "deep");
	return 0;
}
