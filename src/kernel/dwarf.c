#define _GNU_SOURCE
#include "kernel/dwarf.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/dwp.h"
#include "model/types.h"
#include "util/arena.h"

#define MAX_DEPTH 16
#define MAX_FILES 16

/* One opened file, kept for the run: a program names a few. */
struct dfile {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;       /* NULL: no debug info */
	Dwarf_Addr bias;
	struct dwp *dwp; /* PATH.dwp, opened when a split unit is missing */
	bool dwp_tried;
};

static struct dfile files[MAX_FILES];
static uint32_t nfiles;
static char *noted[MAX_FILES]; /* dwarf_note_file() */
static uint32_t nnoted;

/* libdw's search path for separate debug files (NULL: its default,
 * ":.debug:/usr/lib/debug", bpftrace's too) */
static char *debuginfo_path;

void dwarf_debuginfo_dirs(const char *dirs)
{
	static char path[4096];
	snprintf(path, sizeof(path), "%s:.debug:/usr/lib/debug", dirs);
	debuginfo_path = path;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	/* the file itself, .gnu_debuglink, /usr/lib/debug/.build-id */
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

Dwfl *dwarf_offline(const char *path, Dwfl_Module **mod)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	*mod = NULL;
	if (!dwfl)
		return NULL;
	*mod = dwfl_report_offline(dwfl, "", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	return dwfl;
}

static struct dfile *open_file(const char *path)
{
	for (uint32_t i = 0; i < nfiles; i++)
		if (!strcmp(files[i].path, path))
			return &files[i];
	if (nfiles == MAX_FILES)
		return NULL;
	struct dfile *f = &files[nfiles];
	memset(f, 0, sizeof(*f));
	f->dwfl = dwarf_offline(path, &f->mod);
	if (!f->dwfl)
		return NULL;
	if (f->mod)
		f->dw = dwfl_module_getdwarf(f->mod, &f->bias);
	f->path = strdup(path);
	if (!f->path) {
		dwfl_end(f->dwfl);
		return NULL;
	}
	nfiles++;
	return f;
}

/* Converting DIEs to types: records are made before their members so
 * that a struct that points to itself ends. */
struct conv {
	struct arena *a;
	struct {
		Dwarf_Off off;
		const struct type *t;
	} seen[256];
	uint32_t nseen;
};

static const struct type *convert(struct conv *c, Dwarf_Die *die,
				  int depth);

static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute at;
	return dwarf_attr_integrate(die, DW_AT_type, &at) &&
	       dwarf_formref_die(&at, out);
}

static uint32_t byte_size(Dwarf_Die *die)
{
	Dwarf_Word w;
	return dwarf_aggregate_size(die, &w) == 0 ? (uint32_t)w : 0;
}

static bool is_char(Dwarf_Die *die)
{
	Dwarf_Die d = *die;
	/* through typedefs and qualifiers */
	while (dwarf_tag(&d) == DW_TAG_typedef ||
	       dwarf_tag(&d) == DW_TAG_const_type ||
	       dwarf_tag(&d) == DW_TAG_volatile_type) {
		if (!type_of(&d, &d))
			return false;
	}
	if (dwarf_tag(&d) != DW_TAG_base_type || byte_size(&d) != 1)
		return false;
	Dwarf_Attribute at;
	Dwarf_Word enc = 0;
	if (dwarf_attr(&d, DW_AT_encoding, &at))
		dwarf_formudata(&at, &enc);
	/* only plain char makes a string, as in bpftrace: unsigned char
	 * arrays stay arrays */
	const char *name = dwarf_diename(&d);
	return (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char) &&
	       name && !strcmp(name, "char");
}

static const struct type *opaque(struct conv *c, uint32_t size)
{
	struct type *t = type_new(c->a, TY_ARRAY, size);
	t->elem = &type_u8;
	t->count = size;
	t->align = 1;
	return t;
}

static const struct type *record(struct conv *c, Dwarf_Die *die, int depth)
{
	Dwarf_Off off = dwarf_dieoffset(die);
	for (uint32_t i = 0; i < c->nseen; i++)
		if (c->seen[i].off == off)
			return c->seen[i].t;
	bool is_union = dwarf_tag(die) == DW_TAG_union_type;
	const char *name = dwarf_diename(die);
	struct type *r = type_new(c->a, TY_RECORD, byte_size(die));
	r->is_union = is_union;
	r->is_user = true;
	r->align = 1;
	r->name = arena_printf(c->a, "%s %s", is_union ? "union" : "struct",
			       name ? name : "(anonymous)");
	if (c->nseen < sizeof(c->seen) / sizeof(*c->seen)) {
		c->seen[c->nseen].off = off;
		c->seen[c->nseen++].t = r;
	}
	uint32_t n = 0;
	Dwarf_Die m;
	if (dwarf_child(die, &m) == 0)
		do
			n += dwarf_tag(&m) == DW_TAG_member;
		while (dwarf_siblingof(&m, &m) == 0);
	r->fields = arena_alloc(c->a, sizeof(*r->fields) * (n + 1));
	if (!n || dwarf_child(die, &m))
		return r;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		struct type_field *fl = &r->fields[r->nfields++];
		const char *mn = dwarf_diename(&m);
		fl->name = mn ? arena_strdup(c->a, mn) : "";
		Dwarf_Die mt;
		fl->type = type_of(&m, &mt) ? convert(c, &mt, depth + 1) :
					     &type_none;
		Dwarf_Attribute at;
		Dwarf_Word w = 0;
		if (dwarf_attr(&m, DW_AT_data_member_location, &at))
			dwarf_formudata(&at, &w);
		fl->offset = (uint32_t)w;
		int bits = dwarf_bitsize(&m);
		if (bits > 0) {
			Dwarf_Word bo = 0;
			if (dwarf_attr(&m, DW_AT_data_bit_offset, &at))
				dwarf_formudata(&at, &bo);
			fl->offset = (uint32_t)(bo / 8);
			fl->bit_off = (uint16_t)(bo % 8);
			fl->bit_size = (uint16_t)bits;
		}
		if (fl->type->align > r->align)
			r->align = fl->type->align;
	} while (dwarf_siblingof(&m, &m) == 0);
	return r;
}

static const struct type *convert(struct conv *c, Dwarf_Die *die, int depth)
{
	if (depth > MAX_DEPTH)
		return &type_none;
	Dwarf_Die inner;
	switch (dwarf_tag(die)) {
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		return type_of(die, &inner) ? convert(c, &inner, depth + 1) :
					      &type_void;
	case DW_TAG_base_type: {
		uint32_t size = byte_size(die);
		Dwarf_Attribute at;
		Dwarf_Word enc = 0;
		if (dwarf_attr(die, DW_AT_encoding, &at))
			dwarf_formudata(&at, &enc);
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float ||
		    size > 8 || !size)
			return opaque(c, size);
		bool sg = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		return type_int((int)size, sg);
	}
	case DW_TAG_enumeration_type:
		return type_int((int)(byte_size(die) ? byte_size(die) : 4),
				true);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
		if (!type_of(die, &inner))
			return type_ptr(c->a, &type_void, true);
		return type_ptr(c->a, convert(c, &inner, depth + 1), true);
	case DW_TAG_array_type: {
		if (!type_of(die, &inner))
			break;
		uint32_t count = 0;
		Dwarf_Die sub;
		if (dwarf_child(die, &sub) == 0 &&
		    dwarf_tag(&sub) == DW_TAG_subrange_type) {
			Dwarf_Attribute at;
			Dwarf_Word w;
			if (dwarf_attr(&sub, DW_AT_count, &at) &&
			    !dwarf_formudata(&at, &w))
				count = (uint32_t)w;
			else if (dwarf_attr(&sub, DW_AT_upper_bound, &at) &&
				 !dwarf_formudata(&at, &w))
				count = (uint32_t)w + 1;
		}
		if (is_char(&inner)) {
			struct type *s = (struct type *)type_string(c->a,
								    count);
			s->is_user = true;
			return s;
		}
		const struct type *el = convert(c, &inner, depth + 1);
		struct type *t = type_new(c->a, TY_ARRAY, el->size * count);
		t->elem = el;
		t->count = count;
		t->align = el->align ? el->align : 1;
		t->is_user = true;
		return t;
	}
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		return record(c, die, depth);
	case DW_TAG_subroutine_type:
		return &type_void; /* only ever behind a pointer */
	default:
		break;
	}
	return opaque(c, byte_size(die));
}

/* The C spelling of a type, as bpftrace lists parameters: "int",
 * "char*", "struct Foo*", "const char*". */
static void ctype(Dwarf_Die *die, char *buf, size_t len, int depth)
{
	Dwarf_Die inner;
	const char *name = dwarf_diename(die);
	bool has = type_of(die, &inner) && depth < MAX_DEPTH;
	char sub[256] = "void";
	switch (dwarf_tag(die)) {
	case DW_TAG_pointer_type:
		if (has)
			ctype(&inner, sub, sizeof(sub), depth + 1);
		snprintf(buf, len, "%s*", sub);
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		if (has)
			ctype(&inner, sub, sizeof(sub), depth + 1);
		snprintf(buf, len, "%s %s",
			 dwarf_tag(die) == DW_TAG_const_type ? "const" :
							       "volatile",
			 sub);
		return;
	case DW_TAG_structure_type:
		snprintf(buf, len, "struct %s", name ? name : "");
		return;
	case DW_TAG_union_type:
		snprintf(buf, len, "union %s", name ? name : "");
		return;
	case DW_TAG_enumeration_type:
		snprintf(buf, len, "enum %s", name ? name : "");
		return;
	case DW_TAG_array_type:
		if (has)
			ctype(&inner, sub, sizeof(sub), depth + 1);
		snprintf(buf, len, "%s[]", sub);
		return;
	default:
		snprintf(buf, len, "%s", name ? name : "void");
	}
}

static bool is_func(Dwarf_Die *d, const char *func)
{
	const char *n;
	return dwarf_tag(d) == DW_TAG_subprogram &&
	       !dwarf_hasattr(d, DW_AT_declaration) &&
	       (n = dwarf_diename(d)) && !strcmp(n, func);
}

/* The subprogram func in compile unit cu, or false. */
static bool find_in_cu(Dwarf_Die *cu, const char *func, Dwarf_Die *out)
{
	if (dwarf_child(cu, out))
		return false;
	do
		if (is_func(out, func))
			return true;
	while (dwarf_siblingof(out, out) == 0);
	return false;
}

static Dwarf_Die *unit_die(struct dfile *f, Dwarf_Die *cu, Dwarf_Die *split)
{
	return dwp_split_die(&f->dwp, &f->dwp_tried, f->path, cu, split);
}

static bool find_func(struct dfile *f, const char *func, uint64_t vaddr,
		      Dwarf_Die *out)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = vaddr ? dwfl_module_addrdie(f->mod, vaddr + f->bias,
						    &bias) :
				NULL;
	Dwarf_Die split;
	if (cu && find_in_cu(unit_die(f, cu, &split), func, out))
		return true;
	/* no address ranges: every compile unit */
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(f->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cud;
		if (dwarf_offdie(f->dw, off + hsize, &cud) &&
		    find_in_cu(unit_die(f, &cud, &split), func, out))
			return true;
		off = next;
	}
	return false;
}

int dwarf_func_params(struct arena *a, const char *path, const char *func,
		      uint64_t vaddr, struct dwarf_func *out)
{
	memset(out, 0, sizeof(*out));
	struct dfile *f = open_file(path);
	if (!f)
		return -ENOMEM;
	Dwarf_Die fn, p;
	if (!f->dw || !find_func(f, func, vaddr, &fn))
		return -ENOENT;
	uint32_t n = 0;
	if (dwarf_child(&fn, &p) == 0)
		do
			n += dwarf_tag(&p) == DW_TAG_formal_parameter;
		while (dwarf_siblingof(&p, &p) == 0);
	out->params = arena_alloc(a, sizeof(*out->params) * (n + 1));
	if (!n || dwarf_child(&fn, &p))
		return 0;
	struct conv c = { .a = a };
	do {
		if (dwarf_tag(&p) != DW_TAG_formal_parameter)
			continue;
		struct dwarf_param *dp = &out->params[out->nparams];
		const char *name = dwarf_diename(&p);
		dp->name = arena_strdup(a, name ? name : "");
		Dwarf_Die t;
		char buf[256] = "void";
		if (type_of(&p, &t)) {
			dp->type = convert(&c, &t, 0);
			ctype(&t, buf, sizeof(buf), 0);
		} else {
			dp->type = &type_none;
		}
		dp->ctype = arena_strdup(a, buf);
		out->nparams++;
	} while (dwarf_siblingof(&p, &p) == 0);
	return 0;
}

/* A named struct/union definition among the top-level DIEs of a unit. */
static bool find_record(Dwarf_Die *cu, bool is_union, const char *name,
			Dwarf_Die *out)
{
	if (dwarf_child(cu, out))
		return false;
	int tag = is_union ? DW_TAG_union_type : DW_TAG_structure_type;
	do {
		const char *n;
		if (dwarf_tag(out) == tag &&
		    !dwarf_hasattr(out, DW_AT_declaration) &&
		    (n = dwarf_diename(out)) && !strcmp(n, name))
			return true;
	} while (dwarf_siblingof(out, out) == 0);
	return false;
}

const struct type *dwarf_record(struct arena *a, const char *path,
				const char *name)
{
	bool is_union = !strncmp(name, "union ", 6);
	if (!is_union && strncmp(name, "struct ", 7))
		return NULL;
	const char *bare = name + (is_union ? 6 : 7);
	struct dfile *f = open_file(path);
	if (!f || !f->dw)
		return NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(f->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cud, r, split;
		if (dwarf_offdie(f->dw, off + hsize, &cud) &&
		    find_record(unit_die(f, &cud, &split), is_union, bare, &r)) {
			struct conv c = { .a = a };
			return record(&c, &r, 0);
		}
		off = next;
	}
	return NULL;
}

void dwarf_close_files(void)
{
	for (uint32_t i = 0; i < nfiles; i++) {
		dwfl_end(files[i].dwfl);
		dwp_close(files[i].dwp);
		free(files[i].path);
	}
	nfiles = 0;
}

/* The files stay open for the run (a program names a few); at exit they
 * are closed, so that leak checkers see nothing left. */
__attribute__((destructor)) static void close_all(void)
{
	dwarf_close_files();
	dwarf_forget_files();
}

/* Only the paths: a file is opened when a cast first needs it. */
void dwarf_note_file(const char *path)
{
	for (uint32_t i = 0; i < nnoted; i++)
		if (!strcmp(noted[i], path))
			return;
	if (nnoted < MAX_FILES && (noted[nnoted] = strdup(path)))
		nnoted++;
}

void dwarf_forget_files(void)
{
	for (uint32_t i = 0; i < nnoted; i++)
		free(noted[i]);
	nnoted = 0;
}

const struct type *dwarf_record_any(struct arena *a, const char *name)
{
	for (uint32_t i = 0; i < nnoted; i++) {
		const struct type *t = dwarf_record(a, noted[i], name);
		if (t)
			return t;
	}
	return NULL;
}
