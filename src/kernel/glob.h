/*
 * Wildcard matching for attach points, as bpftrace does it: '*' matches any
 * run of characters, '?' any one character. bpftrace has no brace
 * alternatives ({a,b}), so neither do we.
 */
#ifndef SONDE_GLOB_H
#define SONDE_GLOB_H

#include <stdbool.h>

bool glob_match(const char *pat, const char *s);
bool glob_has_wildcard(const char *pat);

#endif
