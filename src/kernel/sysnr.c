/* Syscall numbers by name (sysnr.h). */
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <asm/unistd_64.h>
#else
#include <asm/unistd.h>
#endif

#include "kernel/sysnr.h"

struct sysnr {
	const char *name;
	int nr;
};

/* sorted by name: the generator sorts them */
static const struct sysnr table[] = {
#define SYSNR(n) { #n, __NR_##n },
#include "kernel/sysnr.def"
#undef SYSNR
};

static int cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct sysnr *)elem)->name);
}

#if defined(__x86_64__)
/* Tracepoints named after their entry point, not the table's name
 * (arch/x86/entry/syscalls/syscall_64.tbl: "4 common stat sys_newstat"). */
static const struct sysnr entry_names[] = {
	{ "newfstat", __NR_fstat },   { "newlstat", __NR_lstat },
	{ "newstat", __NR_stat },     { "newuname", __NR_uname },
	{ "sendfile64", __NR_sendfile }, { "umount", __NR_umount2 },
	{ NULL, -1 }
};

/* Syscalls newer than the oldest headers sonde builds with (Debian 12's
 * are Linux 6.1's), from the same table; a header that has one wins. */
static const struct sysnr newer[] = {
#define NEWER(n, nr) { #n, nr },
#ifndef __NR_cachestat
	NEWER(cachestat, 451)
#endif
#ifndef __NR_fchmodat2
	NEWER(fchmodat2, 452)
#endif
#ifndef __NR_map_shadow_stack
	NEWER(map_shadow_stack, 453)
#endif
#ifndef __NR_futex_wake
	NEWER(futex_wake, 454) NEWER(futex_wait, 455) NEWER(futex_requeue, 456)
#endif
#ifndef __NR_statmount
	NEWER(statmount, 457) NEWER(listmount, 458)
#endif
#ifndef __NR_lsm_get_self_attr
	NEWER(lsm_get_self_attr, 459) NEWER(lsm_set_self_attr, 460)
	NEWER(lsm_list_modules, 461)
#endif
#ifndef __NR_mseal
	NEWER(mseal, 462)
#endif
#ifndef __NR_setxattrat
	NEWER(setxattrat, 463) NEWER(getxattrat, 464) NEWER(listxattrat, 465)
	NEWER(removexattrat, 466)
#endif
#ifndef __NR_open_tree_attr
	NEWER(open_tree_attr, 467)
#endif
#ifndef __NR_file_getattr
	NEWER(file_getattr, 468) NEWER(file_setattr, 469)
#endif
#undef NEWER
	{ NULL, -1 }
};
#endif

#if defined(__x86_64__)
/* name in a table ended by a NULL name, or NULL */
static const struct sysnr *scan(const struct sysnr *t, const char *name)
{
	for (; t->name; t++)
		if (!strcmp(name, t->name))
			return t;
	return NULL;
}
#endif

int sysnr_lookup(const char *name)
{
	const struct sysnr *s = bsearch(name, table,
					sizeof(table) / sizeof(*table),
					sizeof(*table), cmp);
#if defined(__x86_64__)
	if (!s)
		s = scan(entry_names, name);
	if (!s)
		s = scan(newer, name);
#endif
	return s ? s->nr : -1;
}

const char *sysnr_name(int nr)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(*table); i++)
		if (table[i].nr == nr)
			return table[i].name;
#if defined(__x86_64__)
	for (const struct sysnr *s = newer; s->name; s++)
		if (s->nr == nr)
			return s->name;
#endif
	return NULL;
}
