/* Back end on the real kernel: IR -> regalloc -> encode -> verifier -> run. */
#include "check.h"

#include <stdint.h>

#include "bpf_harness.h"

#define RUN_OK(h, ir) CHECK(harness_run(h, ir) == 0)

/* A vreg holding ctx->len (SKB_LEN): a value the allocator cannot recompute. */
static ir_reg pkt_len(struct ir *ir)
{
	ir_reg len = ir_reg_new(ir);
	ir_load(ir, 4, len, ir_ctx(ir), 0);
	return len;
}

/* eBPF semantics: x/0 == 0, x%0 == x, shifts masked to the width. */
static uint64_t ref_alu(int op, bool is32, uint64_t a, uint64_t b)
{
	if (is32) {
		uint32_t x = a, y = b;
		switch (op) {
		case BPF_ADD: return (uint32_t)(x + y);
		case BPF_SUB: return (uint32_t)(x - y);
		case BPF_MUL: return (uint32_t)(x * y);
		case BPF_DIV: return y ? x / y : 0;
		case BPF_MOD: return y ? x % y : x;
		case BPF_OR: return x | y;
		case BPF_AND: return x & y;
		case BPF_XOR: return x ^ y;
		case BPF_LSH: return (uint32_t)(x << (y & 31));
		case BPF_RSH: return x >> (y & 31);
		case BPF_ARSH: return (uint32_t)((int32_t)x >> (y & 31));
		case BPF_NEG: return (uint32_t)-x;
		case BPF_MOV: return y;
		}
		return 0;
	}
	switch (op) {
	case BPF_ADD: return a + b;
	case BPF_SUB: return a - b;
	case BPF_MUL: return a * b;
	case BPF_DIV: return b ? a / b : 0;
	case BPF_MOD: return b ? a % b : a;
	case BPF_OR: return a | b;
	case BPF_AND: return a & b;
	case BPF_XOR: return a ^ b;
	case BPF_LSH: return a << (b & 63);
	case BPF_RSH: return a >> (b & 63);
	case BPF_ARSH: return (uint64_t)((int64_t)a >> (b & 63));
	case BPF_NEG: return -a;
	case BPF_MOV: return b;
	}
	return 0;
}

static const int alu_ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_MOD,
			       BPF_OR, BPF_AND, BPF_XOR, BPF_LSH, BPF_RSH,
			       BPF_ARSH, BPF_NEG, BPF_MOV };
#define NOPS (int)(sizeof(alu_ops) / sizeof(*alu_ops))

static const struct { uint64_t a, b; } alu_pairs[] = {
	{ 0x8123456789abcdefull, 13 },
	{ 1000, 0 },
	{ (uint64_t)-7, 3 },
};

TEST(alu_all_ops_reg_imm_32_64)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	uint64_t want[RES_SLOTS];
	int k = 0;
	for (size_t p = 0; p < 3; p++) {
		ir_reg a = ir_const(ir, (int64_t)alu_pairs[p].a);
		ir_reg b = ir_const(ir, (int64_t)alu_pairs[p].b);
		for (int o = 0; o < NOPS; o++)
			for (int form = 0; form < 4; form++) {
				int op = alu_ops[o];
				bool is32 = form & 1, imm = form & 2;
				/* The verifier rejects constant division by 0. */
				if (imm && !alu_pairs[p].b &&
				    (op == BPF_DIV || op == BPF_MOD))
					continue;
				ir_reg t = ir_copy(ir, a);
				if (op == BPF_NEG && !is32)
					ir_neg(ir, t);
				else if (imm)
					(is32 ? ir_alu32i : ir_alui)(
						ir, op, t, (int32_t)alu_pairs[p].b);
				else
					(is32 ? ir_alu32 : ir_alu)(ir, op, t, b);
				harness_put(ir, k, t);
				want[k++] = ref_alu(op, is32, alu_pairs[p].a,
						    alu_pairs[p].b);
			}
	}
	ir_exiti(ir, 7);
	RUN_OK(&h, ir);
	CHECK(h.retval == 7);
	for (int i = 0; i < k; i++)
		if (h.res[i] != want[i]) {
			printf("# result %d: got %#llx want %#llx\n", i,
			       (unsigned long long)h.res[i],
			       (unsigned long long)want[i]);
			CHECK(h.res[i] == want[i]);
		}
	harness_fini(&h);
}

static const int64_t sdiv_pairs[][2] = {
	{ 7, 2 }, { -7, 2 }, { 7, -2 }, { -7, -2 }, { INT64_MIN, -1 },
	{ 5, 0 }, { -5, 0 }, { 0, -3 }, { INT64_MIN, 1 }, { INT64_MAX, -1 },
	{ INT64_MIN, 7 },
};

static void signed_divmod(bool v4)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_set_cpu_v4(ir, v4);
	uint64_t want[RES_SLOTS];
	int k = 0;
	for (size_t p = 0; p < sizeof(sdiv_pairs) / sizeof(*sdiv_pairs); p++) {
		int64_t x = sdiv_pairs[p][0], y = sdiv_pairs[p][1];
		for (int mod = 0; mod < 2; mod++) {
			ir_reg a = ir_const(ir, x), b = ir_const(ir, y);
			(mod ? ir_smod : ir_sdiv)(ir, a, b);
			harness_put(ir, k, a);
			if (!y)
				want[k] = mod ? x : 0;
			else if (x == INT64_MIN && y == -1)
				want[k] = mod ? 0 : (uint64_t)INT64_MIN;
			else
				want[k] = mod ? x % y : x / y;
			k++;
		}
	}
	ir_exiti(ir, 0);
	RUN_OK(&h, ir);
	for (int i = 0; i < k; i++)
		if (h.res[i] != want[i]) {
			printf("# %s %lld, %lld: got %lld want %lld\n",
			       i % 2 ? "smod" : "sdiv",
			       (long long)sdiv_pairs[i / 2][0],
			       (long long)sdiv_pairs[i / 2][1],
			       (long long)h.res[i], (long long)want[i]);
			CHECK(h.res[i] == want[i]);
		}
	harness_fini(&h);
}

TEST(signed_div_mod_sequence)
{
	signed_divmod(false);
}

TEST(signed_div_mod_cpu_v4)
{
	signed_divmod(true);
}

TEST(endian_and_constants)
{
	static const int64_t consts[] = {
		0, -1, INT32_MAX, INT32_MIN, 0x80000000ll, 0xffffffffll,
		0x100000000ll, INT64_MIN, 0x123456789abcdef0ll,
	};
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	int k = 0;
	for (int bits = 16; bits <= 64; bits *= 2)
		for (int big = 0; big < 2; big++) {
			ir_reg t = ir_const(ir, 0x0123456789abcdefll);
			ir_endian(ir, t, bits, big);
			harness_put(ir, k++, t);
		}
	for (size_t i = 0; i < sizeof(consts) / sizeof(*consts); i++)
		harness_put(ir, k++, ir_const(ir, consts[i]));
	ir_exiti(ir, 0);
	RUN_OK(&h, ir);
	CHECK(h.res[0] == 0xcdef);
	CHECK(h.res[1] == 0xefcd);
	CHECK(h.res[2] == 0x89abcdef);
	CHECK(h.res[3] == 0xefcdab89);
	CHECK(h.res[4] == 0x0123456789abcdefull);
	CHECK(h.res[5] == 0xefcdab8967452301ull);
	for (size_t i = 0; i < sizeof(consts) / sizeof(*consts); i++)
		CHECK(h.res[6 + i] == (uint64_t)consts[i]);
	harness_fini(&h);
}

/* 24 values live at once: more than the 10 registers. */
TEST(spills_many_live_vregs)
{
	enum { N = 24 };
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_reg len = pkt_len(ir), v[N];
	for (int i = 0; i < N; i++) {
		v[i] = ir_copy(ir, len);
		ir_alui(ir, BPF_MUL, v[i], i + 3);
		ir_alui(ir, BPF_ADD, v[i], i * i);
	}
	ir_reg acc = ir_const(ir, 0);
	for (int i = 0; i < N; i++) {
		ir_reg t = ir_copy(ir, v[i]);
		ir_alu(ir, BPF_MUL, t, v[(i + 1) % N]);
		ir_alu(ir, BPF_ADD, acc, t);
	}
	harness_put(ir, 0, acc);
	for (int i = 0; i < N; i++)
		harness_put(ir, i + 1, v[i]);
	ir_exiti(ir, 0);
	RUN_OK(&h, ir);
	uint64_t want[N], sum = 0;
	for (int i = 0; i < N; i++)
		want[i] = (uint64_t)SKB_LEN * (i + 3) + i * i;
	for (int i = 0; i < N; i++)
		sum += want[i] * want[(i + 1) % N];
	CHECK(h.res[0] == sum);
	for (int i = 0; i < N; i++)
		CHECK(h.res[i + 1] == want[i]);
	CHECK(h.stack_size > 0); /* it did spill */
	harness_fini(&h);
}

/* 8 values live across helper calls: more than R6-R9 can hold. */
TEST(values_live_across_calls)
{
	enum { N = 8 };
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_reg len = pkt_len(ir), v[N];
	for (int i = 0; i < N; i++) {
		v[i] = ir_copy(ir, len);
		ir_alui(ir, BPF_ADD, v[i], i * 7);
	}
	ir_reg t1 = ir_reg_new(ir), rnd = ir_reg_new(ir), t2 = ir_reg_new(ir);
	ir_call(ir, t1, BPF_FUNC_ktime_get_ns, NULL, 0);
	ir_call(ir, rnd, BPF_FUNC_get_prandom_u32, NULL, 0);
	ir_reg sum = ir_const(ir, 0);
	for (int i = 0; i < N; i++)
		ir_alu(ir, BPF_ADD, sum, v[i]);
	ir_call(ir, t2, BPF_FUNC_ktime_get_ns, NULL, 0);
	ir_alu(ir, BPF_SUB, t2, t1);
	harness_put(ir, 0, t2);
	harness_put(ir, 1, rnd);
	harness_put(ir, 2, sum);
	for (int i = 0; i < N; i++)
		harness_put(ir, 3 + i, v[i]);
	ir_exit(ir, len);
	RUN_OK(&h, ir);
	CHECK(h.retval == SKB_LEN);
	CHECK(h.res[0] < 1000000000ull); /* t2 - t1: sane, not garbage */
	CHECK(h.res[1] <= UINT32_MAX);
	uint64_t sum_want = 0;
	for (int i = 0; i < N; i++) {
		CHECK(h.res[3 + i] == (uint64_t)SKB_LEN + i * 7);
		sum_want += SKB_LEN + i * 7;
	}
	CHECK(h.res[2] == sum_want);
	harness_fini(&h);
}

/* Keys and values built in stack slots, passed by pointer to helpers, in
 * a loop; the map pointer lives across the calls. */
TEST(map_update_lookup_with_stack_keys)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	int m = harness_map(&h, BPF_MAP_TYPE_HASH, 4, 8, 64);
	CHECK(m > 0);
	struct ir *ir = ir_new();
	ir_reg len = pkt_len(ir);
	ir_slot key = ir_slot_new(ir, 4, 4), val = ir_slot_new(ir, 8, 8);
	ir_reg map = ir_reg_new(ir);
	ir_ld_map(ir, map, m);
	ir_reg i = ir_const(ir, 0);
	ir_label loop = ir_label_here(ir);
	ir_store_slot(ir, 4, key, 0, i);
	ir_reg x = ir_copy(ir, i);
	ir_alu(ir, BPF_MUL, x, i);
	ir_alu(ir, BPF_ADD, x, len);
	ir_store_slot(ir, 8, val, 0, x);
	ir_reg kp = ir_reg_new(ir), vp = ir_reg_new(ir), flags = ir_const(ir, 0);
	ir_slot_addr(ir, kp, key, 0);
	ir_slot_addr(ir, vp, val, 0);
	ir_call(ir, IR_NOREG, BPF_FUNC_map_update_elem,
		(ir_reg[]){ map, kp, vp, flags }, 4);
	ir_alui(ir, BPF_ADD, i, 1);
	ir_jmpi(ir, BPF_JLT, i, 10, loop);

	ir_storei_slot(ir, 4, key, 0, 3);
	ir_reg kp2 = ir_reg_new(ir), p = ir_reg_new(ir);
	ir_slot_addr(ir, kp2, key, 0);
	ir_call(ir, p, BPF_FUNC_map_lookup_elem, (ir_reg[]){ map, kp2 }, 2);
	ir_label null = ir_label_new(ir);
	ir_jmpi(ir, BPF_JEQ, p, 0, null);
	ir_reg r = ir_reg_new(ir);
	ir_load(ir, 8, r, p, 0);
	ir_exit(ir, r);
	ir_label_bind(ir, null);
	ir_exiti(ir, 1000);
	RUN_OK(&h, ir);
	CHECK(h.retval == 9 + SKB_LEN);
	for (uint32_t k = 0; k < 12; k++) {
		uint64_t v = 0;
		int err = bpf_map_lookup_elem(h.map_fds[m], &k, &v);
		if (k < 10)
			CHECK(!err && v == (uint64_t)k * k + SKB_LEN);
		else
			CHECK(err);
	}
	harness_fini(&h);
}

/* Bounded loops: a back edge with a conditional jump, a nested loop with a
 * helper call inside, and a loop closed by an unconditional backward goto. */
TEST(loops_with_back_edges)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_reg len = pkt_len(ir);

	ir_reg i = ir_const(ir, 0), sum = ir_const(ir, 0);
	ir_label l1 = ir_label_here(ir);
	ir_reg t = ir_copy(ir, i);
	ir_alu(ir, BPF_MUL, t, i);
	ir_alu(ir, BPF_ADD, sum, t);
	ir_alui(ir, BPF_ADD, i, 1);
	ir_jmpi(ir, BPF_JLT, i, 100, l1);
	harness_put(ir, 0, sum);

	ir_reg a = ir_const(ir, 0), acc = ir_copy(ir, len);
	ir_label outer = ir_label_here(ir);
	ir_reg b = ir_const(ir, 0);
	ir_label inner = ir_label_here(ir);
	ir_reg r = ir_reg_new(ir);
	ir_call(ir, r, BPF_FUNC_get_prandom_u32, NULL, 0);
	ir_alui(ir, BPF_AND, r, 0);
	ir_alu(ir, BPF_ADD, acc, r);
	ir_reg ab = ir_copy(ir, a);
	ir_alu(ir, BPF_MUL, ab, b);
	ir_alu(ir, BPF_ADD, acc, ab);
	ir_alui(ir, BPF_ADD, b, 1);
	ir_jmpi(ir, BPF_JLT, b, 4, inner);
	ir_alui(ir, BPF_ADD, a, 1);
	ir_jmpi(ir, BPF_JLT, a, 5, outer);
	harness_put(ir, 1, acc);

	ir_reg c = ir_const(ir, 0), n = ir_const(ir, 0);
	ir_label head = ir_label_here(ir), done = ir_label_new(ir);
	ir_jmpi(ir, BPF_JGE, c, 10, done);
	ir_alui(ir, BPF_ADD, n, 3);
	ir_alui(ir, BPF_ADD, c, 1);
	ir_ja(ir, head);
	ir_label_bind(ir, done);
	harness_put(ir, 2, n);
	ir_exiti(ir, 0);
	RUN_OK(&h, ir);
	CHECK(h.res[0] == 328350);         /* sum of i*i, i < 100 */
	CHECK(h.res[1] == SKB_LEN + 60);   /* sum of a*b, a < 5, b < 4 */
	CHECK(h.res[2] == 30);
	harness_fini(&h);
}

static const int conds[] = { BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT,
			     BPF_JLE, BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE,
			     BPF_JSET };
static const int64_t cmp_pairs[][2] = {
	{ 5, 3 }, { 3, 5 }, { 5, 5 }, { -1, 1 }, { 1, -1 },
	{ 0x100000001ll, 1 }, { 0x100000000ll, -1 },
};
#define NPAIRS (int)(sizeof(cmp_pairs) / sizeof(*cmp_pairs))

static bool ref_cond(int c, bool is32, int64_t x, int64_t y)
{
	uint64_t ux = is32 ? (uint32_t)x : (uint64_t)x;
	uint64_t uy = is32 ? (uint32_t)y : (uint64_t)y;
	int64_t sx = is32 ? (int32_t)x : x, sy = is32 ? (int32_t)y : y;
	switch (c) {
	case BPF_JEQ: return ux == uy;
	case BPF_JNE: return ux != uy;
	case BPF_JGT: return ux > uy;
	case BPF_JGE: return ux >= uy;
	case BPF_JLT: return ux < uy;
	case BPF_JLE: return ux <= uy;
	case BPF_JSGT: return sx > sy;
	case BPF_JSGE: return sx >= sy;
	case BPF_JSLT: return sx < sy;
	case BPF_JSLE: return sx <= sy;
	case BPF_JSET: return ux & uy;
	}
	return false;
}

/* Every condition, 64/32-bit, reg/imm; bit p of a result is pair p. */
TEST(all_jump_conditions)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	int k = 0;
	uint64_t want[RES_SLOTS];
	for (size_t c = 0; c < sizeof(conds) / sizeof(*conds); c++)
		for (int form = 0; form < 4; form++) {
			bool is32 = form & 1, imm = form & 2;
			ir_reg acc = ir_const(ir, 0);
			want[k] = 0;
			for (int p = 0; p < NPAIRS; p++) {
				int64_t x = cmp_pairs[p][0], y = cmp_pairs[p][1];
				if (imm && (int32_t)y != y)
					continue;
				ir_reg a = ir_const(ir, x);
				ir_label skip = ir_label_new(ir);
				ir_jlist j;
				/* Jump when the condition is false. */
				int nc = ir_cond_negate(conds[c]);
				if (nc < 0) {
					/* JSET: jump over the skip-jump. */
					ir_label set = ir_label_new(ir);
					if (imm)
						(is32 ? ir_jmp32i : ir_jmpi)(
							ir, conds[c], a, y, set);
					else
						(is32 ? ir_jmp32 : ir_jmp)(
							ir, conds[c], a,
							ir_const(ir, y), set);
					j = ir_ja(ir, skip);
					ir_label_bind(ir, set);
				} else if (imm) {
					j = (is32 ? ir_jmp32i : ir_jmpi)(
						ir, nc, a, y, skip);
				} else {
					j = (is32 ? ir_jmp32 : ir_jmp)(
						ir, nc, a, ir_const(ir, y), skip);
				}
				(void)j;
				ir_alui(ir, BPF_OR, acc, 1 << p);
				ir_label_bind(ir, skip);
				if (ref_cond(conds[c], is32, x, y))
					want[k] |= 1u << p;
			}
			harness_put(ir, k++, acc);
		}
	ir_exiti(ir, 0);
	RUN_OK(&h, ir);
	for (int i = 0; i < k; i++)
		if (h.res[i] != want[i]) {
			printf("# cond %s form %d: got %#llx want %#llx\n",
			       disasm_cond_str(conds[i / 4]), i % 4,
			       (unsigned long long)h.res[i],
			       (unsigned long long)want[i]);
			CHECK(h.res[i] == want[i]);
		}
	harness_fini(&h);
}

/* && and || chains built from open jumps and patched later. */
TEST(jump_lists_and_or)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_reg len = pkt_len(ir);
	for (int t = 0; t < 4; t++) {
		/* and: len > 10 && len < lim && len != 63 */
		int lim = t & 1 ? 100 : 50;
		ir_reg res = ir_const(ir, 0);
		ir_jlist f = IR_NOJUMP;
		ir_jlist_concat(ir, &f, ir_jmpi(ir, BPF_JLE, len, 10, IR_NOLABEL));
		ir_jlist_concat(ir, &f, ir_jmpi(ir, BPF_JGE, len, lim, IR_NOLABEL));
		ir_jlist_concat(ir, &f, ir_jmpi(ir, BPF_JEQ, len, 63, IR_NOLABEL));
		ir_movi(ir, res, 1);
		ir_jlist_patch_here(ir, f);
		harness_put(ir, t, res);
	}
	for (int t = 0; t < 2; t++) {
		/* or: len == 1 || len == lim || len == 2 */
		int lim = t ? SKB_LEN : SKB_LEN + 1;
		ir_reg res = ir_const(ir, 0);
		ir_jlist tr = IR_NOJUMP;
		ir_jlist_concat(ir, &tr, ir_jmpi(ir, BPF_JEQ, len, 1, IR_NOLABEL));
		ir_jlist_concat(ir, &tr, ir_jmpi(ir, BPF_JEQ, len, lim, IR_NOLABEL));
		ir_jlist_concat(ir, &tr, ir_jmpi(ir, BPF_JEQ, len, 2, IR_NOLABEL));
		ir_label end = ir_label_new(ir);
		ir_ja(ir, end);
		ir_jlist_patch_here(ir, tr);
		ir_movi(ir, res, 1);
		ir_label_bind(ir, end);
		harness_put(ir, 4 + t, res);
	}
	ir_exiti(ir, 0);
	RUN_OK(&h, ir);
	CHECK(h.res[0] == 0 && h.res[1] == 1 && h.res[2] == 0 && h.res[3] == 1);
	CHECK(h.res[4] == 0 && h.res[5] == 1);
	harness_fini(&h);
}

/* Arguments that sit in each other's registers: the call's parallel move
 * has to break a cycle. */
TEST(call_args_parallel_move)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	int m = harness_map(&h, BPF_MAP_TYPE_ARRAY, 4, 8, 4);
	uint32_t three = SKB_LEN >> 4;
	uint64_t val = 4242;
	CHECK(bpf_map_update_elem(h.map_fds[m], &three, &val, 0) == 0);
	struct ir *ir = ir_new();
	ir_slot key = ir_slot_new(ir, 4, 4);
	ir_reg map = ir_reg_new(ir);
	ir_ld_map(ir, map, m);
	ir_reg len = pkt_len(ir);
	ir_alui(ir, BPF_RSH, len, 4);
	ir_store_slot(ir, 4, key, 0, len);
	ir_reg kp = ir_reg_new(ir), p = ir_reg_new(ir);
	ir_slot_addr(ir, kp, key, 0);
	ir_call(ir, p, BPF_FUNC_map_lookup_elem, (ir_reg[]){ map, kp }, 2);
	ir_label null = ir_label_new(ir);
	ir_jmpi(ir, BPF_JEQ, p, 0, null);
	ir_reg r = ir_reg_new(ir);
	ir_load(ir, 8, r, p, 0);
	ir_exit(ir, r);
	ir_label_bind(ir, null);
	ir_exiti(ir, 1);
	RUN_OK(&h, ir);
	CHECK(h.retval == 4242);
	harness_fini(&h);
}

TEST(atomic_add_and_map_value_pointers)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_reg p = ir_reg_new(ir), one = ir_const(ir, 5);
	ir_ld_map_value(ir, p, RES_MAP, 8 * 3);
	ir_storei(ir, 8, p, 0, 10);
	ir_atomic_add(ir, 8, p, 0, one);
	ir_atomic_add(ir, 8, p, 0, one);
	ir_atomic_add(ir, 4, p, 8, one);
	ir_exiti(ir, 0);
	RUN_OK(&h, ir);
	CHECK(h.res[3] == 20);
	CHECK(h.res[4] == 5);
	harness_fini(&h);
}

/* A forward jump over 40000 instructions does not fit in 16 bits. */
/* x + n, as n single-instruction adds. */
static void adds(struct ir *ir, ir_reg x, int n)
{
	for (int i = 0; i < n; i++)
		ir_alui(ir, BPF_ADD, x, 1);
}

/* The unconditional jumps in p: the islands and their jumps over
 * themselves. */
static uint32_t count_ja(const struct bpf_code *p)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->ninsns; i++)
		n += p->insns[i].code == (BPF_JMP | BPF_JA);
	return n;
}

/* Jumps past a 16-bit offset's reach go through islands (relax.c), taken
 * or not, forward and backward, and jumps to one target share them. */
TEST(far_jumps_go_through_islands)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	for (int taken = 0; taken < 2; taken++) {
		struct ir *ir = ir_new();
		ir_reg x = pkt_len(ir);
		ir_label end = ir_label_new(ir);
		ir_jmpi(ir, taken ? BPF_JEQ : BPF_JNE, x, SKB_LEN, end);
		adds(ir, x, 40000);
		ir_exit(ir, x);
		ir_label_bind(ir, end);
		ir_exiti(ir, 7);
		RUN_OK(&h, ir);
		CHECK(h.retval == (taken ? 7u : SKB_LEN + 40000u));
	}

	/* 20 jumps to one far label, none taken: the islands they share */
	struct ir *ir = ir_new();
	ir_reg x = pkt_len(ir);
	ir_label end = ir_label_new(ir);
	for (int i = 0; i < 20; i++) {
		ir_jmpi(ir, BPF_JEQ, x, 100000 + i, end);
		adds(ir, x, 2000);
	}
	ir_exit(ir, x);
	ir_label_bind(ir, end);
	ir_exiti(ir, 7);
	struct bpf_code p;
	CHECK(ir_compile(ir, &p) == 0);
	CHECK(count_ja(&p) <= 8);
	bpf_code_free(&p);
	ir_free(ir);

	/* a loop whose body is past the reach: its back edge too */
	ir = ir_new();
	x = pkt_len(ir);
	ir_reg i = ir_const(ir, 0);
	ir_label head = ir_label_here(ir);
	adds(ir, x, 20000);
	ir_alui(ir, BPF_ADD, i, 1);
	ir_jmpi(ir, BPF_JLT, i, 3, head);
	ir_exit(ir, x);
	RUN_OK(&h, ir);
	CHECK(h.retval == SKB_LEN + 60000u);
	harness_fini(&h);
}

TEST(stack_limit_is_an_error)
{
	struct ir *ir = ir_new();
	ir_slot a = ir_slot_new(ir, 300, 8), b = ir_slot_new(ir, 300, 8);
	ir_storei_slot(ir, 8, a, 0, 1);
	ir_storei_slot(ir, 8, b, 0, 1);
	ir_reg r = ir_reg_new(ir);
	ir_load_slot(ir, 8, r, a, 0); /* a is still live when b is written */
	ir_exit(ir, r);
	struct bpf_code p;
	CHECK(ir_compile(ir, &p) == -E2BIG);
	CHECK(ir_error(ir) && strstr(ir_error(ir), "512"));
	ir_free(ir);

	/* Exactly 512 bytes, all used, loads. */
	struct harness h;
	CHECK(harness_init(&h) == 0);
	ir = ir_new();
	a = ir_slot_new(ir, 504, 4);
	b = ir_slot_new(ir, 8, 8);
	ir_storei_slot(ir, 4, a, 496, 7);
	ir_storei_slot(ir, 8, b, 0, 1);
	ir_reg x = ir_reg_new(ir), y = ir_reg_new(ir);
	ir_load_slot(ir, 4, x, a, 496);
	ir_load_slot(ir, 8, y, b, 0);
	ir_alu(ir, BPF_ADD, x, y);
	ir_exit(ir, x);
	RUN_OK(&h, ir);
	CHECK(h.retval == 8);
	CHECK(h.stack_size == 512);
	harness_fini(&h);
}

/* Slots live one after the other share their bytes: three 300-byte
 * slots fit in 512 bytes when each is dead before the next is written. */
TEST(frame_shares_dead_slots)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_reg sum = ir_const(ir, 0), x = ir_reg_new(ir);
	for (int i = 0; i < 3; i++) {
		ir_slot s = ir_slot_new(ir, 300, 8);
		ir_storei_slot(ir, 8, s, 288, i + 1);
		ir_load_slot(ir, 8, x, s, 288);
		ir_alu(ir, BPF_ADD, sum, x);
	}
	ir_exit(ir, sum);
	RUN_OK(&h, ir);
	CHECK(h.retval == 6);
	CHECK(h.stack_size == 304);
	harness_fini(&h);
}

/* A slot written before a loop and read in it stays apart from a slot
 * used only inside the loop, although in instruction order the second
 * comes after the first's last use: the loop brings the read back. */
TEST(frame_loop_keeps_slots_apart)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_slot keep = ir_slot_new(ir, 8, 8), tmp = ir_slot_new(ir, 8, 8);
	ir_reg i = ir_const(ir, 0), acc = ir_const(ir, 0);
	ir_reg x = ir_reg_new(ir);
	ir_storei_slot(ir, 8, keep, 0, 5);
	ir_label head = ir_label_new(ir);
	ir_label_bind(ir, head);
	ir_load_slot(ir, 8, x, keep, 0);   /* last use of keep, in order */
	ir_alu(ir, BPF_ADD, acc, x);
	ir_storei_slot(ir, 8, tmp, 0, 100); /* would clobber keep if shared */
	ir_load_slot(ir, 8, x, tmp, 0);
	ir_alu(ir, BPF_ADD, acc, x);
	ir_alui(ir, BPF_ADD, i, 1);
	ir_jmpi(ir, BPF_JLT, i, 3, head);
	ir_exit(ir, acc);
	RUN_OK(&h, ir);
	CHECK(h.retval == 315);
	CHECK(h.stack_size == 16);
	harness_fini(&h);
}

/* Copies of `size` bytes in pieces of `piece` bytes, as copy_slot makes
 * them for unaligned offsets. */
static void copy_pieces(struct ir *ir, ir_slot dst, uint32_t doff,
			ir_slot src, uint32_t size, uint32_t piece)
{
	ir_reg t = ir_reg_new(ir);
	for (uint32_t o = 0; o < size; o += piece) {
		ir_load_slot(ir, (int)piece, t, src, o);
		ir_store_slot(ir, (int)piece, dst, doff + o, t);
	}
}

/* The verifier wants stack accesses aligned to their size: a 5-byte
 * string written as u32 + u8 moves to offset 12 of a record, a 3-byte
 * one written as u16 + u8 does not move to offset 17. */
TEST(slotcopy_keeps_accesses_aligned)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_slot rec = ir_slot_new(ir, 24, 8);
	ir_slot five = ir_slot_new(ir, 5, 8), three = ir_slot_new(ir, 3, 8);
	ir_storei_slot(ir, 8, rec, 0, 0);
	ir_storei_slot(ir, 8, rec, 8, 0);
	ir_storei_slot(ir, 8, rec, 16, 0);
	ir_storei_slot(ir, 4, five, 0, 0x04030201);
	ir_storei_slot(ir, 1, five, 4, 0x05);
	copy_pieces(ir, rec, 12, five, 5, 1);
	ir_storei_slot(ir, 2, three, 0, 0x0706);
	ir_storei_slot(ir, 1, three, 2, 0x08);
	copy_pieces(ir, rec, 17, three, 3, 1);
	ir_reg acc = ir_const(ir, 0), x = ir_reg_new(ir);
	for (uint32_t o = 12; o < 20; o++) {
		ir_load_slot(ir, 1, x, rec, o);
		ir_alu(ir, BPF_ADD, acc, x);
	}
	ir_exit(ir, acc);
	RUN_OK(&h, ir);
	CHECK(h.retval == 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8);
	CHECK(h.stack_size == 32); /* rec and three; five lives in rec */
	harness_fini(&h);
}

/* A whole-slot copy: 16 bytes of src, as codegen's copy_slot makes it. */
static void copy16(struct ir *ir, ir_slot dst, uint32_t doff, ir_slot src)
{
	ir_reg t = ir_reg_new(ir);
	for (uint32_t o = 0; o < 16; o += 8) {
		ir_load_slot(ir, 8, t, src, o);
		ir_store_slot(ir, 8, dst, doff + o, t);
	}
}

static ir_reg sum_slot(struct ir *ir, ir_slot s, uint32_t size)
{
	ir_reg acc = ir_const(ir, 0), x = ir_reg_new(ir);
	for (uint32_t o = 0; o < size; o += 8) {
		ir_load_slot(ir, 8, x, s, o);
		ir_alu(ir, BPF_ADD, acc, x);
	}
	return acc;
}

/* src is built, copied into the middle of dst and dies: it is built
 * there directly, and the copy is gone. */
TEST(slotcopy_forward)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_slot dst = ir_slot_new(ir, 32, 8), src = ir_slot_new(ir, 16, 8);
	ir_storei_slot(ir, 8, dst, 0, 1000);
	ir_storei_slot(ir, 8, src, 0, 20);
	ir_storei_slot(ir, 8, src, 8, 300);
	copy16(ir, dst, 8, src);
	ir_storei_slot(ir, 8, dst, 24, 4);
	ir_exit(ir, sum_slot(ir, dst, 32));
	RUN_OK(&h, ir);
	CHECK(h.retval == 1324);
	CHECK(h.stack_size == 32);
	harness_fini(&h);
}

/* The destination bytes are read while src is alive: they must keep
 * their old value until the copy. */
TEST(slotcopy_forward_kept_when_dst_read)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_slot dst = ir_slot_new(ir, 16, 8), src = ir_slot_new(ir, 16, 8);
	ir_reg old = ir_reg_new(ir);
	ir_storei_slot(ir, 8, dst, 0, 5);
	ir_storei_slot(ir, 8, dst, 8, 0);
	ir_storei_slot(ir, 8, src, 0, 20);
	ir_load_slot(ir, 8, old, dst, 0);
	ir_storei_slot(ir, 8, src, 8, 300);
	copy16(ir, dst, 0, src);
	ir_reg acc = sum_slot(ir, dst, 16);
	ir_alu(ir, BPF_ADD, acc, old);
	ir_exit(ir, acc);
	RUN_OK(&h, ir);
	CHECK(h.retval == 325);
	CHECK(h.stack_size == 32);
	harness_fini(&h);
}

/* src lives on after the copy, and neither is written again: dst's
 * readers read src. */
TEST(slotcopy_backward)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_slot src = ir_slot_new(ir, 16, 8), dst = ir_slot_new(ir, 16, 8);
	ir_storei_slot(ir, 8, src, 0, 20);
	ir_storei_slot(ir, 8, src, 8, 300);
	copy16(ir, dst, 0, src);
	ir_reg a = sum_slot(ir, dst, 16), b = sum_slot(ir, src, 16);
	ir_alu(ir, BPF_ADD, a, b);
	ir_exit(ir, a);
	RUN_OK(&h, ir);
	CHECK(h.retval == 640);
	CHECK(h.stack_size == 16);
	harness_fini(&h);
}

/* After the copy, src is written (dst must keep the old bytes), or dst
 * is (src must keep them): no sharing either way. */
TEST(slotcopy_backward_kept_when_written)
{
	for (int which = 0; which < 2; which++) {
		struct harness h;
		CHECK(harness_init(&h) == 0);
		struct ir *ir = ir_new();
		ir_slot src = ir_slot_new(ir, 16, 8), dst = ir_slot_new(ir, 16, 8);
		ir_storei_slot(ir, 8, src, 0, 20);
		ir_storei_slot(ir, 8, src, 8, 300);
		copy16(ir, dst, 0, src);
		ir_storei_slot(ir, 8, which ? dst : src, 0, 4000);
		ir_reg a = sum_slot(ir, dst, 16), b = sum_slot(ir, src, 16);
		ir_alui(ir, BPF_MUL, b, 2);
		ir_alu(ir, BPF_ADD, a, b);
		ir_exit(ir, a);
		RUN_OK(&h, ir);
		CHECK(h.retval == (which ? 4300 + 640 : 320 + 8600));
		CHECK(h.stack_size == 32);
		harness_fini(&h);
	}
}

/* In a loop, dst is read at the top of each iteration before src is
 * rebuilt and copied into it: sharing would show the new value early. */
TEST(slotcopy_loop_kept)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_slot dst = ir_slot_new(ir, 16, 8), src = ir_slot_new(ir, 16, 8);
	ir_reg i = ir_const(ir, 0), acc = ir_const(ir, 0);
	ir_reg x = ir_reg_new(ir);
	ir_storei_slot(ir, 8, dst, 0, 1);
	ir_storei_slot(ir, 8, dst, 8, 0);
	ir_label head = ir_label_new(ir);
	ir_label_bind(ir, head);
	ir_load_slot(ir, 8, x, dst, 0);
	ir_alu(ir, BPF_ADD, acc, x);
	ir_storei_slot(ir, 8, src, 8, 0);
	ir_reg v = ir_copy(ir, i);
	ir_alui(ir, BPF_ADD, v, 10);
	ir_store_slot(ir, 8, src, 0, v);
	copy16(ir, dst, 0, src);
	ir_alui(ir, BPF_ADD, i, 1);
	ir_jmpi(ir, BPF_JLT, i, 3, head);
	ir_exit(ir, acc);
	RUN_OK(&h, ir);
	CHECK(h.retval == 1 + 10 + 11);
	CHECK(h.stack_size == 32);
	harness_fini(&h);
}

/* `acc = acc + x` as codegen writes it (t = acc; t += x; acc = t), four
 * times: split into webs, acc and t share one register and the copies
 * go. */
TEST(webs_drop_copies)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_reg x = ir_reg_new(ir), acc = ir_reg_new(ir);
	ir_load(ir, 4, x, ir_ctx(ir), 0);
	ir_movi(ir, acc, 7);
	for (int k = 0; k < 4; k++) {
		ir_reg t = ir_copy(ir, acc);
		ir_alu(ir, BPF_ADD, t, x);
		ir_mov(ir, acc, t);
	}
	ir_exit(ir, acc);
	RUN_OK(&h, ir);
	CHECK(h.retval == 7 + 4 * SKB_LEN);
	CHECK(h.nmoves <= 1); /* at most R0 = acc at the exit */
	harness_fini(&h);
}

/* A variable set before a loop, updated in it and read after it stays
 * one web: the definitions in the loop reach the use at its top. */
TEST(webs_loop_keeps_one_value)
{
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	ir_reg i = ir_reg_new(ir), acc = ir_reg_new(ir), seen = ir_reg_new(ir);
	ir_movi(ir, i, 0);
	ir_movi(ir, acc, 1);
	ir_movi(ir, seen, 0);
	ir_label head = ir_label_new(ir);
	ir_label_bind(ir, head);
	ir_alu(ir, BPF_ADD, seen, acc); /* reads the previous turn's acc */
	ir_reg t = ir_copy(ir, acc);
	ir_alui(ir, BPF_MUL, t, 3);
	ir_mov(ir, acc, t);
	ir_alui(ir, BPF_ADD, i, 1);
	ir_jmpi(ir, BPF_JLT, i, 4, head);
	ir_alui(ir, BPF_MUL, seen, 1000);
	ir_alu(ir, BPF_ADD, seen, acc);
	ir_exit(ir, seen);
	RUN_OK(&h, ir);
	CHECK(h.retval == (1 + 3 + 9 + 27) * 1000 + 81);
	harness_fini(&h);
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/*
 * Random programs checked against a reference evaluation done while
 * generating them: many values live to the end (spills), helper calls in
 * between (values across calls), forward branches (diamonds) and loops,
 * copies between values (webs.c) and whole copies between stack slots,
 * some of them under a branch (slotcopy.c). The generator knows every
 * value, so it knows which way branches go.
 */
static void random_program(uint64_t seed)
{
	enum { MAXV = 40, NSLOTS = 4 };
	rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
	struct harness h;
	CHECK(harness_init(&h) == 0);
	struct ir *ir = ir_new();
	int nv = 6 + rng() % 30;
	ir_reg v[MAXV];
	uint64_t val[MAXV + 2 * NSLOTS];
	ir_reg len = pkt_len(ir);
	ir_slot slot[NSLOTS];
	uint64_t sval[NSLOTS][2];
	struct { ir_slot slot; uint64_t val[2]; } pend[2];
	int npend = 0;
	for (int a = 0; a < NSLOTS; a++) {
		slot[a] = ir_slot_new(ir, 16, 8);
		for (int w = 0; w < 2; w++) {
			sval[a][w] = (uint64_t)(a * 2 + w + 1) << 8;
			ir_storei_slot(ir, 8, slot[a], 8 * w, (int32_t)sval[a][w]);
		}
	}
	for (int i = 0; i < nv; i++) {
		v[i] = ir_copy(ir, len);
		int32_t k = (int32_t)rng();
		ir_alui(ir, BPF_XOR, v[i], k);
		val[i] = (uint64_t)SKB_LEN ^ (uint64_t)(int64_t)k;
	}
	int nops = 50 + rng() % 150, ndiamonds = 0;
	for (int n = 0; n < nops; n++) {
		int d = rng() % nv, s = rng() % nv;
		int a = rng() % NSLOTS, b = (a + 1 + rng() % (NSLOTS - 1)) %
					    NSLOTS, w = rng() % 2;
		unsigned what = rng() % 20;
		if (what < 9) {
			int op = alu_ops[rng() % NOPS];
			bool is32 = rng() % 4 == 0;
			bool shift = op == BPF_LSH || op == BPF_RSH ||
				     op == BPF_ARSH;
			if (shift || rng() % 3 == 0) {
				int32_t imm = shift ? (int32_t)(rng() % 32)
						    : (int32_t)rng();
				if ((op == BPF_DIV || op == BPF_MOD) && !imm)
					imm = 3;
				if (op == BPF_NEG && !is32)
					ir_neg(ir, v[d]);
				else
					(is32 ? ir_alu32i : ir_alui)(ir, op, v[d],
								     imm);
				val[d] = ref_alu(op, is32, val[d],
						 (uint64_t)(int64_t)imm);
			} else {
				(is32 ? ir_alu32 : ir_alu)(ir, op, v[d], v[s]);
				val[d] = ref_alu(op, is32, val[d], val[s]);
			}
		} else if (what < 11) {
			/* A call whose (zeroed) result feeds a value. */
			ir_reg r = ir_reg_new(ir);
			ir_call(ir, r, rng() % 2 ? BPF_FUNC_get_prandom_u32
						 : BPF_FUNC_ktime_get_ns,
				NULL, 0);
			ir_alui(ir, BPF_AND, r, 0);
			ir_alu(ir, BPF_ADD, v[d], r);
		} else if (what < 14 && ndiamonds < 8) {
			/* if (v[d] cond v[s]) skip { v[x] op= v[y] } */
			ndiamonds++;
			int c = conds[rng() % (sizeof(conds) / sizeof(*conds))];
			int x = rng() % nv, y = rng() % nv;
			int op = BPF_ADD + (rng() % 2) * (BPF_XOR - BPF_ADD);
			bool copy = rng() % 3 == 0;
			ir_label skip = ir_label_new(ir);
			ir_jmp(ir, c, v[d], v[s], skip);
			if (copy)
				copy16(ir, slot[b], 0, slot[a]);
			else
				ir_alu(ir, op, v[x], v[y]);
			if (ref_cond(c, false, val[d], val[s]))
				;
			else if (copy)
				memcpy(sval[b], sval[a], sizeof(sval[b]));
			else
				val[x] = ref_alu(op, false, val[x], val[y]);
			ir_label_bind(ir, skip);
		} else if (what == 16) {
			/* v[d] = v[s] + k, through a copy (webs) */
			int32_t k = (int32_t)(rng() % 1000);
			ir_reg t = ir_copy(ir, v[s]);
			ir_alui(ir, BPF_ADD, t, k);
			ir_mov(ir, v[d], t);
			val[d] = val[s] + (uint64_t)k;
		} else if (what == 17) {
			ir_store_slot(ir, 8, slot[a], 8 * w, v[s]);
			sval[a][w] = val[s];
		} else if (what == 18 && rng() % 3 == 0) {
			copy16(ir, slot[b], 0, slot[a]);
			memcpy(sval[b], sval[a], sizeof(sval[b]));
		} else if (what == 18 && rng() % 2 == 0) {
			/* built in a temporary, copied whole into b */
			ir_slot tmp = ir_slot_new(ir, 16, 8);
			ir_store_slot(ir, 8, tmp, 0, v[s]);
			ir_store_slot(ir, 8, tmp, 8, v[d]);
			copy16(ir, slot[b], 0, tmp);
			sval[b][0] = val[s];
			sval[b][1] = val[d];
		} else if (what == 18 && npend < 2) {
			/* a snapshot of a, read later (a may change meanwhile) */
			pend[npend].slot = ir_slot_new(ir, 16, 8);
			copy16(ir, pend[npend].slot, 0, slot[a]);
			memcpy(pend[npend].val, sval[a], sizeof(sval[a]));
			npend++;
		} else if (what == 18) {
			int k = rng() % npend;
			ir_load_slot(ir, 8, v[d], pend[k].slot, 8 * w);
			val[d] = pend[k].val[w];
			if (rng() % 2)
				pend[k] = pend[--npend];
		} else if (what == 19) {
			ir_load_slot(ir, 8, v[d], slot[a], 8 * w);
			val[d] = sval[a][w];
		} else {
			/* for (i = 0; i < k; i++) v[d] += v[s] + i */
			int k = 1 + rng() % 5;
			if (d == s)
				s = (s + 1) % nv;
			ir_reg i = ir_const(ir, 0);
			ir_label top = ir_label_here(ir);
			ir_alu(ir, BPF_ADD, v[d], v[s]);
			ir_alu(ir, BPF_ADD, v[d], i);
			ir_alui(ir, BPF_ADD, i, 1);
			ir_jmpi(ir, BPF_JLT, i, k, top);
			for (int j = 0; j < k; j++)
				val[d] += val[s] + j;
		}
	}
	for (int i = 0; i < nv; i++)
		harness_put(ir, i, v[i]);
	/* Every slot's bytes end in results too, after the values. */
	for (int a2 = 0; a2 < NSLOTS; a2++)
		for (int w2 = 0; w2 < 2; w2++) {
			ir_reg x = ir_reg_new(ir);
			ir_load_slot(ir, 8, x, slot[a2], 8 * w2);
			harness_put(ir, MAXV + a2 * 2 + w2, x);
			val[MAXV + a2 * 2 + w2] = sval[a2][w2];
		}
	ir_exiti(ir, 0);
	int err = harness_run(&h, ir);
	CHECK(err == 0);
	for (int i = 0; !err && i < MAXV + 2 * NSLOTS; i++)
		if ((i < nv || i >= MAXV) && h.res[i] != val[i]) {
			printf("# seed %llu: v%d = %#llx, want %#llx\n",
			       (unsigned long long)seed, i,
			       (unsigned long long)h.res[i],
			       (unsigned long long)val[i]);
			CHECK(h.res[i] == val[i]);
			break;
		}
	harness_fini(&h);
}

TEST(random_programs_match_reference)
{
	int n = getenv("SONDE_RANDOM_PROGRAMS") ?
		atoi(getenv("SONDE_RANDOM_PROGRAMS")) : 40;
	for (int seed = 1; seed <= n && !check_failed_; seed++)
		random_program(seed);
}

/* A kernel variable by BTF id (percpu_kaddr): ld_imm64 BPF_PSEUDO_BTF_ID
 * with the id, the upper half 0 (vmlinux), and no map to relocate. */
TEST(btf_var_load_is_no_map_reloc)
{
	struct ir *ir = ir_new();
	ir_reg v = ir_reg_new(ir);
	ir_ld_btf_var(ir, v, 4321);
	ir_reg r = ir_reg_new(ir);
	ir_call(ir, r, BPF_FUNC_this_cpu_ptr, &v, 1);
	ir_exiti(ir, 0);
	struct bpf_code c;
	CHECK(ir_compile(ir, &c) == 0);
	bool seen = false;
	for (uint32_t i = 0; i + 1 < c.ninsns; i++) {
		if (c.insns[i].code != (BPF_LD | BPF_IMM | BPF_DW) ||
		    c.insns[i].src_reg != BPF_PSEUDO_BTF_ID)
			continue;
		CHECK(c.insns[i].imm == 4321);
		CHECK(c.insns[i + 1].imm == 0);
		seen = true;
	}
	CHECK(seen);
	CHECK(c.nrelocs == 0);
	bpf_code_free(&c);
	ir_free(ir);
}

int main(void)
{
	RUN(alu_all_ops_reg_imm_32_64);
	RUN(signed_div_mod_sequence);
	RUN(signed_div_mod_cpu_v4);
	RUN(endian_and_constants);
	RUN(spills_many_live_vregs);
	RUN(values_live_across_calls);
	RUN(map_update_lookup_with_stack_keys);
	RUN(loops_with_back_edges);
	RUN(all_jump_conditions);
	RUN(jump_lists_and_or);
	RUN(call_args_parallel_move);
	RUN(atomic_add_and_map_value_pointers);
	RUN(far_jumps_go_through_islands);
	RUN(btf_var_load_is_no_map_reloc);
	RUN(stack_limit_is_an_error);
	RUN(frame_shares_dead_slots);
	RUN(frame_loop_keeps_slots_apart);
	RUN(slotcopy_forward);
	RUN(slotcopy_forward_kept_when_dst_read);
	RUN(slotcopy_backward);
	RUN(slotcopy_backward_kept_when_written);
	RUN(slotcopy_loop_kept);
	RUN(slotcopy_keeps_accesses_aligned);
	RUN(webs_drop_copies);
	RUN(webs_loop_keeps_one_value);
	RUN(random_programs_match_reference);
	return check_done();
}
