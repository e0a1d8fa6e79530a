#include "kernel/glob.h"

#include <string.h>

bool glob_match(const char *pat, const char *s)
{
	/* Iterative with one backtrack point: linear-ish, no recursion blowup
	 * on patterns like "a*a*a*a*b". */
	const char *star = NULL, *resume = NULL;
	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat == '?' || *pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

bool glob_has_wildcard(const char *pat)
{
	return strpbrk(pat, "*?") != NULL;
}
