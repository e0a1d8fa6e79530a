/* pid and tid as sonde's PID namespace numbers them, as bpftrace 0.26
 * gives them (where /proc, and so the symbols of their maps, are found). */
#ifndef SONDE_CODEGEN_PIDNS_H
#define SONDE_CODEGEN_PIDNS_H

#include "codegen/cg.h"

/* pid (tid: tid) in sonde's PID namespace, or in the one mode names
 * ("init": the initial one), into *out; false where the kernel's own
 * numbers are those (the initial namespace), nothing emitted. */
bool cg_ns_pid_tid(struct cg *g, const char *mode, bool tid, ir_reg *out);
/* The current process's pid as `pid` is. */
ir_reg cg_current_pid(struct cg *g);

#endif
