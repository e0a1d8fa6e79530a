/*
 * The kernel's code images, as perf names them for profiles: vmlinux's
 * text as "[kernel.kallsyms]" and each module as "[NAME]", with their
 * address ranges (kallsyms' _text.._etext, /proc/modules) and GNU build
 * ids (/sys/kernel/notes, /sys/module/NAME/notes), so that a symbolising
 * server can find the matching debug info. Read on first use and kept.
 */
#ifndef SONDE_KIMAGE_H
#define SONDE_KIMAGE_H

#include <stddef.h>
#include <stdint.h>

struct kimage {
	const char *name;     /* "[kernel.kallsyms]", "[ext4]" */
	uint64_t start, end;  /* [start, end) */
	char build_id[41];    /* hex; "" when unknown */
};

/* The image holding kernel address addr, or NULL when none is known (BPF
 * programs, trampolines, addresses hidden by kptr_restrict). */
const struct kimage *kimage_of(uint64_t addr);
/* Parses ELF notes (as in /sys/kernel/notes) for the GNU build id, into
 * hex (41 bytes). Returns 0, or -ENOENT when there is none. */
int kimage_note_build_id(const uint8_t *notes, size_t len, char *hex);
void kimage_unload(void);

#endif
