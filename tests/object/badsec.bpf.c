/* A section name libbpf knows no program type for: sonde must name it. */
#include "common.h"

SEC("foo/bar")
int badsec(void *ctx)
{
	return 0;
}
