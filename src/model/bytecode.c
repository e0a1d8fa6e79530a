#include "bytecode.h"

#include <stdlib.h>
#include <string.h>

void bpf_code_free(struct bpf_code *c)
{
	free(c->insns);
	free(c->relocs);
	memset(c, 0, sizeof(*c));
}
