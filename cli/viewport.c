/* Viewport argument parsing for `gputrace query`. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "viewport.h"

/* One time value: digits[.digits][unit]. *unit is 0 when absent. */
static int parse_time(const char *s, size_t n, int *neg, uint64_t *ip, uint64_t *frac, int *fdigits,
		      int64_t *unit)
{
	size_t i = 0;
	*neg = 0, *ip = 0, *frac = 0, *fdigits = 0, *unit = 0;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		*neg = s[i++] == '-';
	size_t d0 = i;
	for (; i < n && isdigit((unsigned char)s[i]); i++) {
		if (*ip > (UINT64_MAX - 9) / 10)
			return -1;
		*ip = *ip * 10 + (uint64_t)(s[i] - '0');
	}
	int any = i > d0;
	if (i < n && s[i] == '.') {
		for (i++; i < n && isdigit((unsigned char)s[i]); i++) {
			if (*fdigits >= 18)
				return -1;
			*frac = *frac * 10 + (uint64_t)(s[i] - '0');
			(*fdigits)++;
			any = 1;
		}
	}
	if (!any)
		return -1;
	const char *u = s + i;
	size_t ul = n - i;
	if (ul == 0)
		*unit = 0;
	else if (ul == 2 && memcmp(u, "ns", 2) == 0)
		*unit = 1;
	else if (ul == 2 && memcmp(u, "us", 2) == 0)
		*unit = 1000;
	else if (ul == 2 && memcmp(u, "ms", 2) == 0)
		*unit = 1000000;
	else if (ul == 1 && u[0] == 's')
		*unit = 1000000000;
	else
		return -1;
	return 0;
}

static int to_ns(int neg, uint64_t ip, uint64_t frac, int fd, int64_t unit, int64_t *out)
{
	uint64_t p10 = 1;
	for (int k = 0; k < fd; k++)
		p10 *= 10;
	unsigned __int128 num = (unsigned __int128)frac * (uint64_t)unit;
	if (num % p10)
		return -1; /* finer than a nanosecond */
	unsigned __int128 v = (unsigned __int128)ip * (uint64_t)unit + num / p10;
	if (v > (unsigned __int128)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int gt_parse_time_window_ex(const char *s, int64_t *a_ns, int64_t *b_ns, bool *absolute, const char **why)
{
	const char *colon = s ? strchr(s, ':') : NULL;
	*why = "expected A:B, e.g. 100:250ms or 1.5ms:2ms, or @A:B / @A:+D with absolute times";
	if (!colon)
		return -1;
	*absolute = s[0] == '@';
	const char *a = s + *absolute, *b = colon + 1;
	bool plus = false;
	if (*absolute && (*b == '@' || *b == '+')) {
		plus = *b == '+';
		b++;
		if (*b == '-' || *b == '+')
			return -1;
	}
	int na, nb, fa, fb;
	uint64_t ia, ib, ra, rb;
	int64_t ua, ub;
	if (parse_time(a, (size_t)(colon - a), &na, &ia, &ra, &fa, &ua) < 0 ||
	    parse_time(b, strlen(b), &nb, &ib, &rb, &fb, &ub) < 0)
		return -1;
	if (!ub)
		ub = 1000;
	if (!ua)
		ua = plus ? 1000 : ub; /* "@A:+D": A as spans prints it, D a duration */
	*why = "a time is finer than 1 ns or out of range";
	if (to_ns(na, ia, ra, fa, ua, a_ns) < 0 || to_ns(nb, ib, rb, fb, ub, b_ns) < 0)
		return -1;
	if (plus && __builtin_add_overflow(*a_ns, *b_ns, b_ns))
		return -1;
	*why = "the window ends before it starts";
	return *b_ns < *a_ns ? -1 : 0;
}

int gt_parse_duration(const char *s, int64_t *ns, const char **why)
{
	int neg, fd;
	uint64_t ip, frac;
	int64_t unit;
	*why = "expected a duration such as 5us, 2.5ms or 0";
	if (!s || parse_time(s, strlen(s), &neg, &ip, &frac, &fd, &unit) < 0 || neg)
		return -1;
	*why = "the duration is finer than 1 ns or out of range";
	return to_ns(0, ip, frac, fd, unit ? unit : 1000, ns);
}

int gt_parse_time_window(const char *s, int64_t *a_ns, int64_t *b_ns, const char **why)
{
	bool absolute;
	if (gt_parse_time_window_ex(s, a_ns, b_ns, &absolute, why) < 0)
		return -1;
	*why = "absolute times (@) are not taken here";
	return absolute ? -1 : 0;
}

int gt_time_window_resolve(const char *s, int64_t start_ns, int64_t *t0, int64_t *t1, const char **why)
{
	int64_t a, b;
	bool absolute;
	if (gt_parse_time_window_ex(s, &a, &b, &absolute, why) < 0)
		return -1;
	*t0 = a, *t1 = b;
	*why = "the time window is out of range";
	if (!absolute && (__builtin_add_overflow(start_ns, a, t0) || __builtin_add_overflow(start_ns, b, t1)))
		return -1;
	return 0;
}

static int parse_u32(const char *s, size_t n, uint32_t *out)
{
	if (n == 0 || n > 10)
		return -1;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int gt_parse_lane_window(const char *s, uint32_t *l0, uint32_t *l1, const char **why)
{
	const char *colon = strchr(s, ':');
	*why = "expected L0:L1 (half-open), e.g. 0:16 or 4:";
	if (!colon)
		return -1;
	*l0 = 0, *l1 = UINT32_MAX;
	if (colon > s && parse_u32(s, (size_t)(colon - s), l0) < 0)
		return -1;
	if (colon[1] && parse_u32(colon + 1, strlen(colon + 1), l1) < 0)
		return -1;
	return 0;
}

int gt_parse_groups(const char *s, const gt_model *m, uint32_t *mask, const char **why)
{
	char *end;
	errno = 0;
	if (isdigit((unsigned char)s[0])) {
		unsigned long long v = strtoull(s, &end, 0);
		*why = "a group mask is a 32-bit number";
		if (errno || *end || v > UINT32_MAX)
			return -1;
		*mask = (uint32_t)v;
		return 0;
	}
	*mask = 0;
	const char *p = s;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		uint32_t g = 0;
		for (; g < m->group_count; g++) {
			const char *name = gt_model_str(m, m->groups[g].name);
			if (strlen(name) == n && memcmp(name, p, n) == 0)
				break;
		}
		*why = "unknown group name (see the groups of 'gputrace info')";
		if (g == m->group_count)
			return -1;
		*mask |= 1u << g;
		p += n + (comma != NULL);
	}
	return 0;
}
