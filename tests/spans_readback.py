"""`gputrace spans` on a real trace in every format, read back by json, csv,
pyarrow and polars: every format must carry the same table as the JSON one
(times as exact microseconds in text, integer nanoseconds in Arrow).

usage: spans_readback.py GPUTRACE TRACE
"""
import csv
import io
import json
import subprocess
import sys
from decimal import Decimal

import polars as pl
import pyarrow as pa
import pyarrow.ipc as ipc

TEXT_COLS = ["id", "event", "name", "cat", "group", "pid", "tid", "track", "lane", "depth", "parent",
             "ts_us", "ts_ns", "dur_us", "dur_ns"]


def run(gputrace, trace, fmt):
    p = subprocess.run([gputrace, "spans", "-f", fmt, trace], capture_output=True)
    if p.returncode != 0:
        sys.exit(f"spans -f {fmt} {trace}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
    return p.stdout


def to_arrow_row(r):
    """A JSON row in Arrow's terms: only the integer _ns of each time, which
    must equal its _us exactly."""
    out = {}
    for k, v in r.items():
        if k.endswith("_us"):
            ns = Decimal(v) * 1000
            if ns != ns.to_integral_value() or ns != r[k[:-3] + "_ns"]:
                sys.exit(f"{k}={v} is not {k[:-3]}_ns={r[k[:-3] + '_ns']} nanoseconds")
        else:
            out[k] = v
    return out


def same_id(a, b):
    # pid/tid are int64 unless the trace has string ids; then text everywhere
    return a == b or str(a) == str(b)


def compare(label, got, want):
    if len(got) != len(want):
        sys.exit(f"{label}: {len(got)} rows, want {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if list(g.keys()) != list(w.keys()):
            sys.exit(f"{label}: row {i} columns {list(g.keys())}, want {list(w.keys())}")
        for k in w:
            ok = same_id(g[k], w[k]) if k in ("pid", "tid") else (g[k] == w[k])
            if not ok:
                sys.exit(f"{label}: row {i} column {k}: got {g[k]!r}, want {w[k]!r}")


def main():
    gputrace, trace = sys.argv[1], sys.argv[2]
    rows = json.loads(run(gputrace, trace, "json"), parse_float=Decimal)
    if rows and list(rows[0].keys()) != TEXT_COLS:
        sys.exit(f"{trace}: unexpected json columns {list(rows[0].keys())}")

    nd = [json.loads(line, parse_float=Decimal) for line in run(gputrace, trace, "ndjson").splitlines()]
    compare(f"{trace} ndjson", nd, rows)

    text = run(gputrace, trace, "csv").decode("utf-8")
    c = list(csv.reader(io.StringIO(text, newline="")))
    if c[0] != TEXT_COLS:
        sys.exit(f"{trace} csv header {c[0]}")
    want_csv = [{k: "" if v is None else str(v) for k, v in r.items()} for r in rows]
    compare(f"{trace} csv", [dict(zip(c[0], r)) for r in c[1:]], want_csv)

    want = [to_arrow_row(r) for r in rows]
    for fmt in ("arrow", "arrow-stream"):
        data = run(gputrace, trace, fmt)
        reader = ipc.open_stream(pa.py_buffer(data)) if fmt == "arrow-stream" else ipc.open_file(pa.py_buffer(data))
        table = reader.read_all()
        table.validate(full=True)
        meta = table.schema.metadata or {}
        if table.column_names != [k for k in TEXT_COLS if not k.endswith("_us")]:
            sys.exit(f"{trace} {fmt}: columns {table.column_names}")
        if b"gputrace_version" not in meta or meta.get(b"source") != trace.encode():
            sys.exit(f"{trace} {fmt}: schema metadata {meta}")
        for col in ("id", "event", "group", "lane", "depth", "parent"):
            if table.schema.field(col).type != pa.uint32():
                sys.exit(f"{trace} {fmt}: {col} is {table.schema.field(col).type}")
        for col in ("ts_ns", "dur_ns"):
            if table.schema.field(col).type != pa.int64():
                sys.exit(f"{trace} {fmt}: {col} is {table.schema.field(col).type}")
        compare(f"{trace} {fmt} (pyarrow)", table.to_pylist(), want)
        df = pl.read_ipc_stream(io.BytesIO(data)) if fmt == "arrow-stream" else pl.read_ipc(io.BytesIO(data))
        compare(f"{trace} {fmt} (polars)", df.to_dicts(), want)
    print(f"spans readback: {trace}: {len(rows)} spans equal in 5 formats")


if __name__ == "__main__":
    main()
