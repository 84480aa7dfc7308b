/* UTF-8 validation with maximal-subpart replacement (see utf8.h). */
#include <string.h>

#include "utf8.h"

int gt_utf8_next(const unsigned char *s)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	int need;
	unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		if (c == 0xe0)
			lo = 0xa0; /* overlong */
		else if (c == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		if (c == 0xf0)
			lo = 0x90; /* overlong */
		else if (c == 0xf4)
			hi = 0x8f; /* above U+10FFFF */
	} else {
		return -1;
	}
	for (int i = 1; i <= need; i++) {
		unsigned char b = s[i];
		if (i == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xbf))
			return -i; /* the NUL terminator fails here too */
	}
	return need + 1;
}

size_t gt_utf8_clean_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	while (*p) {
		int k = gt_utf8_next(p);
		if (k > 0) {
			n += (size_t)k;
			p += k;
		} else {
			n += 3; /* U+FFFD */
			p += -k;
		}
	}
	return n;
}

void gt_utf8_clean_copy(char *dst, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int k = gt_utf8_next(p);
		if (k > 0) {
			memcpy(dst, p, (size_t)k);
			dst += k;
			p += k;
		} else {
			memcpy(dst, "\xef\xbf\xbd", 3);
			dst += 3;
			p += -k;
		}
	}
}
