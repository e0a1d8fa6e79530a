/*
 * libFuzzer target: a ZIP archive -> kernel/ziparchive.c, which finds a
 * library stored in an APK for uprobe:"APP.zip!/lib/x.so" probes. The
 * archive is written to a memfd and read through /proc/self/fd/N, as
 * the reader reads a path. Every entry name the central directory holds
 * (up to 16) is looked up, and a few names it may not hold. Any crash,
 * sanitizer report, leak or hang is a bug, and so is an entry found
 * outside the archive.
 * Input: byte 0 selects the name looked up first; the rest is the
 * archive. Seeds: zip -0 archives fuzz.mk makes of small ELF files.
 * Build and run: make fuzz (see tests/fuzz/fuzz.mk).
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernel/ziparchive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = { "elf_seed", "lib/x86_64/libseed.so",
				     "", "a", "lib/arm64-v8a/libx.so" };

static void lookup(const char *path, const char *name, size_t size)
{
	uint64_t off = 0, len = 0;
	if (zip_stored_entry(path, name, &off, &len) == 0 &&
	    (off > size || len > size - off)) {
		fprintf(stderr, "fuzz_zip: entry %s at %llu, %llu bytes, "
				"outside the %zu-byte archive\n", name,
			(unsigned long long)off, (unsigned long long)len, size);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned first = data[0];
	data++, size--;
	int fd = memfd_create("fuzz.zip", MFD_CLOEXEC);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	lookup(path, names[first % (sizeof(names) / sizeof(*names))], size);
	/* the names of the central directory's headers, found by their
	 * signature (PK\1\2), name length at 28 and name at 46 */
	unsigned found = 0;
	for (size_t i = 0; i + 46 <= size && found < 16; i++) {
		/* byte by byte: libFuzzer intercepts memcmp, and a call at
		 * every offset of a 64 KB input cost more than the reader */
		if (data[i] != 'P' || data[i + 1] != 'K' || data[i + 2] != 1 ||
		    data[i + 3] != 2)
			continue;
		size_t n = data[i + 28] | (size_t)data[i + 29] << 8;
		if (i + 46 + n > size)
			continue;
		char *name = strndup((const char *)data + i + 46, n);
		if (!name)
			abort();
		lookup(path, name, size);
		free(name);
		found++;
	}
	/* the "ARCHIVE!/NAME" split of a probe's path */
	char spec[128];
	snprintf(spec, sizeof(spec), "%.*s!/%s", (int)(size < 40 ? size : 40),
		 (const char *)data, names[1]);
	size_t alen = zip_archive_len(spec);
	if (alen > strlen(spec))
		abort();
	close(fd);
	return 0;
}
