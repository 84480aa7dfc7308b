/* A piece's own string table (local_names.h): open addressing on the
 * strings' hashes, the hash compared before the bytes. */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "local_names.h"
#include "model/model.h"

void local_names_reset(local_names *ln)
{
	if (ln->slots && ln->count)
		memset(ln->slots, 0, ((size_t)ln->mask + 1) * sizeof *ln->slots);
	ln->count = 0;
}

void local_names_free(local_names *ln)
{
	free(ln->slots), free(ln->hash), free(ln->text), free(ln->global);
	memset(ln, 0, sizeof *ln);
}

static int grow(local_names *ln)
{
	uint32_t n = ln->slots ? (ln->mask + 1) * 2 : 1024;
	uint32_t *slots = gt_fault_hit("alloc") ? NULL : calloc(n, sizeof *slots);
	if (!slots)
		return -1;
	for (uint32_t id = 0; id < ln->count; id++) {
		uint32_t i = (uint32_t)ln->hash[id] & (n - 1);
		while (slots[i])
			i = (i + 1) & (n - 1);
		slots[i] = id + 1;
	}
	free(ln->slots);
	ln->slots = slots;
	ln->mask = n - 1;
	return 0;
}

uint32_t local_names_id(local_names *ln, const jl_slice *s, uint64_t hash)
{
	if (!s->p || !s->len || s->escaped)
		return GT_NONE;
	if ((!ln->slots || (uint64_t)ln->count * 2 >= (uint64_t)ln->mask + 1) && grow(ln) < 0)
		return GT_NONE;
	uint32_t i = (uint32_t)hash & ln->mask;
	for (uint32_t v; (v = ln->slots[i]) != 0; i = (i + 1) & ln->mask) {
		const jl_slice *t = &ln->text[v - 1];
		if (ln->hash[v - 1] == hash && t->len == s->len && memcmp(t->p, s->p, s->len) == 0)
			return v - 1;
	}
	if (ln->count == ln->cap) {
		uint32_t cap = ln->cap ? ln->cap * 2 : 256;
		uint64_t *h = gt_fault_hit("alloc") ? NULL : realloc(ln->hash, cap * sizeof *h);
		if (h)
			ln->hash = h;
		jl_slice *t = h ? realloc(ln->text, cap * sizeof *t) : NULL;
		if (t)
			ln->text = t;
		uint32_t *g = t ? realloc(ln->global, cap * sizeof *g) : NULL;
		if (g)
			ln->global = g;
		if (!g)
			return GT_NONE;
		ln->cap = cap;
	}
	uint32_t id = ln->count++;
	ln->hash[id] = hash, ln->text[id] = *s, ln->global[id] = GT_NONE;
	ln->slots[i] = id + 1;
	return id;
}
