#include "util/errstr.h"

#include <stdlib.h>
#include <string.h>

/* include/linux/errno.h: codes the kernel keeps from user space but that
 * reach it through bpf(), perf_event_open() and friends. */
static const struct {
	int code;
	const char *text;
} internal[] = {
	{ 512, "ERESTARTSYS: interrupted by a signal" },
	{ 513, "ERESTARTNOINTR: interrupted, to be restarted" },
	{ 514, "ERESTARTNOHAND: interrupted by a signal" },
	{ 515, "ENOIOCTLCMD: no such ioctl command" },
	{ 516, "ERESTART_RESTARTBLOCK: interrupted, to be restarted" },
	{ 517, "EPROBE_DEFER: the driver asks to be probed again later" },
	{ 518, "EOPENSTALE: the file went stale while opening it" },
	{ 519, "ENOPARAM: no such parameter" },
	{ 521, "EBADHANDLE: illegal NFS file handle" },
	{ 522, "ENOTSYNC: update synchronization mismatch" },
	{ 523, "EBADCOOKIE: cookie is stale" },
	{ 524, "ENOTSUPP: the kernel does not support this here (a function "
	       "it cannot probe: for a uprobe, an instruction it can neither "
	       "single-step nor emulate; for a kprobe, a function on its "
	       "blacklist)" },
	{ 525, "ETOOSMALL: buffer or request is too small" },
	{ 526, "ESERVERFAULT: an unknown server error" },
	{ 527, "EBADTYPE: type not supported by the server" },
	{ 528, "EJUKEBOX: request initiated, but will not complete before "
	       "timeout" },
	{ 529, "EIOCBQUEUED: iocb queued, will get completion event" },
	{ 530, "ERECALLCONFLICT: conflict with recalled state" },
};

const char *err_str(int err)
{
	int e = abs(err);
	for (size_t i = 0; i < sizeof(internal) / sizeof(*internal); i++)
		if (internal[i].code == e)
			return internal[i].text;
	return strerror(e);
}
