/*
 * The two machines sema can compile on (struct sema_kernel, lang/sema.h):
 * this one, through src/kernel's readers, and one with nothing.
 */
#include "lang/sema.h"

#include <bpf/libbpf.h>
#include <errno.h>

#include "kernel/cgroup.h"
#include "kernel/elfsym.h"
#include "kernel/kallsyms.h"

static int host_ksym_addr(const char *name, uint64_t *addr)
{
	int err = ksyms_load();
	if (err < 0)
		return err;
	*addr = ksyms_addr(name);
	return *addr ? 0 : -ENOENT;
}

static int host_usym(const char *binary, const char *name, uint64_t *addr,
		     uint64_t *size, bool *pie)
{
	struct elf_syms *es;
	*pie = false;
	if (elfsym_load(binary, &es) == 0) {
		*pie = es->dyn;
		elfsym_free(es);
	}
	return elfsym_find_any(binary, name, addr, size) < 0 ? -ENOENT : 0;
}

const struct sema_kernel sema_kernel_host = {
	.cgroup_id = kcgroup_id,
	.ksym_addr = host_ksym_addr,
	.usym = host_usym,
	.ncpus = libbpf_num_possible_cpus,
};

static int none_cgroup_id(const char *path, uint64_t *id)
{
	return -ENOENT;
}

static int none_ksym_addr(const char *name, uint64_t *addr)
{
	return -ENOENT;
}

static int none_usym(const char *binary, const char *name, uint64_t *addr,
		     uint64_t *size, bool *pie)
{
	*pie = false;
	return -ENOENT;
}

static int none_ncpus(void)
{
	return -ENOENT;
}

const struct sema_kernel sema_kernel_none = {
	.cgroup_id = none_cgroup_id,
	.ksym_addr = none_ksym_addr,
	.usym = none_usym,
	.ncpus = none_ncpus,
};
