/*
 * The settings of DWARF stacks from the environment, as main.c reads it
 * (limits_from_env, then config_from_env): sonde's ustack_unwind
 * (BPFTRACE_ or SONDE_USTACK_UNWIND, fp or dwarf, SONDE_ winning) and
 * bpftrace 0.26's unstable_dw_ustack (BPFTRACE_UNSTABLE_DW_USTACK), whose
 * words are read as 0.26's ConfigUnstable parser reads them (config.cpp:
 * enable or a true word, warn, error or a false word). The config block's
 * forms are test_stack_types.c's and the errors layer's.
 */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lang/config.h"
#include "model/limits.h"

static struct limits initial;
static char *errs;

/* The environment read with NAME=VALUE set (VALUE NULL: unset): 0 or -1,
 * the messages in errs. */
static int read_env(const char *name, const char *value)
{
	limits = initial;
	free(errs);
	size_t len;
	FILE *ef = open_memstream(&errs, &len);
	if (value)
		setenv(name, value, 1);
	int rc = limits_from_env(ef) | config_from_env(ef);
	unsetenv(name);
	fclose(ef);
	return rc ? -1 : 0;
}

TEST(ustack_unwind_words)
{
	CHECK(read_env("BPFTRACE_USTACK_UNWIND", NULL) == 0);
	CHECK(limits.ustack_dwarf == UNWIND_FP);
	CHECK(read_env("BPFTRACE_USTACK_UNWIND", "dwarf") == 0);
	CHECK(limits.ustack_dwarf == UNWIND_DWARF);
	CHECK(read_env("SONDE_USTACK_UNWIND", "dwarf") == 0);
	CHECK(limits.ustack_dwarf == UNWIND_DWARF);
	CHECK(read_env("BPFTRACE_USTACK_UNWIND", "fp") == 0);
	CHECK(limits.ustack_dwarf == UNWIND_FP);
	CHECK(read_env("SONDE_USTACK_UNWIND", "frame") == -1);
	CHECK_STR(errs, "ERROR: SONDE_USTACK_UNWIND must be fp or dwarf, not "
		  "'frame'\n");
	/* SONDE_ wins */
	setenv("BPFTRACE_USTACK_UNWIND", "fp", 1);
	CHECK(read_env("SONDE_USTACK_UNWIND", "dwarf") == 0);
	unsetenv("BPFTRACE_USTACK_UNWIND");
	CHECK(limits.ustack_dwarf == UNWIND_DWARF);
}

TEST(unstable_dw_ustack_words)
{
	static const struct { const char *v; int want; } cases[] = {
		{ "enable", UNSTABLE_ENABLE }, { "ENABLE", UNSTABLE_ENABLE },
		{ "true", UNSTABLE_ENABLE }, { "1", UNSTABLE_ENABLE },
		{ "warn", UNSTABLE_WARN }, { "error", UNSTABLE_ERROR },
		{ "false", UNSTABLE_ERROR }, { "0", UNSTABLE_ERROR },
		{ "off", UNSTABLE_ERROR },
	};
	CHECK(read_env("BPFTRACE_UNSTABLE_DW_USTACK", NULL) == 0);
	CHECK(limits.unstable_dw_ustack == UNSTABLE_WARN); /* 0.26's default */
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		CHECK(read_env("BPFTRACE_UNSTABLE_DW_USTACK", cases[i].v) == 0);
		CHECK(limits.unstable_dw_ustack == cases[i].want);
	}
	CHECK(read_env("BPFTRACE_UNSTABLE_DW_USTACK", "maybe") == -1);
	CHECK_STR(errs, "ERROR: unstable_dw_ustack: Invalid value for unstable "
		  "config: valid values are enable, warn, and error.\n");
}

int main(void)
{
	unsetenv("BPFTRACE_USTACK_UNWIND");
	unsetenv("SONDE_USTACK_UNWIND");
	unsetenv("BPFTRACE_UNSTABLE_DW_USTACK");
	initial = limits;
	RUN(ustack_unwind_words);
	RUN(unstable_dw_ustack_words);
	free(errs);
	return check_done();
}
