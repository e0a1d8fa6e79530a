/*
 * The pprof encoder (runtime/pprof_enc.c): what it writes is gunzipped
 * and unpacked with libprotobuf-c's own reader, and every table checked
 * against profile.proto's rules (string 0 is "", ids are nonzero and
 * unique, samples have a value per sample type). Also the interning it
 * stands on (util/intern.c) and the kernel build-id note parser
 * (kernel/kimage.c).
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kernel/kimage.h"
#include "profile.pb-c.h"
#include "runtime/pprof_enc.h"
#include "util/intern.h"
#include "util/strbuf.h"

/* gunzip + unpack; NULL when either fails */
static Perftools__Profiles__Profile *decode(const struct strbuf *gz)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return NULL;
	size_t cap = 1 << 20;
	uint8_t *buf = malloc(cap);
	z.next_in = (Bytef *)gz->buf;
	z.avail_in = (uInt)gz->len;
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	int rc = inflate(&z, Z_FINISH);
	size_t len = z.total_out;
	inflateEnd(&z);
	Perftools__Profiles__Profile *p = NULL;
	if (rc == Z_STREAM_END)
		p = perftools__profiles__profile__unpack(NULL, len, buf);
	free(buf);
	return p;
}

static const char *str(const Perftools__Profiles__Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] :
							 "(out of range)";
}

TEST(pprof_enc_round_trip)
{
	struct pprof_enc *e = pprof_enc_new();
	pprof_enc_sample_type(e, "samples", "count");
	pprof_enc_sample_type(e, "cpu", "nanoseconds");
	pprof_enc_period(e, "cpu", "nanoseconds", 10000000);
	pprof_enc_time(e, 1700000000000000000, 2500000000);
	pprof_enc_comment(e, "@: count() of the script");
	struct pprof_mapping lib = { 0x7f0000, 0x7f8000, 0x1000, "/lib/libc.so.6",
				     "abcd", true, false, false, false };
	struct pprof_mapping prog = { 0x400000, 0x401000, 0, "/bin/app",
				      "0123", true, true, true, true };
	uint64_t m1 = pprof_enc_mapping(e, &lib);
	uint64_t m2 = pprof_enc_mapping(e, &prog);
	CHECK(m1 == 1 && m2 == 2);
	CHECK(pprof_enc_mapping(e, &lib) == m1); /* interned */
	pprof_enc_main_mapping(e, m2);
	uint64_t f_main = pprof_enc_function(e, "main", "main", "app.c", 10);
	uint64_t f_hot = pprof_enc_function(e, "ns::hot(int)", "_ZN2ns3hotEi",
					    "app.c", 3);
	CHECK(f_main == 1 && f_hot == 2);
	CHECK(pprof_enc_function(e, "main", "main", "app.c", 10) == f_main);
	/* hot inlined into main at one address */
	struct pprof_line inl[2] = { { f_hot, 4 }, { f_main, 12 } };
	uint64_t l1 = pprof_enc_location(e, m2, 0x400100, inl, 2);
	struct pprof_line one = { f_main, 13 };
	uint64_t l2 = pprof_enc_location(e, m2, 0x400200, &one, 1);
	uint64_t l3 = pprof_enc_location(e, m1, 0x7f1000, NULL, 0);
	CHECK(l1 == 1 && l2 == 2 && l3 == 3);
	CHECK(pprof_enc_location(e, m2, 0x400100, inl, 2) == l1);
	/* the same address with another line is another location */
	CHECK(pprof_enc_location(e, m2, 0x400100, &one, 1) == 4);
	uint64_t stack[3] = { l1, l2, l3 };
	int64_t v[2] = { 7, 70000000 };
	struct pprof_label labels[2] = {
		{ "comm", "app", 0, NULL, false },
		{ "pid", NULL, 4711, NULL, true },
	};
	pprof_enc_sample(e, stack, 3, v, labels, 2);
	int64_t v2[2] = { 1, 10000000 };
	pprof_enc_sample(e, stack + 1, 2, v2, NULL, 0);
	CHECK(pprof_enc_nsamples(e) == 2);
	struct strbuf gz = STRBUF_INIT;
	CHECK(pprof_enc_finish(e, &gz) == 0);
	pprof_enc_free(e);
	CHECK(gz.len > 18 && (uint8_t)gz.buf[0] == 0x1f &&
	      (uint8_t)gz.buf[1] == 0x8b); /* gzip's magic */
	Perftools__Profiles__Profile *p = decode(&gz);
	sb_free(&gz);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(p->n_string_table > 0 && !strcmp(p->string_table[0], ""));
	CHECK(p->n_sample_type == 2);
	CHECK_STR(str(p, p->sample_type[0]->type), "samples");
	CHECK_STR(str(p, p->sample_type[1]->unit), "nanoseconds");
	CHECK(p->period_type && p->period == 10000000);
	CHECK_STR(str(p, p->period_type->type), "cpu");
	CHECK(p->time_nanos == 1700000000000000000 &&
	      p->duration_nanos == 2500000000);
	CHECK(p->n_comment == 1);
	CHECK_STR(str(p, p->comment[0]), "@: count() of the script");
	/* the main binary first; ids kept */
	CHECK(p->n_mapping == 2 && p->mapping[0]->id == 2 &&
	      p->mapping[1]->id == 1);
	CHECK_STR(str(p, p->mapping[0]->filename), "/bin/app");
	CHECK_STR(str(p, p->mapping[0]->build_id), "0123");
	CHECK(p->mapping[0]->has_inline_frames && !p->mapping[1]->has_inline_frames);
	CHECK(p->mapping[1]->memory_start == 0x7f0000 &&
	      p->mapping[1]->memory_limit == 0x7f8000 &&
	      p->mapping[1]->file_offset == 0x1000);
	CHECK(p->n_function == 2);
	CHECK_STR(str(p, p->function[1]->name), "ns::hot(int)");
	CHECK_STR(str(p, p->function[1]->system_name), "_ZN2ns3hotEi");
	CHECK(p->function[1]->start_line == 3);
	CHECK(p->n_location == 4);
	CHECK(p->location[0]->id == 1 && p->location[0]->mapping_id == 2 &&
	      p->location[0]->address == 0x400100);
	CHECK(p->location[0]->n_line == 2 &&
	      p->location[0]->line[0]->function_id == f_hot &&
	      p->location[0]->line[0]->line == 4 &&
	      p->location[0]->line[1]->function_id == f_main);
	CHECK(p->location[2]->n_line == 0);
	CHECK(p->n_sample == 2);
	CHECK(p->sample[0]->n_location_id == 3 &&
	      p->sample[0]->location_id[0] == l1 &&
	      p->sample[0]->location_id[2] == l3);
	CHECK(p->sample[0]->n_value == 2 && p->sample[0]->value[0] == 7 &&
	      p->sample[0]->value[1] == 70000000);
	CHECK(p->sample[0]->n_label == 2);
	CHECK_STR(str(p, p->sample[0]->label[0]->key), "comm");
	CHECK_STR(str(p, p->sample[0]->label[0]->str), "app");
	CHECK(p->sample[0]->label[1]->num == 4711 &&
	      p->sample[0]->label[1]->str == 0);
	CHECK(p->sample[1]->n_label == 0 && p->sample[1]->value[0] == 1);
	perftools__profiles__profile__free_unpacked(p, NULL);
}

TEST(pprof_enc_empty)
{
	struct pprof_enc *e = pprof_enc_new();
	pprof_enc_sample_type(e, "samples", "count");
	struct strbuf gz = STRBUF_INIT;
	CHECK(pprof_enc_finish(e, &gz) == 0);
	pprof_enc_free(e);
	Perftools__Profiles__Profile *p = decode(&gz);
	sb_free(&gz);
	CHECK(p && p->n_sample == 0 && p->n_mapping == 0 &&
	      p->n_sample_type == 1 && !p->period_type);
	if (p)
		perftools__profiles__profile__free_unpacked(p, NULL);
}

TEST(intern_ids)
{
	struct intern t = { 0 };
	bool fresh;
	CHECK(intern(&t, "a", 1, 10, &fresh) == 10 && fresh);
	CHECK(intern(&t, "b", 1, 11, &fresh) == 11 && fresh);
	CHECK(intern(&t, "a", 1, 12, &fresh) == 10 && !fresh);
	CHECK(intern(&t, "", 0, 13, &fresh) == 13 && fresh);
	/* many keys: the table grows and keeps every id */
	char k[16];
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(k, sizeof(k), "k%d", i);
		intern(&t, k, (size_t)n, 100 + (uint64_t)i, &fresh);
	}
	int n = snprintf(k, sizeof(k), "k%d", 4321);
	CHECK(intern(&t, k, (size_t)n, 0, &fresh) == 4421 && !fresh);
	CHECK_STR(intern_key(&t, 1), "b");
	intern_free(&t);
}

TEST(kimage_build_id_note)
{
	/* a note of another kind, then NT_GNU_BUILD_ID ("GNU", 4 bytes) */
	uint8_t notes[] = {
		4, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 'X', 'e', 'n', 0,
		1, 2, 3, 4,
		4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
		0xde, 0xad, 0xbe, 0xef,
	};
	char hex[41];
	CHECK(kimage_note_build_id(notes, sizeof(notes), hex) == 0);
	CHECK_STR(hex, "deadbeef");
	CHECK(kimage_note_build_id(notes, 20, hex) != 0 && hex[0] == 0);
	/* a length past the end is no note */
	uint8_t bad[] = { 4, 0, 0, 0, 0xff, 0, 0, 0, 3, 0, 0, 0,
			  'G', 'N', 'U', 0 };
	CHECK(kimage_note_build_id(bad, sizeof(bad), hex) != 0);
}

int main(void)
{
	RUN(pprof_enc_round_trip);
	RUN(pprof_enc_empty);
	RUN(intern_ids);
	RUN(kimage_build_id_note);
	return check_done();
}
