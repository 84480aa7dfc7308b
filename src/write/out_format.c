/* Output format names. */
#include <string.h>

#include "table.h"

static const char *const names[] = {"json", "ndjson", "csv", "arrow", "arrow-stream"};

int gt_out_format_parse(const char *s)
{
	for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
		if (s && strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

const char *gt_out_format_name(int fmt)
{
	return fmt >= 0 && fmt < (int)(sizeof names / sizeof names[0]) ? names[fmt] : "?";
}

bool gt_out_format_is_binary(int fmt)
{
	return fmt == GT_OUT_ARROW || fmt == GT_OUT_ARROW_STREAM;
}
