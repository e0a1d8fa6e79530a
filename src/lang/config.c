/*
 * bpftrace 0.26's config variables, set by a script's config block or by
 * their environment forms (BPFTRACE_<NAME>), as model/settings.c's table
 * says: what each accepts and where its value goes (struct limits).
 */
#include "lang/config.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/limits.h"
#include "model/settings.h"

/* The variables, what they accept and where they go: model/settings.c.
 * A variable sonde has no mechanism for is refused, not ignored. */
typedef struct setting var;

/* Keys 0.26 renamed: set the new one, with a warning. */
static const char *const renamed[][2] = {
	{ "strlen", "max_strlen" },
	{ "no_cpp_demangle", "cpp_demangle" },
	{ "cat_bytes_max", "max_cat_bytes" },
	{ "map_keys_max", "max_map_keys" },
};

static const char *const env_only[] = { "btf", "kernel_build",
					"kernel_source", "vmlinux" };

static const char *const deprecated[] = { "symbol_source",
	"max_type_res_iterations", "unstable_addr", "unstable_import",
	"unstable_macro", "unstable_map_decl" };

static const char *const licenses[] = { "GPL", "GPL v2",
	"GPL and additional rights", "Dual BSD/GPL", "Dual MIT/GPL",
	"Dual MPL/GPL" };

#define N(a) (sizeof(a) / sizeof(*(a)))

/* A value as written: a number or a word. */
struct value {
	bool is_num;
	uint64_t num;
	const char *str;
};

/* Where a message goes: located (the config block) or not (the
 * environment). */
struct sink {
	struct diag *d;
	struct span sp;
	FILE *err;
};

static void fail(struct sink *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct sink *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (k->d) {
		diag_verror(k->d, k->sp, fmt, ap);
	} else {
		fputs("ERROR: ", k->err);
		vfprintf(k->err, fmt, ap);
		fputc('\n', k->err);
	}
	va_end(ap);
}

static bool truthy(const char *s)
{
	return !strcasecmp(s, "1") || !strcasecmp(s, "true") ||
	       !strcasecmp(s, "on") || !strcasecmp(s, "yes");
}

static bool falsy(const char *s)
{
	return !strcasecmp(s, "0") || !strcasecmp(s, "false") ||
	       !strcasecmp(s, "off") || !strcasecmp(s, "no");
}

/* The key without BPFTRACE_, lower case, in buf. */
static const char *restore(const char *key, char *buf, size_t cap)
{
	size_t i = 0;
	for (; key[i] && i + 1 < cap; i++)
		buf[i] = (char)tolower((unsigned char)key[i]);
	buf[i] = 0;
	if (!strncmp(buf, "bpftrace_", 9))
		return buf + 9;
	return buf;
}

static int set_var(struct sink *k, const char *key, const var *v,
		   const struct value *val)
{
	char num[24];
	const char *s = val->str;
	if (val->is_num) {
		snprintf(num, sizeof(num), "%llu",
			 (unsigned long long)val->num);
		s = num;
	}
	switch (v->kind) {
	case SK_NUM: {
		uint64_t n = val->num;
		if (!val->is_num) {
			char *end;
			errno = 0;
			unsigned long long x = strtoull(s, &end, 0);
			if (!*s || *end || errno || *s == '-') {
				fail(k, "%s: expecting a number, got %s", key, s);
				return -1;
			}
			n = x;
		}
		if (n < v->lo || n > v->hi) {
			fail(k, "%s: sonde accepts a number from %llu to %llu, "
			     "not %llu", key, (unsigned long long)v->lo,
			     (unsigned long long)v->hi, (unsigned long long)n);
			return -1;
		}
		if (v->u32)
			*v->u32 = (uint32_t)n;
		else if (v->u64)
			*v->u64 = n;
		return 0;
	}
	case SK_BOOL: {
		bool b;
		if (val->is_num)
			b = val->num != 0;
		else if (truthy(s))
			b = true;
		else if (falsy(s))
			b = false;
		else {
			fail(k, "%s: Invalid bool value: valid values are true, "
			     "false, 1 or 0.", key);
			return -1;
		}
		if ((v->only == ONLY_TRUE && !b) ||
		    (v->only == ONLY_FALSE && b)) {
			fail(k, "%s: sonde can only honour %s here", key,
			     b ? "false" : "true");
			return -1;
		}
		if (v->flag)
			*v->flag = v->inverted ? !b : b;
		return 0;
	}
	case SK_WORD:
		for (size_t i = 0; !val->is_num && v->words[i]; i++)
			if (v->nocase ? !strcasecmp(s, v->words[i]) :
					!strcmp(s, v->words[i])) {
				*v->word = (int)i;
				return 0;
			}
		fail(k, "%s: %s", key, v->invalid);
		return -1;
	case SK_LICENSE:
		for (size_t i = 0; i < N(licenses); i++)
			if (!strcmp(s, licenses[i])) {
				*v->str = licenses[i];
				return 0;
			}
		/* as 0.26 words it, in the order its table gives the names */
		fail(k, "Invalid value for license. Found: %s. Valid values: "
		     "Dual MIT/GPL, Dual BSD/GPL, Dual MPL/GPL, GPL and "
		     "additional rights, GPL v2, GPL. Read more about BPF programs "
		     "and licensing: https://docs.kernel.org/bpf/"
		     "bpf_licensing.html#using-bpf-programs-in-the-linux-kernel",
		     s);
		return -1;
	case SK_STRING: {
		size_t n = strlen(s);
		char *copy = malloc(n + 1); /* lives as long as the run */
		if (!copy)
			return -1;
		memcpy(copy, s, n + 1);
		*v->str = copy;
		return 0;
	}
	case SK_UNSTABLE: {
		/* as 0.26 reads ConfigUnstable: a true word or a number
		 * other than 0 enables, a false one (or 0) is error. Only
		 * dw_ustack's is kept (v->word): sonde's tseries, typeinfo
		 * and statement imports are not unstable */
		int u;
		if (val->is_num)
			u = val->num ? UNSTABLE_ENABLE : UNSTABLE_ERROR;
		else if (!strcasecmp(s, "enable") || truthy(s))
			u = UNSTABLE_ENABLE;
		else if (!strcasecmp(s, "warn"))
			u = UNSTABLE_WARN;
		else if (!strcasecmp(s, "error") || falsy(s))
			u = UNSTABLE_ERROR;
		else {
			fail(k, "%s: Invalid value for unstable config: valid "
			     "values are enable, warn, and error.", key);
			return -1;
		}
		if (v->word)
			*v->word = u;
		return 0;
	}
	case SK_CACHE:
		/* sonde keeps each file's symbols once for all processes and
		 * each process's mappings apart: what both caches give, and
		 * accurate under ASLR; it has no uncached mode */
		if (!strcasecmp(s, "per_pid") || !strcasecmp(s, "per_program") ||
		    (val->is_num ? val->num != 0 : !strcmp(s, "1")))
			return 0;
		if (!strcasecmp(s, "none") || !strcmp(s, "0")) {
			fail(k, "%s: sonde can only honour PER_PID or "
			     "PER_PROGRAM here", key);
			return -1;
		}
		fail(k, "%s: Invalid value for cache_user_symbols: valid values "
		     "are PER_PID, PER_PROGRAM, and NONE.", key);
		return -1;
	case SK_FILE:
	case SK_DIR:
		/* environment only: a config block never names them (they
		 * have no config name, settings_find() cannot find them) */
		break;
	}
	return -1;
}

/* Whether the environment sets v (it then wins over the block). */
static bool env_sets(const var *v)
{
	char name[96];
	const char *prefixes[] = { "SONDE_", "BPFTRACE_" };
	for (size_t p = 0; p < N(prefixes); p++) {
		size_t n = (size_t)snprintf(name, sizeof(name), "%s%s",
					    prefixes[p], v->name);
		for (size_t i = 0; i < n; i++)
			name[i] = (char)toupper((unsigned char)name[i]);
		if (getenv(name))
			return true;
		if (v->env) {
			snprintf(name, sizeof(name), "%s%s", prefixes[p],
				 v->env);
			if (getenv(name))
				return true;
		}
	}
	return false;
}

int config_apply(struct diag *d, const struct ast_config *c)
{
	int rc = 0;
	for (uint32_t i = 0; c && i < c->n; i++) {
		const struct ast_config_item *it = &c->items[i];
		struct sink k = { d, it->span, NULL };
		char buf[96];
		const char *key = restore(it->key, buf, sizeof(buf));
		bool skip = false;
		for (size_t j = 0; j < N(deprecated); j++)
			if (!strcmp(key, deprecated[j])) {
				diag_warning(d, it->span, "%s is deprecated and "
					     "has no effect", it->key);
				skip = true;
			}
		if (skip)
			continue;
		const var *v = settings_find(key);
		for (size_t j = 0; !v && j < N(renamed); j++)
			if (!strcmp(key, renamed[j][0])) {
				v = settings_find(renamed[j][1]);
				diag_warning(d, it->span, "%s has been renamed, "
					     "please use %s", it->key, v->name);
			}
		if (!v) {
			bool env = false;
			for (size_t j = 0; j < N(env_only); j++)
				env |= !strcmp(key, env_only[j]);
			diag_error(d, it->span, "%s: %s", it->key, env ?
				   "can only be set as an environment variable" :
				   "not a known configuration option");
			rc = -1;
			continue;
		}
		struct value val = { it->kind == CONFIG_INT ||
				     it->kind == CONFIG_BOOL, it->num, it->str };
		/* checked even when the environment overrides it */
		struct limits saved = limits;
		if (set_var(&k, it->key, v, &val) < 0)
			rc = -1;
		else if (env_sets(v))
			limits = saved;
	}
	return rc;
}

int config_from_env(FILE *err)
{
	int rc = 0;
	for (size_t i = 0; i < nsettings; i++) {
		const var *v = &settings[i];
		if (!v->name)
			continue;
		char name[96];
		size_t n = (size_t)snprintf(name, sizeof(name), "BPFTRACE_%s",
					    v->name);
		for (size_t j = 0; j < n; j++)
			name[j] = (char)toupper((unsigned char)name[j]);
		/* sonde's own spelling of it: limits_from_env reads it */
		if (v->env && !strcasecmp(name + 9, v->env))
			continue;
		const char *s = getenv(name);
		if (!s)
			continue;
		struct sink k = { NULL, { 0 }, err };
		struct value val = { false, 0, s };
		if (set_var(&k, v->name, v, &val) < 0)
			rc = -1;
	}
	return rc;
}
