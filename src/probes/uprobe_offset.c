/* uprobe:PATH:FUNC+OFFSET must land on an instruction's first byte: a
 * breakpoint written into the middle of one corrupts the traced program.
 * x86-64's instructions are of any length: as bpftrace does, the
 * function's instructions are decoded from its start and an offset inside
 * one, or past one that cannot be decoded, is refused with bpftrace's
 * words. aarch64's are 4 bytes each, 4-aligned: an offset that is no
 * multiple of 4 is inside one (the kernel would refuse it with only
 * EINVAL). */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "kernel/arch.h"
#include "kernel/x86insn.h"
#include "probes/impl.h"
#include "util/diag.h"

int probe_uprobe_check_offset(struct probe_env *env,
			      const struct attach_point *a, const char *path,
			      const char *func, uint64_t func_off,
			      uint64_t delta)
{
	if (!delta)
		return 0;
	unsigned align = arch_insn_align(arch_build());
	if (align > 1) { /* instructions of one size, aligned */
		if (delta % align == 0)
			return 0;
		diag_error(env->diag, a->span, "Could not add uprobe into "
			   "middle of instruction: %s:%s+%llu (%s's "
			   "instructions are %u bytes)", path, func,
			   (unsigned long long)delta, arch_name(arch_build()),
			   align);
		return -1;
	}
	/* the bytes up to the offset and one whole instruction after */
	uint8_t buf[4096 + 16];
	if (delta > 4096) {
		diag_error(env->diag, a->span, "Failed to check if uprobe is in "
			   "proper place: %s:%s+%llu (offsets past 4096 are not "
			   "decoded)", path, func, (unsigned long long)delta);
		return -1;
	}
	int fd = open(probe_user_binary(env, path), O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, (size_t)delta + 16,
					(off_t)func_off);
	if (fd >= 0)
		close(fd);
	enum x86insn_at at = n < (ssize_t)delta ? X86INSN_UNKNOWN :
			     x86insn_boundary(buf, (size_t)n, (size_t)delta);
	if (at == X86INSN_START)
		return 0;
	diag_error(env->diag, a->span, at == X86INSN_MIDDLE ?
		   "Could not add uprobe into middle of instruction: %s:%s+%llu" :
		   "Failed to check if uprobe is in proper place: %s:%s+%llu",
		   path, func, (unsigned long long)delta);
	return -1;
}
