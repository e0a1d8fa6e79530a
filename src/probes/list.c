/* -l [PATTERN] and -lv: the providers with a list hook print the probes
 * matching the pattern; the lines are then sorted and deduplicated, with a
 * probe's -lv argument lines kept under it. bpftrace 0.26 keeps each
 * type's matches in a std::set and walks the types in the order of their
 * names, which is the same order, since every line starts "TYPE:". */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "kernel/glob.h"
#include "probes/impl.h"
#include "probes/provider.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/strbuf.h"
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

/* The types bpftrace 0.26 lists for a pattern whose type is a wildcard
 * ("*", "*ware"), by its names for them: its kernel list, and, with -p or
 * a file named, its userspace list (PROBE_LIST's show_in_*_list). Return
 * probes, intervals, profiles and watchpoints are listed only when asked
 * for by name. */
static const char *const kernel_types[] = {
	"kprobe", "tracepoint", "software", "hardware", "fentry",
	"rawtracepoint", "iter", NULL,
};
static const char *const user_types[] = { "uprobe", "usdt", NULL };

static bool in(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

/* The pattern's second part names one existing file ("uprobe:/bin/sh"
 * and "*:/bin/sh:*" scope the user-space types). */
static bool names_a_file(const char *pattern)
{
	const char *p = strchr(pattern, ':');
	if (!p)
		return false;
	p++;
	size_t n = strcspn(p, ":");
	char *file = strndup(p, n);
	bool ok = file && *file && !glob_has_wildcard(file) &&
		  access(file, F_OK) == 0;
	free(file);
	return ok;
}

/* Whether a wildcard type matches p under one of bpftrace's names in
 * list (kfunc lists as fentry). */
static bool listed_as(const char *type, const struct provider *p,
		      const char *const *list)
{
	if (in(list, p->name) && glob_match(type, p->name))
		return true;
	for (const char *const *a = p->aliases; a && *a; a++)
		if (in(list, *a) && glob_match(type, *a))
			return true;
	return false;
}

/* Whether provider p is listed for pattern's type part. */
static bool type_matches(const char *pattern, const struct provider *p)
{
	size_t n = strcspn(pattern, ":");
	char *type = strndup(pattern, n);
	if (!type)
		return false;
	bool ok;
	if (!glob_has_wildcard(type))
		ok = !strcmp(type, p->name);
	else
		ok = listed_as(type, p, kernel_types) ||
		     ((probe_list_get_pid() > 0 || names_a_file(pattern)) &&
		      listed_as(type, p, user_types));
	free(type);
	return ok;
}

void probe_list_empty_part(FILE *out, const char *pattern, const char *type,
			   const char *name)
{
	char full[128];
	snprintf(full, sizeof(full), "%s:%s:", type, name);
	size_t len = strlen(full);
	full[len - 1] = '\0';
	bool hit = glob_match(pattern, full);
	full[len - 1] = ':';
	if (hit || glob_match(pattern, full))
		fprintf(out, "%s\n", full);
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
		if (!p->list || !type_matches(pat, p))
			continue;
		int r = p->list(pat, verbose, mem);
		/* A type this kernel cannot attach lists nothing; asked for
		 * by name, it says so. */
		if (r == -EOPNOTSUPP) {
			size_t tn = strcspn(pat, ":");
			if (!memchr(pat, '*', tn) && !memchr(pat, '?', tn))
				fprintf(stderr, "sonde: %.*s probes are not "
						"available on this kernel\n",
					(int)strcspn(pattern, ":"), pattern);
			continue;
		}
		if (r < 0 && !err)
			err = r;
	}
	fclose(mem);
	VEC(struct block) v = { 0 };
	split(buf, len, &v);
	if (v.len)
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

/* bpftrace's normalize_whitespace: trimmed, each run of white space as
 * its first character. */
static char *normalise_space(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	char *r = malloc(n + 1), *w = r;
	if (!r)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!i || !isspace((unsigned char)s[i]) ||
		    !isspace((unsigned char)s[i - 1]))
			*w++ = s[i];
	*w = '\0';
	return r;
}

static bool names_a_type(const char *s)
{
	return !strncmp(s, "struct ", 7) || !strncmp(s, "union ", 6) ||
	       !strncmp(s, "enum ", 5);
}

int probe_list_search(const char *search, bool verbose, FILE *out)
{
	if (!search)
		return probe_list(NULL, verbose, out);
	if (strchr(search, '.') && !strpbrk(search, ":*"))
		fprintf(stderr, "WARNING: It appears that '%s' is a filename "
				"but the file does not exist. Treating '%s' "
				"as a search pattern.\n", search, search);
	int err = 0;
	for (const char *p = search;;) {
		size_t n = strcspn(p, ",");
		char *one = normalise_space(p, n);
		if (!one)
			return -ENOMEM;
		int r = names_a_type(one) ?
				probe_list_types(one, verbose, out) :
				probe_list(one, verbose, out);
		free(one);
		if (r < 0 && !err)
			err = r;
		if (!p[n])
			break;
		p += n + 1;
	}
	return err;
}

/* The types whose last part is a count or a rate, which a listing leaves
 * out ("interval:s:1" lists as "interval:s:"). */
static const char *const counted_types[] = {
	"software", "hardware", "interval", "profile", "watchpoint",
	"asyncwatchpoint", NULL,
};

int probe_list_attach(const struct attach_point *ap, bool verbose, FILE *out)
{
	/* bpftrace 0.26 skips its special probes: begin, end and self */
	if (!strcasecmp(ap->provider, "BEGIN") ||
	    !strcasecmp(ap->provider, "END") || !strcmp(ap->provider, "self"))
		return 0;
	struct strbuf pat = STRBUF_INIT;
	sb_append(&pat, ap->provider);
	if (in(counted_types, ap->provider)) {
		sb_printf(&pat, ":%s:", ap->nparts ? ap->parts[0] : "");
	} else {
		for (uint32_t i = 0; i < ap->nparts; i++) {
			/* a usdt probe named without its provider is
			 * looked for under any provider */
			if (!strcmp(ap->provider, "usdt") && ap->nparts == 2 &&
			    i == 1)
				sb_append(&pat, ":*");
			sb_printf(&pat, ":%s", ap->parts[i]);
		}
	}
	int err = probe_list(sb_str(&pat), verbose, out);
	sb_free(&pat);
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
