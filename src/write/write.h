/* write/: everything that writes a result out. The tables of every data
 * command in every format (table.h: JSON, NDJSON, CSV, Arrow IPC; their cells
 * read through table_cell.h, also by the text reports), JSON documents
 * written as they go (jsonw.h), lines built as text (jline.h) and
 * formatted a chunk at a time on threads (lines.h), text made valid UTF-8
 * and escaped (utf8.h), the FlatBuffers codec of Arrow's metadata
 * (flatbuf.h), compressed sinks (zsink.h), and output files replaced
 * atomically (outfile.h).
 * May use: model/, base/. */
#ifndef GT_WRITE_H
#define GT_WRITE_H

#include "flatbuf.h"
#include "jline.h"
#include "jsonw.h"
#include "lines.h"
#include "outfile.h"
#include "table.h"
#include "table_cell.h"
#include "utf8.h"
#include "zsink.h"

#endif
