/* Exact microsecond text and JSON string escaping, shared by every writer. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "table.h"

int gt_format_ns_as_us(char *buf, int64_t ns)
{
	uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	uint64_t whole = mag / 1000, frac = mag % 1000;
	int n = sprintf(buf, "%s%" PRIu64, ns < 0 ? "-" : "", whole);
	if (frac) {
		n += sprintf(buf + n, ".%03" PRIu64, frac);
		while (buf[n - 1] == '0')
			buf[--n] = '\0';
	}
	return n;
}

void gt_json_write_string(FILE *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	fputc('"', out);
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *run = p;
	for (; *p; p++) {
		unsigned char c = *p;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		fwrite(run, 1, (size_t)(p - run), out);
		run = p + 1;
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		default:
			fputs("\\u00", out);
			fputc(hex[c >> 4], out);
			fputc(hex[c & 15], out);
		}
	}
	fwrite(run, 1, (size_t)(p - run), out);
	fputc('"', out);
}
