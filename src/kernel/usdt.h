/*
 * USDT probes from an ELF file's .note.stapsdt notes (systemtap's <sys/sdt.h>
 * format, which DTRACE_PROBE and friends emit): provider, name, the probe's
 * address and its semaphore, both as file offsets, and where each argument
 * is, parsed from the note's spec string in the syntax of the file's
 * machine: x86_64's "-4@%eax 8@-8(%rbp) -4@$5", aarch64's
 * "-4@x0 8@[x29, -16] 4@5".
 */
#ifndef SONDE_USDT_H
#define SONDE_USDT_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/arch.h"

enum usdt_arg_kind {
	USDT_ARG_CONST, /* $N (aarch64: N) */
	USDT_ARG_REG,   /* %reg (aarch64: xN, wN) */
	USDT_ARG_MEM,   /* DISP(%reg) or DISP(%reg,%index,SCALE); aarch64:
			   [reg, DISP]: user memory */
	USDT_ARG_BAD,   /* a form sonde cannot read (%rip-relative) */
};

struct usdt_arg {
	enum usdt_arg_kind kind;
	uint8_t size;   /* 1, 2, 4 or 8 bytes */
	bool is_signed;
	uint32_t reg;   /* REG, MEM: the pt_regs offset of the register */
	int64_t val;    /* CONST: the value, already cut to size and sign-
			   or zero-extended; MEM: the displacement */
	uint32_t index; /* MEM with scale != 0: the index register's offset */
	uint8_t scale;  /* MEM: 1, 2, 4 or 8 with an index; 0: none */
	const char *text; /* as written in the note, for errors */
};

struct usdt_probe {
	const char *provider, *name;
	uint64_t pc_off;      /* file offset of the probe's nop */
	uint64_t sema_off;    /* file offset of the semaphore, 0: none */
	uint32_t nargs;
	struct usdt_arg *args;
};

struct usdt_probes {
	struct usdt_probe *probes;
	uint32_t n;
	enum arch arch;  /* the file's machine (its specs' syntax and */
	bool known_arch; /* registers); unknown: every argument is BAD */
};

struct elf_syms;
/* Reads the probes of ELF file path (none is not an error); es, the same
 * file's symbols, turns addresses into file offsets. Returns 0, or -errno
 * (-ENOEXEC: not an ELF file). */
int usdt_load(const char *path, const struct elf_syms *es,
	      struct usdt_probes *out);
void usdt_free(struct usdt_probes *p);

/* Parses one argument spec ("-4@%eax"). Returns 0 or -EINVAL; unreadable
 * but well-formed forms give USDT_ARG_BAD and 0. */
int usdt_parse_arg(const char *spec, struct usdt_arg *out);
/* The same in architecture a's syntax, with a's pt_regs offsets
 * (usdt_parse_arg: the build's). */
int usdt_parse_arg_arch(enum arch a, const char *spec, struct usdt_arg *out);

#endif
