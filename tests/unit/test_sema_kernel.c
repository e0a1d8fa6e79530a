/*
 * Sema learns the machine's facts only through struct sema_kernel
 * (sema_opts.kernel, which the front end fills from its job): a fake
 * machine is asked for cgroupid()'s path and kaddr()'s symbol and its
 * answers are used, and the machine with nothing refuses both, located.
 * Neither the path nor the symbol exists on the machine running the test,
 * so a sema that did its own I/O would fail the first case.
 */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "driver/frontend.h"
#include "lang/sema.h"

static char asked_path[64], asked_sym[64];

static int fake_cgroup_id(const char *path, uint64_t *id)
{
	snprintf(asked_path, sizeof(asked_path), "%s", path);
	*id = 4242;
	return 0;
}

static int fake_ksym_addr(const char *name, uint64_t *addr)
{
	snprintf(asked_sym, sizeof(asked_sym), "%s", name);
	*addr = 0xffffffff81234567ull;
	return 0;
}

static int fake_usym(const char *binary, const char *name, uint64_t *addr,
		     uint64_t *size, bool *pie)
{
	return -ENOENT;
}

static int fake_ncpus(void)
{
	return 4;
}

static const struct sema_kernel fake = { fake_cgroup_id, fake_ksym_addr,
					 fake_usym, fake_ncpus };

static const char prog[] =
	"BEGIN { @c = cgroupid(\"/sonde/fake/cgroup\"); "
	"@k = kaddr(\"sonde_fake_symbol\"); exit(); }";

/* The front end up to sema on prog with kernel k; its errors in *errs. */
static int check_with(const struct sema_kernel *k, char **errs)
{
	struct options o;
	memset(&o, 0, sizeof(o));
	o.mode = MODE_CODEGEN;
	struct job j;
	memset(&j, 0, sizeof(j));
	arena_init(&j.arena);
	j.kernel = k;
	size_t len;
	FILE *ef = open_memstream(errs, &len);
	struct diag d;
	diag_init(&d, ef);
	struct src_file f = { "stdin", prog, (uint32_t)strlen(prog) };
	int rc = frontend_run(&j, &o, &f, &d, FE_STOP_SEMA);
	fclose(ef);
	job_release(&j);
	return rc;
}

TEST(fake_machine_is_asked)
{
	char *errs = NULL;
	asked_path[0] = asked_sym[0] = '\0';
	CHECK(check_with(&fake, &errs) == 0);
	CHECK_STR(errs, "");
	CHECK_STR(asked_path, "/sonde/fake/cgroup");
	CHECK_STR(asked_sym, "sonde_fake_symbol");
	free(errs);
}

TEST(machine_with_nothing_refuses)
{
	char *errs = NULL;
	asked_path[0] = asked_sym[0] = '\0';
	CHECK(check_with(&sema_kernel_none, &errs) == 1);
	CHECK(errs && strstr(errs, "stdin:1:14-44: ERROR: cannot find the cgroup /sonde/fake/cgroup"));
	CHECK(errs && strstr(errs, "stdin:1:51-77: ERROR: Failed to resolve kernel symbol: sonde_fake_symbol"));
	CHECK_STR(asked_path, "");
	free(errs);
}

int main(void)
{
	RUN(fake_machine_is_asked);
	RUN(machine_with_nothing_refuses);
	return check_done();
}
