/*
 * Limits and modes a user sets through the environment, with bpftrace's
 * names (BPFTRACE_STRLEN, BPFTRACE_MAP_KEYS_MAX, ...) or sonde's own
 * (SONDE_STRLEN, ...). One process-wide struct, read by every stage that
 * has a limit to honour; main.c fills it once, before compiling, through
 * limits_from_env(). Its initial values are bpftrace's defaults.
 */
#ifndef SONDE_LIMITS_H
#define SONDE_LIMITS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct limits {
	uint32_t strlen;        /* bytes of a str() value, NUL included */
	uint32_t map_keys_max;  /* max_entries of a keyed map */
	uint64_t cat_bytes_max; /* bytes cat() prints of a file */
	uint32_t max_probes;    /* attach points of one run */
	uint32_t max_bpf_progs; /* BPF programs of one run */
	uint32_t perf_rb_pages; /* event ring buffer, in pages per CPU;
				   0: sonde's default (1 MiB in all) */
	uint32_t log_size;      /* verifier log buffer, bytes */
	int stack_mode;         /* enum stack_mode of kstack/ustack without
				   a mode argument */
	bool no_cpp_demangle;   /* print C++ symbols as they are mangled */
	int ustack_dwarf;       /* enum ustack_unwind; nonzero (dwarf):
				   every ustack is unwound from .eh_frame
				   (model/unwind.h). An int, not a bool: the
				   setting is a word (settings.c) */
	int unstable_dw_ustack; /* enum unstable: 0.26's unstable_dw_ustack,
				   what using dw_ustack costs */
	int32_t dwarf_pid;      /* --dwarf-pid: the process dw_ustack
				   unwinds, besides -p and -c's; 0: none */
	bool no_debug_info;     /* show_debug_info = false: user stacks
				   without source lines and inlined calls */
	int missing_probes;     /* enum missing_probes: an attach point that
				   does not exist or cannot be attached */
	const char *btf;        /* a vmlinux BTF file instead of
				   /sys/kernel/btf/vmlinux; NULL: none */
	const char *kernel_source; /* kernel headers' tree for #include */
	bool no_print_maps_on_exit; /* print_maps_on_exit = false */
	const char *license;    /* of the BPF programs; "GPL" */
	const char *str_trunc_trailer; /* after a cut string; ".." */
	uint64_t on_stack_limit; /* bpftrace's on_stack_limit, kept only
				    for config() to read back: where values
				    live is sonde's choice (settings.c) */
};

/* bpftrace 0.26's missing_probes config: what an explicit attach point
 * that does not exist here, or cannot be attached, costs the run. */
enum missing_probes { MISSING_ERROR, MISSING_WARN, MISSING_IGNORE };

/* sonde's ustack_unwind setting: how ustack (not dw_ustack, always
 * DWARF) walks a user stack. */
enum ustack_unwind { UNWIND_FP, UNWIND_DWARF };

/* bpftrace 0.26's ConfigUnstable: an unstable feature is used freely,
 * with a warning, or refused. */
enum unstable { UNSTABLE_ENABLE, UNSTABLE_WARN, UNSTABLE_ERROR };

extern struct limits limits;

/* Bytes of the event ring buffer: perf_rb_pages pages for each possible
 * CPU, rounded up to a power of two (the kernel's rule), or 1 MiB. */
uint32_t limits_ringbuf_bytes(void);
/* The event ring buffer's pages per CPU in effect: perf_rb_pages, or
 * what sonde's default (1 MiB in all) comes to. */
uint32_t limits_ringbuf_pages(void);

/* Reads every variable; a bad value is reported to err as one sentence
 * naming the variable and what it accepts. Returns 0, or -1 after an
 * error. */
int limits_from_env(FILE *err);

#endif
