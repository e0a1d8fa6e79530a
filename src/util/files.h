/*
 * Files whose content comes from the user's hands: the standard streams
 * a parent may have closed, and the files a script names to be read
 * whole (#include, --include, import), which may be a device that never
 * ends (/dev/zero), a FIFO that blocks for ever, or a directory.
 */
#ifndef SONDE_FILES_H
#define SONDE_FILES_H

#include <stddef.h>

/* The most a file named by a script is read (#include, --include,
 * import): 16 MiB, a hundred times the largest header of /usr/include
 * (<vulkan/vulkan_core.h>, 0.9 MB) and far above any script. */
#define FILES_READ_MAX (16u << 20)

/*
 * Each of fds 0, 1 and 2 that is closed is opened on /dev/null, in the
 * direction that cannot be used (stdin write-only, stdout and stderr
 * read-only): nothing opened later (an epoll fd, a map) takes the place
 * of a standard stream, and a write to a closed stdout still fails with
 * EBADF, reported as any failed write is. Call it first in main, before
 * anything is opened. Returns 0, or -errno when /dev/null cannot be
 * opened (the fds are then left as they were).
 */
int files_guard_stdio(void);

/*
 * Reads path whole, when it is a regular file of at most cap bytes, into
 * a malloc'd buffer (*text, NUL-terminated, *len bytes; NUL bytes in it
 * kept). It never blocks on a FIFO nor reads a device. Returns 0, or
 * -errno: open's and read's, -EISDIR for a directory, -EINVAL for
 * another file that is not regular, -EFBIG past cap (files_err_str
 * words them).
 */
int files_read(const char *path, size_t cap, char **text, size_t *len);

/* files_read's error as words: "not a regular file", "larger than
 * 16 MiB" (cap), or strerror's. A static or thread-local string. */
const char *files_err_str(int err, size_t cap);

#endif
