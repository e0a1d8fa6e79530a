#define _GNU_SOURCE
#include "kernel/kimage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/kallsyms.h"
#include "util/vec.h"
#include "util/xalloc.h"

static bool loaded;
static struct kimage vmlinux;
static VEC(struct kimage) modules;

int kimage_note_build_id(const uint8_t *notes, size_t len, char *hex)
{
	size_t off = 0;
	/* Elf64_Nhdr and Elf32_Nhdr are the same three u32 */
	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, notes + off, 4);
		memcpy(&descsz, notes + off + 4, 4);
		memcpy(&type, notes + off + 8, 4);
		size_t name = off + 12;
		size_t desc = name + ((namesz + 3u) & ~3u);
		size_t next = desc + ((descsz + 3u) & ~3u);
		if (next > len || desc > len || namesz > len || descsz > len)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 &&
		    !memcmp(notes + name, "GNU", 4) && descsz &&
		    descsz <= 20) {
			for (uint32_t i = 0; i < descsz; i++)
				sprintf(hex + 2 * i, "%02x", notes[desc + i]);
			return 0;
		}
		off = next;
	}
	hex[0] = 0;
	return -ENOENT;
}

static void read_build_id(const char *path, char *hex)
{
	hex[0] = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	uint8_t buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n > 0)
		kimage_note_build_id(buf, (size_t)n, hex);
}

static void load(void)
{
	loaded = true;
	vmlinux.name = "[kernel.kallsyms]";
	if (ksyms_load() == 0) {
		vmlinux.start = ksyms_addr("_text");
		if (!vmlinux.start)
			vmlinux.start = ksyms_addr("_stext");
		vmlinux.end = ksyms_addr("_etext");
	}
	read_build_id("/sys/kernel/notes", vmlinux.build_id);
	FILE *f = fopen("/proc/modules", "re");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		char name[64], state[16];
		unsigned long long size, addr;
		/* name size refs deps state addr */
		if (sscanf(line, "%63s %llu %*s %*s %15s %llx", name, &size,
			   state, &addr) != 4 || !addr)
			continue;
		struct kimage m = { 0 };
		char *n = xmalloc(strlen(name) + 3);
		sprintf(n, "[%s]", name);
		m.name = n;
		m.start = addr;
		m.end = addr + size;
		char path[128];
		snprintf(path, sizeof(path),
			 "/sys/module/%s/notes/.note.gnu.build-id", name);
		read_build_id(path, m.build_id);
		vec_push(&modules, m);
	}
	fclose(f);
}

const struct kimage *kimage_of(uint64_t addr)
{
	if (!loaded)
		load();
	if (vmlinux.start && addr >= vmlinux.start && addr < vmlinux.end)
		return &vmlinux;
	for (size_t i = 0; i < modules.len; i++)
		if (addr >= modules.data[i].start && addr < modules.data[i].end)
			return &modules.data[i];
	return NULL;
}

void kimage_unload(void)
{
	for (size_t i = 0; i < modules.len; i++)
		free((char *)modules.data[i].name);
	vec_free(&modules);
	memset(&vmlinux, 0, sizeof(vmlinux));
	loaded = false;
}
