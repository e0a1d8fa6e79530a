/*
 * Why the kernel refused to load a program, in words. The verifier names
 * its limits in its log ("The sequence of 8193 jumps is too complex",
 * "BPF program is too large", "infinite loop detected"); those are the
 * program's size or shape, said with what to do about it. Anything else
 * it refuses is sonde's bug, said with the verifier's own last words.
 */
#ifndef SONDE_RUNTIME_REFUSAL_H
#define SONDE_RUNTIME_REFUSAL_H

#include <stdio.h>

struct cprog;

/* Writes one line for program p refused with -errno err, given the
 * verifier's log (NULL or "" when there is none):
 *   sonde: cannot load the program for NAME: WHY
 *   sonde: internal error: the kernel verifier rejected the program for
 *   NAME: ITS LAST WORDS */
void refusal_report(FILE *out, const struct cprog *p, int err,
		    const char *log);

#endif
