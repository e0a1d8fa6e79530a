/* Whether this process may trace at all, checked before anything else so
 * that a user without the rights reads one sentence, not the first
 * failing bpf() call. */
#ifndef SONDE_PRIVILEGE_H
#define SONDE_PRIVILEGE_H

#include <stdbool.h>

/* True for root, for CAP_SYS_ADMIN, or for CAP_BPF with CAP_PERFMON (the
 * effective set). Else *why is the sentence to print. */
bool privilege_can_trace(const char **why);

#endif
