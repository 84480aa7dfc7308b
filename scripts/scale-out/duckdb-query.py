#!/usr/bin/env python3
"""Ad-hoc queries over the per-rank summaries with DuckDB.

  .venv/bin/python scripts/scale-out/duckdb-query.py SUMMARY_DIR

Reads every SUMMARY_DIR/*.arrow (written by `gputrace collectives -f arrow`)
through pyarrow and prints, per collective, the last rank to enter and how
late it was against the median entry: the same numbers as
`gputrace stragglers` (which takes the lower median)."""
import glob
import sys

import duckdb
import pyarrow as pa
import pyarrow.ipc as ipc


def main():
    files = sorted(glob.glob(sys.argv[1] + "/*.arrow"))
    if not files:
        sys.exit("no .arrow files in " + sys.argv[1])
    kernels = pa.concat_tables(ipc.open_file(f).read_all() for f in files)  # noqa: F841 (DuckDB reads it by name)
    con = duckdb.connect()
    print(con.sql("""
        WITH c AS (
            SELECT name, seq, rank, begin_ns,
                   count(*) OVER (PARTITION BY name, seq) AS ranks,
                   quantile_disc(begin_ns, 0.5) OVER (PARTITION BY name, seq) AS median_ns
            FROM kernels)
        SELECT name[:40] AS name, seq,
               arg_max(rank, begin_ns) AS last_rank,
               max(begin_ns) - any_value(median_ns) AS late_ns
        FROM c
        WHERE ranks = (SELECT count(DISTINCT rank) FROM kernels)
        GROUP BY name, seq
        ORDER BY late_ns DESC
        LIMIT 20
    """))


if __name__ == "__main__":
    main()
