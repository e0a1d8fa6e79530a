#include "util/demangle.h"

#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

bool demangle_is_cpp(const char *name)
{
	return !strncmp(name, "_Z", 2) || !strncmp(name, "____Z", 5);
}

char *demangle_cpp(const char *name)
{
	if (!demangle_is_cpp(name))
		return NULL;
	/* DMGL_PARAMS: with the argument types, as __cxa_demangle (which
	 * bpftrace uses) prints them. */
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}

char *demangle_for_output(const char *name)
{
	static int off = -1;
	if (off < 0) { /* bpftrace: "1" turns it off, "0" keeps it on */
		const char *v = getenv("BPFTRACE_NO_CPP_DEMANGLE");
		off = v && !strcmp(v, "1");
	}
	return off ? NULL : demangle_cpp(name);
}
