#include "utf8.h"

int utf8_seq_len(const unsigned char *t, uint32_t n, uint32_t p)
{
	unsigned char c = t[p];
	int len;
	uint32_t min;
	if (c < 0x80)
		return 1;
	else if ((c & 0xe0) == 0xc0)
		len = 2, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		len = 3, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		len = 4, min = 0x10000;
	else
		return 0;
	if (p + (uint32_t)len > n)
		return 0;
	uint32_t cp = c & (0x7f >> len);
	for (int i = 1; i < len; i++) {
		if ((t[p + i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (t[p + i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

