/* C++ symbol names for people: _ZN2ns5Klass6methodEi -> ns::Klass::method(int).
 * libiberty's demangler, linked statically (no run-time dependency). */
#ifndef SONDE_UTIL_DEMANGLE_H
#define SONDE_UTIL_DEMANGLE_H

#include <stdbool.h>

/* Whether name looks like a mangled C++ name (_Z..., or ____Z... as the
 * Itanium ABI writes block-scope statics of some compilers). */
bool demangle_is_cpp(const char *name);

/* The demangled name (malloc'd, the caller frees it), or NULL when name is
 * no C++ name or does not demangle. */
char *demangle_cpp(const char *name);

/* For printed symbols (ustack, usym, func): demangle_cpp() unless the
 * environment sets BPFTRACE_NO_CPP_DEMANGLE, as bpftrace does. */
char *demangle_for_output(const char *name);

#endif
