/*
 * errno values as words. strerror() knows only the user-space errnos;
 * the kernel returns its internal ones too (ENOTSUPP, 524, when a
 * function cannot be probed), which strerror() prints as "Unknown error
 * 524". err_str() names those as well.
 */
#ifndef SONDE_ERRSTR_H
#define SONDE_ERRSTR_H

/* err: a positive or negative errno. A static string (strerror's, or
 * the kernel-internal code's name and meaning). */
const char *err_str(int err);

#endif
