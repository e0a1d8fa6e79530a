#include "runtime/symbols.h"

#include <errno.h>
#include <inttypes.h>

#include "kernel/kallsyms.h"
#include "util/strbuf.h"

int symbols_resolve(void *ctx, uint64_t addr, int32_t pid, bool offset,
		    struct strbuf *sb)
{
	(void)ctx;
	if (pid >= 0)
		return -ENOENT;
	int err = ksyms_load();
	if (err < 0)
		return err;
	uint64_t off;
	const struct ksym *s = ksyms_lookup(addr, &off);
	if (!s)
		return -ENOENT;
	sb_append(sb, s->name);
	if (offset && off)
		sb_printf(sb, "+%" PRIu64, off);
	return 0;
}
