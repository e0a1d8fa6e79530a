/*
 * C type names in a script: the built-in integer names (int32, u64,
 * unsigned long ...), the struct/union/enum/typedef definitions at the top
 * of the script, laid out as a C compiler for this ABI lays them out, and
 * kernel types from BTF. Script definitions win over kernel ones of the
 * same name, as they do for bpftrace (its definitions go before the
 * kernel headers it includes).
 */
#ifndef SONDE_CTYPES_H
#define SONDE_CTYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "lang/ast.h"
#include "model/types.h"

struct arena;
struct diag;
struct ctypes;

/* Lays out every definition of p in order; errors (unknown member types,
 * redefinitions) go to d. Never NULL. */
struct ctypes *ctypes_build(struct arena *a, struct diag *d,
			    const struct ast_program *p);

/* The type a type specifier names (with its pointers and array length).
 * Unknown names are reported to d at ts's span; type_none then. */
const struct type *ctypes_resolve(struct ctypes *ct, struct diag *d,
				  const struct ast_typespec *ts);

/* The record the script defines under name ("struct foo"), or NULL: it
 * stands for a kernel (BTF) record of that name, and for a pointer to it
 * declared before its definition (struct node *next). */
const struct type *ctypes_script_record(const struct ctypes *ct,
					const char *name);
/* Whether the script defines record name but its definition is in error
 * (already reported: its uses stay quiet). */
bool ctypes_script_failed(const struct ctypes *ct, const char *name);

/* The value of an identifier that names a constant: a script enumerator
 * or integer macro ("#define NAME 42"), a kernel enumerator (BTF), or a
 * well-known kernel header macro (AF_INET, TASK_RUNNING ...). *enm: the
 * enum of an enumerator, else NULL. */
bool ctypes_constant(const struct ctypes *ct, const char *name,
		     int64_t *value, const struct type_enum **enm);

#endif
