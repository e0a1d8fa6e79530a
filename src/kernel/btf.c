#include "kernel/btf.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/glob.h"
#include "model/limits.h"
#include "model/types.h"
#include "util/arena.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define SLOT_SHIFT 20
#define ID_MASK ((1u << SLOT_SHIFT) - 1)
#define MAX_SLOTS 2047 /* bits 20-30: handles stay positive int32 */
#define MAX_DEPTH 32   /* typedef/pointer chains; records stop recursion */
/* The slot of a BTF that is not the kernel's (a BPF object's): its types
 * are converted deeply and carry no handles (see kbtf_type_of). */
#define SLOT_FOREIGN UINT32_MAX

/* Lookups by name: libbpf's btf__find_by_name_kind() scans every type
 * (0.3 ms over vmlinux's 126,000), and a wildcard over kernel functions
 * makes one per match (kfunc:* took 19 s). After LINEAR_LOOKUPS scans a
 * BTF gets a hash index of its own named types (3 ms to build), so that
 * a script naming a few types pays no more than the scans. Enumerators
 * are indexed the same way. */
#define LINEAR_LOOKUPS 16

struct name_index {
	uint64_t *slots; /* open addressing; 0 is empty */
	uint32_t mask;
	uint32_t nlookups;
};

struct kmod {
	char name[64];
	struct btf *btf;
	int fd; /* kept open: fentry on a module function needs it */
	struct name_index types;
	uint8_t *aligns; /* see align_of */
	struct btf_dump *dump; /* see kbtf_func_ctypes */
};

static struct {
	struct btf *vmlinux;
	int err;
	bool mods_loaded;
	struct kmod *mods;
	uint32_t nmods;
	struct name_index types, enums; /* of vmlinux */
	uint8_t *aligns; /* see align_of */
	struct btf_dump *dump; /* of vmlinux, see kbtf_func_ctypes */
	struct strbuf dump_sb; /* what the dumps print into */
} kb;

/* Kernels >= 6.16 let /sys/kernel/btf/vmlinux be mmapped: parsing from
 * the mapping skips a 5.5 MB read() copy, about half of the 10 ms that
 * btf__load_vmlinux_btf() takes (measured on 6.18). */
static struct btf *load_mmapped(void)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	struct btf *b = NULL;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			       fd, 0);
		if (m != MAP_FAILED) {
			b = btf__new(m, (__u32)st.st_size); /* copies */
			munmap(m, (size_t)st.st_size);
			if (!b)
				errno = 0;
		}
	}
	close(fd);
	return b;
}

int kbtf_load(void)
{
	if (kb.vmlinux)
		return 0;
	if (kb.err)
		return kb.err;
	/* BPFTRACE_BTF: a BTF file in place of the running kernel's */
	if (limits.btf) {
		kb.vmlinux = btf__parse(limits.btf, NULL);
		if (!kb.vmlinux) {
			kb.err = errno ? -errno : -EINVAL;
			return kb.err;
		}
		return 0;
	}
	kb.vmlinux = load_mmapped();
	if (!kb.vmlinux)
		kb.vmlinux = btf__load_vmlinux_btf();
	if (!kb.vmlinux) {
		kb.err = errno ? -errno : -ENOENT;
		return kb.err;
	}
	return 0;
}

struct btf *kbtf_vmlinux(void)
{
	return kbtf_load() ? NULL : kb.vmlinux;
}

/* Module BTF is split BTF on top of vmlinux; libbpf finds module BTF
 * objects the same way (walking BTF ids for named kernel BTFs). */
static void load_modules(void)
{
	if (kb.mods_loaded || kbtf_load())
		return;
	kb.mods_loaded = true;
	__u32 id = 0;
	while (!bpf_btf_get_next_id(id, &id)) {
		int fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		char name[64] = "";
		struct bpf_btf_info info = { 0 };
		__u32 len = sizeof(info);
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
		    !info.kernel_btf || !strcmp(name, "vmlinux") ||
		    kb.nmods == MAX_SLOTS) {
			close(fd);
			continue;
		}
		struct btf *b = btf__load_from_kernel_by_id_split(id, kb.vmlinux);
		if (!b) {
			close(fd);
			continue;
		}
		kb.mods = xreallocarray(kb.mods, kb.nmods + 1, sizeof(*kb.mods));
		struct kmod *m = &kb.mods[kb.nmods++];
		memset(m, 0, sizeof(*m));
		memcpy(m->name, name, sizeof(m->name));
		m->name[sizeof(m->name) - 1] = '\0';
		m->btf = b;
		m->fd = fd;
	}
}

void kbtf_unload(void)
{
	for (uint32_t i = 0; i < kb.nmods; i++) {
		btf__free(kb.mods[i].btf);
		close(kb.mods[i].fd);
		free(kb.mods[i].types.slots);
		free(kb.mods[i].aligns);
		btf_dump__free(kb.mods[i].dump);
	}
	free(kb.mods);
	btf_dump__free(kb.dump);
	sb_free(&kb.dump_sb);
	free(kb.types.slots);
	free(kb.aligns);
	free(kb.enums.slots);
	btf__free(kb.vmlinux);
	memset(&kb, 0, sizeof(kb));
}

/* slot 0 is vmlinux, slot i the module kb.mods[i - 1]. */
static struct btf *slot_btf(uint32_t slot)
{
	if (slot == 0)
		return kb.vmlinux;
	return slot <= kb.nmods ? kb.mods[slot - 1].btf : NULL;
}

static int32_t make_handle(uint32_t slot, uint32_t id)
{
	return (int32_t)(slot << SLOT_SHIFT | id);
}

static struct btf *handle_btf(int32_t h, uint32_t *id)
{
	if (h <= 0 || kbtf_load())
		return NULL;
	*id = (uint32_t)h & ID_MASK;
	return slot_btf((uint32_t)h >> SLOT_SHIFT);
}

/* Typedefs and qualifiers say nothing about layout. */
static uint32_t skip_mods(const struct btf *b, uint32_t id)
{
	for (int i = 0; id && i < MAX_DEPTH; i++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (!t)
			return 0;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		default:
			return id;
		}
	}
	return id;
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Makes ix an empty table for n entries. */
static void index_init(struct name_index *ix, uint32_t n)
{
	uint32_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	ix->slots = xcalloc(cap, sizeof(*ix->slots));
	ix->mask = cap - 1;
}

/* The name and kind of a types index entry (a type id). */
static const char *entry_name(const struct btf *b, uint64_t e, int *kind)
{
	const struct btf_type *t = btf__type_by_id(b, (uint32_t)e);
	*kind = btf_kind(t);
	return btf__name_by_offset(b, t->name_off);
}

/* Indexes the named types from id start on, each (name, kind) at its
 * first id, the one a scan finds. */
static void index_types(struct name_index *ix, const struct btf *b,
			uint32_t start)
{
	uint32_t n = btf__type_cnt(b), named = 0;
	for (uint32_t id = start; id < n; id++)
		named += btf__type_by_id(b, id)->name_off != 0;
	index_init(ix, named);
	for (uint32_t id = start; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (!t->name_off)
			continue;
		const char *name = btf__name_by_offset(b, t->name_off);
		int kind = btf_kind(t), k;
		uint32_t h = name_hash(name) ^ (uint32_t)kind;
		for (;; h++) {
			uint64_t *e = &ix->slots[h & ix->mask];
			if (!*e) {
				*e = id;
				break;
			}
			if (!strcmp(entry_name(b, *e, &k), name) && k == kind)
				break;
		}
	}
}

/* btf__find_by_name_kind(slot_btf(slot), name, kind), indexed once it
 * has been called often: module BTF is searched from id 1 too, through
 * vmlinux's types first. */
static int32_t find_in(uint32_t slot, const char *name, int kind)
{
	struct btf *b = slot_btf(slot);
	struct name_index *ix = slot ? &kb.mods[slot - 1].types : &kb.types;
	if (!ix->slots && ix->nlookups++ < LINEAR_LOOKUPS)
		return btf__find_by_name_kind(b, name, kind);
	if (kind == BTF_KIND_UNKN || !strcmp(name, "void"))
		return 0;
	if (slot) {
		int32_t id = find_in(0, name, kind);
		if (id > 0)
			return id;
	}
	if (!ix->slots)
		index_types(ix, b, slot ? btf__type_cnt(kb.vmlinux) : 1);
	int k;
	for (uint32_t h = name_hash(name) ^ (uint32_t)kind;; h++) {
		uint64_t e = ix->slots[h & ix->mask];
		if (!e)
			return -ENOENT;
		if (!strcmp(entry_name(b, e, &k), name) && k == kind)
			return (int32_t)e;
	}
}

/* Finds name of one kind in vmlinux, then (loading them) in modules. */
static int32_t find_kind(const char *name, int kind)
{
	if (kbtf_load())
		return -ENOENT;
	int32_t id = find_in(0, name, kind);
	if (id > 0)
		return id;
	load_modules();
	for (uint32_t i = 0; i < kb.nmods; i++) {
		id = find_in(i + 1, name, kind);
		if (id > 0)
			return make_handle(i + 1, (uint32_t)id);
	}
	return -ENOENT;
}

int32_t kbtf_kfunc_id(const char *name)
{
	if (kbtf_load())
		return -ENOENT;
	int32_t id = find_in(0, name, BTF_KIND_FUNC);
	return id > 0 ? id : -ENOENT;
}

int32_t kbtf_find(const char *name)
{
	static const struct {
		const char *prefix;
		int kind;
	} tagged[] = {
		{ "struct ", BTF_KIND_STRUCT },
		{ "union ", BTF_KIND_UNION },
		{ "enum ", BTF_KIND_ENUM },
	};
	for (size_t i = 0; i < sizeof(tagged) / sizeof(*tagged); i++) {
		size_t n = strlen(tagged[i].prefix);
		if (strncmp(name, tagged[i].prefix, n))
			continue;
		int32_t h = find_kind(name + n, tagged[i].kind);
		if (h < 0 && tagged[i].kind == BTF_KIND_ENUM)
			h = find_kind(name + n, BTF_KIND_ENUM64);
		return h;
	}
	static const int bare[] = { BTF_KIND_TYPEDEF, BTF_KIND_STRUCT,
				    BTF_KIND_UNION };
	for (size_t i = 0; i < sizeof(bare) / sizeof(*bare); i++) {
		int32_t h = find_kind(name, bare[i]);
		if (h > 0)
			return h;
	}
	return -ENOENT;
}

/* Kernels built with BTF type tags mark __user pointees with
 * TYPE_TAG "user" (gcc-built kernels have none; then args are kernel
 * pointers, as bpftrace assumes). */
static bool is_user_ptr(const struct btf *b, uint32_t pointee)
{
	for (int i = 0; pointee && i < MAX_DEPTH; i++) {
		const struct btf_type *t = btf__type_by_id(b, pointee);
		if (!t || !btf_is_mod(t))
			return false;
		if (btf_is_type_tag(t) &&
		    !strcmp(btf__name_by_offset(b, t->name_off), "user"))
			return true;
		pointee = t->type;
	}
	return false;
}

static bool is_char(const struct btf *b, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(b, skip_mods(b, id));
	if (!t || !btf_is_int(t) || t->size != 1)
		return false;
	/* Only plain char makes a string, as in bpftrace; u8 arrays stay
	 * arrays. The kernel builds with -funsigned-char, so the encoding
	 * alone does not tell. */
	return (btf_int_encoding(t) & BTF_INT_CHAR) ||
	       !strcmp(btf__name_by_offset(b, t->name_off), "char");
}

static void fill_field(struct arena *a, uint32_t slot, const struct btf *b,
		       const struct btf_member *m, uint32_t bits, uint32_t bitsz,
		       struct type_field *out);

/* All direct members of struct/union t into r->fields. */
static void fill_members(struct arena *a, uint32_t slot, const struct btf *b,
			 const struct btf_type *t, struct type *r)
{
	r->nfields = btf_vlen(t);
	r->fields = arena_alloc(a, sizeof(*r->fields) * (r->nfields + 1));
	const struct btf_member *m = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++, m++)
		fill_field(a, slot, b, m, btf_member_bit_offset(t, i),
			   btf_member_bitfield_size(t, i), &r->fields[i]);
}

/* btf__align_of(b, id), remembered for the kernel's BTFs: it walks every
 * member of a record, recursively, and each function argument that
 * points to task_struct asked again (38% of expanding kfunc:*). Entries
 * hold the alignment + 1; 0 is not yet known. */
static int align_of(uint32_t slot, const struct btf *b, uint32_t id)
{
	uint8_t **memo = slot == SLOT_FOREIGN ? NULL :
			 slot ? &kb.mods[slot - 1].aligns : &kb.aligns;
	if (!memo || id >= btf__type_cnt(b))
		return btf__align_of(b, id);
	if (!*memo)
		*memo = xcalloc(btf__type_cnt(b), 1);
	if (!(*memo)[id]) {
		int al = btf__align_of(b, id);
		if (al < 0 || al > 254)
			return al;
		(*memo)[id] = (uint8_t)(al + 1);
	}
	return (*memo)[id] - 1;
}

static const struct type *record_shell(struct arena *a, uint32_t slot,
				       const struct btf *b, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(b, id);
	const char *name = btf__name_by_offset(b, t->name_off);
	bool is_union = btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t));
	if (btf_is_fwd(t) && name && *name) {
		/* A forward declaration: the definition is usually there. */
		int32_t def = btf__find_by_name_kind(
			b, name, is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT);
		if (def > 0) {
			id = (uint32_t)def;
			t = btf__type_by_id(b, id);
		}
	}
	struct type *r = type_new(a, TY_RECORD, btf_is_fwd(t) ? 0 : t->size);
	int al = btf_is_fwd(t) ? 1 : align_of(slot, b, id);
	r->align = al > 0 ? (uint32_t)al : 1;
	r->is_union = is_union;
	r->name = arena_printf(a, "%s %s", is_union ? "union" : "struct",
			       name && *name ? name : "(anonymous)");
	if (slot != SLOT_FOREIGN) {
		r->btf_id = btf_is_fwd(t) ? 0 : make_handle(slot, id);
		return r;
	}
	/* Nothing can look members up later in a foreign BTF: fill them in
	 * now. By-value nesting is finite; pointers stop it (convert). */
	if (btf_is_fwd(t))
		return r;
	fill_members(a, slot, b, t, r);
	return r;
}


static const struct type_enum *enum_table(struct arena *a, const struct btf *b,
					  uint32_t id);

static const struct type *convert(struct arena *a, uint32_t slot,
				  const struct btf *b, uint32_t id, int depth)
{
	id = skip_mods(b, id);
	if (!id)
		return &type_void;
	const struct btf_type *t = btf__type_by_id(b, id);
	if (!t || depth > MAX_DEPTH)
		return &type_none;
	switch (btf_kind(t)) {
	case BTF_KIND_INT: {
		uint8_t enc = btf_int_encoding(t);
		if (t->size > 8)
			break;
		if ((enc & BTF_INT_BOOL) && t->size == 1)
			return &type_bool; /* as bpftrace 0.26 reads it */
		bool sg = (enc & BTF_INT_SIGNED) || is_char(b, id);
		return type_int((int)t->size, sg);
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: {
		/* a named enum is unsigned, as bpftrace 0.26's CreateEnum */
		const struct type_enum *te = enum_table(a, b, id);
		if (!te || t->size > 8)
			return type_int((int)t->size, btf_kflag(t));
		return type_int_enum(a, type_int((int)t->size, false), te);
	}
	case BTF_KIND_PTR:
		if (slot == SLOT_FOREIGN) /* a value to print, not to deref */
			return type_ptr(a, &type_void, false);
		return type_ptr(a, convert(a, slot, b, t->type, depth + 1),
				is_user_ptr(b, t->type));
	case BTF_KIND_ARRAY: {
		const struct btf_array *arr = btf_array(t);
		if (is_char(b, arr->type))
			return type_string(a, arr->nelems);
		const struct type *el = convert(a, slot, b, arr->type, depth + 1);
		struct type *at = type_new(a, TY_ARRAY, el->size * arr->nelems);
		at->elem = el;
		at->count = arr->nelems;
		at->align = el->align ? el->align : 1;
		return at;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FWD:
		return record_shell(a, slot, b, id);
	case BTF_KIND_FUNC:
	case BTF_KIND_FUNC_PROTO:
		return &type_void; /* only ever seen behind a pointer */
	default:
		break;
	}
	/* __int128, float: opaque bytes of the right size. */
	int64_t sz = btf__resolve_size(b, id);
	struct type *at = type_new(a, TY_ARRAY, sz > 0 ? (uint32_t)sz : 0);
	at->elem = &type_u8;
	at->count = at->size;
	return at;
}

const struct type *kbtf_type(struct arena *a, int32_t handle)
{
	uint32_t id;
	struct btf *b = handle_btf(handle, &id);
	if (!b)
		return &type_none;
	return convert(a, (uint32_t)handle >> SLOT_SHIFT, b, id, 0);
}

const struct type *kbtf_type_of(struct arena *a, const struct btf *b,
				uint32_t id)
{
	return convert(a, SLOT_FOREIGN, b, id, 0);
}

const struct type *kbtf_type_by_name(struct arena *a, const char *name)
{
	int32_t h = kbtf_find(name);
	return h > 0 ? kbtf_type(a, h) : NULL;
}

static int32_t record_handle(const struct type *rec)
{
	if (rec->kind != TY_RECORD)
		return -ESRCH;
	if (rec->btf_id > 0)
		return rec->btf_id;
	int32_t h = rec->name ? kbtf_find(rec->name) : -ENOENT;
	return h > 0 ? h : -ESRCH;
}

static void fill_field(struct arena *a, uint32_t slot, const struct btf *b,
		       const struct btf_member *m, uint32_t bits, uint32_t bitsz,
		       struct type_field *out)
{
	const char *name = btf__name_by_offset(b, m->name_off);
	out->name = name ? name : "";
	out->type = convert(a, slot, b, m->type, 0);
	if (!bitsz) {
		out->offset = bits / 8;
		out->bit_off = 0;
		out->bit_size = 0;
		return;
	}
	/* Address the bitfield as its declared type's aligned storage unit,
	 * so codegen does one load of type->size bytes and a shift/mask.
	 * Packed bitfields can straddle units: fall back to bytes. */
	uint32_t unit = out->type->size ? out->type->size : 1;
	uint32_t off = bits / (unit * 8) * unit;
	if (bits - off * 8 + bitsz > unit * 8)
		off = bits / 8;
	out->offset = off;
	out->bit_off = (uint16_t)(bits - off * 8);
	out->bit_size = (uint16_t)bitsz;
}

/* Depth-first through anonymous members; base is in bits. */
static bool find_member(struct arena *a, uint32_t slot, const struct btf *b,
			uint32_t id, const char *name, uint32_t base, int depth,
			struct type_field *out)
{
	const struct btf_type *t = btf__type_by_id(b, skip_mods(b, id));
	if (!t || !btf_is_composite(t) || depth > MAX_DEPTH)
		return false;
	const struct btf_member *m = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
		uint32_t bits = base + btf_member_bit_offset(t, i);
		if (m->name_off) {
			if (!strcmp(btf__name_by_offset(b, m->name_off), name)) {
				fill_field(a, slot, b, m, bits,
					   btf_member_bitfield_size(t, i), out);
				return true;
			}
		} else if (find_member(a, slot, b, m->type, name, bits,
				       depth + 1, out)) {
			return true;
		}
	}
	return false;
}

int kbtf_field(struct arena *a, const struct type *rec, const char *name,
	       struct type_field *out)
{
	int32_t h = record_handle(rec);
	uint32_t id;
	struct btf *b = h > 0 ? handle_btf(h, &id) : NULL;
	if (!b)
		return -ESRCH;
	return find_member(a, (uint32_t)h >> SLOT_SHIFT, b, id, name, 0, 0, out)
		? 0 : -ENOENT;
}

const struct type *kbtf_record(struct arena *a, const struct type *rec)
{
	int32_t h = record_handle(rec);
	uint32_t id, slot = (uint32_t)h >> SLOT_SHIFT;
	struct btf *b = h > 0 ? handle_btf(h, &id) : NULL;
	if (!b)
		return NULL;
	const struct type *shell = rec->btf_id > 0 ? rec : kbtf_type(a, h);
	struct type *r = type_new(a, TY_RECORD, 0);
	*r = *shell;
	const struct btf_type *t = btf__type_by_id(b, id);
	fill_members(a, slot, b, t, r);
	return r;
}

/* Fills out from a FUNC_PROTO, skipping the first skip params. */
static int fill_proto(struct arena *a, uint32_t slot, const struct btf *b,
		      uint32_t proto_id, uint32_t skip,
		      const struct btf_type *names, struct kbtf_func *out)
{
	const struct btf_type *p = btf__type_by_id(b, skip_mods(b, proto_id));
	if (p && btf_is_ptr(p))
		p = btf__type_by_id(b, skip_mods(b, p->type));
	if (!p || !btf_is_func_proto(p))
		return -EINVAL;
	uint16_t n = btf_vlen(p);
	const struct btf_param *pp = btf_params(p);
	/* "..." is a last param with type 0. */
	if (n && pp[n - 1].type == 0)
		n--;
	if (names && (!btf_is_func_proto(names) || btf_vlen(names) < n))
		names = NULL;
	out->ret = convert(a, slot, b, p->type, 0);
	out->nparams = n > skip ? n - skip : 0;
	out->params = arena_alloc(a, sizeof(*out->params) * (out->nparams + 1));
	for (uint32_t i = 0; i < out->nparams; i++) {
		const struct btf_param *src = &pp[i + skip];
		uint32_t noff = names ? btf_params(names)[i + skip].name_off
				      : src->name_off;
		const char *nm = btf__name_by_offset(b, noff);
		out->params[i].name = nm && *nm ? nm : arena_printf(a, "arg%u", i);
		out->params[i].type = convert(a, slot, b, src->type, 0);
	}
	return 0;
}

static void set_origin(uint32_t slot, struct kbtf_func *out)
{
	out->btf_obj_fd = slot ? kb.mods[slot - 1].fd : 0;
	out->module = slot ? kb.mods[slot - 1].name : NULL;
}

/* Where the prototype of function or tp_btf name lives: its BTF, the
 * FUNC_PROTO (or typedef) id, how many leading params to skip, and the
 * proto whose param names to use. Fills out's name, btf_id and origin. */
struct proto_ref {
	struct btf *b;
	uint32_t slot, proto_id, skip;
	const struct btf_type *names;
};

static int find_proto(struct arena *a, const char *name, bool tp,
		      struct kbtf_func *out, struct proto_ref *r)
{
	memset(out, 0, sizeof(*out));
	memset(r, 0, sizeof(*r));
	int32_t h = tp ? find_kind(arena_printf(a, "btf_trace_%s", name),
				   BTF_KIND_TYPEDEF) :
			 find_kind(name, BTF_KIND_FUNC);
	uint32_t id;
	r->slot = (uint32_t)h >> SLOT_SHIFT;
	r->b = h > 0 ? handle_btf(h, &id) : NULL;
	if (!r->b)
		return -ENOENT;
	const struct btf_type *t = btf__type_by_id(r->b, id);
	out->name = tp ? arena_strdup(a, name) :
			 btf__name_by_offset(r->b, t->name_off);
	out->btf_id = id;
	set_origin(r->slot, out);
	r->proto_id = t->type;
	if (!tp)
		return 0;
	/* The typedef's prototype has no parameter names; the stub the
	 * tracepoint macro defines for it has the same params, named. */
	r->skip = 1;
	static const char *const stubs[] = { "__probestub_%s", "__bpf_trace_%s" };
	for (size_t i = 0; i < sizeof(stubs) / sizeof(*stubs) && !r->names;
	     i++) {
		int32_t fid = find_in(r->slot, arena_printf(a, stubs[i], name),
				      BTF_KIND_FUNC);
		if (fid > 0)
			r->names = btf__type_by_id(
				r->b, btf__type_by_id(r->b, (uint32_t)fid)->type);
	}
	return 0;
}

static int lookup(struct arena *a, const char *name, bool tp,
		  struct kbtf_func *out)
{
	struct proto_ref r;
	int err = find_proto(a, name, tp, out, &r);
	return err ? err : fill_proto(a, r.slot, r.b, r.proto_id, r.skip,
				      r.names, out);
}

int kbtf_func(struct arena *a, const char *name, struct kbtf_func *out)
{
	return lookup(a, name, false, out);
}

int kbtf_tp_btf(struct arena *a, const char *tp, struct kbtf_func *out)
{
	return lookup(a, tp, true, out);
}

static void decl_printf(void *ctx, const char *fmt, va_list ap)
{
	char buf[256];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	sb_append(ctx, buf);
}

/* The C spelling of type id, as bpftrace -lv prints it ("struct file *"),
 * printed by d into sb. */
static const char *c_decl(struct arena *a, struct btf_dump *d,
			  struct strbuf *sb, uint32_t id)
{
	sb_reset(sb);
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = "");
	if (btf_dump__emit_type_decl(d, id, &o) < 0)
		sb_append(sb, "?");
	return arena_strdup(a, sb_str(sb));
}

int kbtf_func_ctypes(struct arena *a, const char *name, bool tp,
		     struct kbtf_func *out)
{
	struct proto_ref r;
	int err = find_proto(a, name, tp, out, &r);
	if (!err)
		err = fill_proto(a, r.slot, r.b, r.proto_id, r.skip, r.names,
				 out);
	if (err)
		return err;
	/* One dump per BTF, kept: a new one costs about 3 ms (its tables
	 * cover every type), and -lv 'kprobe:*' asks for 40,000 functions. */
	struct btf_dump **dp = r.slot == 0 ? &kb.dump :
			       r.slot <= kb.nmods ? &kb.mods[r.slot - 1].dump :
						    NULL;
	struct btf_dump *d = dp ? *dp : NULL;
	if (!d) {
		d = btf_dump__new(r.b, decl_printf, &kb.dump_sb, NULL);
		if (!d)
			return -errno;
		if (dp)
			*dp = d;
	}
	const struct btf_type *p =
		btf__type_by_id(r.b, skip_mods(r.b, r.proto_id));
	if (p && btf_is_ptr(p))
		p = btf__type_by_id(r.b, skip_mods(r.b, p->type));
	/* fill_proto checked that p is a FUNC_PROTO with these params. */
	for (uint32_t i = 0; i < out->nparams; i++)
		out->params[i].ctype = c_decl(a, d, &kb.dump_sb,
					      btf_params(p)[i + r.skip].type);
	out->ret_ctype = c_decl(a, d, &kb.dump_sb, p->type);
	if (!dp)
		btf_dump__free(d);
	return 0;
}

/* Walks the types of one BTF that are its own (split BTF shares the
 * vmlinux ids below its start). */
static int match_in(uint32_t slot, int kind, const char *prefix,
		    const char *pattern, kbtf_match_cb cb, void *ctx,
		    int *count)
{
	const struct btf *b = slot_btf(slot);
	uint32_t start = slot ? btf__type_cnt(kb.vmlinux) : 1;
	uint32_t n = btf__type_cnt(b);
	size_t pl = strlen(prefix);
	const char *module = slot ? kb.mods[slot - 1].name : NULL;
	for (uint32_t id = start; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (btf_kind(t) != kind)
			continue;
		const char *name = btf__name_by_offset(b, t->name_off);
		if (!name || strncmp(name, prefix, pl) ||
		    !glob_match(pattern, name + pl))
			continue;
		(*count)++;
		int r = cb(name + pl, module, ctx);
		if (r)
			return r;
	}
	return 0;
}

static int match_all(int kind, const char *prefix, const char *pattern,
		     kbtf_match_cb cb, void *ctx)
{
	int err = kbtf_load();
	if (err)
		return err;
	int count = 0, r = match_in(0, kind, prefix, pattern, cb, ctx, &count);
	if (r)
		return r;
	load_modules();
	for (uint32_t i = 0; i < kb.nmods; i++) {
		r = match_in(i + 1, kind, prefix, pattern, cb, ctx, &count);
		if (r)
			return r;
	}
	return count;
}

int kbtf_match_funcs(const char *pattern, kbtf_match_cb cb, void *ctx)
{
	return match_all(BTF_KIND_FUNC, "", pattern, cb, ctx);
}

int kbtf_match_tp_btf(const char *pattern, kbtf_match_cb cb, void *ctx)
{
	return match_all(BTF_KIND_TYPEDEF, "btf_trace_", pattern, cb, ctx);
}

int kbtf_each_object(kbtf_object_cb cb, void *ctx)
{
	int err = kbtf_load();
	if (err)
		return err;
	int r = cb(kb.vmlinux, 1, "vmlinux", ctx);
	if (r)
		return r;
	load_modules();
	for (uint32_t i = 0; i < kb.nmods && !r; i++)
		r = cb(kb.mods[i].btf, btf__type_cnt(kb.vmlinux),
		       kb.mods[i].name, ctx);
	return r;
}

/* An enums index entry: type id << 16 | enumerator index. */
static const char *enumerator(const struct btf *b, uint64_t e)
{
	const struct btf_type *t = btf__type_by_id(b, (uint32_t)(e >> 16));
	uint32_t i = e & 0xffff;
	return btf__name_by_offset(b, btf_is_enum(t) ? btf_enum(t)[i].name_off
						    : btf_enum64(t)[i].name_off);
}

/* Indexes every enumerator of vmlinux at its first place. */
static void index_enums(const struct btf *b)
{
	uint32_t n = btf__type_cnt(b), count = 0;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (btf_is_enum(t) || btf_is_enum64(t))
			count += btf_vlen(t);
	}
	index_init(&kb.enums, count);
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (!btf_is_enum(t) && !btf_is_enum64(t))
			continue;
		for (uint16_t i = 0; i < btf_vlen(t); i++) {
			uint64_t me = (uint64_t)id << 16 | i;
			const char *name = enumerator(b, me);
			for (uint32_t h = name_hash(name);; h++) {
				uint64_t *e = &kb.enums.slots[h & kb.enums.mask];
				if (!*e)
					*e = me;
				if (*e == me || !strcmp(enumerator(b, *e), name))
					break;
			}
		}
	}
}

static int64_t enum_value(const struct btf *b, uint32_t id, uint16_t i)
{
	const struct btf_type *t = btf__type_by_id(b, id);
	if (btf_is_enum64(t))
		return (int64_t)btf_enum64_value(btf_enum64(t) + i);
	const struct btf_enum *e = btf_enum(t) + i;
	return btf_kflag(t) ? (int64_t)e->val : (int64_t)(uint32_t)e->val;
}

/* The enumerator name of vmlinux: its enum's id and index, or false. */
static bool find_enumerator(struct btf *b, const char *name, uint32_t *id,
			    uint16_t *idx)
{
	if (kb.enums.slots || kb.enums.nlookups++ >= LINEAR_LOOKUPS) {
		if (!kb.enums.slots)
			index_enums(b);
		for (uint32_t h = name_hash(name);; h++) {
			uint64_t e = kb.enums.slots[h & kb.enums.mask];
			if (!e)
				return false;
			if (!strcmp(enumerator(b, e), name)) {
				*id = (uint32_t)(e >> 16);
				*idx = e & 0xffff;
				return true;
			}
		}
	}
	/* The first lookups scan: scripts name few enumerators. */
	uint32_t n = btf__type_cnt(b);
	for (uint32_t i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(b, i);
		if (!btf_is_enum(t) && !btf_is_enum64(t))
			continue;
		for (uint16_t k = 0; k < btf_vlen(t); k++)
			if (!strcmp(enumerator(b, (uint64_t)i << 16 | k),
				    name)) {
				*id = i;
				*idx = k;
				return true;
			}
	}
	return false;
}

/* The enumerators of enum id, copied into a: what prints its values by
 * name (bpftrace 0.26's enum_defs_). NULL for an anonymous enum, which
 * bpftrace types as a plain integer. */
static const struct type_enum *enum_table(struct arena *a, const struct btf *b,
					  uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(b, id);
	const char *name = btf__name_by_offset(b, t->name_off);
	if (!name || !*name)
		return NULL;
	struct type_enum *te = arena_alloc(a, sizeof(*te));
	struct type_enumerator *vals = arena_alloc(
		a, sizeof(*vals) * ((size_t)btf_vlen(t) + 1));
	te->name = arena_strdup(a, name);
	te->vals = vals;
	te->n = btf_vlen(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		vals[i].name = arena_strdup(a, enumerator(b, (uint64_t)id << 16 | i));
		vals[i].value = (uint64_t)enum_value(b, id, i);
		if (!btf_is_enum64(t))
			vals[i].value = (uint32_t)vals[i].value;
	}
	return te;
}

int kbtf_enumerator(struct arena *a, const char *name, int64_t *value,
		    const struct type_enum **enm)
{
	struct btf *b = kbtf_vmlinux();
	uint32_t id;
	uint16_t i;
	if (!b || !find_enumerator(b, name, &id, &i))
		return -ENOENT;
	*value = enum_value(b, id, i);
	if (enm)
		*enm = enum_table(a, b, id);
	return 0;
}

int kbtf_enum_value(const char *name, int64_t *value)
{
	return kbtf_enumerator(NULL, name, value, NULL);
}
