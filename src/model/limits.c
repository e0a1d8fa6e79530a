/* The environment's limits and modes: parsed and range-checked once. */
#include "model/limits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/settings.h"
#include "model/types.h"

struct limits limits = {
	.strlen = 64,
	.map_keys_max = 4096,
	.cat_bytes_max = 10240,
	.max_probes = 512,
	.max_bpf_progs = 512,
	.perf_rb_pages = 0,
	.log_size = 16u << 20,
	.stack_mode = STACK_BPFTRACE,
	.missing_probes = MISSING_ERROR,
	.ustack_dwarf = UNWIND_FP,
	.unstable_dw_ustack = UNSTABLE_WARN,
	.license = "GPL",
	.str_trunc_trailer = "..",
	.on_stack_limit = 32,
};

/* SONDE_NAME wins over BPFTRACE_NAME; *used is the spelling found. */
static const char *get(const char *name, char *used, size_t cap)
{
	const char *v;
	snprintf(used, cap, "SONDE_%s", name);
	if ((v = getenv(used)))
		return v;
	snprintf(used, cap, "BPFTRACE_%s", name);
	return getenv(used);
}

/* A decimal number in [lo, hi]; leaves *out alone when unset. */
static int number(FILE *err, const char *name, uint64_t lo, uint64_t hi,
		  uint64_t *out)
{
	char used[64];
	const char *v = get(name, used, sizeof(used));
	if (!v)
		return 0;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (!*v || *end || errno || *v == '-' || n < lo || n > hi) {
		fprintf(err, "ERROR: %s must be a number from %llu to %llu, "
			"not '%s'\n", used, (unsigned long long)lo,
			(unsigned long long)hi, v);
		return -1;
	}
	*out = n;
	return 0;
}

static int u32(FILE *err, const char *name, uint64_t lo, uint64_t hi,
	       uint32_t *out)
{
	uint64_t v = *out;
	if (number(err, name, lo, hi, &v) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* One of words (NULL-terminated); *out is its index. */
static int word(FILE *err, const char *name, const char *const *words,
		const char *accepted, int *out)
{
	char used[64];
	const char *v = get(name, used, sizeof(used));
	if (!v)
		return 0;
	for (int i = 0; words[i]; i++)
		if (!strcmp(v, words[i])) {
			*out = i;
			return 0;
		}
	fprintf(err, "ERROR: %s must be %s, not '%s'\n", used, accepted, v);
	return -1;
}

/* A path that exists: a file (dir false) or a directory. */
static int path(FILE *err, const char *name, bool dir, const char **out)
{
	char used[64];
	const char *v = get(name, used, sizeof(used));
	struct stat st;
	if (!v)
		return 0;
	if (stat(v, &st) < 0 || (dir ? !S_ISDIR(st.st_mode) :
				       !S_ISREG(st.st_mode))) {
		fprintf(err, "ERROR: %s must name an existing %s, not '%s'\n",
			used, dir ? "directory" : "file", v);
		return -1;
	}
	*out = v;
	return 0;
}

uint32_t limits_ringbuf_bytes(void)
{
	if (!limits.perf_rb_pages)
		return 1u << 20;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	long page = sysconf(_SC_PAGESIZE);
	uint64_t want = (uint64_t)limits.perf_rb_pages *
			(uint64_t)(page > 0 ? page : 4096) *
			(uint64_t)(cpus > 0 ? cpus : 1);
	uint64_t bytes = (uint64_t)(page > 0 ? page : 4096);
	while (bytes < want && bytes < (1u << 30))
		bytes <<= 1;
	return (uint32_t)bytes;
}

uint32_t limits_ringbuf_pages(void)
{
	if (limits.perf_rb_pages)
		return limits.perf_rb_pages;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	long page = sysconf(_SC_PAGESIZE);
	uint64_t per = (uint64_t)(cpus > 0 ? cpus : 1) *
		       (uint64_t)(page > 0 ? page : 4096);
	uint64_t n = limits_ringbuf_bytes() / per;
	return n ? (uint32_t)n : 1;
}

/* Every setting with an environment name (settings.c), read from
 * SONDE_<ENV> or BPFTRACE_<ENV>. */
int limits_from_env(FILE *err)
{
	static const char *const bools[] = { "0", "1", NULL };
	int rc = 0;
	for (size_t i = 0; i < nsettings; i++) {
		const struct setting *s = &settings[i];
		if (!s->env)
			continue;
		switch (s->kind) {
		case SK_NUM:
			if (s->u32)
				rc |= u32(err, s->env, s->lo, s->hi, s->u32);
			else
				rc |= number(err, s->env, s->lo, s->hi, s->u64);
			break;
		case SK_WORD:
			rc |= word(err, s->env, s->words, s->accepts, s->word);
			break;
		case SK_BOOL: {
			int v = *s->flag;
			rc |= word(err, s->env, bools, "0 or 1", &v);
			*s->flag = v;
			break;
		}
		case SK_FILE:
		case SK_DIR:
			rc |= path(err, s->env, s->kind == SK_DIR, s->str);
			break;
		default:
			break;
		}
	}
	return rc ? -1 : 0;
}
