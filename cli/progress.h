/* A progress bar on stderr for long work (ingest, pack): bytes done/total,
 * MB/s and time left. Shown when stderr is a terminal or --progress was
 * given, never under --quiet. On a terminal it redraws one line at most 10
 * times a second and clears it at the end; elsewhere (--progress into a log)
 * it prints a plain line at most once a second. */
#ifndef GT_PROGRESS_H
#define GT_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

struct gt_progress {
	FILE *f;
	const char *label;
	bool enabled, tty, drawn;
	uint64_t start_ns, last_ns;
	uint64_t done, total; /* the latest update */
};

void gt_progress_init(struct gt_progress *p, const struct gt_common *c, const char *label);
/* The callback of gt_load_options.progress; ctx is a struct gt_progress. */
void gt_progress_update(void *ctx, uint64_t done, uint64_t total);
/* Clears the bar (terminal) so later output starts on a clean line; in a
 * log (--progress) prints the final state. */
void gt_progress_end(struct gt_progress *p);

/* The bar's text for done/total bytes after elapsed_ns, into buf (at most
 * cap bytes, NUL included); total 0 means unknown. Returns the length. */
int gt_progress_format(char *buf, size_t cap, const char *label, uint64_t done, uint64_t total,
		       uint64_t elapsed_ns);

#endif
