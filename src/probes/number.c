/* Numbers in attach points (interval:1s, software:faults:1e3), as
 * bpftrace 0.26 reads them (util/intparse.h), "$N" naming a positional
 * parameter. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "probes/impl.h"
#include "util/intparse.h"

/* A number of an attach point, "$N" naming a positional parameter; on
 * failure *why says what is wrong, in bpftrace 0.26's words. */
int probe_parse_part(const struct probe_env *env, const char *s,
		     uint64_t *out, char *why, size_t n)
{
	if (s[0] == '$') {
		char *end;
		long i = strtol(s + 1, &end, 10);
		if (end == s + 1 || *end || i < 1 || i > env->nparams) {
			snprintf(why, n, "invalid integer: %s", s);
			return -EINVAL;
		}
		s = env->params[i - 1];
	}
	return intparse_u64(s, out, why, n);
}
