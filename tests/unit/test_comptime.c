/* comptime's values (lang/comptime.c), as bpftrace 0.26.1 folds literals
 * (its tests/fold_literals.cpp), and field_exist's walk of a record: a
 * value it cannot know is unknown, never a wrong one. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "kernel/btf.h"
#include "lang/comptime.h"
#include "lang/ctypes.h"
#include "lang/parser.h"
#include "model/types.h"
#include "util/arena.h"
#include "util/diag.h"

static struct arena A;

/* text's value: 1 known (*v), 0 not known, -1 not an expression. */
static int eval(const char *text, struct ct_value *v)
{
	static struct src_file f;
	f.name = "unit";
	f.text = text;
	f.len = (uint32_t)strlen(text);
	struct diag d;
	diag_init(&d, NULL);
	d.max_errors = 0;
	struct ast_expr *e = parse_expression(&A, &d, &f);
	if (!e || d.nerrors)
		return -1;
	return comptime_eval(&A, e, NULL, NULL, v);
}

static const char *spell(const char *text)
{
	struct ct_value v;
	int r = eval(text, &v);
	return r < 0 ? "(syntax)" : r ? comptime_spell(&A, &v) : "(unknown)";
}

TEST(integers)
{
	CHECK_STR(spell("1 + 2 * 3"), "7");
	CHECK_STR(spell("-5 / 2"), "-2");
	CHECK_STR(spell("-5 % 2"), "-1");
	CHECK_STR(spell("~0"), "18446744073709551615");
	CHECK_STR(spell("~-1"), "0");
	CHECK_STR(spell("1 << 63"), "9223372036854775808");
	CHECK_STR(spell("0 - 9223372036854775808"), "-9223372036854775808");
	/* out of int64's and uint64's range, or undefined: unknown */
	CHECK_STR(spell("18446744073709551615 + 1"), "(unknown)");
	CHECK_STR(spell("0 - 9223372036854775808 - 1"), "(unknown)");
	CHECK_STR(spell("1 / 0"), "(unknown)");
	CHECK_STR(spell("1 % 0"), "(unknown)");
	CHECK_STR(spell("1 << 64"), "(unknown)");
	CHECK_STR(spell("18446744073709551615 > 1"), "true");
	CHECK_STR(spell("-1 < 18446744073709551615"), "true");
}

TEST(truth_and_bools)
{
	CHECK_STR(spell("!0"), "true");
	CHECK_STR(spell("!-1"), "false");
	CHECK_STR(spell("true && false"), "false");
	CHECK_STR(spell("false || 2"), "true");
	CHECK_STR(spell("!\"\""), "true");
	CHECK_STR(spell("\"a\" && true"), "true");
	CHECK_STR(spell("1 == 1 ? 5 : 6"), "5");
}

TEST(strings)
{
	CHECK_STR(spell("\"foo\" == \"foo\""), "true");
	CHECK_STR(spell("\"foo\" != \"bar\""), "true");
	CHECK_STR(spell("\"ab\" < \"abc\""), "true");
	CHECK_STR(spell("\"b\" > \"abc\""), "true");
	CHECK_STR(spell("\"ab\" + \"cd\""), "\"abcd\"");
	CHECK_STR(spell("\"abc\" + 1"), "\"bc\"");
	CHECK_STR(spell("\"abc\" + 9"), "\"\"");
	CHECK_STR(spell("\"abc\" - 1"), "(unknown)");
	CHECK_STR(spell("\"abc\" * \"d\""), "(unknown)");
}

TEST(what_is_not_literal)
{
	CHECK_STR(spell("(1, 7).1"), "7");
	CHECK_STR(spell("(1, 7).2"), "(unknown)");
	CHECK_STR(spell("$x + 1"), "(unknown)");
	CHECK_STR(spell("@x + 1"), "(unknown)");
	CHECK_STR(spell("pid"), "(unknown)");
	/* a call is known only to a hook (none here) */
	CHECK_STR(spell("kfunc_exist(\"vfs_read\")"), "(unknown)");
	CHECK_STR(spell("comptime (2 > 1)"), "true");
	CHECK_STR(spell("comptime comptime 3"), "3");
}

TEST(field_paths)
{
	struct diag d;
	diag_init(&d, NULL);
	struct ast_program empty;
	memset(&empty, 0, sizeof(empty));
	struct ctypes *ct = ctypes_build(&A, &d, &empty);
	/* struct node { int a; struct node *next; } */
	struct type *node = type_new(&A, TY_RECORD, 16);
	node->name = "struct sonde_unit_node";
	node->nfields = 2;
	node->fields = arena_alloc(&A, 2 * sizeof(*node->fields));
	node->fields[0] = (struct type_field){ .name = "a", .type = &type_s32 };
	node->fields[1] = (struct type_field){
		.name = "next", .type = type_ptr(&A, node, false), .offset = 8 };
	const char *which = NULL;
	const char *p1[] = { "next", "next", "a" };
	CHECK(comptime_field_exist(&A, ct, node, NULL, p1, 3, &which) == 1);
	const char *p2[] = { "b" };
	CHECK(comptime_field_exist(&A, ct, node, NULL, p2, 1, &which) == 0);
	/* an integer has no fields; a pointer to the record is followed */
	const char *p3[] = { "a", "x" };
	CHECK(comptime_field_exist(&A, ct, node, NULL, p3, 2, &which) == 0);
	CHECK(comptime_field_exist(&A, ct, type_ptr(&A, node, false), NULL,
				   p1, 3, &which) == 1);
	/* a type not known here: none of its fields (or, a kernel struct
	 * with no BTF to say, an error naming it) */
	int r = comptime_field_exist(&A, ct, NULL, "struct sonde_no_such",
				     p2, 1, &which);
	if (kbtf_load() == 0) {
		CHECK(r == 0);
	} else {
		CHECK(r == -ENODATA);
		CHECK_STR(which, "struct sonde_no_such");
	}
	CHECK(comptime_field_exist(&A, ct, NULL, "int", p2, 1, &which) == 0);
}

int main(void)
{
	arena_init(&A);
	RUN(integers);
	RUN(truth_and_bools);
	RUN(strings);
	RUN(what_is_not_literal);
	RUN(field_paths);
	arena_release(&A);
	return check_done();
}
