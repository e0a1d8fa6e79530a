#ifdef SONDE_HAVE_MHD
#include "runtime/mhd_dl.h"

#include <dlfcn.h>
#include <stdio.h>

struct mhd_dl mhd_dl;

/* The ABI of the header built against: its soname, then the plain name */
static const char *const names[] = { "libmicrohttpd.so.12",
				     "libmicrohttpd.so" };

int mhd_dl_load(char *why, size_t n)
{
	static void *lib;
	if (lib)
		return 0;
	void *h = NULL;
	for (size_t i = 0; !h && i < sizeof(names) / sizeof(*names); i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, n, "%s", dlerror());
		return -1;
	}
#define MHD_DL_SYM(f)                                                     \
	if (!(*(void **)&mhd_dl.f = dlsym(h, "MHD_" #f))) {              \
		snprintf(why, n, "%s has no MHD_" #f, names[0]);          \
		dlclose(h);                                               \
		return -1;                                                \
	}
	MHD_DL_FUNCS(MHD_DL_SYM)
#undef MHD_DL_SYM
	lib = h;
	return 0;
}
#endif
