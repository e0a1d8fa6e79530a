/*
 * DWARF unwinding of user stacks in the kernel (issue 37): the contract
 * between the tables that user space builds from each binary's .eh_frame
 * (kernel/ehframe.h, runtime/uwtables.h) and the walker that codegen emits
 * (codegen/dwunwind.h), which reads them from two BPF maps.
 *
 * The design is the OpenTelemetry eBPF profiler's and Parca's, not
 * bpftrace 0.26's: every row of a binary's call frame information is
 * reduced in user space to the few rules that x86_64 code uses (the CFA is
 * SP or BP plus an offset, the return address is at CFA-8, BP is kept or
 * saved at CFA plus an offset), so the walker in the kernel needs no
 * DWARF expression machine. A row whose rules are anything else becomes
 * UW_STOP: the walk ends there, and the stack is marked truncated.
 *
 * .uw_rows (BPF_MAP_TYPE_ARRAY of struct uw_row): every loaded binary's
 *   rows, each binary's a run sorted by address. A row covers the
 *   addresses from its own to the next row's; each run ends with a row of
 *   kind UW_GAP at the end of its last FDE, and every hole between FDEs
 *   starts with one. Runs are shared: two processes that map one file use
 *   one run.
 * .uw_procs (BPF_MAP_TYPE_HASH, u32 tgid -> struct uw_proc): the
 *   executable mappings of each process whose tables are loaded, sorted
 *   by start address.
 *
 * Addresses in rows are the ELF's virtual addresses (what .eh_frame
 * holds); a mapping's bias turns an instruction pointer into one:
 * vaddr = ip - bias.
 */
#ifndef SONDE_MODEL_UNWIND_H
#define SONDE_MODEL_UNWIND_H

#include <stdint.h>

#define UW_ROWS_MAP ".uw_rows"
#define UW_PROCS_MAP ".uw_procs"

/* Capacities: rows of all binaries (8 bytes each: 8 MiB), executable
 * mappings of one process, processes. */
#define UW_ROWS_MAX (1u << 20)
#define UW_MAPS_MAX 64u
#define UW_PROCS_MAX 4096u
/* Steps of the binary search over one mapping's rows (2^20 rows) and over
 * one process's mappings (64). */
#define UW_ROW_SEARCH_STEPS 20
#define UW_MAP_SEARCH_STEPS 6

/* How the canonical frame address (the caller's SP) is found. */
enum uw_cfa {
	UW_GAP = 0,     /* no FDE covers the address: the walk stops,
			   truncated (code with no unwind data) */
	UW_END = 1,     /* the return address is undefined: the outermost
			   frame (_start, clone's child): the walk stops,
			   the stack complete */
	UW_CFA_SP = 2,  /* CFA = SP + cfa_off */
	UW_CFA_BP = 3,  /* CFA = BP + cfa_off */
	UW_CFA_PLT = 4, /* a PLT entry's expression:
			   CFA = SP + 8 + ((IP & 15) >= 11 ? 8 : 0) */
	UW_STOP = 5,    /* rules the walker does not follow: the walk
			   stops, truncated */
};

/* Where the caller's BP is. */
enum uw_bp {
	UW_BP_SAME = 0,  /* unchanged (same value, or never saved) */
	UW_BP_SAVED = 1, /* at CFA + bp_off * 8 */
};

struct uw_row {
	uint32_t addr;    /* first ELF virtual address the row covers */
	uint16_t cfa_off; /* UW_CFA_SP, UW_CFA_BP: bytes added; bigger
			     offsets make the row UW_STOP */
	int8_t bp_off;    /* UW_BP_SAVED: in 8-byte words, from the CFA */
	uint8_t rule;     /* enum uw_cfa in bits 0-3, enum uw_bp in 4-5 */
};

#define UW_RULE(cfa, bp) ((uint8_t)((cfa) | ((bp) << 4)))
#define UW_RULE_CFA(r) ((enum uw_cfa)((r) & 15))
#define UW_RULE_BP(r) ((enum uw_bp)(((r) >> 4) & 3))

/* One executable mapping of a process. */
struct uw_mapping {
	uint64_t start, end;  /* [start, end) of the mapping */
	uint64_t bias;        /* ip - bias: the ELF virtual address */
	uint32_t row_first;   /* its binary's run in .uw_rows */
	uint32_t row_count;   /* 0: the binary has no unwind data */
};

struct uw_proc {
	uint32_t nmaps;       /* maps[0..nmaps), sorted by start */
	uint32_t pad;
	struct uw_mapping maps[UW_MAPS_MAX];
};

/* The pid word of a ustack unwound this way (the u64 after nframes,
 * types.h) holds the pid in its low 32 bits and these flags above. */
#define UW_FLAG_TRUNCATED (1ull << 32) /* the walk stopped before the
					  stack's end: unknown frames follow */
#define UW_FLAG_NO_TABLES (1ull << 33) /* the process had no tables: the
					  frames are the frame-pointer walk's */

#endif
