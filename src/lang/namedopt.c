/*
 * Named program options (getopt()): their table, the parsing of their
 * command-line values and the check of the command line, after bpftrace
 * 0.26's globalvars.cpp.
 */
#define _GNU_SOURCE /* strchrnul */
#include "lang/namedopt.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/arena.h"
#include "util/strbuf.h"

struct namedopt *namedopt_find(struct namedopts *ops, const char *name)
{
	for (struct namedopt *o = ops->first; o; o = o->next)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

/* A raw word split as 0.26 splits it: on '=', empty parts dropped; the
 * name is the first part, the value the second when there are exactly
 * two, else "" (`--a=` and `--a=b=c` give ""), and NULL without '='. */
static void split_word(struct arena *a, const char *w, const char **name,
		       const char **value)
{
	const char *eq = strchr(w, '=');
	if (!eq) {
		*name = w;
		*value = NULL;
		return;
	}
	const char *parts[3] = { "", "", "" };
	size_t lens[3] = { 0, 0, 0 };
	int n = 0;
	for (const char *p = w; *p;) {
		const char *e = strchrnul(p, '=');
		if (e > p) {
			if (n < 3) {
				parts[n] = p;
				lens[n] = (size_t)(e - p);
			}
			n++;
		}
		p = *e ? e + 1 : e;
	}
	*name = arena_strndup(a, parts[0], lens[0]);
	*value = n == 2 ? arena_strndup(a, parts[1], lens[1]) : "";
}

int namedopt_to_uint(const char *num, uint64_t *v, const char **why)
{
	char n[128];
	size_t k = 0;
	for (const char *p = num; *p && k + 1 < sizeof(n); p++)
		if (*p != '_')
			n[k++] = *p;
	n[k] = 0;
	int base = 10;
	const char *d = n;
	if (k >= 2 && n[0] == '0' && (n[1] == 'x' || n[1] == 'X')) {
		base = 16;
		d = n + 2;
	} else if (k >= 2 && n[0] == '0' && (n[1] == 'b' || n[1] == 'B')) {
		base = 2;
		d = n + 2;
	} else if (k >= 2 && n[0] == '0' && n[1] >= '0' && n[1] <= '7') {
		base = 8;
		d = n + 1;
	}
	char *end;
	errno = 0;
	unsigned long long r = strtoull(d, &end, base);
	if (r == 0 && end == d) {
		*why = "invalid integer";
		return -1;
	}
	if (r == ULLONG_MAX && errno == ERANGE) {
		*why = "value is out of range";
		return -1;
	}
	if ((*end == 'e' || *end == 'E') && end[1] >= '1' && end[1] <= '9') {
		if (r >= 10) {
			*why = "coefficient part of scientific literal must "
			       "be 1-9";
			return -1;
		}
		char *exp = end + 1;
		unsigned long long e = strtoull(exp, &end, 10);
		for (; e > 0; e--) {
			if (r > UINT64_MAX / 10) {
				*why = "value is out of range";
				return -1;
			}
			r *= 10;
		}
	}
	static const struct {
		const char *suffix;
		uint64_t max, mult;
	} suffixes[] = {
		{ "", UINT64_MAX, 1 },      { "u", UINT_MAX, 1 },
		{ "ul", ULONG_MAX, 1 },     { "ull", ULLONG_MAX, 1 },
		{ "l", LONG_MAX, 1 },       { "ll", LLONG_MAX, 1 },
		{ "ns", UINT64_MAX, 1 },    { "us", UINT64_MAX, 1000 },
		{ "ms", UINT64_MAX, 1000000 },
		{ "s", UINT64_MAX, 1000000000 },
		{ "m", UINT64_MAX, 60000000000ULL },
		{ "h", UINT64_MAX, 3600000000000ULL },
		{ "d", UINT64_MAX, 86400000000000ULL },
	};
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++) {
		if (strcmp(end, suffixes[i].suffix))
			continue;
		if (r > suffixes[i].max / suffixes[i].mult) {
			*why = "value is out of range";
			return -1;
		}
		*v = r * suffixes[i].mult;
		return 0;
	}
	*why = "invalid trailing bytes";
	return -1;
}

int namedopt_to_int(const char *num, int64_t *v, const char **why)
{
	uint64_t u;
	if (!*num) {
		*v = 0;
		return 0;
	}
	if (num[0] == '-') {
		if (namedopt_to_uint(num + 1, &u, why) < 0)
			return -1;
		if (u > (uint64_t)INT64_MAX + 1) {
			*why = "value is out of range";
			return -1;
		}
		*v = (int64_t)(0 - u);
		return 0;
	}
	if (namedopt_to_uint(num, &u, why) < 0)
		return -1;
	if (u > INT64_MAX) {
		*why = "value is out of range";
		return -1;
	}
	*v = (int64_t)u;
	return 0;
}

static bool word_in(const char *v, const char *const *words)
{
	for (; *words; words++)
		if (!strcasecmp(v, *words))
			return true;
	return false;
}

/* The value of o from the command line, or its default. */
static void resolve(struct arena *a, struct namedopt *o, char *const *named,
		    int nnamed)
{
	o->num = o->def_num;
	o->str = o->def_str;
	const char *value = NULL;
	bool given = false;
	/* The last of several `--name`s wins, as 0.26's map of them. */
	for (int i = 0; i < nnamed; i++) {
		const char *name, *v;
		split_word(a, named[i], &name, &v);
		if (!strcmp(name, o->name)) {
			given = true;
			value = v;
		}
	}
	if (!given)
		return;
	if (!value) { /* `--name`: true */
		switch (o->kind) {
		case NOPT_BOOL: o->num = 1; return;
		case NOPT_UINT:
		case NOPT_INT: o->bad = "expects an integer"; break;
		case NOPT_STRING: o->bad = "expects a string"; break;
		}
		o->bad_value = "true";
		return;
	}
	static const char *const truthy[] = { "1", "true", "on", "yes", NULL };
	static const char *const falsy[] = { "0", "false", "off", "no", NULL };
	int64_t iv;
	switch (o->kind) {
	case NOPT_BOOL:
		if (word_in(value, truthy))
			o->num = 1;
		else if (word_in(value, falsy))
			o->num = 0;
		else
			o->bad = "expects a boolean (e.g. 'true')";
		break;
	case NOPT_UINT:
		if (namedopt_to_uint(value, &o->num, &o->bad) < 0)
			o->num = o->def_num;
		break;
	case NOPT_INT:
		if (namedopt_to_int(value, &iv, &o->bad) == 0)
			o->num = (uint64_t)iv;
		break;
	case NOPT_STRING:
		o->str = value;
		break;
	}
	if (o->bad)
		o->bad_value = value;
}

struct namedopt *namedopt_add(struct arena *a, struct namedopts *ops,
			      const struct namedopt *o, char *const *named,
			      int nnamed)
{
	struct namedopt *n = arena_alloc(a, sizeof(*n));
	*n = *o;
	n->next = NULL;
	if (!ops->tail)
		ops->tail = &ops->first;
	*ops->tail = n;
	ops->tail = &n->next;
	ops->n++;
	resolve(a, n, named, nnamed);
	return n;
}

/* 0.26 keeps the options in an unordered map, whose walk lists them
 * newest first. */
static void hint(const struct namedopts *ops, bool help, FILE *err)
{
	if (!ops->n) {
		fputs("HINT: no custom program options defined.\n", err);
		return;
	}
	const struct namedopt **v = calloc(ops->n, sizeof(*v));
	uint32_t k = ops->n;
	for (const struct namedopt *o = ops->first; o; o = o->next)
		v[--k] = o;
	fprintf(err, "HINT: expected program options:%s", help ? "\n" : " ");
	for (uint32_t i = 0; i < ops->n; i++) {
		fprintf(err, "--%s", v[i]->name);
		if (help && v[i]->description[0])
			fprintf(err, ": %s", v[i]->description);
		if (i + 1 != ops->n)
			fputs(help ? "\n" : ": ", err);
	}
	fputc('\n', err);
	free(v);
}

int namedopt_check(const struct namedopts *ops, char *const *named,
		   int nnamed, FILE *err)
{
	struct arena a;
	arena_init(&a);
	struct strbuf msg = STRBUF_INIT;
	bool help = false, unknown = false;
	int nunexpected = 0;
	for (int i = 0; i < nnamed; i++) {
		const char *name, *v;
		split_word(&a, named[i], &name, &v);
		if (!namedopt_find((struct namedopts *)ops, name))
			nunexpected++;
	}
	/* 0.26's list puts ", " after every unexpected option but the last,
	 * --help among them. */
	for (int i = 0, j = 0; i < nnamed; i++) {
		const char *name, *v;
		split_word(&a, named[i], &name, &v);
		if (namedopt_find((struct namedopts *)ops, name))
			continue;
		j++;
		if (!strcmp(name, "help")) {
			help = true;
			continue;
		}
		unknown = true;
		sb_printf(&msg, "--%s%s", name, j != nunexpected ? ", " : "");
	}
	arena_release(&a);
	if (nunexpected) {
		if (unknown)
			fprintf(err, "ERROR: unexpected program command line "
				"options: %s\n", sb_str(&msg));
		hint(ops, help, err);
		sb_free(&msg);
		return -1;
	}
	sb_free(&msg);
	for (const struct namedopt *o = ops->first; o; o = o->next) {
		if (o->bad) {
			fprintf(err, "ERROR: program command line option --%s "
				"%s (value: %s)\n", o->name, o->bad,
				o->bad_value);
			return -1;
		}
	}
	return 0;
}
