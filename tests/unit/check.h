/*
 * A tiny unit-test harness. Each test_*.c is its own binary:
 *
 *   TEST(lexes_numbers) { CHECK(x == 1); CHECK_STR(a, "b"); }
 *   int main(void) { RUN(lexes_numbers); return check_done(); }
 *
 * Output, one line per test, read by tests/run.sh:
 *   ok NAME | not ok NAME: FILE:LINE: what | skip NAME: why
 */
#ifndef SONDE_CHECK_H
#define SONDE_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failed_;  /* failures in the current test */
static int check_skipped_; /* current test asked to be skipped */
static int check_total_failed_;
static const char *check_skip_why_ = "";

#define TEST(name) static void name(void)

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			if (!check_failed_++)                                  \
				printf("not ok %s: %s:%d: %s\n", check_name_,  \
				       __FILE__, __LINE__, #cond);             \
		}                                                              \
	} while (0)

#define CHECK_STR(a, b)                                                        \
	do {                                                                   \
		const char *check_a_ = (a), *check_b_ = (b);                   \
		if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_)) {    \
			if (!check_failed_++)                                  \
				printf("not ok %s: %s:%d: %s\n  got:  [%s]\n"  \
				       "  want: [%s]\n",                       \
				       check_name_, __FILE__, __LINE__, #a,    \
				       check_a_ ? check_a_ : "(null)",         \
				       check_b_ ? check_b_ : "(null)");        \
		}                                                              \
	} while (0)

#define SKIP(why)                                                              \
	do {                                                                   \
		check_skipped_ = 1;                                            \
		check_skip_why_ = (why);                                       \
		return;                                                        \
	} while (0)

static const char *check_name_;

#define RUN(name)                                                              \
	do {                                                                   \
		check_name_ = #name;                                           \
		check_failed_ = 0;                                             \
		check_skipped_ = 0;                                            \
		name();                                                        \
		if (check_failed_)                                             \
			check_total_failed_++;                                 \
		else if (check_skipped_)                                       \
			printf("skip %s: %s\n", #name,                        \
			       check_skip_why_ ? check_skip_why_ : "");        \
		else                                                           \
			printf("ok %s\n", #name);                              \
		fflush(stdout);                                                \
	} while (0)

static inline int check_done(void)
{
	return check_total_failed_ ? 1 : 0;
}

#endif
