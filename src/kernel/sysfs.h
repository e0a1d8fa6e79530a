/*
 * Small readers for the one-value files of /sys, /proc and tracefs. All
 * return -errno on failure, as the rest of the runtime does.
 */
#ifndef SONDE_SYSFS_H
#define SONDE_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/* Reads at most n-1 bytes of path into buf, NUL-terminated; returns the
 * length read. */
int sysfs_read(const char *path, char *buf, size_t n);
/* Reads the whole file into a malloc'd NUL-terminated buffer: sizes of
 * /proc and tracefs files are unknown until read. *len may be NULL. */
int sysfs_slurp(const char *path, char **out, size_t *len);
/* Reads one decimal integer (leading whitespace allowed). */
int sysfs_read_u64(const char *path, uint64_t *val);

#endif
