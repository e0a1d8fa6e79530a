/* The .sonde section (model/serial.h): a round trip keeps every field
 * (written again, it is the same bytes), a self-referencing struct
 * survives, and damaged input is refused, never half read. */
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fmt.h"
#include "model/serial.h"
#include "model/types.h"
#include "util/arena.h"
#include "util/strbuf.h"

static struct arena A;

/* A program with a map keyed by a struct that points to itself, a printf
 * event, a helper-error event located in the source, and one probe. */
static void sample(struct serial_object *o)
{
	static struct src_file src = { "t.bt", "tracepoint:a:b { }", 18 };
	memset(o, 0, sizeof(*o));
	struct type *node = type_new(&A, TY_RECORD, 16);
	node->name = "struct node";
	node->nfields = 2;
	node->fields = arena_alloc(&A, 2 * sizeof(*node->fields));
	node->fields[0] = (struct type_field){ .name = "next",
		.type = type_ptr(&A, node, false), .offset = 0 };
	node->fields[1] = (struct type_field){ .name = "v", .type = &type_s32,
		.offset = 8, .bit_off = 3, .bit_size = 5 };
	node->btf_id = 42;
	struct type *hist = type_new(&A, TY_LHIST, 8);
	hist->lmin = -5, hist->lmax = 100, hist->lstep = 7;
	struct compiled *c = &o->c;
	c->nmaps = 2;
	c->maps = arena_alloc(&A, 2 * sizeof(*c->maps));
	c->maps[0] = (struct cmap){ .name = "@x", .type = 1, .key_size = 16,
		.value_size = 8, .max_entries = 4096, .is_user = true,
		.percpu = true, .key = node, .value = hist,
		.full_counter = 1, .full_off = 8 };
	c->maps[1] = (struct cmap){ .name = ".full", .type = 2, .key_size = 4,
		.value_size = 16, .max_entries = 1, .shared = true, .host = 0,
		.slot_key = 0x1122334455667788ull };
	struct fmt *f = arena_alloc(&A, sizeof(*f));
	f->nsegs = 2;
	f->nconv = 1;
	f->segs = arena_alloc(&A, 2 * sizeof(*f->segs));
	f->segs[0] = (struct fmt_seg){ .text = "a\0b", .len = 3 };
	f->segs[1] = (struct fmt_seg){ .is_conv = true, .text = "%-#5lx",
		.len = 6, .conv = FMT_INT, .name = "x", .length = "l",
		.left = true, .alt = true, .width = 5 };
	c->nevents = 2;
	c->events = arena_alloc(&A, 2 * sizeof(*c->events));
	const struct type **args = arena_alloc(&A, sizeof(*args));
	uint32_t *offs = arena_alloc(&A, sizeof(*offs));
	/* an enum's names travel with its type */
	static const struct type_enumerator vals[] = { { "ONE", 1 },
						       { "BIG", ~0ull } };
	static const struct type_enum foo = { "Foo", 2, vals };
	args[0] = type_int_enum(&A, &type_u64, &foo);
	offs[0] = 8;
	c->events[0] = (struct cevent){ .kind = EV_PRINTF, .fmt = f,
		.args = args, .offsets = offs, .nargs = 1, .size = 16,
		.map = -1 };
	c->events[1] = (struct cevent){ .kind = EV_HELPER_ERROR,
		.text = "map_update_elem", .map = 0,
		.at = { &src, 0, 12, 1, 1 } };
	c->ringbuf = 1;
	c->stop_flag = -1;
	c->lost_counter = 0;
	static const char *names[] = { "tracepoint:a:b" };
	c->probe_names = names;
	c->nprobe_names = 1;
	o->ngroups = 1;
	o->groups = arena_alloc(&A, sizeof(*o->groups));
	struct attach_point *ap = arena_alloc(&A, sizeof(*ap));
	static const char *parts[] = { "a", "b" };
	*ap = (struct attach_point){ { &src, 0, 14, 1, 1 }, "tracepoint:a:b",
				     "tracepoint", parts, 2, NULL };
	o->groups[0] = (struct serial_group){ ap, 1, true };
	c->nprogs = 1;
	c->progs = arena_alloc(&A, sizeof(*c->progs));
	c->progs[0] = (struct cprog){ .name = "tracepoint:a:b",
		.code = { .ninsns = 10, .stack_size = 64 }, .type = 5,
		.loop_at = "t.bt:1:3" };
	o->progs = arena_alloc(&A, sizeof(*o->progs));
	static struct serial_patch pt[] = { { 3, SERIAL_PATCH_CPID },
					    { 5, SERIAL_PATCH_START } };
	o->progs[0] = (struct serial_prog){ 0, "tracepoint/a/b", 16, 0xabcd,
					    0x1234, pt, 2 };
	o->uses_cpid = true;
}

TEST(round_trip_keeps_every_field)
{
	struct serial_object o, r;
	sample(&o);
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	serial_write(&o, &a);
	char why[200];
	CHECK(serial_read(&A, a.buf, a.len, &r, why, sizeof(why)) == 0);
	serial_write(&r, &b);
	CHECK(a.len == b.len && !memcmp(a.buf, b.buf, a.len));
	const struct type *k = r.c.maps[0].key;
	CHECK_STR(k->name, "struct node");
	CHECK(k->fields[0].type->elem == k); /* the cycle is kept */
	CHECK(k->fields[1].bit_size == 5 && k->btf_id == 42);
	CHECK(r.c.maps[0].value->lmin == -5 && r.c.maps[0].value->lstep == 7);
	CHECK(r.c.maps[1].slot_key == 0x1122334455667788ull);
	CHECK(r.c.events[0].fmt->segs[0].len == 3 &&
	      !memcmp(r.c.events[0].fmt->segs[0].text, "a\0b", 3));
	const struct fmt_seg *cs = &r.c.events[0].fmt->segs[1];
	CHECK_STR(cs->length, "l");
	const struct type_enum *en = r.c.events[0].args[0]->enm;
	CHECK(en && en->n == 2 && en->vals[1].value == ~0ull);
	CHECK_STR(en->name, "Foo");
	CHECK_STR(type_enum_name(en, 1), "ONE");
	CHECK_STR(cs->name, "x");
	CHECK(cs->left && cs->alt && !cs->plus && !cs->zero && cs->width == 5);
	CHECK(r.c.events[1].at.file && r.c.events[1].at.len == 12);
	CHECK_STR(r.c.events[1].at.file->text, "tracepoint:a:b { }");
	CHECK_STR(r.groups[0].attach[0].parts[1], "b");
	CHECK(r.progs[0].patches[1].kind == SERIAL_PATCH_START &&
	      r.progs[0].offset == 16 && r.c.progs[0].code.stack_size == 64);
	CHECK(r.uses_cpid && r.c.ringbuf == 1 && r.c.stop_flag == -1);
	sb_free(&a);
	sb_free(&b);
}

TEST(damage_is_refused)
{
	struct serial_object o, r;
	sample(&o);
	struct strbuf a = STRBUF_INIT;
	serial_write(&o, &a);
	char why[200];
	/* every truncation */
	int bad = 0;
	for (size_t n = 0; n < a.len; n++)
		bad += serial_read(&A, a.buf, n, &r, why, sizeof(why)) ==
		       -EBADMSG;
	CHECK(bad == (int)a.len);
	/* every single flipped byte after the magic */
	int refused = 0;
	for (size_t i = 8; i < a.len; i++) {
		a.buf[i] ^= 0x40;
		refused += serial_read(&A, a.buf, a.len, &r, why,
				       sizeof(why)) < 0;
		a.buf[i] ^= 0x40;
	}
	CHECK(refused == (int)(a.len - 8));
	a.buf[8] = SERIAL_VERSION + 1; /* another version */
	CHECK(serial_read(&A, a.buf, a.len, &r, why, sizeof(why)) ==
	      -EPROTO);
	char want[32];
	snprintf(want, sizeof(want), "version %d", SERIAL_VERSION);
	CHECK(strstr(why, want) != NULL);
	sb_free(&a);
}

TEST(type_hash_sees_layout_not_btf_ids)
{
	struct type *x = type_new(&A, TY_RECORD, 8), *y;
	x->nfields = 1;
	x->fields = arena_alloc(&A, sizeof(*x->fields));
	x->fields[0] = (struct type_field){ .name = "f", .type = &type_u32,
					    .offset = 0 };
	y = type_new(&A, TY_RECORD, 8);
	*y = *x;
	y->btf_id = 7;
	CHECK(serial_type_hash(x, 0) == serial_type_hash(y, 0));
	struct type_field *moved = arena_alloc(&A, sizeof(*moved));
	*moved = x->fields[0];
	moved->offset = 4;
	y->fields = moved;
	CHECK(serial_type_hash(x, 0) != serial_type_hash(y, 0));
}

/* A DWARF-unwound ustack (model/unwind.h) stays one through the section,
 * and is another layout than the frame-pointer ustack; the flag is
 * refused on a type that is no ustack. */
TEST(stack_dwarf_round_trip)
{
	struct serial_object o, r;
	sample(&o);
	struct type *fp = (struct type *)type_stack(&A, true, STACK_PERF, 9);
	struct type *dw = type_new(&A, TY_USTACK, fp->size);
	*dw = *fp;
	dw->stack_dwarf = true;
	o.c.maps[0].key = dw;
	o.c.maps[0].value = fp;
	struct strbuf a = STRBUF_INIT;
	serial_write(&o, &a);
	char why[200];
	CHECK(serial_read(&A, a.buf, a.len, &r, why, sizeof(why)) == 0);
	const struct type *k = r.c.maps[0].key, *v = r.c.maps[0].value;
	CHECK(k->kind == TY_USTACK && k->stack_dwarf &&
	      k->stack_mode == STACK_PERF && k->stack_limit == 9);
	CHECK(v->kind == TY_USTACK && !v->stack_dwarf &&
	      v->stack_mode == STACK_PERF);
	CHECK(type_equal(k, dw) && !type_equal(k, v));
	CHECK(serial_type_hash(dw, 0) != serial_type_hash(fp, 0));
	sb_free(&a);
	/* the flag on a kstack: refused, not read as a mode */
	struct type *ks = (struct type *)type_stack(&A, false, STACK_RAW, 9);
	ks->stack_dwarf = true;
	o.c.maps[0].key = ks;
	struct strbuf b = STRBUF_INIT;
	serial_write(&o, &b);
	CHECK(serial_read(&A, b.buf, b.len, &r, why, sizeof(why)) ==
	      -EBADMSG);
	sb_free(&b);
}

int main(void)
{
	arena_init(&A);
	RUN(round_trip_keeps_every_field);
	RUN(damage_is_refused);
	RUN(type_hash_sees_layout_not_btf_ids);
	RUN(stack_dwarf_round_trip);
	arena_release(&A);
	return check_done();
}
