/*
 * The file a uprobe or USDT attach point names: a path as written, or a
 * library or program by name ("libc", "c", "bash"), found the way the
 * dynamic loader and the shell would: in the libraries the -p process has
 * mapped, then /etc/ld.so.cache, the standard library directories, and
 * $PATH.
 */
#ifndef SONDE_USRPATH_H
#define SONDE_USRPATH_H

#include <stdbool.h>
#include <stddef.h>

/* Whether so (a file name such as "libc.so.6") is library name: name
 * itself, "name.so*" or "libname.so*". */
bool usrpath_lib_matches(const char *name, const char *so);

/* Writes the path of name into out (of len bytes). pid > 0: search that
 * process's mappings first. Returns 0, -ENOENT when nothing matches, or
 * -ENAMETOOLONG. */
int usrpath_resolve(const char *name, int pid, char *out, size_t len);

#endif
