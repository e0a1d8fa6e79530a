/* A reader of ZIP's end of central directory, central directory and local
 * headers (APPNOTE.TXT 4.3), enough to find a stored entry. */
#define _GNU_SOURCE
#include "kernel/ziparchive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EOCD_SIG 0x06054b50u
#define CDH_SIG 0x02014b50u
#define LFH_SIG 0x04034b50u
#define EOCD_LEN 22
#define CDH_LEN 46
#define LFH_LEN 30
/* the archive comment, at most 65535 bytes, follows the EOCD record */
#define EOCD_SEARCH (EOCD_LEN + 65535)

size_t zip_archive_len(const char *path)
{
	const char *bang = strstr(path, "!/");
	return bang && bang > path && bang[2] ? (size_t)(bang - path) : 0;
}

static uint32_t le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return le16(p) | le16(p + 2) << 16;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EINVAL;
}

/* The central directory's offset and size, from the EOCD record. */
static int find_cd(int fd, uint64_t fsize, uint64_t *cd_off, uint64_t *cd_len,
		   uint32_t *entries)
{
	size_t len = fsize < EOCD_SEARCH ? (size_t)fsize : EOCD_SEARCH;
	if (len < EOCD_LEN)
		return -EINVAL;
	uint8_t *buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	int err = read_at(fd, buf, len, fsize - len);
	/* the last record whose comment ends the file (a comment may hold
	 * the signature too) */
	for (size_t i = len - EOCD_LEN + 1; !err && i-- > 0;)
		if (le32(buf + i) == EOCD_SIG &&
		    i + EOCD_LEN + le16(buf + i + 20) == len) {
			*entries = le16(buf + i + 10);
			*cd_len = le32(buf + i + 12);
			*cd_off = le32(buf + i + 16);
			free(buf);
			/* 0xffffffff: ZIP64, not read here */
			return *cd_off + *cd_len <= fsize ? 0 : -EINVAL;
		}
	free(buf);
	return err ? err : -EINVAL;
}

int zip_stored_entry(const char *path, const char *name, uint64_t *off,
		     uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	uint64_t cd_off = 0, cd_len = 0;
	uint32_t entries = 0;
	int err = fstat(fd, &st) ? -errno :
		  find_cd(fd, (uint64_t)st.st_size, &cd_off, &cd_len, &entries);
	uint8_t *cd = err ? NULL : malloc(cd_len + 1);
	if (!err && !cd)
		err = -ENOMEM;
	if (!err)
		err = read_at(fd, cd, cd_len, cd_off);
	size_t nlen = strlen(name);
	size_t p = 0;
	int found = -ENOENT;
	for (uint32_t i = 0; !err && i < entries && found == -ENOENT; i++) {
		if (p + CDH_LEN > cd_len || le32(cd + p) != CDH_SIG) {
			err = -EINVAL;
			break;
		}
		const uint8_t *h = cd + p;
		uint32_t method = le16(h + 10), csize = le32(h + 20),
			 usize = le32(h + 24), n = le16(h + 28),
			 extra = le16(h + 30), comment = le16(h + 32),
			 lho = le32(h + 42);
		if (p + CDH_LEN + n > cd_len) {
			err = -EINVAL;
			break;
		}
		if (n == nlen && !memcmp(h + CDH_LEN, name, n)) {
			uint8_t lfh[LFH_LEN];
			if (method != 0 || csize != usize) {
				found = -ENOTSUP;
			} else if ((err = read_at(fd, lfh, LFH_LEN, lho)) == 0) {
				if (le32(lfh) != LFH_SIG) {
					err = -EINVAL;
				} else {
					*off = (uint64_t)lho + LFH_LEN +
					       le16(lfh + 26) + le16(lfh + 28);
					*size = usize;
					found = *off + usize <=
							(uint64_t)st.st_size ?
							0 : -EINVAL;
				}
			}
		}
		p += CDH_LEN + n + extra + comment;
	}
	free(cd);
	close(fd);
	return err ? err : found;
}
