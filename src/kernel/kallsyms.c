#include "kernel/kallsyms.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/sysfs.h"
#include "util/xalloc.h"

static struct {
	char *text; /* the file, names NUL-terminated in place */
	struct ksym *syms;
	uint32_t n;
	int err;
} ks;

static int by_addr(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* Deterministic among aliases: the earlier name in the file. */
	return a->name < b->name ? -1 : a->name > b->name;
}

static bool parse(char *text)
{
	size_t cap = 1 << 16;
	ks.syms = xreallocarray(NULL, cap, sizeof(*ks.syms));
	bool any_addr = false, sorted = true;
	for (char *line = text; *line;) {
		char *eol = strchr(line, '\n');
		if (eol)
			*eol = '\0';
		/* "ffffffff81000000 T _stext\t[module]" */
		char *p;
		uint64_t addr = strtoull(line, &p, 16);
		/* ("$x", "$d": arm64's ELF mapping symbols, which say code
		 * or data starts there, name no function; found, they hid
		 * the function around them ($x+136), so they are skipped, as
		 * perf skips them) */
		if (p != line && p[0] == ' ' && p[1] && p[2] == ' ' &&
		    p[3] != '$') {
			char kind = p[1];
			char *name = p + 3, *mod = strchr(name, '\t');
			if (mod) {
				*mod++ = '\0';
				if (*mod == '[') {
					mod++;
					char *e = strchr(mod, ']');
					if (e)
						*e = '\0';
				}
			}
			if (ks.n == cap)
				ks.syms = xreallocarray(ks.syms, cap *= 2,
							sizeof(*ks.syms));
			if (ks.n && addr < ks.syms[ks.n - 1].addr)
				sorted = false;
			ks.syms[ks.n++] = (struct ksym){ addr, name, mod, kind };
			any_addr |= addr != 0;
		}
		line = eol ? eol + 1 : line + strlen(line);
	}
	/* vmlinux comes sorted; module symbols usually do not. */
	if (!sorted)
		qsort(ks.syms, ks.n, sizeof(*ks.syms), by_addr);
	return any_addr;
}

/* The table from text (taken over). */
static int load_text(char *text)
{
	ks.text = text;
	if (!parse(ks.text)) {
		/* kptr_restrict (or no CAP_SYSLOG) shows every address as 0. */
		free(ks.syms);
		free(ks.text);
		ks.syms = NULL;
		ks.text = NULL;
		ks.n = 0;
		return ks.err = -EPERM;
	}
	return 0;
}

int ksyms_load(void)
{
	if (ks.syms)
		return 0;
	if (ks.err)
		return ks.err;
	char *text;
	int err = sysfs_slurp("/proc/kallsyms", &text, NULL);
	if (err)
		return ks.err = err;
	return load_text(text);
}

uint32_t ksyms_count(void)
{
	return ks.n;
}

const struct ksym *ksyms_lookup(uint64_t addr, uint64_t *offset)
{
	if (ksyms_load() || !ks.n || addr < ks.syms[0].addr)
		return NULL;
	uint32_t lo = 0, hi = ks.n; /* find the last sym with addr <= addr */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ks.syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* Several names can share an address: report the first. */
	while (lo && ks.syms[lo - 1].addr == ks.syms[lo].addr)
		lo--;
	if (offset)
		*offset = addr - ks.syms[lo].addr;
	return &ks.syms[lo];
}

uint64_t ksyms_addr(const char *name)
{
	if (ksyms_load())
		return 0;
	/* One linear pass (~0.3 ms) beats building a name index for the
	 * handful of lookups a script makes. */
	const struct ksym *best = NULL;
	for (uint32_t i = 0; i < ks.n; i++) {
		const struct ksym *s = &ks.syms[i];
		if (strcmp(s->name, name))
			continue;
		if (s->kind == 'T' || s->kind == 't')
			return s->addr;
		if (!best)
			best = s;
	}
	return best ? best->addr : 0;
}

/* The traceable functions, read once: a wildcard kprobe per script (or
 * per fuzz input) would otherwise make the kernel format all of kallsyms
 * again, over 20 ms each time. */
static struct {
	char *text; /* the file, names NUL-terminated in place */
	struct ksym_fn *fns;
	uint32_t n;
	struct ksym_fn *byname; /* fns sorted by name, for lookups */
} tf;

/* The whole of f, NUL-terminated; what was read before an error, as the
 * line-by-line reading this replaced kept it. */
static char *read_all(FILE *f)
{
	size_t cap = 1 << 16, len = 0, r;
	char *buf = xmalloc(cap);
	while ((r = fread(buf + len, 1, cap - len - 1, f)) > 0)
		if ((len += r) + 1 == cap)
			buf = xrealloc(buf, cap *= 2);
	buf[len] = '\0';
	return buf;
}

/* The function name of one kallsyms line ("ADDR KIND NAME\tMOD"), as
 * sscanf("%*s %c %n") took it: NULL unless KIND is 't' or 'T'. */
static char *text_symbol(char *line)
{
	char *p = line;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return NULL;
	while (*p && !isspace((unsigned char)*p))
		p++;
	while (isspace((unsigned char)*p))
		p++;
	if (*p != 't' && *p != 'T')
		return NULL;
	for (p++; isspace((unsigned char)*p);)
		p++;
	return p;
}

/* "NAME [MODULE]" (available_filter_functions) or a kallsyms line's
 * "NAME\t[MODULE]": the module's name, NUL-terminated in place, or NULL
 * (vmlinux). Cuts name at its end. */
static const char *cut_module(char *name)
{
	char *end = name + strcspn(name, " \t");
	char *mod = end + strspn(end, " \t");
	*end = '\0';
	if (*mod != '[')
		return NULL;
	mod++;
	mod[strcspn(mod, "]")] = '\0';
	return mod;
}

/* The traceable functions from text (taken over): lines of
 * available_filter_functions, or of /proc/kallsyms when syms. */
static void traceable_parse(char *text, bool syms)
{
	size_t cap = 1 << 14;
	tf.fns = xreallocarray(NULL, cap, sizeof(*tf.fns));
	for (char *line = text; *line;) {
		char *eol = strchr(line, '\n');
		if (eol)
			*eol = '\0';
		char *name = syms ? text_symbol(line) : line;
		const char *mod = name ? cut_module(name) : NULL;
		if (name && *name) {
			if (tf.n == cap)
				tf.fns = xreallocarray(tf.fns, cap *= 2,
						       sizeof(*tf.fns));
			tf.fns[tf.n++] = (struct ksym_fn){ name, mod };
		}
		line = eol ? eol + 1 : line + strlen(line);
	}
	tf.text = text;
}

int ksyms_load_text(char *kallsyms, char *traceable, bool traceable_syms)
{
	ksyms_unload();
	if (traceable)
		traceable_parse(traceable, traceable_syms);
	return kallsyms ? load_text(kallsyms) : 0;
}

static const char *tf_path;

void ksyms_traceable_from(const char *path)
{
	tf_path = path;
}

int ksyms_traceable(const struct ksym_fn **fns)
{
	if (!tf.text) {
		FILE *f = fopen(tf_path ? tf_path : "/sys/kernel/tracing/"
				"available_filter_functions", "r");
		if (!f && tf_path)
			return -errno;
		if (!f)
			f = fopen("/sys/kernel/debug/tracing/"
				  "available_filter_functions", "r");
		bool syms = !f;
		if (syms && !(f = fopen("/proc/kallsyms", "r")))
			return -errno;
		traceable_parse(read_all(f), syms);
		fclose(f);
	}
	*fns = tf.fns;
	return (int)tf.n;
}

static int fn_by_name(const void *a, const void *b)
{
	return strcmp(((const struct ksym_fn *)a)->name,
		      ((const struct ksym_fn *)b)->name);
}

bool ksyms_is_traceable(const char *module, const char *name)
{
	const struct ksym_fn *fns;
	int n = ksyms_traceable(&fns);
	if (n <= 0)
		return false;
	/* a sorted copy: listings ask about tens of thousands of names */
	if (!tf.byname) {
		tf.byname = xreallocarray(NULL, (size_t)n, sizeof(*fns));
		memcpy(tf.byname, fns, (size_t)n * sizeof(*fns));
		qsort(tf.byname, (size_t)n, sizeof(*fns), fn_by_name);
	}
	size_t lo = 0, hi = (size_t)n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(tf.byname[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < (size_t)n && !strcmp(tf.byname[i].name, name);
	     i++) {
		const char *m = tf.byname[i].module;
		if (!module || (m ? !strcmp(m, module) :
				    !strcmp(module, "vmlinux")))
			return true;
	}
	return false;
}

void ksyms_unload(void)
{
	free(tf.fns);
	free(tf.byname);
	free(tf.text);
	memset(&tf, 0, sizeof(tf));
	free(ks.syms);
	free(ks.text);
	ks.syms = NULL;
	ks.text = NULL;
	ks.n = 0;
	ks.err = 0;
}
