/* Stable colours for pictures (see svg.h): the same category has the
 * same colour in every trace. Paul Tol's "light" scheme, nine colours made
 * to be told apart with the common colour-vision deficiencies and light
 * enough for dark text; the categories people see every day have fixed
 * places (names compared ignoring ASCII case), every other name a place by
 * a hash of its bytes. The critical path
 * is drawn in dark colours from Tol's "muted" and "vibrant" schemes, which no
 * category uses, as thick lines (boxes have thin grey outlines). */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "svg.h"

/* light blue, orange, light yellow, pink, light cyan, mint, pear, olive, pale grey */
static const char *const tol_light[] = {
	"#77aadd", "#ee8866", "#eedd88", "#ffaabb", "#99ddff", "#44bb99", "#bbcc33", "#aaaa00", "#dddddd",
};
#define LIGHT_N (sizeof tol_light / sizeof tol_light[0])

enum { BLUE, ORANGE, YELLOW, PINK, CYAN, MINT, PEAR, OLIVE, GREY };

static const struct {
	const char *name;
	uint8_t colour;
} fixed[] = {
	/* Kineto (PyTorch profiler): each its own colour */
	{"cpu_op", BLUE}, {"user_annotation", PEAR}, {"python_function", GREY}, {"cuda_runtime", YELLOW},
	{"cuda_driver", OLIVE}, {"kernel", MINT}, {"gpu_memcpy", ORANGE}, {"gpu_memset", PINK},
	{"gpu_user_annotation", CYAN}, {"ac2g", CYAN},
	/* older Kineto spellings: their modern names' colours */
	{"operator", BLUE}, {"runtime", YELLOW}, {"memcpy", ORANGE}, {"memset", PINK},
	/* Chrome */
	{"toplevel", GREY}, {"v8", YELLOW}, {"blink", BLUE}, {"cc", MINT}, {"gpu", ORANGE},
};

const char *gt_category_colour(const char *cat)
{
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (strcasecmp(cat, fixed[i].name) == 0)
			return tol_light[fixed[i].colour];
	if (strncasecmp(cat, "disabled-by-default-", 20) == 0)
		return tol_light[CYAN];
	/* FNV-1a: stable across runs, machines and traces */
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)cat; *p; p++)
		h = (h ^ *p) * 16777619u;
	return tol_light[h % LIGHT_N];
}

/* work: wine, idle: dark grey (dashed), flow: indigo, queue: green,
 * wait: red, stream wait: orange, handoff: teal (Tol muted and vibrant). */
static const char *const kind_colour[GT_CAUSAL_KIND_COUNT] = {
	"#882255", "#555555", "#332288", "#117733", "#cc3311", "#ee7733", "#009988",
};

const char *gt_path_kind_colour(int kind)
{
	return kind >= 0 && kind < GT_CAUSAL_KIND_COUNT ? kind_colour[kind] : kind_colour[0];
}
