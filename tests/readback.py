"""Reads a table written by build/tools/table_demo back with independent
parsers (json, csv, pyarrow, polars) and compares every value with the data
computed here from the same definition.

usage: readback.py FORMAT FILE ROWS [BATCHES [sample]]
BATCHES, for the Arrow file format, is the number of record batches expected;
"sample" checks a large Arrow table's batches and the rows at their edges.
"""
import csv
import json
import math
import sys
from decimal import Decimal

NULL32 = None
CATS = ["gpu", "cpu_op", 'kernel,"x"', "Memcpy 日本", "", "unused"]
KINDS = ["complete", "instant", "async"]
I64_MIN, I64_MAX = -(2**63), 2**63 - 1
NAN, INF = float("nan"), float("inf")
FIXED = [
    # id, parent, ts_ns, dur_ns, big, ubig, small, ratio, flag, name, cat, kind
    (0, None, 0, 1500, I64_MIN, 2**64 - 1, -(2**31), 0.1, True, "plain", 0, 2),
    (1, 0, -1, 1000, I64_MAX, 0, 2**31 - 1, -0.0, False, 'comma, "quote"\nnewline\r\ttab', 1, 0),
    (2, 0, I64_MIN, I64_MAX, -1, 1, -1, 1e300, True, "", None, 1),
    (3, 1, I64_MAX, -999, 0, 42, 0, NAN, False, None, 4, 0),
    (4, None, 123456789, 1, 1, 18446744073709551000, 7, INF, True, "µs — 日本語 🚀", 3, 1),
    (5, 4, 1000000, 10, -9007199254740993, 9007199254740993, -7, -2.5e-308, False,
     b"bad\xff\xc3(end\xe2\x82".decode("utf-8", "replace"), 2, 2),
    (6, 5, -1500, 1001, 2, 3, 8, 3.141592653589793, True, "\x01bell\x7f\\slash", 2, 0),
    (7, 6, 999, 1999999, 3, 4, 9, -NAN, False, "  spaced  ", None, 2),
]
KEYS = ["id", "parent", "ts_ns", "dur_ns", "big", "ubig", "small", "ratio", "flag", "name", "cat", "kind"]


def expected_row(i):
    if i < len(FIXED):
        r = list(FIXED[i])
    else:
        r = [i, i - 1 if i % 7 else None, i * 1234567 - 5000000000, (i * 7919) % 100003,
             i * -3037000499, (i * 11400714819323198485) % 2**64, i * 31 - 1000, i / 7.0,
             i % 3 == 0, f"span {i}" if i % 11 else None, i % 5 if i % 13 else None, i % 3]
    r[10] = None if r[10] is None else CATS[r[10]]
    r[11] = KINDS[r[11]]
    return dict(zip(KEYS, r))


def expected_rows(n):
    return [expected_row(i) for i in range(n)]


def check_arrow_sample(path, stream, n, batches):
    """Large tables: batch count and row count, and the rows around every
    batch boundary (pyarrow only; reading millions of rows into Python
    objects would take minutes)."""
    import pyarrow.ipc as ipc

    reader = ipc.open_stream(path) if stream else ipc.open_file(path)
    if stream:
        lens = [len(b) for b in reader]
    else:
        lens = [len(reader.get_batch(i)) for i in range(reader.num_record_batches)]
    if len(lens) != batches or sum(lens) != n:
        sys.exit(f"readback sample: batches of {lens} rows, want {batches} batches of {n} rows in all")
    table = (ipc.open_stream(path) if stream else ipc.open_file(path)).read_all()
    table.validate(full=True)
    rows = set(range(min(n, 20))) | set(range(max(0, n - 20), n))
    edge = 0
    for k in lens[:-1]:
        edge += k
        rows |= set(range(edge - 10, min(n, edge + 10)))
    for i in sorted(rows):
        check_arrow_rows(f"sample row {i}", table.slice(i, 1).to_pylist(), [expected_row(i)])


def same_float(a, b):
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def us(ns):
    return Decimal(ns).scaleb(-3)


def text_ratio(x):
    # text formats print NaN and infinities as null
    return None if math.isnan(x) or math.isinf(x) else x


def fail(fmt, row, key, got, want):
    sys.exit(f"readback {fmt}: row {row} column {key!r}: got {got!r}, want {want!r}")


def check_json_rows(fmt, got, want):
    if len(got) != len(want):
        sys.exit(f"readback {fmt}: {len(got)} rows, want {len(want)}")
    # each _us time is followed by its integer ns (named as in Arrow)
    names = ["id", "parent", "ts_us", "ts_ns", "dur_us", "duration_ns", "big", "ubig", "small", "ratio", "flag",
             "name", "cat", "kind"]
    for i, (g, w) in enumerate(zip(got, want)):
        if list(g.keys()) != names:
            sys.exit(f"readback {fmt}: row {i} keys {list(g.keys())}")
        exp = dict(w, ts_us=us(w["ts_ns"]), dur_us=us(w["dur_ns"]), duration_ns=w["dur_ns"],
                   ratio=text_ratio(w["ratio"]))
        for k in names:
            a, b = g[k], exp[k]
            ok = same_float(float(a) if a is not None else None, b) if k == "ratio" else (
                a == b and type(a) is type(b) if k not in ("ts_us", "dur_us") else Decimal(a) == b)
            if k == "ratio" and b == 0 and a == 0:
                ok = True  # JSON "-0" parses as the integer 0
            if not ok:
                fail(fmt, i, k, a, b)


def read_json(path, ndjson):
    with open(path, encoding="utf-8") as f:
        if ndjson:
            return [json.loads(line, parse_float=Decimal) for line in f]
        return json.load(f, parse_float=Decimal)


def decimal_to_native(rows):
    # parse_float=Decimal keeps times exact; other fractions compare as floats
    for r in rows:
        if isinstance(r["ratio"], Decimal):
            r["ratio"] = float(r["ratio"])
    return rows


def check_csv(path, want):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header = ["id", "parent", "ts_us", "ts_ns", "dur_us", "duration_ns", "big", "ubig", "small", "ratio", "flag",
              "name", "cat", "kind"]
    if rows[0] != header:
        sys.exit(f"readback csv: header {rows[0]}")
    if len(rows) - 1 != len(want):
        sys.exit(f"readback csv: {len(rows) - 1} rows, want {len(want)}")
    for i, (g, w) in enumerate(zip(rows[1:], want)):
        g = dict(zip(header, g))
        exp = {
            "id": str(w["id"]), "parent": "" if w["parent"] is None else str(w["parent"]),
            "ts_us": us(w["ts_ns"]), "dur_us": us(w["dur_ns"]), "ts_ns": str(w["ts_ns"]),
            "duration_ns": str(w["dur_ns"]), "big": str(w["big"]),
            "ubig": str(w["ubig"]), "small": str(w["small"]),
            "flag": "true" if w["flag"] else "false", "name": w["name"] or "",
            "cat": w["cat"] or "", "kind": w["kind"],
        }
        for k, b in exp.items():
            a = Decimal(g[k]) if k in ("ts_us", "dur_us") else g[k]
            if a != b:
                fail("csv", i, k, a, b)
        r = text_ratio(w["ratio"])
        if not same_float(float(g["ratio"]) if g["ratio"] else None, r):
            fail("csv", i, "ratio", g["ratio"], r)


def check_arrow_rows(fmt, got, want):
    names = ["id", "parent", "ts_ns", "duration_ns", "big", "ubig", "small", "ratio", "flag", "name", "cat", "kind"]
    if len(got) != len(want):
        sys.exit(f"readback {fmt}: {len(got)} rows, want {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if list(g.keys()) != names:
            sys.exit(f"readback {fmt}: row {i} columns {list(g.keys())}")
        w = dict(w, duration_ns=w["dur_ns"])
        for k in names:
            a, b = g[k], w[k]
            ok = same_float(a, b) if k == "ratio" else (a == b and type(a) is type(b))
            if not ok:
                fail(fmt, i, k, a, b)


def check_arrow(path, stream, want, batches):
    import pyarrow as pa
    import pyarrow.ipc as ipc
    import polars as pl

    fmt = "arrow-stream" if stream else "arrow"
    reader = ipc.open_stream(path) if stream else ipc.open_file(path)
    if not stream and batches is not None and reader.num_record_batches != batches:
        sys.exit(f"readback {fmt}: {reader.num_record_batches} record batches, want {batches}")
    table = reader.read_all()
    table.validate(full=True)
    s = table.schema
    want_types = [pa.uint32(), pa.uint32(), pa.int64(), pa.int64(), pa.int64(), pa.uint64(), pa.int32(),
                  pa.float64(), pa.bool_(), pa.string(), pa.dictionary(pa.int32(), pa.string()),
                  pa.dictionary(pa.int32(), pa.string())]
    for f, t in zip(s, want_types):
        if f.type != t:
            sys.exit(f"readback {fmt}: column {f.name} has type {f.type}, want {t}")
    nullable = [f.name for f in s if f.nullable]
    if nullable != ["parent", "name", "cat"]:
        sys.exit(f"readback {fmt}: nullable columns {nullable}")
    if s.metadata != {b"gputrace.version": b"table_demo", b"gputrace.source": b"tools/table_demo.c"}:
        sys.exit(f"readback {fmt}: schema metadata {s.metadata}")
    check_arrow_rows(fmt + " (pyarrow)", table.to_pylist(), want)
    # dictionaries hold only the entries in use, so "unused" never appears
    for c in ("cat", "kind"):
        for chunk in table.column(c).chunks:
            if "unused" in chunk.dictionary.to_pylist():
                sys.exit(f"readback {fmt}: dictionary of {c} holds an unused entry")

    df = pl.read_ipc_stream(path) if stream else pl.read_ipc(path)
    check_arrow_rows(fmt + " (polars)", df.to_dicts(), want)


def main():
    fmt, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    batches = int(sys.argv[4]) if len(sys.argv) > 4 else None
    if len(sys.argv) > 5 and sys.argv[5] == "sample":
        check_arrow_sample(path, fmt == "arrow-stream", n, batches)
        print(f"readback {fmt}: {n} rows in {batches} batches, edges equal")
        return
    want = expected_rows(n)
    if fmt in ("json", "ndjson"):
        check_json_rows(fmt, decimal_to_native(read_json(path, fmt == "ndjson")), want)
    elif fmt == "csv":
        check_csv(path, want)
    elif fmt in ("arrow", "arrow-stream"):
        check_arrow(path, fmt == "arrow-stream", want, batches)
    else:
        sys.exit(f"readback: unknown format {fmt!r}")
    print(f"readback {fmt}: {n} rows equal")


if __name__ == "__main__":
    main()
