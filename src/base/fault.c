/* GPUTRACE_FAULT parsing and per-site call counters (see fault.h). */
#include "fault.h"

#ifdef GT_FAULT_INJECTION
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SITES 16

static struct site {
	char name[32];
	unsigned long long when;
	atomic_ullong calls;
} sites[MAX_SITES];
static int nsites;
static pthread_once_t parsed = PTHREAD_ONCE_INIT;

static void parse_env(void)
{
	const char *s = getenv("GPUTRACE_FAULT");
	while (s && *s && nsites < MAX_SITES) {
		const char *colon = strchr(s, ':');
		const char *end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		if (colon && colon < end && (size_t)(colon - s) < sizeof sites[0].name) {
			struct site *t = &sites[nsites];
			memcpy(t->name, s, (size_t)(colon - s));
			t->name[colon - s] = '\0';
			t->when = strtoull(colon + 1, NULL, 10);
			atomic_init(&t->calls, 0);
			if (t->when > 0)
				nsites++;
		}
		s = *end ? end + 1 : end;
	}
}

/* GPUTRACE_FAULT_COUNTS=FILE: at exit, append "site calls" for each site
 * named in GPUTRACE_FAULT, so a test knows how many points there are to walk
 * (name a site with a huge N to count without failing). */
__attribute__((destructor)) static void report_counts(void)
{
	const char *path = getenv("GPUTRACE_FAULT_COUNTS");
	if (!path || !nsites)
		return;
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	for (int i = 0; i < nsites; i++)
		fprintf(f, "%s %llu\n", sites[i].name, (unsigned long long)atomic_load(&sites[i].calls));
	fclose(f);
}

bool gt_fault_hit(const char *site)
{
	pthread_once(&parsed, parse_env);
	for (int i = 0; i < nsites; i++)
		if (strcmp(sites[i].name, site) == 0)
			return atomic_fetch_add(&sites[i].calls, 1) + 1 == sites[i].when;
	return false;
}

bool gt_fault_armed(const char *site)
{
	pthread_once(&parsed, parse_env);
	for (int i = 0; i < nsites; i++)
		if (strcmp(sites[i].name, site) == 0)
			return true;
	return false;
}
#else
typedef int gt_fault_unused; /* an empty translation unit is not ISO C */
#endif
