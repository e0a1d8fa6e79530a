/*
 * libFuzzer target: the objects --emit-elf writes, read back by
 * `sonde --object FILE` (object/emitted.c, model/serial.c):
 *   - an input starting with \177ELF is a whole object: written to a
 *     memfd, detected (emitted_detect), opened (emitted_open: the
 *     .sonde section, then each program's code, relocations and
 *     checksum) and resolved (emitted_resolve: its attach points
 *     expanded here again and checked against the object);
 *   - any other input is a .sonde section's payload, read by
 *     serial_read.
 * The section carries a CRC-32 of its body, which a mutation almost
 * always breaks; byte 0's low bit (section inputs) asks for the length
 * and CRC in the header to be made right before reading, so that the
 * body's reader is reached, and the check itself is fuzzed too
 * (bit clear). For whole objects the .sonde section's header is made
 * right the same way. Any crash, sanitizer report, leak or hang is a
 * bug, and so is an object read without error that is not whole (a
 * program without its code).
 * Seeds: tests/fuzz/seeds/fuzz_sonde_section/: objects sonde --emit-elf
 * wrote, and their .sonde sections (objcopy -O binary -j .sonde).
 * Build and run: make fuzz (see tests/fuzz/fuzz.mk).
 */
#define _GNU_SOURCE /* memfd_create */
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/compiled.h"
#include "model/serial.h"
#include "object/emitted.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* serial.c's header: magic[8], version, body length, CRC of the body */
#define HDR 20u

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	devnull = fopen("/dev/null", "w");
	if (!devnull || elf_version(EV_CURRENT) == EV_NONE)
		abort();
	setenv("BPFTRACE_MAX_PROBES", "16", 0);
	return 0;
}

/* Sets the header's length and CRC to the body's. */
static void fix_header(uint8_t *p, size_t len)
{
	if (len < HDR)
		return;
	uint32_t n = (uint32_t)(len - HDR);
	uint32_t crc = serial_crc(0, p + HDR, n);
	memcpy(p + 12, &n, 4);
	memcpy(p + 16, &crc, 4);
}

static void check_whole(const struct serial_object *o)
{
	for (uint32_t i = 0; i < o->c.nprogs; i++)
		if (!o->c.progs[i].name || !o->progs[i].section)
			abort();
}

static void section(const uint8_t *data, size_t size, bool fix)
{
	uint8_t *p = malloc(size ? size : 1);
	if (!p)
		abort();
	memcpy(p, data, size);
	if (fix)
		fix_header(p, size);
	struct arena a;
	arena_init(&a);
	struct serial_object o;
	char why[256];
	if (serial_read(&a, p, size, &o, why, sizeof(why)) == 0)
		check_whole(&o);
	arena_release(&a);
	free(p);
}

/* The .sonde section's header made right in the image, where libelf
 * finds the section inside it. */
static void fix_object(uint8_t *img, size_t size)
{
	Elf *e = elf_memory((char *)img, size);
	size_t shstrndx;
	if (!e || elf_getshdrstrndx(e, &shstrndx)) {
		if (e)
			elf_end(e);
		return;
	}
	Elf_Scn *s = NULL;
	GElf_Shdr sh;
	uint64_t off = 0, len = 0;
	while ((s = elf_nextscn(e, s))) {
		const char *n;
		if (gelf_getshdr(s, &sh) && sh.sh_type != SHT_NOBITS &&
		    (n = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(n, ".sonde")) {
			off = sh.sh_offset;
			len = sh.sh_size;
			break;
		}
	}
	elf_end(e);
	if (len && off <= size && len <= size - off)
		fix_header(img + off, (size_t)len);
}

static void object(const uint8_t *data, size_t size)
{
	uint8_t *img = malloc(size);
	if (!img)
		abort();
	memcpy(img, data, size);
	fix_object(img, size);
	int fd = memfd_create("fuzz.o", MFD_CLOEXEC);
	if (fd < 0 || write(fd, img, size) != (ssize_t)size)
		abort();
	free(img);
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct arena a;
	arena_init(&a);
	struct serial_object o;
	if (emitted_detect(path) == 1 &&
	    emitted_open(&a, path, &o, devnull) == 0) {
		check_whole(&o);
		for (uint32_t i = 0; i < o.c.nprogs; i++)
			if (o.c.progs[i].code.ninsns &&
			    !o.c.progs[i].code.insns)
				abort();
		struct emitted_env env = { 0, 0, NULL, 1 };
		emitted_resolve(&a, &o, &env, devnull);
	}
	arena_release(&a);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 4 && !memcmp(data, "\177ELF", 4)) {
		object(data, size);
		return 0;
	}
	if (size < 1)
		return 0;
	section(data + 1, size - 1, data[0] & 1);
	return 0;
}
