/* bpftrace 0.26's reading of numbers written as text (intparse.c). */
#ifndef SONDE_INTPARSE_H
#define SONDE_INTPARSE_H

#include <stddef.h>
#include <stdint.h>

/* Reads num as 0.26's util::to_uint does (1e6, 1_000, 0x10, 0b101, 010,
 * 10ul, 100ms in nanoseconds). Returns 0, or -errno with 0.26's words for
 * what is wrong ("invalid trailing bytes: 1b") in why[0..n). */
int intparse_u64(const char *num, uint64_t *out, char *why, size_t n);

#endif
