#include "lang/ctypes.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/btf.h"
#include "kernel/dwarf.h"
#include "util/arena.h"
#include "util/diag.h"

/* A name the script defined: "struct S", "union U", "enum E", a typedef
 * name, or an enumerator (type NULL). A short list: scripts define few. */
struct named {
	const char *name;
	const struct type *type;
	int64_t value; /* enumerators */
	const struct type_enum *enm; /* enumerators: theirs */
	struct named *next;
};

struct ctypes {
	struct arena *arena;
	struct named *names;
};

static struct named *find(const struct ctypes *ct, const char *name)
{
	for (struct named *n = ct->names; n; n = n->next)
		if (!strcmp(n->name, name))
			return n;
	return NULL;
}

static void add(struct ctypes *ct, const char *name, const struct type *t,
		int64_t value)
{
	struct named *n = arena_alloc(ct->arena, sizeof(*n));
	n->name = name;
	n->type = t;
	n->value = value;
	n->next = ct->names;
	ct->names = n;
}

const struct type *ctypes_script_record(const struct ctypes *ct,
					const char *name)
{
	struct named *n = name ? find(ct, name) : NULL;
	return n && n->type && n->type->kind == TY_RECORD ? n->type : NULL;
}

bool ctypes_script_failed(const struct ctypes *ct, const char *name)
{
	struct named *n = name ? find(ct, name) : NULL;
	return n && n->type && n->type->kind == TY_NONE;
}

static const struct type *base_type(struct ctypes *ct, const char *base)
{
	struct named *n = find(ct, base);
	if (n && n->type)
		return n->type;
	uint32_t size;
	bool is_signed;
	if (!strcmp(base, "bool") || !strcmp(base, "_Bool"))
		return &type_bool;
	if (type_c_int(base, &size, &is_signed))
		return type_int((int)size, is_signed);
	if (!strcmp(base, "void"))
		return &type_void;
	if (!strcmp(base, "float") || !strcmp(base, "double") ||
	    !strcmp(base, "long double")) {
		uint32_t n = base[0] == 'f' ? 4 : base[0] == 'd' ? 8 : 16;
		struct type *f = type_new(ct->arena, TY_FLOAT, n);
		f->align = n;
		return f;
	}
	if (!strncmp(base, "enum ", 5))
		return kbtf_type_by_name(ct->arena, base);
	if (!strncmp(base, "struct ", 7) || !strncmp(base, "union ", 6)) {
		/* the probed programs' own first, then the kernel's */
		const struct type *t = dwarf_record_any(ct->arena, base);
		return t ? t : kbtf_type_by_name(ct->arena, base);
	}
	return NULL;
}

/* t with ts's pointers and array dimensions (the last one innermost). */
static const struct type *derive(struct ctypes *ct, const struct type *t,
				 const struct ast_typespec *ts)
{
	for (int i = 0; i < ts->ptr_depth; i++)
		t = type_ptr(ct->arena, t, false);
	if (ts->array_auto) /* of no length yet: the cast sets it */
		return type_array(ct->arena, t, 0);
	if (!ts->array_len)
		return t;
	/* char name[16] is a string, as in bpftrace and for BTF (only plain
	 * char: int8 and unsigned char arrays stay arrays) */
	if (!ts->ptr_depth && !ts->ninner && ts->base &&
	    !strcmp(ts->base, "char")) {
		struct type *s = type_new(ct->arena, TY_STRING,
					  ts->array_len);
		s->align = 1;
		s->str_whole = true;
		return s;
	}
	for (int i = ts->ninner - 1; i >= 0; i--)
		t = type_array(ct->arena, t, ts->inner[i]);
	return type_array(ct->arena, t, ts->array_len);
}

const struct type *ctypes_resolve(struct ctypes *ct, struct diag *d,
				  const struct ast_typespec *ts)
{
	const struct type *t = base_type(ct, ts->base);
	if (!t && !strncmp(ts->base, "enum ", 5)) {
		diag_error(d, ts->span, "Unknown enum: %s", ts->base + 5);
		return &type_none;
	}
	if (!t) {
		bool rec = !strncmp(ts->base, "struct ", 7) ||
			   !strncmp(ts->base, "union ", 6);
		diag_error(d, ts->span, rec ? "unknown type '%s' (not defined "
					      "in the script, the probed "
					      "files' DWARF nor the kernel's "
					      "BTF)" :
					      "unknown type '%s'",
			   ts->base);
		return &type_none;
	}
	return derive(ct, t, ts);
}

/* Macros of the kernel headers that bpftrace's tools include. bpftrace
 * reads them from the headers with clang; sonde runs without headers or
 * clang, so it knows the stable ABI values the tools use. Enumerators
 * come from BTF instead. */
static const struct {
	const char *name;
	int64_t value;
} header_macros[] = {
	{ "AF_UNSPEC", 0 },     { "AF_UNIX", 1 },       { "AF_LOCAL", 1 },
	{ "AF_INET", 2 },       { "AF_INET6", 10 },     { "AF_NETLINK", 16 },
	{ "AF_PACKET", 17 },
	{ "TASK_RUNNING", 0x0 }, { "TASK_INTERRUPTIBLE", 0x1 },
	{ "TASK_UNINTERRUPTIBLE", 0x2 }, { "__TASK_STOPPED", 0x4 },
	{ "__TASK_TRACED", 0x8 }, { "EXIT_DEAD", 0x10 },
	{ "EXIT_ZOMBIE", 0x20 }, { "TASK_PARKED", 0x40 },
	{ "TASK_DEAD", 0x80 },  { "TASK_WAKEKILL", 0x100 },
	{ "TASK_WAKING", 0x200 }, { "TASK_NOLOAD", 0x400 },
	{ "TASK_NEW", 0x800 },
	{ "O_RDONLY", 0 },      { "O_WRONLY", 1 },      { "O_RDWR", 2 },
	{ "O_CREAT", 0100 },    { "O_EXCL", 0200 },     { "O_TRUNC", 01000 },
	{ "O_APPEND", 02000 },  { "O_NONBLOCK", 04000 },
	{ "PAGE_SIZE", 4096 },  { "PAGE_SHIFT", 12 },
	{ "NSEC_PER_SEC", 1000000000 }, { "NSEC_PER_MSEC", 1000000 },
	{ "NSEC_PER_USEC", 1000 }, { "USEC_PER_SEC", 1000000 },
	{ "MSEC_PER_SEC", 1000 },
	{ "SIGKILL", 9 },       { "SIGTERM", 15 },      { "SIGINT", 2 },
	{ "SIGUSR1", 10 },      { "SIGUSR2", 12 },      { "SIGSTOP", 19 },
	{ "SIGCONT", 18 },
	{ "IPPROTO_TCP", 6 },   { "IPPROTO_UDP", 17 },  { "IPPROTO_ICMP", 1 },
	{ "IPPROTO_ICMPV6", 58 },
	{ "DISK_NAME_LEN", 32 }, { "TASK_COMM_LEN", 16 },
	{ "MAX_ERRNO", 4095 },
};

bool ctypes_constant(const struct ctypes *ct, const char *name,
		     int64_t *value, const struct type_enum **enm)
{
	struct named *n = find(ct, name);
	*enm = NULL;
	if (n && !n->type) {
		*value = n->value;
		*enm = n->enm;
		return true;
	}
	if (kbtf_enumerator(ct->arena, name, value, enm) == 0)
		return true;
	for (size_t i = 0; i < sizeof(header_macros) / sizeof(*header_macros);
	     i++)
		if (!strcmp(header_macros[i].name, name)) {
			*value = header_macros[i].value;
			return true;
		}
	return false;
}

/* ---- layout ---- */

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

static const struct type *layout_record(struct ctypes *ct, struct diag *d,
					const struct ast_cdef *def);

static const struct type *field_type(struct ctypes *ct, struct diag *d,
				     const struct ast_cfield *f)
{
	if (f->nested) {
		const struct type *t = layout_record(ct, d, f->nested);
		return derive(ct, t, &f->type);
	}
	/* A pointer may lead to a struct defined later, or only declared:
	 * an empty record of that name stands for it. */
	if (f->type.ptr_depth && (!strncmp(f->type.base, "struct ", 7) ||
				  !strncmp(f->type.base, "union ", 6)) &&
	    !base_type(ct, f->type.base)) {
		struct type *r = type_new(ct->arena, TY_RECORD, 0);
		r->name = f->type.base;
		r->align = 1;
		return derive(ct, r, &f->type);
	}
	return ctypes_resolve(ct, d, &f->type);
}

/* C's layout on the LP64 ABIs sonde runs on: members at their alignment,
 * bitfields packed into units of their declared type without crossing a
 * unit boundary, the size rounded up to the strictest alignment. */
static const struct type *layout_record(struct ctypes *ct, struct diag *d,
					const struct ast_cdef *def)
{
	bool is_union = def->kind == CDEF_UNION;
	struct type *r = type_new(ct->arena, TY_RECORD, 0);
	r->is_union = is_union;
	r->name = def->name ? arena_printf(ct->arena, "%s %s",
					   is_union ? "union" : "struct",
					   def->name) :
			      (is_union ? "union" : "struct");
	r->fields = arena_alloc(ct->arena,
				sizeof(*r->fields) * (def->nfields + 1));
	uint64_t bit = 0, size = 0, align = 1;
	/* bpftrace's rule: once a script redefines a kernel type, the
	 * kernel's BTF completes none of its members; they must be the
	 * script's too (a pointer may still lead to a BTF type). */
	bool redefines = def->name && kbtf_type_by_name(ct->arena, r->name);
	for (uint32_t i = 0; i < def->nfields; i++) {
		const struct ast_cfield *f = &def->fields[i];
		if (redefines && !f->nested && !f->type.ptr_depth &&
		    f->type.base && (!strncmp(f->type.base, "struct ", 7) ||
				     !strncmp(f->type.base, "union ", 6)) &&
		    !find(ct, f->type.base)) {
			diag_c_error(d, f->span, "field '%s' has an incomplete "
				     "type '%s': the script redefines '%s', "
				     "a type of the kernel's BTF, so its "
				     "members' types must be defined in the "
				     "script too",
				     f->name ? f->name : "?", f->type.base,
				     r->name);
			return &type_none;
		}
		const struct type *t = field_type(ct, d, f);
		if (t->kind == TY_NONE)
			return t;
		if (t->kind == TY_VOID || (t->kind == TY_RECORD && !t->size &&
					   t->nfields == 0 && !t->btf_id)) {
			diag_c_error(d, f->span, "field '%s' has an incomplete "
				     "type", f->name ? f->name : "?");
			return &type_none;
		}
		uint64_t falign = t->align ? t->align : 1;
		if (def->packed)
			falign = 1;
		if (is_union)
			bit = 0;
		struct type_field *tf = &r->fields[r->nfields];
		memset(tf, 0, sizeof(*tf));
		tf->name = f->name;
		tf->type = t;
		if (f->bit_width >= 0) {
			uint64_t unit = t->size * 8, w = (uint64_t)f->bit_width;
			if (t->kind != TY_INT || w > unit) {
				diag_c_error(d, f->span, "bitfield '%s' must "
					     "be an integer of at most its "
					     "type's width",
					     f->name ? f->name : "?");
				return &type_none;
			}
			if (w == 0 || bit / unit != (bit + w - 1) / unit)
				bit = align_up(bit, unit);
			if (w == 0)
				continue; /* only aligns what follows */
			tf->offset = (uint32_t)(bit / unit * t->size);
			tf->bit_off = (uint16_t)(bit % unit);
			tf->bit_size = (uint16_t)w;
			bit += w;
		} else {
			bit = align_up(bit, falign * 8);
			tf->offset = (uint32_t)(bit / 8);
			bit += (uint64_t)t->size * 8;
		}
		if (falign > align)
			align = falign;
		if (align_up(bit, 8) / 8 > size)
			size = align_up(bit, 8) / 8;
		r->nfields++;
	}
	if (def->aligned > align)
		align = def->aligned;
	r->align = (uint32_t)align;
	r->size = (uint32_t)align_up(size, align);
	return r;
}

static void define(struct ctypes *ct, struct diag *d,
		   const struct ast_cdef *def, const char *name,
		   const struct type *t)
{
	struct named *old = find(ct, name);
	/* a definition in error is kept as none (ctypes_script_failed):
	 * its uses raise no second error */
	if (t->kind == TY_NONE) {
		if (!old)
			add(ct, name, t, 0);
		return;
	}
	if (old) {
		diag_c_error(d, def->span, "redefinition of '%s'", name);
		return;
	}
	add(ct, name, t, 0);
}

/* "#define NAME 123" (also "(-1)", "0x10UL"): an object-like macro whose
 * body is one integer. Macros in expressions are expanded before sema
 * (lang/cmacro.h); these constants are what else asks for names. */
static bool int_macro(struct arena *a, const char *text, const char **name,
		      int64_t *value)
{
	const char *p = text + 1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "define", 6) || (p[6] != ' ' && p[6] != '\t'))
		return false;
	p += 6;
	while (*p == ' ' || *p == '\t')
		p++;
	const char *n = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (p == n || *p == '(')
		return false;
	size_t nlen = (size_t)(p - n);
	while (*p == ' ' || *p == '\t' || *p == '(')
		p++;
	bool neg = *p == '-';
	p += neg;
	if (!isdigit((unsigned char)*p))
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 0);
	while (*end && strchr("uUlL", *end))
		end++;
	while (*end == ')' || *end == ' ' || *end == '\t')
		end++;
	if (errno || (*end && *end != '\n' && strncmp(end, "//", 2) &&
		      strncmp(end, "/*", 2)))
		return false;
	char *nm = arena_alloc(a, nlen + 1);
	memcpy(nm, n, nlen);
	nm[nlen] = 0;
	*name = nm;
	*value = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

struct ctypes *ctypes_build(struct arena *a, struct diag *d,
			    const struct ast_program *p)
{
	struct ctypes *ct = arena_alloc(a, sizeof(*ct));
	ct->arena = a;
	ct->names = NULL;
	for (uint32_t i = 0; i < p->ndirectives; i++) {
		const char *name;
		int64_t v;
		if (int_macro(a, p->directives[i].text, &name, &v))
			add(ct, name, NULL, v);
	}
	for (uint32_t i = 0; i < p->ncdefs; i++) {
		const struct ast_cdef *def = p->cdefs[i];
		switch (def->kind) {
		case CDEF_STRUCT:
		case CDEF_UNION: {
			const struct type *t = layout_record(ct, d, def);
			/* a record in error stays the script's (as none), so
			 * that its uses raise no second error */
			if (def->name)
				define(ct, d, def,
				       arena_printf(a, "%s %s",
						    def->kind == CDEF_UNION ?
							    "union" : "struct",
						    def->name), t);
			break;
		}
		case CDEF_ENUM: {
			bool neg = false;
			struct type_enum *te = arena_alloc(a, sizeof(*te));
			struct type_enumerator *vals = arena_alloc(
				a, sizeof(*vals) * (def->nenums + 1));
			te->name = def->name;
			te->vals = vals;
			for (uint32_t k = 0; k < def->nenums; k++) {
				const struct ast_enumerator *en = &def->enums[k];
				neg |= en->value < 0;
				if (find(ct, en->name)) {
					diag_c_error(d, en->span,
						     "redefinition of '%s'",
						     en->name);
					continue;
				}
				add(ct, en->name, NULL, en->value);
				ct->names->enm = te;
				vals[te->n].name = en->name;
				vals[te->n++].value = (uint64_t)en->value;
			}
			/* a member of the enum's type is the C int it is
			 * (bpftrace 0.26's clang types it so) */
			if (def->name)
				define(ct, d, def,
				       arena_printf(a, "enum %s", def->name),
				       type_int_enum(a, type_int(4, neg), te));
			break;
		}
		case CDEF_TYPEDEF:
			define(ct, d, def, def->name,
			       ctypes_resolve(ct, d, &def->aliased));
			break;
		}
	}
	return ct;
}
