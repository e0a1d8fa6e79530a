/* The shared library of the DWARF/USDT workload (dwl.c): a function with
 * its own debug info and a USDT provider of its own, for the tests of
 * probes on a library (tests/runtime/dwarf_*.test, usdt_lib*.test). */
#include <sys/sdt.h>

struct lib_req {
	int id;
	const char *tag;
};

__attribute__((noinline)) int lib_work(int n, const char *tag)
{
	struct lib_req r = { n, tag };
	DTRACE_PROBE2(dwlib, work, r.id, r.tag);
	return n * 2;
}
