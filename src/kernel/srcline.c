#define _GNU_SOURCE
#include "kernel/srcline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Files kept open: a profile touches a program and its libraries; past
 * that, the oldest is closed (round robin). */
#define MAX_FILES 64

struct sfile {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	bool has_dwarf;
};

static struct sfile files[MAX_FILES];
static uint32_t nfiles, next_evict;
static char *debuginfo_path;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static void close_file(struct sfile *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

static struct sfile *open_file(const char *path)
{
	for (uint32_t i = 0; i < nfiles; i++)
		if (!strcmp(files[i].path, path))
			return &files[i];
	struct sfile *f;
	if (nfiles < MAX_FILES) {
		f = &files[nfiles++];
	} else {
		f = &files[next_evict];
		next_evict = (next_evict + 1) % MAX_FILES;
		close_file(f);
	}
	f->path = xstrdup(path);
	f->dwfl = dwfl_begin(&callbacks);
	if (f->dwfl) {
		f->mod = dwfl_report_offline(f->dwfl, "", path, -1);
		dwfl_report_end(f->dwfl, NULL, NULL);
	}
	if (f->mod)
		f->has_dwarf = dwfl_module_getdwarf(f->mod, &f->bias) != NULL;
	return f;
}

bool srcline_available(const char *path)
{
	const struct sfile *f = open_file(path);
	return f && f->has_dwarf;
}

static const char *func_name(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *s = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		s = dwarf_formstring(&at);
	if (!s && dwarf_attr_integrate(die, DW_AT_name, &at))
		s = dwarf_formstring(&at);
	return s;
}

static bool is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

static int64_t udata(Dwarf_Die *die, int name)
{
	Dwarf_Attribute at;
	Dwarf_Word w = 0;
	if (dwarf_attr(die, name, &at))
		dwarf_formudata(&at, &w);
	return (int64_t)w;
}

int srcline_frames(const char *path, uint64_t vaddr, struct srcline *out,
		   int max)
{
	struct sfile *f = open_file(path);
	if (!f || !f->has_dwarf || max <= 0)
		return 0;
	Dwarf_Addr addr = vaddr + f->bias, cubias;
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, addr, &cubias);
	if (!cu)
		return 0;
	int64_t line = 0;
	Dwfl_Line *l = dwfl_module_getsrc(f->mod, addr);
	int lineno;
	if (l && dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL))
		line = lineno;
	/* The innermost function at the address; then, from each inlined
	 * instance, the function it sits in. (dwarf_getscopes gives the
	 * abstract scopes above an inlined instance, so the concrete ones
	 * are found from each instance in turn, as eu-addr2line -i does.) */
	Dwarf_Die *scopes = NULL;
	int ns = dwarf_getscopes(cu, addr - cubias, &scopes);
	Dwarf_Die die;
	bool found = false;
	for (int i = 0; i < ns && !found; i++)
		if (is_function(&scopes[i])) {
			die = scopes[i];
			found = true;
		}
	free(scopes);
	int n = 0;
	while (found && n < max) {
		struct srcline *s = &out[n++];
		s->func = func_name(&die);
		s->file = dwarf_decl_file(&die);
		int dl = 0;
		s->decl_line = dwarf_decl_line(&die, &dl) == 0 ? dl : 0;
		s->line = line;
		if (dwarf_tag(&die) == DW_TAG_subprogram)
			break;
		/* the caller's line is where this one was inlined */
		line = udata(&die, DW_AT_call_line);
		found = false;
		ns = dwarf_getscopes_die(&die, &scopes);
		for (int i = 1; i < ns && !found; i++)
			if (is_function(&scopes[i])) {
				die = scopes[i];
				found = true;
			}
		free(scopes);
	}
	return n;
}

void srcline_unload(void)
{
	for (uint32_t i = 0; i < nfiles; i++)
		close_file(&files[i]);
	nfiles = next_evict = 0;
}
