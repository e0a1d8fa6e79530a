/* --info: what this kernel and this build support. */
#ifndef SONDE_INFO_H
#define SONDE_INFO_H

#include <stdio.h>

/* Prints the report in bpftrace --info's sections. Returns 0 or -errno. */
int info_print(FILE *out, const char *version);

#endif
