/* Symbolisation for printing: kernel addresses through kallsyms (loaded
 * on first use). User addresses are not resolved yet. */
#ifndef SONDE_SYMBOLS_H
#define SONDE_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

struct strbuf;

/* The out_resolver.sym hook (runtime/output.h). */
int symbols_resolve(void *ctx, uint64_t addr, int32_t pid, bool offset,
		    struct strbuf *sb);

#endif
