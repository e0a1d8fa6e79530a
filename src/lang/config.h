/*
 * bpftrace 0.26's config variables: a script's config block
 * (config = { max_map_keys = 2; stack_mode = perf }) and the same
 * variables' environment forms (BPFTRACE_MAX_MAP_KEYS, ...), written into
 * struct limits (model/limits.h). The environment wins over the block.
 */
#ifndef SONDE_CONFIG_H
#define SONDE_CONFIG_H

#include <stdio.h>

#include "lang/ast.h"
#include "util/diag.h"

/* Applies the block c (NULL: none); each bad item is one located error.
 * Returns 0, or -1 after an error. */
int config_apply(struct diag *d, const struct ast_config *c);

/* Reads the BPFTRACE_<NAME> form of every variable sonde's older
 * spellings (limits_from_env) do not cover; errors go to err. */
int config_from_env(FILE *err);

#endif
