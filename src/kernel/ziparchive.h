/*
 * Files stored inside ZIP archives, as Android keeps shared libraries in
 * APKs ("/app/Foo.apk!/lib/arm64-v8a/libfoo.so"): the kernel maps them
 * straight from the archive, so a uprobe goes on the archive at the
 * entry's data offset plus the offset in the file. Only stored
 * (uncompressed) entries can be mapped, and so probed.
 */
#ifndef SONDE_ZIPARCHIVE_H
#define SONDE_ZIPARCHIVE_H

#include <stddef.h>
#include <stdint.h>

/* "ARCHIVE!/NAME" split at its first "!/": the length of ARCHIVE, or 0
 * when path is no such path. */
size_t zip_archive_len(const char *path);

/* Entry name of the ZIP archive at path: where its data starts in the
 * archive and how long it is. Returns 0, -ENOENT when there is no such
 * entry, -ENOTSUP when it is compressed, -EINVAL when path is no ZIP
 * archive (or one this reader does not know: ZIP64, split archives), or
 * another -errno. */
int zip_stored_entry(const char *path, const char *name, uint64_t *off,
		     uint64_t *size);

#endif
