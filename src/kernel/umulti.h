/*
 * uprobe_multi links (Linux 6.6+): one BPF link attaches a program to many
 * offsets of one file, and closing it removes them all after one RCU grace
 * period, where a uprobe perf event each waits for one of its own (~50 ms,
 * serialised by the kernel: 2,000 uprobes took 100 s to detach). libbpf
 * 1.1 has no API for it and its headers no constants, so the link is
 * made with the bpf() syscall directly.
 */
#ifndef SONDE_UMULTI_H
#define SONDE_UMULTI_H

#include <stdbool.h>
#include <stdint.h>

/* enum bpf_attach_type's BPF_TRACE_UPROBE_MULTI: a program for these
 * links is loaded with it as its expected attach type */
#define UMULTI_ATTACH_TYPE 48

/* Attaches prog_fd at offsets[0..n) of the file at path (entries, or
 * returns when ret), each firing with its cookie (bpf_get_attach_cookie);
 * pid > 0: in that process only. Returns the link fd or -errno. */
int umulti_attach(int prog_fd, const char *path, const uint64_t *offsets,
		  const uint64_t *cookies, uint32_t n, bool ret, int pid);

#endif
