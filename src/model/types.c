#include "types.h"

#include <string.h>

#include "util/arena.h"
#include "util/strbuf.h"

#define SCALAR(n, sz, sg)                                                      \
	const struct type n = { .kind = TY_INT, .size = sz, .align = sz,       \
				.is_signed = sg }
SCALAR(type_u8, 1, false);
SCALAR(type_u16, 2, false);
SCALAR(type_u32, 4, false);
SCALAR(type_u64, 8, false);
SCALAR(type_s8, 1, true);
SCALAR(type_s16, 2, true);
SCALAR(type_s32, 4, true);
SCALAR(type_s64, 8, true);
const struct type type_bool = { .kind = TY_BOOL, .size = 1, .align = 1 };
const struct type type_none = { .kind = TY_NONE };
const struct type type_void = { .kind = TY_VOID };

const struct type *type_int(int size, bool is_signed)
{
	switch (size) {
	case 1: return is_signed ? &type_s8 : &type_u8;
	case 2: return is_signed ? &type_s16 : &type_u16;
	case 4: return is_signed ? &type_s32 : &type_u32;
	default: return is_signed ? &type_s64 : &type_u64;
	}
}

const struct type *type_int_addr(struct arena *a, const struct type *t,
				 enum addr_space as)
{
	if (t->kind != TY_INT || t->addr == as)
		return t;
	if (as == AS_NONE && !t->enm)
		return type_int((int)t->size, t->is_signed);
	struct type *n = type_new(a, TY_INT, t->size);
	*n = *t;
	n->addr = (uint8_t)as;
	return n;
}

enum addr_space type_addr_space(const struct type *t)
{
	if (t->kind == TY_PTR)
		return t->is_user ? AS_USER :
		       t->addr == AS_MIXED ? AS_MIXED : AS_KERNEL;
	return t->kind == TY_INT ? (enum addr_space)t->addr : AS_NONE;
}

struct type *type_new(struct arena *a, enum type_kind kind, uint32_t size)
{
	struct type *t = arena_alloc(a, sizeof(*t));
	t->kind = kind;
	t->size = size;
	t->align = size >= 8 ? 8 : size >= 4 ? 4 : size >= 2 ? 2 : 1;
	return t;
}

const struct type *type_string(struct arena *a, uint32_t size)
{
	struct type *t = type_new(a, TY_STRING, size);
	t->align = 1;
	return t;
}

bool type_holds(const struct type *t, const enum type_kind *kinds)
{
	if (!t)
		return false;
	for (const enum type_kind *k = kinds; *k != TY_NONE; k++)
		if (t->kind == *k)
			return true;
	if (t->kind == TY_TUPLE)
		for (uint32_t i = 0; i < t->nfields; i++)
			if (type_holds(t->fields[i].type, kinds))
				return true;
	return false;
}

const struct type *type_stack(struct arena *a, bool user,
			      enum stack_mode mode, uint32_t limit)
{
	uint32_t head = user ? 16 : 8;
	struct type *t = type_new(a, user ? TY_USTACK : TY_KSTACK,
				  head + (mode == STACK_BUILD_ID ? 32 : 8) *
						 limit);
	t->stack_mode = mode;
	t->stack_limit = limit;
	return t;
}

uint32_t type_stack_frame_size(const struct type *t)
{
	return t->stack_mode == STACK_BUILD_ID ? 32 : 8;
}

/* struct bpf_stack_build_id's status */
#define BUILD_ID_EMPTY 0
#define BUILD_ID_VALID 1

struct stack_frame type_stack_frame(const struct type *t, const uint8_t *ips,
				    uint32_t i)
{
	struct stack_frame f = { 0, NULL };
	if (t->stack_mode != STACK_BUILD_ID) {
		memcpy(&f.ip, ips + 8 * (size_t)i, 8);
		return f;
	}
	const uint8_t *e = ips + 32 * (size_t)i;
	int32_t status;
	memcpy(&status, e, 4);
	memcpy(&f.ip, e + 24, 8);
	if (status == BUILD_ID_VALID)
		f.build_id = e + 4;
	else if (status == BUILD_ID_EMPTY)
		f.ip = 0;
	return f;
}

uint32_t type_stack_frames(const struct type *t, const uint8_t *data,
			   const uint8_t **ips)
{
	uint64_t n;
	memcpy(&n, data, 8);
	*ips = data + (t->kind == TY_USTACK ? 16 : 8);
	if (n > t->stack_limit)
		n = t->stack_limit;
	/* A zero frame ends a stack, as it did bpf_get_stackid()'s. */
	for (uint64_t i = 0; i < n; i++) {
		struct stack_frame f = type_stack_frame(t, *ips, (uint32_t)i);
		if (!f.ip && !f.build_id)
			return (uint32_t)i;
	}
	return (uint32_t)n;
}

const struct type *type_ptr(struct arena *a, const struct type *elem,
			    bool is_user)
{
	struct type *t = type_new(a, TY_PTR, 8);
	t->elem = elem;
	t->is_user = is_user;
	return t;
}

const struct type *type_ptr_in(struct arena *a, const struct type *elem,
			       enum addr_space as)
{
	struct type *t = type_new(a, TY_PTR, 8);
	t->elem = elem;
	t->is_user = as == AS_USER;
	if (as == AS_MIXED)
		t->addr = AS_MIXED;
	return t;
}

const struct type *type_tuple(struct arena *a, const struct type **elems,
			      uint32_t n)
{
	struct type *t = type_new(a, TY_TUPLE, 0);
	t->nfields = n;
	t->fields = arena_alloc(a, sizeof(*t->fields) * (n ? n : 1));
	uint32_t off = 0, align = 1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t al = elems[i]->align ? elems[i]->align : 1;
		off = (off + al - 1) / al * al;
		t->fields[i].type = elems[i];
		t->fields[i].offset = off;
		off += elems[i]->size;
		if (al > align)
			align = al;
	}
	t->size = (off + align - 1) / align * align;
	t->align = align;
	return t;
}

const struct type *type_record(struct arena *a, const struct type **elems,
			       const char *const *names, uint32_t n)
{
	const struct type *t = type_tuple(a, elems, n);
	for (uint32_t i = 0; i < n; i++)
		t->fields[i].name = names[i];
	return t;
}

const struct type_field *type_record_field(const struct type *t,
					   const char *name)
{
	for (uint32_t i = 0; i < t->nfields; i++)
		if (t->fields[i].name && !strcmp(t->fields[i].name, name))
			return &t->fields[i];
	return NULL;
}

bool type_equal(const struct type *a, const struct type *b)
{
	if (a == b)
		return true;
	if (a->kind != b->kind || a->size != b->size)
		return false;
	switch (a->kind) {
	case TY_INT:
		return a->is_signed == b->is_signed;
	case TY_PTR:
	case TY_ARRAY:
		return a->count == b->count && type_equal(a->elem, b->elem);
	case TY_TUPLE:
		if (a->nfields != b->nfields)
			return false;
		for (uint32_t i = 0; i < a->nfields; i++) {
			const char *na = a->fields[i].name;
			const char *nb = b->fields[i].name;
			if (!type_equal(a->fields[i].type, b->fields[i].type) ||
			    (!na) != (!nb) || (na && strcmp(na, nb)))
				return false;
		}
		return true;
	case TY_RECORD:
		return a->name && b->name && !strcmp(a->name, b->name);
	case TY_LHIST:
		return a->lmin == b->lmin && a->lmax == b->lmax &&
		       a->lstep == b->lstep;
	case TY_HIST:
		return a->hbits == b->hbits;
	case TY_TSERIES:
		return a->lmin == b->lmin && a->lmax == b->lmax &&
		       a->lstep == b->lstep && a->is_signed == b->is_signed;
	case TY_KSTACK:
	case TY_USTACK:
		return a->stack_mode == b->stack_mode &&
		       a->stack_limit == b->stack_limit &&
		       a->stack_dwarf == b->stack_dwarf;
	default:
		return true;
	}
}

const struct type *type_int_enum(struct arena *a, const struct type *t,
				 const struct type_enum *e)
{
	if (t->kind != TY_INT || t->enm == e)
		return t;
	if (!e && !t->addr)
		return type_int((int)t->size, t->is_signed);
	struct type *n = type_new(a, TY_INT, t->size);
	*n = *t;
	n->enm = e;
	return n;
}

const char *type_enum_name(const struct type_enum *e, uint64_t v)
{
	for (uint32_t i = 0; e && i < e->n; i++)
		if (e->vals[i].value == v)
			return e->vals[i].name;
	return NULL;
}

bool type_same_enum(const struct type *a, const struct type *b)
{
	const struct type_enum *x = a->kind == TY_INT ? a->enm : NULL;
	const struct type_enum *y = b->kind == TY_INT ? b->enm : NULL;
	if (x == y)
		return true;
	if (!x || !y || !x->name || !y->name)
		return false;
	return !strcmp(x->name, y->name);
}

bool type_is_aggregation(const struct type *t)
{
	return (t->kind >= TY_COUNT && t->kind <= TY_LHIST) || t->kind == TY_TSERIES;
}

bool type_is_castable_agg(const struct type *t)
{
	return t->kind == TY_COUNT || t->kind == TY_SUM || t->kind == TY_MIN ||
	       t->kind == TY_MAX || t->kind == TY_AVG;
}

bool type_is_integer_like(const struct type *t)
{
	return t->kind == TY_INT || t->kind == TY_PTR;
}

void type_describe(const struct type *t, struct strbuf *sb)
{
	switch (t->kind) {
	case TY_NONE: sb_append(sb, "none"); break;
	case TY_VOID: sb_append(sb, "void"); break;
	case TY_INT:
		if (t->enm) /* bpftrace 0.26's typestr */
			sb_printf(sb, "enum %s", t->enm->name ? t->enm->name :
				  "<anon>");
		else
			sb_printf(sb, "%sint%u", t->is_signed ? "" : "u",
				  t->size * 8);
		break;
	case TY_BOOL: sb_append(sb, "bool"); break;
	case TY_FLOAT:
		sb_append(sb, t->size == 4 ? "float" : t->size == 8 ? "double" :
					       "long double");
		break;
	case TY_STRING: sb_printf(sb, "string[%u]", t->size); break;
	case TY_BUF: sb_printf(sb, "buffer[%u]", t->size - 4); break;
	case TY_TUPLE:
		if (type_is_record(t)) {
			/* bpftrace 0.26's spelling */
			sb_append(sb, "record { ");
			for (uint32_t i = 0; i < t->nfields; i++) {
				sb_printf(sb, "%s.%s = ", i ? ", " : "",
					  t->fields[i].name);
				type_describe(t->fields[i].type, sb);
			}
			sb_append(sb, " }");
			break;
		}
		sb_putc(sb, '(');
		for (uint32_t i = 0; i < t->nfields; i++) {
			if (i)
				sb_putc(sb, ',');
			type_describe(t->fields[i].type, sb);
		}
		sb_putc(sb, ')');
		break;
	case TY_RECORD: sb_append(sb, t->name ? t->name : "struct"); break;
	case TY_PTR:
		type_describe(t->elem, sb);
		sb_append(sb, " *");
		break;
	case TY_ARRAY: {
		/* int32[2][3]: the element type, then dimensions outer first */
		const struct type *el = t;
		while (el->kind == TY_ARRAY)
			el = el->elem;
		type_describe(el, sb);
		for (el = t; el->kind == TY_ARRAY; el = el->elem)
			sb_printf(sb, "[%u]", el->count);
		break;
	}
	case TY_KSTACK: sb_append(sb, "kstack"); break;
	case TY_USTACK: sb_append(sb, "ustack"); break;
	case TY_KSYM: sb_append(sb, "ksym"); break;
	case TY_USYM: sb_append(sb, "usym"); break;
	case TY_INET: sb_append(sb, "inet"); break;
	case TY_MACADDR: sb_append(sb, "macaddr"); break;
	case TY_USERNAME: sb_append(sb, "username"); break;
	case TY_PROBE: sb_append(sb, "probe"); break;
	case TY_CGROUP_PATH: sb_append(sb, "cgroup_path"); break;
	case TY_STRERROR: sb_append(sb, "strerror"); break;
	case TY_SIGNAME: sb_append(sb, "signal_name"); break;
	case TY_SYSCALL_NAME: sb_append(sb, "syscall_name"); break;
	case TY_TIMESTAMP: sb_append(sb, "timestamp"); break;
	case TY_COUNT: sb_append(sb, "count"); break;
	case TY_SUM: sb_append(sb, "sum"); break;
	case TY_MIN: sb_append(sb, "min"); break;
	case TY_MAX: sb_append(sb, "max"); break;
	case TY_AVG: sb_append(sb, "avg"); break;
	case TY_STATS: sb_append(sb, "stats"); break;
	case TY_HIST: sb_append(sb, "hist"); break;
	case TY_LHIST: sb_append(sb, "lhist"); break;
	case TY_TSERIES: sb_append(sb, "tseries"); break;
	}
}

/* --- C integer type names --- */

/* The C names, the kernel typedefs that tracepoint formats use and
 * bpftrace's int8..uint64. Plain char is signed, as in bpftrace. */
static const struct {
	const char *name;
	uint8_t size;
	bool is_signed;
} c_ints[] = {
	{ "int8", 1, true },      { "int16", 2, true },
	{ "int32", 4, true },     { "int64", 8, true },
	{ "uint8", 1, false },    { "uint16", 2, false },
	{ "uint32", 4, false },   { "uint64", 8, false },
	{ "char", 1, true },      { "short", 2, true },
	{ "short int", 2, true }, { "int", 4, true },
	{ "long", 8, true },      { "long int", 8, true },
	{ "long long", 8, true }, { "long long int", 8, true },
	{ "bool", 1, false },     { "_Bool", 1, false },
	{ "u8", 1, false },       { "u16", 2, false },
	{ "u32", 4, false },      { "u64", 8, false },
	{ "s8", 1, true },        { "s16", 2, true },
	{ "s32", 4, true },       { "s64", 8, true },
	{ "__u8", 1, false },     { "__u16", 2, false },
	{ "__u32", 4, false },    { "__u64", 8, false },
	{ "__s8", 1, true },      { "__s16", 2, true },
	{ "__s32", 4, true },     { "__s64", 8, true },
	{ "uint8_t", 1, false },  { "uint16_t", 2, false },
	{ "uint32_t", 4, false }, { "uint64_t", 8, false },
	{ "int8_t", 1, true },    { "int16_t", 2, true },
	{ "int32_t", 4, true },   { "int64_t", 8, true },
	{ "__le16", 2, false },   { "__le32", 4, false },
	{ "__le64", 8, false },   { "__be16", 2, false },
	{ "__be32", 4, false },   { "__be64", 8, false },
	{ "size_t", 8, false },   { "ssize_t", 8, true },
	{ "pid_t", 4, true },     { "uid_t", 4, false },
	{ "gid_t", 4, false },    { "umode_t", 2, false },
	{ "dev_t", 4, false },    { "gfp_t", 4, false },
	{ "loff_t", 8, true },    { "off_t", 8, true },
	{ "time_t", 8, true },    { "clockid_t", 4, true },
	{ "key_serial_t", 4, true }, { "sector_t", 8, false },
	{ "qid_t", 4, false },    { "timer_t", 4, true },
	{ "unsigned long", 8, false },
};

/* Strips qualifiers and "signed"/"unsigned" from an int type name. */
bool type_c_int(const char *text, uint32_t *size, bool *is_signed)
{
	char buf[64];
	size_t n = 0;
	bool has_sign = false, is_unsigned = false;
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		const char *w = p;
		while (*p && *p != ' ')
			p++;
		size_t wl = (size_t)(p - w);
		if (!wl)
			break;
		if ((wl == 5 && !strncmp(w, "const", 5)) ||
		    (wl == 8 && !strncmp(w, "volatile", 8)))
			continue;
		if (wl == 8 && !strncmp(w, "unsigned", 8)) {
			has_sign = is_unsigned = true;
			continue;
		}
		if (wl == 6 && !strncmp(w, "signed", 6)) {
			has_sign = true;
			continue;
		}
		if (n + wl + 2 > sizeof(buf))
			return false;
		if (n)
			buf[n++] = ' ';
		memcpy(buf + n, w, wl);
		n += wl;
	}
	buf[n] = '\0';
	if (!n && has_sign)
		strcpy(buf, "int");
	for (size_t i = 0; i < sizeof(c_ints) / sizeof(*c_ints); i++) {
		if (!strcmp(c_ints[i].name, buf)) {
			*size = c_ints[i].size;
			*is_signed = has_sign ? !is_unsigned : c_ints[i].is_signed;
			return true;
		}
	}
	return false;
}


uint32_t type_ptr_step(const struct type *p)
{
	const struct type *el = p->elem;
	if (el->kind == TY_PTR)
		return 8;
	return el->kind == TY_VOID ? 1 : el->size;
}

const struct type *type_array(struct arena *a, const struct type *el,
			      uint32_t n)
{
	struct type *t = type_new(a, TY_ARRAY, el->size * n);
	t->elem = el;
	t->count = n;
	t->align = el->align;
	return t;
}
