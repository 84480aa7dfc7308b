/* Exact rationals for compare: comparison by continued fractions and
 * decimal formatting by long division, so neither ever multiplies two
 * 128-bit values. */
#include <stdio.h>
#include <string.h>

#include "compare.h"

/* Floor division with a non-negative remainder (d > 0). */
static void floor_divmod(__int128 n, __int128 d, __int128 *q, __int128 *r)
{
	*q = n / d;
	*r = n % d;
	if (*r < 0) {
		*r += d;
		*q -= 1;
	}
}

int gt_rat_cmp(gt_rat a, gt_rat b)
{
	__int128 n1 = a.num, d1 = a.den, n2 = b.num, d2 = b.den;
	int sign = 1;
	for (;;) {
		__int128 q1, r1, q2, r2;
		floor_divmod(n1, d1, &q1, &r1);
		floor_divmod(n2, d2, &q2, &r2);
		if (q1 != q2)
			return q1 < q2 ? -sign : sign;
		if (r1 == 0 || r2 == 0)
			return r1 == r2 ? 0 : (r1 == 0 ? -sign : sign);
		/* r1/d1 vs r2/d2 (both in (0,1)) orders as d2/r2 vs d1/r1 */
		__int128 t1 = d1, t2 = d2;
		n1 = t1, d1 = r1;
		n2 = t2, d2 = r2;
		sign = -sign;
	}
}

static int u128_str(unsigned __int128 v, char *buf)
{
	char tmp[48];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	for (int i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = 0;
	return n;
}

/* (a + b) mod m for a, b < m, without overflowing 128 bits. */
static unsigned __int128 addmod(unsigned __int128 a, unsigned __int128 b, unsigned __int128 m, int *wrapped)
{
	*wrapped = a >= m - b;
	return *wrapped ? a - (m - b) : a + b;
}

void gt_rat_format(gt_rat r, int decimals, char *buf, size_t len)
{
	if (r.den <= 0) {
		snprintf(buf, len, "null");
		return;
	}
	if (decimals > 18)
		decimals = 18;
	bool neg = r.num < 0;
	unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)r.num : (unsigned __int128)r.num;
	unsigned __int128 d = (unsigned __int128)r.den;
	unsigned __int128 ip = u / d, rem = u % d;
	char digits[20];
	for (int k = 0; k < decimals; k++) {
		/* rem * 10 = digit * d + rem' by repeated addition modulo d */
		unsigned __int128 acc = 0;
		int digit = 0, w;
		for (int t = 0; t < 10; t++) {
			acc = addmod(acc, rem, d, &w);
			digit += w;
		}
		digits[k] = (char)('0' + digit);
		rem = acc;
	}
	int w;
	addmod(rem, rem, d, &w); /* 2 * rem >= d: round half away from zero */
	if (w) {
		int k = decimals - 1;
		for (; k >= 0 && digits[k] == '9'; k--)
			digits[k] = '0';
		if (k >= 0)
			digits[k]++;
		else
			ip++;
	}
	bool zero = ip == 0;
	for (int k = 0; k < decimals; k++)
		zero = zero && digits[k] == '0';
	char out[96];
	int n = 0;
	if (neg && !zero)
		out[n++] = '-';
	n += u128_str(ip, out + n);
	if (decimals > 0) {
		out[n++] = '.';
		memcpy(out + n, digits, (size_t)decimals);
		n += decimals;
	}
	out[n] = 0;
	snprintf(buf, len, "%s", out);
}
