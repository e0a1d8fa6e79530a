/* Shared by the provider files of src/probes/ only. */
#ifndef SONDE_PROBES_IMPL_H
#define SONDE_PROBES_IMPL_H

#include "probes/provider.h"

extern const struct provider probe_begin_prov, probe_end_prov,
	probe_tracepoint_prov, probe_interval_prov, probe_profile_prov;

/* Parses a positive decimal count (or "$N", a positional parameter) from
 * an attach point part. Returns 0, -EINVAL when it is not a number, or
 * -ERANGE when it is zero or does not fit. */
int probe_parse_count(const struct probe_env *env, const char *s,
		      uint64_t *out);

/* Attaches prog_fd to perf event pfd and records both in att. Takes
 * ownership of pfd; pfd < 0 is an error passed through. */
int probe_attach_perf(int pfd, int prog_fd, struct probe_attachment *att);

#endif
