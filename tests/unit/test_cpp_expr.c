/* #if expressions (lang/cpp_expr): C's operators and precedence, macros,
 * defined, and what is reported as unknown. */
#include "check.h"

#include <string.h>

#include "lang/cpp_expr.h"

/* A tiny macro table: "NAME=BODY" or "NAME(=BODY" (function-like). */
static const char *const table[] = {
	"FIVE=5", "TEN=(FIVE * 2)", "EMPTY=", "SELF=SELF + 1",
	"KV(=((a) << 16)", "BIG=0x7fffffffffffffffL", NULL,
};

static bool lookup(void *ctx, const char *name, size_t len,
		   const char **body, bool *fn)
{
	for (int i = 0; table[i]; i++) {
		const char *t = table[i];
		size_t n = strcspn(t, "=(");
		if (n != len || strncmp(t, name, len))
			continue;
		*fn = t[n] == '(';
		*body = t + n + (*fn ? 2 : 1);
		return true;
	}
	return false;
}

static long long eval(const char *e, int *rc)
{
	int64_t v = -999;
	*rc = cpp_eval(e, lookup, NULL, &v);
	return v;
}

TEST(precedence_and_operators)
{
	int rc;
	CHECK(eval("1 + 2 * 3", &rc) == 7 && rc == 0);
	CHECK(eval("(1 + 2) * 3", &rc) == 9);
	CHECK(eval("1 << 4 >> 2", &rc) == 4);
	CHECK(eval("7 & 3 | 8 ^ 1", &rc) == 11);
	CHECK(eval("1 < 2 == 1", &rc) == 1);
	CHECK(eval("2 >= 3 || 4 <= 4 && !0", &rc) == 1);
	CHECK(eval("0 ? 1 : 2 ? 3 : 4", &rc) == 3);
	CHECK(eval("-3 / 2", &rc) == -1);
	CHECK(eval("-7 % 3", &rc) == -1);
	CHECK(eval("~0", &rc) == -1);
	CHECK(eval("0x10 + 010 + 'A' + 1UL", &rc) == 16 + 8 + 65 + 1);
	CHECK(eval("1 /* c */ + 1 // rest", &rc) == 2 && rc == 0);
}

TEST(macros_and_defined)
{
	int rc;
	CHECK(eval("TEN - FIVE", &rc) == 5 && rc == 0);
	CHECK(eval("UNDEFINED_NAME + 1", &rc) == 1 && rc == 0);
	CHECK(eval("defined(FIVE) && defined EMPTY && !defined(NOPE)",
		   &rc) == 1 && rc == 0);
	CHECK(eval("defined KV", &rc) == 1 && rc == 0);
	CHECK(eval("BIG > 0", &rc) == 1 && rc == 0);
}

TEST(unknown_is_reported)
{
	int rc;
	eval("KV(1) > 0", &rc);
	CHECK(rc == -1); /* a function-like macro's call */
	eval("EMPTY + 1", &rc);
	CHECK(rc == -1); /* a macro with no body */
	eval("SELF", &rc);
	CHECK(rc == -1); /* defined through itself */
	eval("1 / 0", &rc);
	CHECK(rc == -1);
	eval("1 << 64", &rc);
	CHECK(rc == -1);
	eval("(1", &rc);
	CHECK(rc == -1);
	eval("1 2", &rc);
	CHECK(rc == -1);
	eval("\"s\"", &rc);
	CHECK(rc == -1);
	char deep[4096];
	memset(deep, '(', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = 0;
	eval(deep, &rc);
	CHECK(rc == -1); /* too deep: refused, not a stack overflow */
}

int main(void)
{
	RUN(precedence_and_operators);
	RUN(macros_and_defined);
	RUN(unknown_is_reported);
	return check_done();
}
