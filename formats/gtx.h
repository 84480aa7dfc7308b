/* The gputrace index file (.gtx): the span model, leaf batches and the
 * temporal hierarchy, versioned, checksummed and mmap-able. Layout:
 * formats/GTX-FORMAT.md. */
#ifndef GT_GTX_H
#define GT_GTX_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* True when the first bytes of a file are a .gtx header. */
bool gt_gtx_is_index(const unsigned char *head, size_t n);

/* Loads the span model stored in an index file (gt_model_load calls this
 * when the file is an index). */
int gt_gtx_load_model(gt_model *m, const char *path, gt_error *err);

#endif
