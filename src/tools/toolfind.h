/* toolfind: sonde's own tools (tools/NAME.bt) found by name, in
 *   1. the directories of $SONDE_TOOLS (':'-separated);
 *   2. the build tree's tools/, next to build/sonde;
 *   3. PREFIX/share/sonde/tools, next to PREFIX/bin/sonde (so a DESTDIR
 *      install runs in place);
 *   4. the directory compiled in (SONDE_TOOLDIR, from make's PREFIX).
 * The first directory that has the tool wins. */
#ifndef SONDE_TOOLS_TOOLFIND_H
#define SONDE_TOOLS_TOOLFIND_H

#include <stddef.h>
#include <stdio.h>

/* Whether name can be a tool's name: letters, digits, '_' and '-'. */
int toolfind_is_name(const char *name);

/* Finds tool name (NAME.bt, or NAME if it already ends in .bt); writes
 * its path into buf. Returns 0, or -ENOENT (-ENAMETOOLONG) when absent. */
int toolfind_path(const char *name, char *buf, size_t size);

/* Prints "NAME  what it shows" for every tool, each name once, sorted,
 * and the directories searched. Returns the number of tools. */
int toolfind_list(FILE *out);

#endif
