/* Syscall numbers by name (sysnr.h), per architecture. */
#include <stdlib.h>
#include <string.h>

#include "kernel/sysnr.h"

struct sysnr {
	const char *name;
	int nr[ARCH_COUNT];
};

/* sorted by name: the generator sorts them */
static const struct sysnr table[] = {
#define SYSNR(n, x86_64, aarch64) { #n, { x86_64, aarch64 } },
#include "kernel/sysnr.def"
#undef SYSNR
};

/* Tracepoints named after their entry point, not the table's name:
 * x86_64's arch/x86/entry/syscalls/syscall_64.tbl ("4 common stat
 * sys_newstat"), aarch64's include/uapi/asm-generic/unistd.h
 * ("__SYSCALL(__NR3264_fstat, sys_newfstat)"). */
struct entry_name {
	const char *entry, *name;
};
static const struct entry_name x86_entries[] = {
	{ "newfstat", "fstat" }, { "newlstat", "lstat" },
	{ "newstat", "stat" },   { "newuname", "uname" },
	{ "sendfile64", "sendfile" }, { "umount", "umount2" },
	{ NULL, NULL }
};
static const struct entry_name a64_entries[] = {
	{ "fadvise64_64", "fadvise64" },
	{ "newfstat", "fstat" }, { "newuname", "uname" },
	{ "sendfile64", "sendfile" }, { "umount", "umount2" },
	{ NULL, NULL }
};
static const struct entry_name *const entries[ARCH_COUNT] = {
	[ARCH_X86_64] = x86_entries, [ARCH_AARCH64] = a64_entries,
};

/* Syscalls newer than the generator's headers (Debian 12's: Linux 6.1's).
 * Since Linux 5.1 (424, pidfd_send_signal) every architecture numbers a
 * new syscall alike, so one list serves both; a table entry wins. */
static const struct {
	const char *name;
	int nr;
} newer[] = {
	{ "cachestat", 451 }, { "fchmodat2", 452 }, { "map_shadow_stack", 453 },
	{ "futex_wake", 454 }, { "futex_wait", 455 }, { "futex_requeue", 456 },
	{ "statmount", 457 }, { "listmount", 458 },
	{ "lsm_get_self_attr", 459 }, { "lsm_set_self_attr", 460 },
	{ "lsm_list_modules", 461 }, { "mseal", 462 }, { "setxattrat", 463 },
	{ "getxattrat", 464 }, { "listxattrat", 465 }, { "removexattrat", 466 },
	{ "open_tree_attr", 467 }, { "file_getattr", 468 },
	{ "file_setattr", 469 },
};
#define NNEWER (sizeof(newer) / sizeof(*newer))
#define NTABLE (sizeof(table) / sizeof(*table))

static int cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct sysnr *)elem)->name);
}

static int table_nr(enum arch a, const char *name)
{
	const struct sysnr *s = bsearch(name, table, NTABLE, sizeof(*table),
					cmp);
	return s ? s->nr[a] : -1;
}

int sysnr_lookup_arch(enum arch a, const char *name)
{
	int nr = table_nr(a, name);
	for (const struct entry_name *e = entries[a]; nr < 0 && e->entry; e++)
		if (!strcmp(name, e->entry))
			nr = table_nr(a, e->name);
	for (size_t i = 0; nr < 0 && i < NNEWER; i++)
		if (!strcmp(name, newer[i].name))
			nr = newer[i].nr;
	return nr;
}

const char *sysnr_name_arch(enum arch a, int nr)
{
	if (nr < 0)
		return NULL;
	for (size_t i = 0; i < NTABLE; i++)
		if (table[i].nr[a] == nr)
			return table[i].name;
	for (size_t i = 0; i < NNEWER; i++)
		if (newer[i].nr == nr)
			return newer[i].name;
	return NULL;
}

int sysnr_lookup(const char *name)
{
	return sysnr_lookup_arch(arch_build(), name);
}

const char *sysnr_name(int nr)
{
	return sysnr_name_arch(arch_build(), nr);
}
