/* Keys stored with stack ids (model/stackids): the layout codegen stores
 * and the runtime reads back, and the rebuilding of whole keys. */
#include "check.h"

#include <stdint.h>
#include <string.h>

#include "model/maplayout.h"
#include "model/stackids.h"
#include "model/types.h"
#include "util/arena.h"

static struct arena arena_, *A = &arena_;

/* (kstack, ustack(build_id, 3), string[16], kstack(2)) */
static const struct type *mixed_key(void)
{
	const struct type *f[] = {
		type_stack(A, false, STACK_BPFTRACE, 127),
		type_stack(A, true, STACK_BUILD_ID, 3),
		type_string(A, 16),
		type_stack(A, false, STACK_PERF, 2),
	};
	return type_tuple(A, f, 4);
}

TEST(parts_and_sizes)
{
	const struct type *k = mixed_key();
	struct stackids_part p[3];
	CHECK(stackids_parts(k, NULL, 0) == 3);
	CHECK(stackids_parts(k, p, 3) == 3);
	/* whole: 1024 + 112 + 16 + 24 bytes */
	CHECK(k->size == 1176);
	CHECK(p[0].off == 0 && p[0].id_off == 0);
	CHECK(p[1].off == 1024 && p[1].id_off == 8);
	CHECK(p[2].off == 1152 && p[2].id_off == 32);
	CHECK(p[2].stack->stack_limit == 2);
	CHECK(stackids_key_size(k, &type_u64) == 40);
	CHECK(stackids_stored_off(k, 1136) == 16); /* the string */
	CHECK(stackids_needed(k, &type_u64));
	/* a hist's bucket follows the stored key as it does the whole one */
	const struct type *h = type_new(A, TY_HIST, 8);
	CHECK(stackids_key_size(k, h) == 48);
	CHECK(maplayout_key_size(k, h) == 1184);
}

TEST(small_or_stackless_keys_stay_whole)
{
	const struct type *s3 = type_stack(A, false, STACK_BPFTRACE, 3);
	CHECK(!stackids_needed(s3, &type_u64)); /* 32 bytes */
	const struct type *big = type_string(A, 600);
	CHECK(!stackids_needed(big, &type_u64));
	CHECK(stackids_parts(big, NULL, 0) == 0);
	CHECK(!stackids_needed(NULL, &type_u64));
	/* 8 + 63 frames: 512 bytes, the most a 5.10 hash key takes */
	CHECK(!stackids_needed(type_stack(A, false, STACK_BPFTRACE, 63),
			       &type_u64));
	CHECK(stackids_needed(type_stack(A, false, STACK_BPFTRACE, 64),
			      &type_u64));
}

/* A table of two stacks, ids 3 and 5; 5 is a 2-frame kstack. */
static bool fake_fetch(void *ctx, uint32_t i, const struct stackids_part *p,
		       uint64_t id, uint8_t *dst)
{
	int *calls = ctx;
	(*calls)++;
	if (id != 3 && id != 5)
		return false;
	memset(dst, 0, p->stack->size);
	uint64_t head[3] = { 2, 0xaa00 + id, 0xbb00 + i };
	memcpy(dst, head, 24);
	return true;
}

TEST(expand_rebuilds_whole_keys)
{
	const struct type *f[] = {
		type_string(A, 16),
		type_stack(A, false, STACK_BPFTRACE, 127),
		&type_u64,
	};
	const struct type *k = type_tuple(A, f, 3);
	CHECK(stackids_key_size(k, &type_u64) == 32);
	uint8_t stored[32], whole[1048];
	memset(stored, 0, sizeof(stored));
	memcpy(stored, "comm", 4);
	uint64_t id = 5, x = 77;
	memcpy(stored + 16, &id, 8);
	memcpy(stored + 24, &x, 8);
	int calls = 0;
	CHECK(k->size == 1048);
	CHECK(stackids_expand(k, &type_u64, stored, whole, fake_fetch,
			      &calls));
	CHECK(calls == 1);
	CHECK(!memcmp(whole, "comm", 5));
	uint64_t w[3];
	memcpy(w, whole + 16, 24);
	CHECK(w[0] == 2 && w[1] == 0xaa05 && w[2] == 0xbb00);
	memcpy(&x, whole + 1040, 8);
	CHECK(x == 77);
	/* an id the table does not hold (an even one: lost) */
	id = 6;
	memcpy(stored + 16, &id, 8);
	CHECK(!stackids_expand(k, &type_u64, stored, whole, fake_fetch,
			       &calls));
}

int main(void)
{
	arena_init(A);
	RUN(parts_and_sizes);
	RUN(small_or_stackless_keys_stay_whole);
	RUN(expand_rebuilds_whole_keys);
	arena_release(A);
	return check_done();
}
