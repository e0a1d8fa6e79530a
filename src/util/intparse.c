/* Numbers written as text (attach point parts, positional parameters),
 * read as bpftrace 0.26's util::to_uint reads them: '_' separators,
 * 0x/0b/0 prefixes, scientific notation (1e6, coefficient 1-9), and the
 * integer and duration suffixes of its literals (u, l, ul, ull, ll; ns,
 * us, ms, s, m, h, d in nanoseconds). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/intparse.h"

static const struct {
	const char *suffix;
	uint64_t max, mult;
} suffixes[] = {
	{ "", UINT64_MAX, 1 },
	{ "u", 4294967295ull, 1 },
	{ "ul", UINT64_MAX, 1 },
	{ "ull", UINT64_MAX, 1 },
	{ "l", INT64_MAX, 1 },
	{ "ll", INT64_MAX, 1 },
	{ "ns", UINT64_MAX, 1 },
	{ "us", UINT64_MAX, 1000ull },
	{ "ms", UINT64_MAX, 1000000ull },
	{ "s", UINT64_MAX, 1000000000ull },
	{ "m", UINT64_MAX, 60000000000ull },
	{ "h", UINT64_MAX, 3600000000000ull },
	{ "d", UINT64_MAX, 86400000000000ull },
};

int intparse_u64(const char *num, uint64_t *out, char *why, size_t n)
{
	size_t len = strlen(num);
	char *s = malloc(len + 1), *d = s;
	if (!s) {
		snprintf(why, n, "out of memory");
		return -ENOMEM;
	}
	for (const char *p = num; *p; p++)
		if (*p != '_')
			*d++ = *p;
	*d = 0;
	int base = 10;
	const char *digits = s;
	if (strlen(s) >= 2 && s[0] == '0') {
		if (s[1] == 'x' || s[1] == 'X')
			base = 16, digits = s + 2;
		else if (s[1] == 'b' || s[1] == 'B')
			base = 2, digits = s + 2;
		else if (s[1] >= '0' && s[1] <= '7')
			base = 8, digits = s + 1;
	}
	int err = 0;
	char *end;
	errno = 0;
	/* strtoull would take a sign or white space: 0.26 finds no digits
	 * there either way that makes sense of them */
	unsigned long long v = isxdigit((unsigned char)digits[0]) ?
		strtoull(digits, &end, base) : 0;
	if (!isxdigit((unsigned char)digits[0]) || end == digits) {
		snprintf(why, n, "invalid integer: %s", num);
		err = -EINVAL;
		goto out;
	}
	if (v == UINT64_MAX && errno == ERANGE) {
		snprintf(why, n, "overflow error, maximum value is %llu: %s",
			 (unsigned long long)UINT64_MAX, num);
		err = -ERANGE;
		goto out;
	}
	if ((*end == 'e' || *end == 'E') && end[1] >= '1' && end[1] <= '9') {
		if (v == 0 || v >= 10) {
			snprintf(why, n, "coefficient part of scientific "
				 "literal must be 1-9: %s", num);
			err = -EINVAL;
			goto out;
		}
		char *e = end + 1;
		unsigned long long x = strtoull(e, &end, 10);
		for (; x > 0; x--) {
			if (v > UINT64_MAX / 10) {
				snprintf(why, n, "overflow error, maximum "
					 "value is %llu: %s",
					 (unsigned long long)UINT64_MAX, num);
				err = -ERANGE;
				goto out;
			}
			v *= 10;
		}
	}
	size_t k = 0, nsuf = sizeof(suffixes) / sizeof(*suffixes);
	while (k < nsuf && strcmp(suffixes[k].suffix, end))
		k++;
	if (k == nsuf) {
		snprintf(why, n, "invalid trailing bytes: %s", num);
		err = -EINVAL;
		goto out;
	}
	if (v > suffixes[k].max / suffixes[k].mult) {
		snprintf(why, n, "overflow error, maximum value is %llu: %s",
			 (unsigned long long)suffixes[k].max, num);
		err = -ERANGE;
		goto out;
	}
	*out = v * suffixes[k].mult;
out:
	free(s);
	return err;
}

