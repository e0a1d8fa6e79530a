#include "gfp.h"

#include <inttypes.h>

#include "util/strbuf.h"

/* Bits of linux/gfp_types.h (6.12), as bpftrace 0.26 lists them. */
enum {
	B_DMA, B_HIGHMEM, B_DMA32, B_MOVABLE, B_RECLAIMABLE, B_HIGH, B_IO,
	B_FS, B_ZERO, B_UNUSED, B_DIRECT_RECLAIM, B_KSWAPD_RECLAIM, B_WRITE,
	B_NOWARN, B_RETRY_MAYFAIL, B_NOFAIL, B_NORETRY, B_MEMALLOC, B_COMP,
	B_NOMEMALLOC, B_HARDWALL, B_THISNODE, B_ACCOUNT, B_ZEROTAGS,
	B_SKIP_ZERO, B_SKIP_KASAN, B_NO_OBJ_EXT,
};

#define F(b) (1ull << B_##b)
#define RECLAIM (F(DIRECT_RECLAIM) | F(KSWAPD_RECLAIM))
#define ATOMIC (F(HIGH) | F(KSWAPD_RECLAIM))
#define KERNEL (RECLAIM | F(IO) | F(FS))
#define NOWAIT (F(KSWAPD_RECLAIM) | F(NOWARN))
#define NOIO RECLAIM
#define NOFS (NOIO | F(IO))
#define USER (NOFS | F(FS) | F(HARDWALL))
#define HIGHUSER (USER | F(HIGHMEM))
#define HIGHUSER_MOVABLE (HIGHUSER | F(MOVABLE) | F(SKIP_KASAN))
#define TRANSHUGE_LIGHT ((HIGHUSER_MOVABLE | F(COMP) | F(NOMEMALLOC) | \
			  F(NOWARN)) & ~RECLAIM)
#define TRANSHUGE (TRANSHUGE_LIGHT | F(DIRECT_RECLAIM))

/* Compound masks first: a mask that matches is named and its bits taken
 * out, so what is left shows by itself (the kernel's rule). */
static const struct {
	uint64_t mask;
	const char *name;
} names[] = {
	{ TRANSHUGE, "GFP_TRANSHUGE" },
	{ TRANSHUGE_LIGHT, "GFP_TRANSHUGE_LIGHT" },
	{ HIGHUSER_MOVABLE, "GFP_HIGHUSER_MOVABLE" },
	{ HIGHUSER, "GFP_HIGHUSER" },
	{ USER, "GFP_USER" },
	{ KERNEL | F(ACCOUNT), "GFP_KERNEL_ACCOUNT" },
	{ KERNEL, "GFP_KERNEL" },
	{ NOFS, "GFP_NOFS" },
	{ ATOMIC, "GFP_ATOMIC" },
	{ NOIO, "GFP_NOIO" },
	{ NOWAIT, "GFP_NOWAIT" },
	{ F(DMA), "GFP_DMA" },
	{ F(HIGHMEM), "__GFP_HIGHMEM" },
	{ F(DMA32), "GFP_DMA32" },
	{ F(HIGH), "__GFP_HIGH" },
	{ F(IO), "__GFP_IO" },
	{ F(FS), "__GFP_FS" },
	{ F(ZERO), "__GFP_ZERO" },
	{ F(DIRECT_RECLAIM), "__GFP_DIRECT_RECLAIM" },
	{ F(KSWAPD_RECLAIM), "__GFP_KSWAPD_RECLAIM" },
	{ F(WRITE), "__GFP_WRITE" },
	{ F(NOWARN), "__GFP_NOWARN" },
	{ F(RETRY_MAYFAIL), "__GFP_RETRY_MAYFAIL" },
	{ F(NOFAIL), "__GFP_NOFAIL" },
	{ F(NORETRY), "__GFP_NORETRY" },
	{ F(MEMALLOC), "__GFP_MEMALLOC" },
	{ F(COMP), "__GFP_COMP" },
	{ F(NOMEMALLOC), "__GFP_NOMEMALLOC" },
	{ F(HARDWALL), "__GFP_HARDWALL" },
	{ F(THISNODE), "__GFP_THISNODE" },
	{ F(ACCOUNT), "__GFP_ACCOUNT" },
	{ F(ZEROTAGS), "__GFP_ZEROTAGS" },
	{ F(SKIP_ZERO), "__GFP_SKIP_ZERO" },
	{ F(SKIP_KASAN), "__GFP_SKIP_KASAN" },
	{ F(NO_OBJ_EXT), "__GFP_NO_OBJ_EXT" },
};

void gfp_format(struct strbuf *sb, uint64_t flags)
{
	if (!flags) {
		sb_putc(sb, '0');
		return;
	}
	const char *sep = "";
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if ((flags & names[i].mask) == names[i].mask) {
			sb_printf(sb, "%s%s", sep, names[i].name);
			flags &= ~names[i].mask;
			sep = "|";
		}
	}
	if (flags)
		sb_printf(sb, "%s0x%" PRIx64, sep, flags);
}
