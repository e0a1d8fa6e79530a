/*
 * uprobe_self: the uprobe fields of a perf_event_attr for a probe on a
 * function of this very executable, for the canaries (ucanary.c,
 * wucanary.c) that ask the kernel a question with no tracer in between.
 */
#ifndef UPROBE_SELF_H
#define UPROBE_SELF_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Zeroes *a and sets its type, size, path and offset for a uprobe on the
 * function at address fn. Returns NULL, or why it cannot (and in *detail
 * what more there is to say, or NULL). */
static const char *uprobe_self(uint64_t fn, struct perf_event_attr *a,
			       const char **detail)
{
	/* The uprobe PMU (Linux 4.17) has a type number of the kernel's choice. */
	int type;
	*detail = NULL;
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	if (!f || fscanf(f, "%d", &type) != 1) {
		if (f)
			fclose(f);
		*detail = "/sys/bus/event_source/devices/uprobe/type";
		return "no uprobe PMU";
	}
	fclose(f);

	/* A uprobe is placed at an offset in a file: that of fn in this
	 * executable is its address less its mapping's start, plus the
	 * mapping's offset in the file (whatever the load address, PIE or not). */
	char line[4096];
	unsigned long long lo, hi, pgoff;
	int found = 0;
	if (!(f = fopen("/proc/self/maps", "r"))) {
		*detail = strerror(errno);
		return "cannot read /proc/self/maps";
	}
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &pgoff) == 3 && fn >= lo && fn < hi;
	fclose(f);
	if (!found)
		return "the probed function is in no mapping of /proc/self/maps";

	/* The kernel resolves the path in this process, so "self" is us. */
	memset(a, 0, sizeof(*a));
	a->type = (uint32_t)type;
	a->size = sizeof(*a);
	a->config = 0;                             /* bit 0 would make it a uretprobe */
	a->config1 = (uintptr_t)"/proc/self/exe"; /* uprobe_path */
	a->config2 = fn - lo + pgoff;              /* probe_offset */
	return NULL;
}

#endif
