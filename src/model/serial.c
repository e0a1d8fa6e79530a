/*
 * The .sonde section (model/serial.h): a writer into a strbuf and a
 * bounds-checked reader into an arena. Both walk the fields in the same
 * order; a field added to one must be added to the other and
 * SERIAL_VERSION bumped.
 */
#include "model/serial.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "model/fmt.h"
#include "model/types.h"
#include "util/arena.h"
#include "util/strbuf.h"
#include "util/vec.h"

static const char magic[8] = "SONDE\0\0\0";
#define HDR_SIZE 20u
#define NONE32 0xffffffffu
/* a type's stack_mode byte: the mode, and stack_dwarf in the top bit */
#define STACK_DWARF_BIT 0x80u

uint32_t serial_crc(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;
	/* zlib's length is a uInt: feed large buffers in pieces */
	while (n) {
		uInt k = n > 1u << 30 ? 1u << 30 : (uInt)n;
		crc = (uint32_t)crc32(crc, b, k);
		b += k;
		n -= k;
	}
	return crc;
}

/* ---- writing ---- */

/* Pointers numbered in the order first met: types and source files. */
struct ptab {
	VEC(const void *) v;
	const void **hash; /* open addressing over v's indexes + 1 */
	size_t hcap;
};

static size_t ptr_slot(const struct ptab *t, const void *p)
{
	return (size_t)(((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ull) &
	       (t->hcap - 1);
}

/* Index of p, adding it when new (*added then). */
static uint32_t ptab_index(struct ptab *t, const void *p, bool *added)
{
	if (t->v.len * 2 >= t->hcap) {
		size_t nc = t->hcap ? t->hcap * 2 : 64;
		const void **nh = xcalloc(nc, sizeof(*nh));
		free(t->hash);
		t->hash = nh;
		t->hcap = nc;
		for (size_t i = 0; i < t->v.len; i++) {
			size_t s = ptr_slot(t, t->v.data[i]);
			while (t->hash[s])
				s = (s + 1) & (nc - 1);
			t->hash[s] = (const void *)(uintptr_t)(i + 1);
		}
	}
	size_t s = ptr_slot(t, p);
	while (t->hash[s]) {
		size_t i = (uintptr_t)t->hash[s] - 1;
		if (t->v.data[i] == p) {
			*added = false;
			return (uint32_t)i;
		}
		s = (s + 1) & (t->hcap - 1);
	}
	t->hash[s] = (const void *)(uintptr_t)(t->v.len + 1);
	vec_push(&t->v, p);
	*added = true;
	return (uint32_t)(t->v.len - 1);
}

static void ptab_free(struct ptab *t)
{
	vec_free(&t->v);
	free(t->hash);
}

struct wr {
	struct strbuf *sb;
	struct ptab types, files;
	bool btf_ids; /* false for serial_type_hash */
};

static void put8(struct wr *w, uint8_t v)
{
	sb_appendn(w->sb, (const char *)&v, 1);
}

static void put32(struct wr *w, uint32_t v)
{
	char b[4] = { (char)v, (char)(v >> 8), (char)(v >> 16),
		      (char)(v >> 24) };
	sb_appendn(w->sb, b, 4);
}

static void put64(struct wr *w, uint64_t v)
{
	put32(w, (uint32_t)v);
	put32(w, (uint32_t)(v >> 32));
}

static void putmem(struct wr *w, const char *s, size_t n)
{
	put32(w, (uint32_t)n);
	sb_appendn(w->sb, s, n);
}

static void putstr(struct wr *w, const char *s)
{
	if (!s)
		put32(w, NONE32);
	else
		putmem(w, s, strlen(s));
}

/* Collects t and every type it reaches, in index order. */
static void collect_type(struct wr *w, const struct type *t)
{
	if (!t)
		return;
	bool added;
	ptab_index(&w->types, t, &added);
	if (!added)
		return;
	collect_type(w, t->elem);
	for (uint32_t i = 0; i < t->nfields; i++)
		collect_type(w, t->fields[i].type);
}

static void put_tref(struct wr *w, const struct type *t)
{
	bool added;
	put32(w, t ? ptab_index(&w->types, t, &added) : NONE32);
}

static void put_type(struct wr *w, const struct type *t)
{
	put8(w, (uint8_t)t->kind);
	put32(w, t->size);
	put32(w, t->align);
	put8(w, (uint8_t)(t->is_signed | t->is_user << 1 | t->is_union << 2));
	put8(w, t->addr);
	put_tref(w, t->elem);
	put32(w, t->count);
	put32(w, t->nfields);
	for (uint32_t i = 0; i < t->nfields; i++) {
		const struct type_field *f = &t->fields[i];
		putstr(w, f->name);
		put_tref(w, f->type);
		put32(w, f->offset);
		put32(w, (uint32_t)f->bit_off | (uint32_t)f->bit_size << 16);
		put8(w, (uint8_t)f->loc);
	}
	putstr(w, t->name);
	put32(w, (uint32_t)(w->btf_ids ? t->btf_id : 0));
	put64(w, (uint64_t)t->lmin);
	put64(w, (uint64_t)t->lmax);
	put64(w, (uint64_t)t->lstep);
	/* stack_dwarf in the mode's top bit: a file with no DWARF stack is
	 * the same bytes as before it (version 7 still), and a sonde
	 * without it refuses one with (a mode it does not know) */
	put8(w, (uint8_t)(t->stack_mode | (t->stack_dwarf ? STACK_DWARF_BIT :
							   0)));
	put32(w, t->stack_limit);
	put8(w, (uint8_t)t->hbits);
	/* an enum's names are for printing, not layout: out of the hash */
	const struct type_enum *e = w->btf_ids ? t->enm : NULL;
	put32(w, e ? e->n : NONE32);
	if (e) {
		putstr(w, e->name);
		for (uint32_t i = 0; i < e->n; i++) {
			putstr(w, e->vals[i].name);
			put64(w, e->vals[i].value);
		}
	}
}

static void put_types(struct wr *w)
{
	put32(w, (uint32_t)w->types.v.len);
	for (size_t i = 0; i < w->types.v.len; i++)
		put_type(w, w->types.v.data[i]);
}

uint32_t serial_type_hash(const struct type *t, uint32_t crc)
{
	struct strbuf sb = STRBUF_INIT;
	struct wr w = { .sb = &sb };
	collect_type(&w, t);
	put_types(&w);
	crc = serial_crc(crc, sb.buf, sb.len);
	ptab_free(&w.types);
	sb_free(&sb);
	return crc;
}

static void put_span(struct wr *w, struct span sp)
{
	bool added;
	put32(w, sp.file ? ptab_index(&w->files, sp.file, &added) : NONE32);
	put32(w, sp.off);
	put32(w, sp.len);
	put32(w, sp.line);
	put32(w, sp.col);
}

static void put_fmt(struct wr *w, const struct fmt *f)
{
	put8(w, f != NULL);
	if (!f)
		return;
	put32(w, f->nsegs);
	put32(w, f->nconv);
	for (uint32_t i = 0; i < f->nsegs; i++) {
		const struct fmt_seg *s = &f->segs[i];
		put8(w, (uint8_t)(s->is_conv | s->left << 1 | s->zero << 2 |
				  s->plus << 3 | s->alt << 4));
		putmem(w, s->text ? s->text : "", s->text ? s->len : 0);
		put8(w, (uint8_t)s->conv);
		putstr(w, s->name);
		putstr(w, s->length);
		put32(w, (uint32_t)s->width);
		put32(w, s->arg);
	}
}

static void put_map(struct wr *w, const struct cmap *m)
{
	putstr(w, m->name);
	put32(w, (uint32_t)m->type);
	put32(w, m->key_size);
	put32(w, m->value_size);
	put32(w, m->max_entries);
	put32(w, m->flags);
	put8(w, (uint8_t)(m->is_user | m->percpu << 1 | m->shared << 2 |
			  m->stack_ids << 3 | m->stack_table << 4));
	put_tref(w, m->key);
	put_tref(w, m->value);
	put32(w, (uint32_t)m->full_counter);
	put32(w, m->full_off);
	put32(w, (uint32_t)m->len_counter);
	put32(w, m->len_off);
	put32(w, m->host);
	put64(w, m->slot_key);
}

static void put_event(struct wr *w, const struct cevent *e)
{
	put32(w, (uint32_t)e->kind);
	put_fmt(w, e->fmt);
	putstr(w, e->text);
	put32(w, e->nargs);
	for (uint32_t i = 0; i < e->nargs; i++) {
		put_tref(w, e->args[i]);
		put32(w, e->offsets[i]);
	}
	put32(w, e->size);
	put32(w, (uint32_t)e->map);
	put32(w, e->top);
	put32(w, e->div);
	put_span(w, e->at);
	put32(w, e->nfrom);
	for (uint32_t i = 0; i < e->nfrom; i++)
		put_span(w, e->from[i]);
}

static void put_prog(struct wr *w, const struct cprog *p,
		     const struct serial_prog *sp)
{
	putstr(w, p->name);
	put32(w, (uint32_t)p->type);
	put32(w, (uint32_t)p->expected_attach_type);
	put32(w, p->code.ninsns);
	put32(w, p->code.stack_size);
	put8(w, (uint8_t)(p->is_begin | p->is_end << 1 | p->is_signal << 2 |
			  p->is_bench << 3 | p->is_test << 4));
	putstr(w, p->loop_at);
	put32(w, sp->group);
	putstr(w, sp->section);
	put32(w, sp->offset);
	put32(w, sp->code_crc);
	put32(w, sp->context);
	put32(w, sp->npatches);
	for (uint32_t i = 0; i < sp->npatches; i++) {
		put32(w, sp->patches[i].insn);
		put32(w, sp->patches[i].kind);
	}
}

static void put_group(struct wr *w, const struct serial_group *g)
{
	put32(w, g->nattach);
	put8(w, g->want_args);
	for (uint32_t i = 0; i < g->nattach; i++) {
		const struct attach_point *a = &g->attach[i];
		put_span(w, a->span);
		putstr(w, a->text);
		putstr(w, a->provider);
		put32(w, a->nparts);
		for (uint32_t k = 0; k < a->nparts; k++)
			putstr(w, a->parts[k]);
	}
}

/* The payload: types and source files first (the rest refers to them by
 * index), so they are collected in a first pass over a scratch buffer. */
static void put_body(struct wr *w, const struct serial_object *o)
{
	const struct compiled *c = &o->c;
	put8(w, o->uses_cpid);
	put32(w, (uint32_t)c->ringbuf);
	put32(w, (uint32_t)c->stop_flag);
	put32(w, (uint32_t)c->lost_counter);
	put32(w, c->nprobe_names);
	for (uint32_t i = 0; i < c->nprobe_names; i++)
		putstr(w, c->probe_names[i]);
	put32(w, c->nmaps);
	for (uint32_t i = 0; i < c->nmaps; i++)
		put_map(w, &c->maps[i]);
	put32(w, c->nevents);
	for (uint32_t i = 0; i < c->nevents; i++)
		put_event(w, &c->events[i]);
	put32(w, o->ngroups);
	for (uint32_t i = 0; i < o->ngroups; i++)
		put_group(w, &o->groups[i]);
	put32(w, c->nprogs);
	for (uint32_t i = 0; i < c->nprogs; i++)
		put_prog(w, &c->progs[i], &o->progs[i]);
}

void serial_write(const struct serial_object *o, struct strbuf *out)
{
	const struct compiled *c = &o->c;
	struct strbuf body = STRBUF_INIT, pre = STRBUF_INIT;
	struct wr w = { .sb = &body, .btf_ids = true };
	for (uint32_t i = 0; i < c->nmaps; i++) {
		collect_type(&w, c->maps[i].key);
		collect_type(&w, c->maps[i].value);
	}
	for (uint32_t i = 0; i < c->nevents; i++)
		for (uint32_t k = 0; k < c->events[i].nargs; k++)
			collect_type(&w, c->events[i].args[k]);
	put_body(&w, o); /* numbers the source files */
	w.sb = &pre;
	put_types(&w);
	put32(&w, (uint32_t)w.files.v.len);
	for (size_t i = 0; i < w.files.v.len; i++) {
		const struct src_file *f = w.files.v.data[i];
		putstr(&w, f->name);
		putmem(&w, f->text, f->len);
	}
	sb_appendn(&pre, body.buf, body.len);

	w.sb = out;
	sb_appendn(out, magic, sizeof(magic));
	put32(&w, SERIAL_VERSION);
	put32(&w, (uint32_t)pre.len);
	put32(&w, serial_crc(0, pre.buf, pre.len));
	sb_appendn(out, pre.buf, pre.len);
	ptab_free(&w.types);
	ptab_free(&w.files);
	sb_free(&body);
	sb_free(&pre);
}

/* ---- reading ---- */

struct rd {
	struct arena *a;
	const uint8_t *p;
	size_t len, pos;
	bool bad;
	struct type **types;
	uint32_t ntypes;
	struct src_file *files;
	uint32_t nfiles;
};

static bool need(struct rd *r, size_t n)
{
	if (r->bad || r->len - r->pos < n) {
		r->bad = true;
		return false;
	}
	return true;
}

static uint8_t get8(struct rd *r)
{
	return need(r, 1) ? r->p[r->pos++] : 0;
}

static uint32_t get32(struct rd *r)
{
	if (!need(r, 4))
		return 0;
	const uint8_t *b = r->p + r->pos;
	r->pos += 4;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static uint64_t get64(struct rd *r)
{
	uint64_t lo = get32(r);
	return lo | (uint64_t)get32(r) << 32;
}

/* A count of items of at least min_size bytes each: never more than the
 * bytes left can hold, so a corrupt count cannot ask for gigabytes. */
static uint32_t get_count(struct rd *r, size_t min_size)
{
	uint32_t n = get32(r);
	if (!r->bad && (size_t)n * min_size > r->len - r->pos)
		r->bad = true;
	return r->bad ? 0 : n;
}

static void *alloc_n(struct rd *r, uint32_t n, size_t size)
{
	return arena_alloc(r->a, size * ((size_t)n + 1));
}

/* A string (NUL-terminated copy in the arena), or NULL; *n its length. */
static const char *getmem(struct rd *r, size_t *n)
{
	uint32_t len = get32(r);
	if (len == NONE32 || r->bad)
		return NULL;
	if (!need(r, len))
		return NULL;
	char *copy = arena_alloc(r->a, (size_t)len + 1);
	memcpy(copy, r->p + r->pos, len); /* may hold NUL bytes */
	r->pos += len;
	if (n)
		*n = len;
	return copy;
}

static const char *getstr(struct rd *r)
{
	return getmem(r, NULL);
}

static const struct type *get_tref(struct rd *r)
{
	uint32_t i = get32(r);
	if (i == NONE32)
		return NULL;
	if (i >= r->ntypes) {
		r->bad = true;
		return NULL;
	}
	return r->types[i];
}

static void get_type(struct rd *r, struct type *t)
{
	t->kind = (enum type_kind)get8(r);
	if (t->kind > TY_TSERIES)
		r->bad = true;
	t->size = get32(r);
	t->align = get32(r);
	uint8_t b = get8(r);
	t->is_signed = b & 1;
	t->is_user = b >> 1 & 1;
	t->is_union = b >> 2 & 1;
	t->addr = get8(r);
	t->elem = get_tref(r);
	t->count = get32(r);
	t->nfields = get_count(r, 18);
	t->fields = alloc_n(r, t->nfields, sizeof(*t->fields));
	for (uint32_t i = 0; i < t->nfields && !r->bad; i++) {
		struct type_field *f = &t->fields[i];
		f->name = getstr(r);
		f->type = get_tref(r);
		f->offset = get32(r);
		uint32_t bits = get32(r);
		f->bit_off = (uint16_t)bits;
		f->bit_size = (uint16_t)(bits >> 16);
		f->loc = get8(r);
		if (!f->type || f->loc > FIELD_REL_LOC)
			r->bad = true;
	}
	t->name = getstr(r);
	t->btf_id = (int32_t)get32(r);
	t->lmin = (int64_t)get64(r);
	t->lmax = (int64_t)get64(r);
	t->lstep = (int64_t)get64(r);
	uint8_t mode = get8(r);
	t->stack_mode = (enum stack_mode)(mode & ~STACK_DWARF_BIT);
	t->stack_dwarf = (mode & STACK_DWARF_BIT) != 0;
	t->stack_limit = get32(r);
	t->hbits = get8(r);
	if (t->stack_mode > STACK_BUILD_ID || t->hbits > 5 ||
	    (t->stack_dwarf && t->kind != TY_USTACK))
		r->bad = true;
	uint32_t n = get32(r);
	if (n != NONE32 && !r->bad) {
		if ((size_t)n * 12 > r->len - r->pos || t->kind != TY_INT) {
			r->bad = true;
			return;
		}
		struct type_enum *e = arena_alloc(r->a, sizeof(*e));
		struct type_enumerator *v = alloc_n(r, n, sizeof(*v));
		e->name = getstr(r);
		e->n = n;
		e->vals = v;
		for (uint32_t i = 0; i < n && !r->bad; i++) {
			v[i].name = getstr(r);
			v[i].value = get64(r);
			if (!v[i].name)
				r->bad = true;
		}
		t->enm = e;
	}
}

static void get_types(struct rd *r)
{
	r->ntypes = get_count(r, 40);
	r->types = alloc_n(r, r->ntypes, sizeof(*r->types));
	for (uint32_t i = 0; i < r->ntypes; i++)
		r->types[i] = arena_alloc(r->a, sizeof(struct type));
	for (uint32_t i = 0; i < r->ntypes && !r->bad; i++)
		get_type(r, r->types[i]);
}

static struct span get_span(struct rd *r)
{
	struct span sp = { 0 };
	uint32_t f = get32(r);
	if (f != NONE32) {
		if (f >= r->nfiles)
			r->bad = true;
		else
			sp.file = &r->files[f];
	}
	sp.off = get32(r);
	sp.len = get32(r);
	sp.line = get32(r);
	sp.col = get32(r);
	if (sp.file && (sp.off > sp.file->len ||
			sp.len > sp.file->len - sp.off))
		r->bad = true;
	return sp;
}

static const struct fmt *get_fmt(struct rd *r)
{
	if (!get8(r))
		return NULL;
	struct fmt *f = arena_alloc(r->a, sizeof(*f));
	f->nsegs = get_count(r, 20);
	f->nconv = get32(r);
	f->segs = alloc_n(r, f->nsegs, sizeof(*f->segs));
	for (uint32_t i = 0; i < f->nsegs && !r->bad; i++) {
		struct fmt_seg *s = &f->segs[i];
		uint8_t b = get8(r);
		s->is_conv = b & 1;
		s->left = b >> 1 & 1;
		s->zero = b >> 2 & 1;
		s->plus = b >> 3 & 1;
		s->alt = b >> 4 & 1;
		s->text = getmem(r, &s->len);
		s->conv = (enum fmt_conv)get8(r);
		s->name = getstr(r);
		s->length = getstr(r);
		s->width = (int)get32(r);
		s->arg = get32(r);
		if (!s->text || s->conv > FMT_CONV_LAST ||
		    (s->is_conv && (!s->name || !*s->name || !s->length ||
				    s->arg >= f->nconv)))
			r->bad = true;
	}
	return f;
}

static bool map_ok(const struct rd *r, int32_t m, uint32_t nmaps)
{
	return m == -1 || (m >= 0 && (uint32_t)m < nmaps);
}

static void get_map(struct rd *r, struct cmap *m, uint32_t nmaps)
{
	m->name = getstr(r);
	m->type = (enum bpf_map_type)get32(r);
	m->key_size = get32(r);
	m->value_size = get32(r);
	m->max_entries = get32(r);
	m->flags = get32(r);
	uint8_t b = get8(r);
	m->is_user = b & 1;
	m->percpu = b >> 1 & 1;
	m->shared = b >> 2 & 1;
	m->stack_ids = b >> 3 & 1;
	m->stack_table = b >> 4 & 1;
	m->key = get_tref(r);
	m->value = get_tref(r);
	m->full_counter = (int32_t)get32(r);
	m->full_off = get32(r);
	m->len_counter = (int32_t)get32(r);
	m->len_off = get32(r);
	m->host = get32(r);
	m->slot_key = get64(r);
	if (!m->name || m->full_counter < 0 ||
	    (uint32_t)m->full_counter >= nmaps || m->len_counter < 0 ||
	    (uint32_t)m->len_counter >= nmaps ||
	    (m->shared && m->host >= nmaps))
		r->bad = true;
}

static void get_event(struct rd *r, struct cevent *e, uint32_t nmaps)
{
	e->kind = (enum event_kind)get32(r);
	e->fmt = get_fmt(r);
	e->text = getstr(r);
	e->nargs = get_count(r, 8);
	const struct type **args = alloc_n(r, e->nargs, sizeof(*args));
	uint32_t *offs = alloc_n(r, e->nargs, sizeof(*offs));
	for (uint32_t i = 0; i < e->nargs && !r->bad; i++) {
		args[i] = get_tref(r);
		offs[i] = get32(r);
	}
	e->args = args;
	e->offsets = offs;
	e->size = get32(r);
	e->map = (int32_t)get32(r);
	e->top = get32(r);
	e->div = get32(r);
	e->at = get_span(r);
	e->nfrom = get_count(r, 20);
	struct span *from = alloc_n(r, e->nfrom, sizeof(*from));
	for (uint32_t i = 0; i < e->nfrom && !r->bad; i++)
		from[i] = get_span(r);
	e->from = from;
	if (e->kind > EV_ERRORF || !map_ok(r, e->map, nmaps) ||
	    (e->fmt && e->fmt->nconv > e->nargs))
		r->bad = true;
	for (uint32_t i = 0; i < e->nargs && !r->bad; i++)
		if (!args[i] || offs[i] > e->size ||
		    args[i]->size > e->size - offs[i])
			r->bad = true;
}

static void get_group(struct rd *r, struct serial_group *g)
{
	g->nattach = get_count(r, 32);
	g->want_args = get8(r);
	g->attach = alloc_n(r, g->nattach, sizeof(*g->attach));
	for (uint32_t i = 0; i < g->nattach && !r->bad; i++) {
		struct attach_point *a = &g->attach[i];
		a->span = get_span(r);
		a->text = getstr(r);
		a->provider = getstr(r);
		a->nparts = get_count(r, 4);
		a->parts = alloc_n(r, a->nparts, sizeof(*a->parts));
		for (uint32_t k = 0; k < a->nparts; k++)
			if (!(a->parts[k] = getstr(r)))
				r->bad = true;
		if (!a->text || !a->provider || !a->span.file)
			r->bad = true;
	}
}

static void get_prog(struct rd *r, struct cprog *p, struct serial_prog *sp,
		     uint32_t ngroups)
{
	p->name = getstr(r);
	p->type = (enum bpf_prog_type)get32(r);
	p->expected_attach_type = (enum bpf_attach_type)get32(r);
	p->code.ninsns = get32(r);
	p->code.stack_size = get32(r);
	uint8_t b = get8(r);
	p->is_begin = b & 1;
	p->is_end = b >> 1 & 1;
	p->is_signal = b >> 2 & 1;
	p->is_bench = b >> 3 & 1;
	p->is_test = b >> 4 & 1;
	p->loop_at = getstr(r);
	sp->group = get32(r);
	sp->section = getstr(r);
	sp->offset = get32(r);
	sp->code_crc = get32(r);
	sp->context = get32(r);
	sp->npatches = get_count(r, 8);
	sp->patches = alloc_n(r, sp->npatches, sizeof(*sp->patches));
	for (uint32_t i = 0; i < sp->npatches; i++) {
		sp->patches[i].insn = get32(r);
		sp->patches[i].kind = get32(r);
		/* START is a 2-slot ld_imm64 */
		if (sp->patches[i].kind > SERIAL_PATCH_START ||
		    sp->patches[i].insn >= p->code.ninsns ||
		    (sp->patches[i].kind == SERIAL_PATCH_START &&
		     sp->patches[i].insn + 1 >= p->code.ninsns))
			r->bad = true;
	}
	if (!p->name || !sp->section || sp->group >= ngroups ||
	    !p->code.ninsns || sp->offset % 8)
		r->bad = true;
}

static void get_body(struct rd *r, struct serial_object *o)
{
	struct compiled *c = &o->c;
	get_types(r);
	r->nfiles = get_count(r, 8);
	r->files = alloc_n(r, r->nfiles, sizeof(*r->files));
	for (uint32_t i = 0; i < r->nfiles && !r->bad; i++) {
		size_t n = 0;
		r->files[i].name = getstr(r);
		r->files[i].text = getmem(r, &n);
		r->files[i].len = (uint32_t)n;
		if (!r->files[i].name || !r->files[i].text)
			r->bad = true;
	}
	o->uses_cpid = get8(r);
	c->ringbuf = (int32_t)get32(r);
	c->stop_flag = (int32_t)get32(r);
	c->lost_counter = (int32_t)get32(r);
	c->nprobe_names = get_count(r, 4);
	c->probe_names = alloc_n(r, c->nprobe_names, sizeof(char *));
	for (uint32_t i = 0; i < c->nprobe_names && !r->bad; i++)
		if (!(c->probe_names[i] = getstr(r)))
			r->bad = true;
	c->nmaps = get_count(r, 40);
	c->maps = alloc_n(r, c->nmaps, sizeof(*c->maps));
	for (uint32_t i = 0; i < c->nmaps && !r->bad; i++)
		get_map(r, &c->maps[i], c->nmaps);
	c->nevents = get_count(r, 30);
	c->events = alloc_n(r, c->nevents, sizeof(*c->events));
	for (uint32_t i = 0; i < c->nevents && !r->bad; i++)
		get_event(r, &c->events[i], c->nmaps);
	o->ngroups = get_count(r, 5);
	o->groups = alloc_n(r, o->ngroups, sizeof(*o->groups));
	for (uint32_t i = 0; i < o->ngroups && !r->bad; i++)
		get_group(r, &o->groups[i]);
	c->nprogs = get_count(r, 40);
	c->progs = alloc_n(r, c->nprogs, sizeof(*c->progs));
	o->progs = alloc_n(r, c->nprogs, sizeof(*o->progs));
	for (uint32_t i = 0; i < c->nprogs && !r->bad; i++)
		get_prog(r, &c->progs[i], &o->progs[i], o->ngroups);
	if (!map_ok(r, c->ringbuf, c->nmaps) ||
	    !map_ok(r, c->stop_flag, c->nmaps) ||
	    !map_ok(r, c->lost_counter, c->nmaps) || r->pos != r->len)
		r->bad = true;
}

int serial_read(struct arena *a, const void *buf, size_t len,
		struct serial_object *o, char *why, size_t whylen)
{
	memset(o, 0, sizeof(*o));
	struct rd r = { .a = a, .p = buf, .len = len };
	if (len < HDR_SIZE || memcmp(buf, magic, sizeof(magic))) {
		snprintf(why, whylen, "its .sonde section is not one sonde "
			 "wrote (too short or no SONDE header)");
		return -EBADMSG;
	}
	r.pos = sizeof(magic);
	uint32_t version = get32(&r), n = get32(&r), crc = get32(&r);
	if (version != SERIAL_VERSION) {
		snprintf(why, whylen, "it was written in .sonde format version "
			 "%u and this sonde reads version %u: emit it again "
			 "with this sonde", version, SERIAL_VERSION);
		return -EPROTO;
	}
	if (n != len - HDR_SIZE ||
	    serial_crc(0, r.p + HDR_SIZE, n) != crc) {
		snprintf(why, whylen, "its .sonde section is truncated or "
			 "corrupt (length or checksum mismatch)");
		return -EBADMSG;
	}
	get_body(&r, o);
	if (r.bad) {
		snprintf(why, whylen, "its .sonde section is inconsistent "
			 "(an index, count or string out of range)");
		return -EBADMSG;
	}
	return 0;
}
