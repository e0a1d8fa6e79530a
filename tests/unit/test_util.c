#include "check.h"

#include <stdlib.h>

#include "util/arena.h"
#include "util/strbuf.h"
#include "util/vec.h"

TEST(arena_allocates_zeroed_and_aligned)
{
	struct arena a;
	arena_init(&a);
	for (int i = 0; i < 10000; i++) {
		unsigned char *p = arena_alloc(&a, (size_t)(i % 97) + 1);
		CHECK(((size_t)p & 15) == 0);
		CHECK(p[0] == 0);
		p[0] = 0xff;
	}
	char *big = arena_alloc(&a, 1 << 20); /* larger than a block */
	CHECK(big[(1 << 20) - 1] == 0);
	CHECK_STR(arena_printf(&a, "%s-%d", "x", 42), "x-42");
	CHECK_STR(arena_strndup(&a, "hello", 3), "hel");
	arena_release(&a);
}

TEST(strbuf_grows)
{
	struct strbuf sb = STRBUF_INIT;
	CHECK_STR(sb_str(&sb), "");
	for (int i = 0; i < 1000; i++)
		sb_printf(&sb, "%d,", i % 10);
	CHECK(sb.len == 2000);
	sb_reset(&sb);
	sb_append(&sb, "ab");
	sb_putc(&sb, 'c');
	CHECK_STR(sb_str(&sb), "abc");
	sb_free(&sb);
}

TEST(vec_pushes)
{
	VEC(int) v = { 0 };
	for (int i = 0; i < 100000; i++)
		vec_push(&v, i);
	CHECK(v.len == 100000);
	CHECK(v.data[99999] == 99999);
	vec_free(&v);
	CHECK(v.data == NULL);
}

int main(void)
{
	RUN(arena_allocates_zeroed_and_aligned);
	RUN(strbuf_grows);
	RUN(vec_pushes);
	return check_done();
}
