/*
 * The ZIP reader behind uprobes on "ARCHIVE!/NAME" (kernel/ziparchive.c),
 * on archives written here byte by byte: a stored entry's data offset and
 * size, a compressed entry refused, a missing name, an archive comment
 * before which the end record must be found, and files that are no ZIP.
 */
#include "check.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/ziparchive.h"

static uint8_t buf[4096];
static size_t len;

static void put16(uint32_t v)
{
	buf[len++] = (uint8_t)v;
	buf[len++] = (uint8_t)(v >> 8);
}

static void put32(uint32_t v)
{
	put16(v & 0xffff);
	put16(v >> 16);
}

static void put(const void *p, size_t n)
{
	memcpy(buf + len, p, n);
	len += n;
}

struct ent {
	const char *name;
	const char *data;
	uint16_t method;
	uint32_t usize;
	uint32_t lho, data_off;
};

/* An archive of the entries, with extra fields in the local headers (as
 * zipalign pads them) and comment after the end record. */
static void write_zip(struct ent *e, int n, const char *comment)
{
	len = 0;
	for (int i = 0; i < n; i++) {
		uint32_t dl = (uint32_t)strlen(e[i].data);
		e[i].lho = (uint32_t)len;
		put32(0x04034b50);
		put16(10);
		put16(0);
		put16(e[i].method);
		put32(0); /* time, date */
		put32(0); /* crc: not read */
		put32(dl);
		put32(e[i].usize ? e[i].usize : dl);
		put16((uint32_t)strlen(e[i].name));
		put16(3); /* extra */
		put(e[i].name, strlen(e[i].name));
		put("pad", 3);
		e[i].data_off = (uint32_t)len;
		put(e[i].data, dl);
	}
	uint32_t cd = (uint32_t)len;
	for (int i = 0; i < n; i++) {
		uint32_t dl = (uint32_t)strlen(e[i].data);
		put32(0x02014b50);
		put16(20);
		put16(10);
		put16(0);
		put16(e[i].method);
		put32(0);
		put32(0);
		put32(dl);
		put32(e[i].usize ? e[i].usize : dl);
		put16((uint32_t)strlen(e[i].name));
		put16(0);
		put16(0);
		put16(0);
		put16(0);
		put32(0);
		put32(e[i].lho);
		put(e[i].name, strlen(e[i].name));
	}
	uint32_t cdlen = (uint32_t)len - cd;
	put32(0x06054b50);
	put16(0);
	put16(0);
	put16((uint32_t)n);
	put16((uint32_t)n);
	put32(cdlen);
	put32(cd);
	put16((uint32_t)strlen(comment));
	put(comment, strlen(comment));
}

static char path[64];

static void save(void)
{
	FILE *f = fopen(path, "wb");
	fwrite(buf, 1, len, f);
	fclose(f);
}

TEST(zip_stored_entries)
{
	struct ent e[2] = {
		{ "lib/arm64/libfoo.so", "ELFCODE", 0, 0, 0, 0 },
		{ "assets/x.txt", "packed", 8, 60, 0, 0 },
	};
	/* a comment holding the end record's signature must not fool it */
	write_zip(e, 2, "PK\x05\x06 is not the end record: a comment that "
		     "is longer than an end record");
	save();
	uint64_t off = 0, size = 0;
	CHECK(zip_stored_entry(path, "lib/arm64/libfoo.so", &off, &size) == 0);
	CHECK(off == e[0].data_off && size == 7);
	CHECK(!memcmp(buf + off, "ELFCODE", 7));
	CHECK(zip_stored_entry(path, "assets/x.txt", &off, &size) == -ENOTSUP);
	CHECK(zip_stored_entry(path, "lib/arm64/libfoo", &off, &size) ==
	      -ENOENT);
	CHECK(zip_stored_entry(path, "nope", &off, &size) == -ENOENT);
}

TEST(zip_not_an_archive)
{
	uint64_t off, size;
	len = 0;
	put("\x7f" "ELF not a zip at all, no end record", 36);
	save();
	CHECK(zip_stored_entry(path, "x", &off, &size) == -EINVAL);
	len = 0;
	save();
	CHECK(zip_stored_entry(path, "x", &off, &size) == -EINVAL);
	/* an end record pointing past the file */
	struct ent e[1] = { { "a", "b", 0, 0, 0, 0 } };
	write_zip(e, 1, "");
	buf[len - 6] = 0xff; /* central directory offset */
	save();
	CHECK(zip_stored_entry(path, "a", &off, &size) == -EINVAL);
	CHECK(zip_stored_entry("/nonexistent.zip", "a", &off, &size) ==
	      -ENOENT);
}

TEST(zip_archive_paths)
{
	CHECK(zip_archive_len("/app/Foo.apk!/lib/libfoo.so") == 12);
	CHECK(zip_archive_len("./a.zip!/true") == 7);
	CHECK(zip_archive_len("/bin/true") == 0);
	CHECK(zip_archive_len("!/x") == 0);     /* no archive */
	CHECK(zip_archive_len("/a.zip!/") == 0); /* no entry */
}

int main(void)
{
	snprintf(path, sizeof(path), "/tmp/sonde-zip-test-%d.zip",
		 (int)getpid());
	RUN(zip_stored_entries);
	RUN(zip_not_an_archive);
	RUN(zip_archive_paths);
	unlink(path);
	return check_done();
}
