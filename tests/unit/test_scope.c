#include "check.h"

#include "lang/scope.h"

TEST(scope_finds_innermost_and_forgets_closed)
{
	struct scopes sc = { 0 };
	scope_push(&sc);
	scope_add(&sc, "$x", 1);
	scope_push(&sc);
	uint32_t level = 9;
	CHECK(scope_find(&sc, "$x", &level) == 1);
	CHECK(level == 0);
	scope_add(&sc, "$y", 2);
	CHECK(scope_find(&sc, "$y", &level) == 2);
	CHECK(level == 1);
	CHECK(scope_depth(&sc) == 2);
	scope_pop(&sc);
	/* $y's block closed: gone, and known to have been */
	CHECK(scope_find(&sc, "$y", NULL) == -1);
	CHECK(scope_was_closed(&sc, "$y"));
	CHECK(!scope_was_closed(&sc, "$x"));
	scope_push(&sc);
	scope_add(&sc, "$y", 3); /* a sibling block's own $y */
	CHECK(scope_find(&sc, "$y", NULL) == 3);
	scope_pop(&sc);
	scope_pop(&sc);
	CHECK(scope_find(&sc, "$x", NULL) == -1);
	scope_reset(&sc);
	CHECK(!scope_was_closed(&sc, "$y"));
	scope_free(&sc);
}

int main(void)
{
	RUN(scope_finds_innermost_and_forgets_closed);
	return check_done();
}
