/* -l [PATTERN] and -lv: every provider with a list hook prints the probes
 * matching the pattern; the lines are then sorted and deduplicated as a
 * whole, as bpftrace 0.17 does (it collects them in a std::set), with a
 * probe's -lv argument lines kept under it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/glob.h"
#include "probes/provider.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/vec.h"

/* One probe: its name line and the argument lines under it. */
struct block {
	char *text;
	size_t name_len, len;
};

static int cmp_block(const void *x, const void *y)
{
	const struct block *a = x, *b = y;
	size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
	int c = memcmp(a->text, b->text, n);
	if (c)
		return c;
	return (a->name_len > b->name_len) - (a->name_len < b->name_len);
}

/* Splits a hook's output into blocks: a block starts at every line that
 * does not start with a space. */
static void split(char *buf, size_t len, void *vec)
{
	VEC(struct block) *v = vec;
	char *p = buf, *end = buf + len;
	while (p < end) {
		char *start = p;
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t name_len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		p = nl ? nl + 1 : end;
		while (p < end && *p == ' ') {
			nl = memchr(p, '\n', (size_t)(end - p));
			p = nl ? nl + 1 : end;
		}
		struct block b = { start, name_len, (size_t)(p - start) };
		vec_push(v, b);
	}
}

/* bpftrace's reading of a pattern: none lists everything, one without a
 * probe type ("*sched*", "vfs_read") matches any type, and a type alias
 * stands for its type ("t:sched:*"). */
static char *normalise(const char *pattern)
{
	char *r;
	if (!pattern || !*pattern)
		return strdup("*");
	const char *colon = strchr(pattern, ':');
	if (!colon) {
		if (asprintf(&r, "*:%s", pattern) < 0)
			return NULL;
		return r;
	}
	char *type = strndup(pattern, (size_t)(colon - pattern));
	if (!type)
		return NULL;
	const char *canon = glob_has_wildcard(type) ?
				    NULL : probe_type_canonical(type);
	int n = asprintf(&r, "%s%s", canon ? canon : type, colon);
	free(type);
	return n < 0 ? NULL : r;
}

/* Whether provider name could match pattern's type part. A '*' there may
 * swallow later ':'s too, so then any type can match. */
static bool type_matches(const char *pattern, const char *name)
{
	size_t n = strcspn(pattern, ":");
	if (memchr(pattern, '*', n))
		return true;
	char *type = strndup(pattern, n);
	bool ok = type && glob_match(type, name);
	free(type);
	return ok;
}

int probe_list(const char *pattern, bool verbose, FILE *out)
{
	char *pat = normalise(pattern);
	if (!pat)
		return -ENOMEM;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem) {
		free(pat);
		return -errno;
	}
	int err = 0;
	/* In no particular order: the output is sorted. */
	const struct provider *p;
	for (size_t i = 0; (p = probe_provider_at(i)); i++) {
		if (!p->list || !type_matches(pat, p->name))
			continue;
		int r = p->list(pat, verbose, mem);
		/* A type this kernel cannot attach lists nothing; asked for
		 * by name, it says so. */
		if (r == -EOPNOTSUPP) {
			if (!strncmp(pat, p->name, strlen(p->name)) &&
			    pat[strlen(p->name)] == ':')
				fprintf(stderr, "sonde: %s probes are not "
						"available on this kernel\n",
					p->name);
			continue;
		}
		if (r < 0 && !err)
			err = r;
	}
	fclose(mem);
	VEC(struct block) v = { 0 };
	split(buf, len, &v);
	qsort(v.data, v.len, sizeof(*v.data), cmp_block);
	for (size_t i = 0; i < v.len; i++) {
		if (i && !cmp_block(&v.data[i - 1], &v.data[i]))
			continue;
		fwrite(v.data[i].text, 1, v.data[i].len, out);
	}
	vec_free(&v);
	free(buf);
	free(pat);
	return err;
}

int probe_list_check(const char *pattern, struct diag *d)
{
	struct src_file f = { "stdin", pattern, (uint32_t)strlen(pattern) };
	bool quoted = false;
	for (uint32_t i = 0; i < f.len; i++) {
		unsigned char c = (unsigned char)pattern[i];
		if (c == '"')
			quoted = !quoted;
		if (c >= 0x20 && c != 0x7f && (c != '\\' || quoted))
			continue;
		struct span sp = { &f, i, 1, 1, i + 1 };
		if (c == '\\')
			diag_error(d, sp, "invalid character '\\' in the probe "
					  "pattern");
		else
			diag_error(d, sp, "invalid character 0x%02x in the "
					  "probe pattern", c);
		return -1;
	}
	return 0;
}
