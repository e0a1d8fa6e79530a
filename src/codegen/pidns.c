/* pid and tid as sonde's PID namespace numbers them (pidns.h). */
#include <string.h>
#include <sys/stat.h>

#include "codegen/emit.h"
#include "codegen/pidns.h"

/* As bpftrace 0.26, pid and tid are as seen from sonde's own PID
 * namespace (pid(init): from the initial one): where that is not the
 * initial namespace, the kernel translates them. Returns false in the
 * initial namespace. */
#define PROC_PID_INIT_INO 0xeffffffcU
bool cg_ns_pid_tid(struct cg *g, const char *mode, bool tid, ir_reg *out)
{
	static int known;
	static struct stat ns;
	if (mode && !strcmp(mode, "init"))
		return false;
	if (!known)
		known = stat("/proc/self/ns/pid", &ns) == 0 ? 1 : -1;
	if (known < 0 || ns.st_ino == PROC_PID_INIT_INO)
		return false;
	/* struct bpf_pidns_info { u32 pid; u32 tgid; } */
	ir_slot s = ir_slot_new(g->ir, 8, 8);
	cg_zero(g, s, 0, 8);
	ir_reg p = ir_reg_new(g->ir);
	ir_slot_addr(g->ir, p, s, 0);
	cg_call(g, BPF_FUNC_get_ns_current_pid_tgid, 4,
		ir_const(g->ir, (int64_t)ns.st_dev),
		ir_const(g->ir, (int64_t)ns.st_ino), p, ir_const(g->ir, 8));
	*out = ir_reg_new(g->ir);
	ir_load_slot(g->ir, 4, *out, s, tid ? 0 : 4);
	return true;
}

ir_reg cg_current_pid(struct cg *g)
{
	ir_reg r;
	if (cg_ns_pid_tid(g, NULL, false, &r))
		return r;
	r = cg_call(g, BPF_FUNC_get_current_pid_tgid, 0);
	ir_alui(g->ir, BPF_RSH, r, 32);
	return r;
}
