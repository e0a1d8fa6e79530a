/* Source lines and inlined frames through libdw, with two indexes built
 * on first use so that a lookup is two binary searches and a short scan
 * rather than a walk of the compile unit's DIEs (dwarf_getscopes): per
 * compile unit, its functions' address ranges; per function, the ranges
 * of the calls inlined into it, with their depth. */
#define _GNU_SOURCE
#include "kernel/srcline.h"

#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/dwarf.h"
#include "kernel/dwp.h"
#include "util/intern.h"
#include "util/vec.h"
#include "util/xalloc.h"

/* Files kept open: a profile touches a program and its libraries; past
 * that, the oldest is closed (round robin). */
#define MAX_FILES 64
/* Inlined calls nested deeper than this are cut */
#define MAX_DEPTH 64

/* An address range of a function (depth 0) or of a call inlined into one
 * (depth: how many inlined calls contain it, itself included). */
struct range {
	uint64_t lo, hi;
	Dwarf_Off die; /* in the Dwarf of the unit indexed (a split unit's
			* own file, for -gsplit-dwarf) */
	uint32_t depth;
};

typedef VEC(struct range) range_vec;

struct sfile {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;
	/* (Dwarf, DIE offset) of a compile unit, or of a function -> its
	 * index: the compile unit's functions, or the function's inlined
	 * calls */
	struct intern idx_of;
	VEC(range_vec) idx;
};

static struct sfile files[MAX_FILES];
static uint32_t nfiles, next_evict;

static void close_file(struct sfile *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);
	free(f->path);
	intern_free(&f->idx_of);
	for (size_t i = 0; i < f->idx.len; i++)
		vec_free(&f->idx.data[i]);
	vec_free(&f->idx);
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
	f->dwfl = dwarf_offline(path, &f->mod);
	if (f->mod)
		f->dw = dwfl_module_getdwarf(f->mod, &f->bias);
	return f;
}

bool srcline_available(const char *path)
{
	return open_file(path)->dw != NULL;
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

static int64_t udata(Dwarf_Die *die, int name)
{
	Dwarf_Attribute at;
	Dwarf_Word w = 0;
	if (dwarf_attr(die, name, &at))
		dwarf_formudata(&at, &w);
	return (int64_t)w;
}

static void add_ranges(range_vec *v, Dwarf_Die *die, uint32_t depth)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (hi > lo) {
			struct range r = { lo, hi, dwarf_dieoffset(die), depth };
			vec_push(v, r);
		}
}

/* The file die is declared in. A split unit's file numbers are its
 * skeleton's (skel), whose line table is the program's: libdw 0.188's
 * dwarf_decl_file() would stop the process on a split unit's DIE. */
static const char *decl_file(Dwarf_Die *die, Dwarf_Die *skel)
{
	if (!skel)
		return dwarf_decl_file(die);
	Dwarf_Attribute at;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t n;
	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &at) ||
	    dwarf_formudata(&at, &idx) ||
	    dwarf_getsrcfiles(skel, &files, &n) || idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* The functions with code among die's children, through namespaces and
 * classes (C++ puts its definitions there). */
static void index_functions(range_vec *v, Dwarf_Die *parent, int level)
{
	Dwarf_Die c;
	if (level > 8 || dwarf_child(parent, &c) != 0)
		return;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
			add_ranges(v, &c, 0);
			break;
		case DW_TAG_namespace: case DW_TAG_class_type:
		case DW_TAG_structure_type: case DW_TAG_union_type:
			index_functions(v, &c, level + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The inlined calls in die's subtree (lexical blocks included). */
static void index_inlined(range_vec *v, Dwarf_Die *parent, uint32_t depth)
{
	Dwarf_Die c;
	if (depth > MAX_DEPTH || dwarf_child(parent, &c) != 0)
		return;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_inlined_subroutine:
			add_ranges(v, &c, depth + 1);
			index_inlined(v, &c, depth + 1);
			break;
		case DW_TAG_lexical_block:
			index_inlined(v, &c, depth);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int by_lo(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The index of die (functions = its functions' ranges, else its inlined
 * calls'), sorted by start, built on first use. */
static const range_vec *index_of(struct sfile *f, Dwarf_Die *die,
				 bool functions)
{
	struct {
		const Dwarf *dw;
		uint64_t off;
	} key = { dwarf_cu_getdwarf(die->cu), dwarf_dieoffset(die) };
	bool fresh;
	uint64_t i = intern(&f->idx_of, &key, sizeof(key), f->idx.len, &fresh);
	if (!fresh)
		return &f->idx.data[i];
	range_vec v = { 0 };
	if (functions)
		index_functions(&v, die, 0);
	else
		index_inlined(&v, die, 0);
	if (v.len)
		qsort(v.data, v.len, sizeof(*v.data), by_lo);
	vec_push(&f->idx, v);
	return &f->idx.data[f->idx.len - 1];
}

/* The function (depth 0) containing pc among a compile unit's. */
static const struct range *function_at(const range_vec *v, uint64_t pc)
{
	size_t lo = 0, hi = v->len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->data[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* functions do not overlap, but a function's cold part may sit
	 * inside another's range list: look back a little */
	for (size_t k = lo; k-- > 0 && lo - k <= 4;)
		if (pc < v->data[k].hi)
			return &v->data[k];
	return NULL;
}

int srcline_frames(const char *path, uint64_t vaddr, struct srcline *out,
		   int max)
{
	struct sfile *f = open_file(path);
	if (!f->dw || max <= 0)
		return 0;
	Dwarf_Addr addr = vaddr + f->bias, cubias;
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, addr, &cubias);
	if (!cu)
		return 0;
	uint64_t pc = addr - cubias;
	Dwarf_Die split, *skel = cu;
	/* a split unit from its .dwo file: one from a package has no
	 * addresses, and its inlined calls would be missed */
	cu = dwp_split_die(NULL, NULL, f->path, cu, &split);
	Dwarf *udw = dwarf_cu_getdwarf(cu->cu);
	const struct range *fn = function_at(index_of(f, cu, true), pc);
	Dwarf_Die fdie;
	if (!fn || !dwarf_offdie(udw, fn->die, &fdie))
		return 0;
	/* the inlined calls containing pc, one per depth */
	const range_vec *inl = index_of(f, &fdie, false);
	Dwarf_Off chain[MAX_DEPTH + 1] = { 0 };
	uint32_t depth = 0;
	for (size_t i = 0; i < inl->len && inl->data[i].lo <= pc; i++) {
		const struct range *r = &inl->data[i];
		if (pc < r->hi && r->depth <= MAX_DEPTH) {
			chain[r->depth] = r->die;
			if (r->depth > depth)
				depth = r->depth;
		}
	}
	int64_t line = 0;
	Dwfl_Line *l = dwfl_module_getsrc(f->mod, addr);
	int lineno;
	if (l && dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL))
		line = lineno;
	int n = 0;
	for (uint32_t d = depth + 1; d-- > 0 && n < max;) {
		Dwarf_Die die = fdie;
		if (d && (!chain[d] || !dwarf_offdie(udw, chain[d], &die)))
			continue; /* a depth with no call (no such DWARF) */
		struct srcline *s = &out[n++];
		s->func = func_name(&die);
		s->file = decl_file(&die, cu == skel ? NULL : skel);
		int dl = 0;
		s->decl_line = dwarf_decl_line(&die, &dl) == 0 ? dl : 0;
		s->line = line;
		/* the caller's line is where this one was inlined */
		line = udata(&die, DW_AT_call_line);
	}
	return n;
}

/* Whether the path components of suffix end path ("b/c.c" ends
 * "/a/b/c.c", not "/a/bb/c.c"). */
static bool path_ends_with(const char *path, const char *suffix)
{
	while (suffix[0] == '.' && suffix[1] == '/')
		suffix += 2;
	size_t n = strlen(path), k = strlen(suffix);
	return k && k <= n && !strcmp(path + n - k, suffix) &&
	       (k == n || path[n - k - 1] == '/');
}

/* The source of compile unit cu that ends with file, or NULL. */
static const char *cu_source(Dwarf_Die *cu, const char *file)
{
	Dwarf_Files *files;
	size_t n;
	if (dwarf_getsrcfiles(cu, &files, &n) != 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *src = dwarf_filesrc(files, i, NULL, NULL);
		if (src && path_ends_with(src, file))
			return src;
	}
	return NULL;
}

int srcline_address(const char *path, const char *file, uint64_t line,
		    uint64_t col, uint64_t *vaddr, const char **why)
{
	static char msg[512];
	struct sfile *f = open_file(path);
	if (!f->dw) {
		snprintf(msg, sizeof(msg), "No DWARF debug info found for "
			 "'%s', cannot attach by source code location.", path);
		*why = msg;
		return -ENOENT;
	}
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu, match;
	const char *src = NULL;
	while (dwarf_nextcu(f->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		const char *s = dwarf_offdie(f->dw, off + hsize, &cu) ?
					cu_source(&cu, file) :
					NULL;
		off = next;
		if (!s)
			continue;
		if (src && strcmp(src, s)) {
			snprintf(msg, sizeof(msg), "Ambiguous source path, "
				 "matches multiple files: %s, %s", src, s);
			*why = msg;
			return -ENOENT;
		}
		if (!src) {
			src = s;
			match = cu;
		}
	}
	if (!src) {
		snprintf(msg, sizeof(msg), "No compilation unit matches %s",
			 file);
		*why = msg;
		return -ENOENT;
	}
	Dwarf_Lines *lines;
	size_t nlines;
	if (dwarf_getsrclines(&match, &lines, &nlines) == 0)
		for (size_t i = 0; i < nlines; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			int ln, lc;
			const char *ls = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
			Dwarf_Addr a;
			if (!ls || dwarf_lineno(l, &ln) || dwarf_linecol(l, &lc) ||
			    !path_ends_with(ls, src) || (uint64_t)ln != line ||
			    (col && (uint64_t)lc != col) ||
			    dwarf_lineaddr(l, &a))
				continue;
			*vaddr = a;
			return 0;
		}
	if (col)
		snprintf(msg, sizeof(msg), "Unable to map '%s:%llu:%llu' to "
			 "address", file, (unsigned long long)line,
			 (unsigned long long)col);
	else
		snprintf(msg, sizeof(msg), "Unable to map '%s:%llu' to address",
			 file, (unsigned long long)line);
	*why = msg;
	return -ENOENT;
}

void srcline_unload(void)
{
	for (uint32_t i = 0; i < nfiles; i++)
		close_file(&files[i]);
	nfiles = next_evict = 0;
}
