/* The stats reports as tables (cmd_stats.c writes them): one builder per
 * report, each filling a stats_table that owns what its columns read. */
#ifndef GT_CLI_STATS_TABLES_H
#define GT_CLI_STATS_TABLES_H

#include "stats/stats.h"
#include "write/write.h"

enum { STATS_MAX_COLS = 32, STATS_MAX_META = 8 };

typedef struct stats_table {
	gt_table t;
	gt_column cols[STATS_MAX_COLS];
	const char *mk[STATS_MAX_META], *mv[STATS_MAX_META];
	char meta[STATS_MAX_META][64];
	const gt_stats_scope *s;
	const void *rows;     /* the report's rows; each starts with its window */
	size_t row_size;
	int by;               /* kernels: enum gt_stats_by */
	bool group_class;     /* kernels */
	double *share;        /* shares, computed once */
	char buf[256];        /* a string cell's text */
} stats_table;

/* brief: the columns of a report a person reads (the text formats). Each
 * returns 0, or -1 out of memory. */
int stats_table_kernels(stats_table *st, const gt_stats_scope *s, const gt_kernel_stats *k, int by, bool group_class,
			bool brief);
int stats_table_gpu_time(stats_table *st, const gt_stats_scope *s, const gt_gpu_times *g, bool brief);
int stats_table_overlap(stats_table *st, const gt_stats_scope *s, const gt_gpu_times *g);
int stats_table_calls(stats_table *st, const gt_stats_scope *s, const gt_call_stats *c, int which, bool brief);
int stats_table_launches(stats_table *st, const gt_stats_scope *s, const gt_launch_stats *l, bool brief);
int stats_table_launch_rows(stats_table *st, const gt_stats_scope *s, const gt_launch_stats *l);
int stats_table_idle(stats_table *st, const gt_stats_scope *s, const gt_idle_stats *i, int64_t kernel_wait_ns,
		     bool brief);
/* Says in the metadata that --top kept shown of total rows. */
void stats_table_note_top(stats_table *st, uint32_t shown, uint32_t total);
void stats_table_free(stats_table *st);

#endif
