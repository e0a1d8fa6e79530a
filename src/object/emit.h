/*
 * --emit-elf: writes a compiled program as an ELF64 relocatable BPF
 * object that libbpf can open and load (and bpftool prog loadall), and
 * that `sonde --object` runs as the script would have run:
 *
 *   one executable section per libbpf section name (tracepoint/CAT/NAME,
 *   raw_tp, raw_tp/NAME, tp_btf/NAME, perf_event, uprobe, uretprobe),
 *   one global STT_FUNC symbol per program; BTF-defined maps in .maps
 *   (with the .BTF that describes them); a map the code reaches through a
 *   direct value pointer (counters, the stop flag) as a .data.NAME section,
 *   libbpf's global data; R_BPF_64_64 relocations; "GPL" in license; and
 *   the .sonde section (model/serial.h) with everything else.
 */
#ifndef SONDE_EMIT_H
#define SONDE_EMIT_H

#include <stddef.h>
#include <stdint.h>

struct serial_object;

/* The ELF symbol of map i named name: "m<i>_<name>", cut to BPF's 15
 * characters of [A-Za-z0-9_] (the kernel's object names). */
void emit_map_symbol(uint32_t i, const char *name, char out[16]);

/* The section holding a program of type type named name (the target's
 * name, "tracepoint:sched:sched_switch"); NULL: none libbpf knows. */
const char *emit_section_name(char *buf, size_t n, uint32_t type,
			      uint32_t expected_attach_type, const char *name,
			      int is_begin_or_end);

/* Writes path. o->c holds the programs' code; o->progs' group, context
 * and patches are set, and emit fills in section, offset and code_crc.
 * Returns 0, or -errno with one sentence in why. */
int emit_elf(const char *path, struct serial_object *o, char *why,
	     size_t whylen);

#endif
