/* C++ demangling: names as bpftrace prints them (__cxa_demangle's form),
 * C names untouched, and BPFTRACE_NO_CPP_DEMANGLE=1 turning it off. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/demangle.h"

static int same(char *got, const char *want)
{
	int ok = got && !strcmp(got, want);
	free(got);
	return ok;
}

TEST(demangles_methods_and_templates)
{
	CHECK(same(demangle_cpp("_ZN2ns5Klass6methodEi"),
		   "ns::Klass::method(int)"));
	CHECK(same(demangle_cpp("_ZN2ns5twiceIlEET_S1_"),
		   "long ns::twice<long>(long)"));
	CHECK(same(demangle_cpp("_ZNSt6vectorIiSaIiEE9push_backERKi"),
		   "std::vector<int, std::allocator<int> >::push_back(int const&)"));
}

TEST(leaves_c_names_and_garbage)
{
	CHECK(demangle_cpp("main") == NULL);
	CHECK(demangle_cpp("_Zgarbage!") == NULL);
	CHECK(!demangle_is_cpp("_start"));
	CHECK(demangle_is_cpp("_ZN1a1bEv"));
}

TEST(env_var_turns_output_demangling_off)
{
	/* demangle_for_output reads the variable once: this runs first */
	setenv("BPFTRACE_NO_CPP_DEMANGLE", "1", 1);
	CHECK(demangle_for_output("_ZN2ns5Klass6methodEi") == NULL);
	/* matching probes by C++ name does not depend on it */
	CHECK(same(demangle_cpp("_ZN2ns5Klass6methodEi"),
		   "ns::Klass::method(int)"));
}

int main(void)
{
	RUN(env_var_turns_output_demangling_off);
	RUN(demangles_methods_and_templates);
	RUN(leaves_c_names_and_garbage);
	return check_done();
}
