"""The tables of critical-path, query and devices on a real trace, in every
table format, read back by json, csv, pyarrow and polars and compared with the
command's JSON output (times as exact microseconds in text, integer
nanoseconds in Arrow; summaries in the Arrow schema metadata).

usage: tables_readback.py GPUTRACE TRACE [DEVICE]
DEVICE (default host) runs critical-path's table formats on that device; they
must equal the host's JSON document.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
from decimal import Decimal

import polars as pl
import pyarrow as pa
import pyarrow.ipc as ipc

FORMATS = ("ndjson", "csv", "arrow", "arrow-stream")
ID_COLS = ("pid", "tid", "viewport")


def run(gputrace, args, device="host"):
    p = subprocess.run([gputrace, *args, "--device", device] if device else [gputrace, *args],
                       capture_output=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
    return p.stdout, p.stderr.decode("utf-8", "replace")


def to_arrow_row(r):
    """A JSON row in Arrow's terms: _us columns become integer _ns."""
    out = {}
    for k, v in r.items():
        if k.endswith("_us"):
            ns = Decimal(v) * 1000
            if ns != ns.to_integral_value():
                sys.exit(f"{k}={v} is not a whole number of nanoseconds")
            out[k[:-3] + "_ns"] = int(ns)
        else:
            out[k] = v
    return out


def with_ns(r):
    """A row as the text formats write it: each _us time followed by its
    integer _ns (unless the table has that column already)."""
    out = {}
    for k, v in r.items():
        out[k] = v
        if k.endswith("_us") and k[:-3] + "_ns" not in r:
            out[k[:-3] + "_ns"] = None if v is None else int(Decimal(v) * 1000)
    return out


def csv_text(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def compare(label, got, want):
    if len(got) != len(want):
        sys.exit(f"{label}: {len(got)} rows, want {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if list(g.keys()) != list(w.keys()):
            sys.exit(f"{label}: row {i} columns {list(g.keys())}, want {list(w.keys())}")
        for k in w:
            # pid/tid are int64 unless text is needed; the viewport id is text
            ok = g[k] == w[k] or (k in ID_COLS and w[k] is not None and str(g[k]) == str(w[k]))
            # a float64 column (a share) against the JSON's decimal text
            ok = ok or (isinstance(g[k], float) and isinstance(w[k], Decimal) and g[k] == float(w[k]))
            # ... and its CSV text, the shortest that reads back (2e-06 for 0.000002)
            ok = ok or (isinstance(g[k], str) and isinstance(w[k], str) and k in ("share", "wall_share") and g[k] and w[k]
                        and float(g[k]) == float(w[k]))
            if not ok or (isinstance(w[k], bool) != isinstance(g[k], bool)):
                sys.exit(f"{label}: row {i} column {k}: got {g[k]!r}, want {w[k]!r}")


def check_formats(gputrace, args, want, label, meta=None, device="host", types=None):
    """Runs `args -f FMT` for every table format and compares with want (rows
    in JSON terms). meta: schema metadata entries the Arrow forms must hold.
    types: Arrow column types to check. Returns the stderr of the csv run."""
    text_want = [with_ns(r) for r in want]
    cols = list(text_want[0].keys()) if want else None
    notice = ""
    for fmt in FORMATS:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out." + fmt)
            _, err = run(gputrace, [*args, "-f", fmt, "-o", path], device)
            with open(path, "rb") as f:
                data = f.read()
        if fmt == "ndjson":
            got = [json.loads(line, parse_float=Decimal) for line in data.decode("utf-8").splitlines()]
            compare(f"{label} ndjson", got, text_want)
        elif fmt == "csv":
            notice = err
            rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
            if cols and rows[0] != cols:
                sys.exit(f"{label} csv: header {rows[0]}, want {cols}")
            got = [dict(zip(rows[0], r)) for r in rows[1:]]
            compare(f"{label} csv", got, [{k: csv_text(v) for k, v in r.items()} for r in text_want])
        else:
            stream = fmt == "arrow-stream"
            buf = pa.py_buffer(data)
            table = (ipc.open_stream(buf) if stream else ipc.open_file(buf)).read_all()
            table.validate(full=True)
            md = table.schema.metadata or {}
            if b"gputrace_version" not in md:
                sys.exit(f"{label} {fmt}: no gputrace_version in {md}")
            for k, v in (meta or {}).items():
                if md.get(k.encode()) != str(v).encode():
                    sys.exit(f"{label} {fmt}: metadata {k}={md.get(k.encode())!r}, want {v!r}")
            for k, t in (types or {}).items():
                if table.schema.field(k).type != t:
                    sys.exit(f"{label} {fmt}: column {k} is {table.schema.field(k).type}, want {t}")
            aw = [to_arrow_row(r) for r in want]
            compare(f"{label} {fmt} (pyarrow)", table.to_pylist(), aw)
            bio = io.BytesIO(data)
            df = pl.read_ipc_stream(bio) if stream else pl.read_ipc(bio)
            compare(f"{label} {fmt} (polars)", df.to_dicts(), aw)
    return notice


def summary_meta(s, source):
    return {
        "source": source, "spans": s["spans"], "max_path_duration_ns": s["max_path_duration_ns"],
        "endpoint": "none" if s["endpoint"] is None else s["endpoint"], "max_hop_count": s["max_hop_count"],
        "path_rows": s["path_rows"], "marked_rows": s["marked_rows"], "flags": ",".join(s["flags"]),
        "flag_bits": s["flag_bits"],
    }


def critical_path(gputrace, trace, device):
    """The forest model's path and per-row tables."""
    doc = json.loads(run(gputrace, ["critical-path", "--model", "forest", "--rows", trace])[0], parse_float=Decimal)
    spans = json.loads(run(gputrace, ["spans", trace], None)[0], parse_float=Decimal)
    meta = summary_meta(doc["summary"], trace)
    if device == "host":
        meta["device"] = "host"
    u32 = {"id": pa.uint32()}
    notice = check_formats(gputrace, ["critical-path", "--model", "forest", trace], doc["path"],
                           f"{trace} critical-path path",
                           meta, device, dict(u32, dur_ns=pa.int64(), path_duration_ns=pa.int64()))
    if "critical path: spans=%d " % doc["summary"]["spans"] not in notice:
        sys.exit(f"{trace} critical-path: the summary notice is missing: {notice!r}")
    if len(doc["rows"]) != len(spans):
        sys.exit(f"{trace}: {len(doc['rows'])} critical-path rows, {len(spans)} spans")
    want = []
    for i, (r, s) in enumerate(zip(doc["rows"], spans)):
        want.append({"id": i, "parent": s["parent"], "name": s["name"], "cat": s["cat"], "dur_us": s["dur_us"],
                     **r})
    check_formats(gputrace, ["critical-path", "--model", "forest", "--rows", trace], want,
                  f"{trace} critical-path rows", meta, device,
                  dict(u32, parent=pa.uint32(), root=pa.uint32(), critical_mask=pa.bool_(),
                       slack_ns=pa.int64(), name=pa.dictionary(pa.int32(), pa.string())))
    return len(doc["path"]), len(want)


def point_cols(prefix, p):
    return {prefix + "_point": p["point"], prefix + "_span": p["span"], prefix + "_which": p["which"],
            prefix + "_ns": p["ts_ns"]}


def causal(gputrace, trace, device):
    """The causal model's four tables, each equal to the JSON document's
    windows, path, breakdown and rows (computed on the host)."""
    p = subprocess.run([gputrace, "critical-path", "--path", "--top", "0", "--rows", trace, "--device", "host"], capture_output=True)
    if p.returncode == 1 and b"no thread-track span takes part" in p.stderr:
        return 0, 0  # nothing to analyse: the documented error, checked in critical_path.sh
    doc = json.loads(run(gputrace, ["critical-path", "--path", "--top", "0", "--rows", trace])[0], parse_float=Decimal)
    path, breakdown, windows, rows = [], [], [], []
    for w, win in enumerate(doc["windows"]):
        for h, hop in enumerate(win["path"]):
            path.append({"window": w, "hop": h, "kind": hop["kind"], **point_cols("from", hop["from"]),
                         **point_cols("to", hop["to"]), "owner": hop["owner"], "owner_name": hop.get("owner_name"),
                         "owner_cat": hop.get("owner_cat"), "track": hop["track"], "flow_cat": hop.get("flow_cat"),
                         "class": hop["class"], "duration_ns": hop["duration_ns"]})
        for b in win["breakdown"]:
            breakdown.append({"window": w, "kind": b["kind"], "key": b["key"], "critical_ns": b["critical_ns"],
                              "share": b["share"], "wall_share": b["wall_share"]})
        s = win["summary"]
        lo = s["flows_left_out"]
        windows.append({"window": w, "step_span": s["step_span"], "begin_ns": s["begin_ns"], "end_ns": s["end_ns"],
                        "wall_ns": s["wall_ns"], "path_duration_ns": s["path_duration_ns"],
                        "endpoint_span": s["endpoint"]["span"] if s["endpoint"] else None,
                        "root_span": s["root"]["span"] if s["root"] else None, "hops": s["hops"],
                        "points": s["points"], "spans": s["spans"], "tracks": s["tracks"],
                        "chain_edges": s["edges"]["chain"], "flow_edges": s["edges"]["flow"],
                        "wait_edges": s["edges"]["wait"], "backward_edges": s["backward_edges"],
                        "isolated_tracks": s["isolated_tracks"], "flows_left_out_self": lo["self"],
                        "flows_left_out_not_taking_part": lo["not_taking_part"],
                        "flows_left_out_other_window": lo["other_window"], "flags": ",".join(s["flags"]),
                        "flag_bits": sum(1 << ["no_dependencies", "cycle", "overflow"].index(f) for f in s["flags"])})
        rows += [{"window": w, **r} for r in win["rows"]]
    u32 = pa.uint32()
    check_formats(gputrace, ["critical-path", trace], path, f"{trace} causal path", {"model": "causal"}, device,
                  {"from_point": u32, "from_ns": pa.int64(), "duration_ns": pa.int64(),
                   "kind": pa.dictionary(pa.int32(), pa.string())})
    check_formats(gputrace, ["critical-path", "--table", "breakdown", trace], breakdown, f"{trace} causal breakdown",
                  {"model": "causal"}, device, {"critical_ns": pa.int64(), "share": pa.float64(), "wall_share": pa.float64()})
    check_formats(gputrace, ["critical-path", "--table", "windows", trace], windows, f"{trace} causal windows",
                  {"model": "causal"}, device, {"wall_ns": pa.int64(), "step_span": u32})
    check_formats(gputrace, ["critical-path", "--table", "rows", trace], rows, f"{trace} causal rows",
                  {"model": "causal"}, device, {"float_ns": pa.int64(), "on_path": pa.bool_()})
    return len(path), len(rows)


def query(gputrace, trace):
    info = json.loads(run(gputrace, ["info", trace], None)[0], parse_float=Decimal)
    dur = Decimal(info["time"]["duration_us"])
    counts = []
    # a quarter of the trace, and the whole of it with a small capacity
    for extra in (["--time", f"0:{int(dur / 4) + 1}us"], ["--time", "0:1000s", "--capacity", "5"]):
        doc = json.loads(run(gputrace, ["query", trace, *extra])[0], parse_float=Decimal)
        cand = [{"level": doc["level"], "batch": b} for b in doc["candidates"]]
        meta = {"source": trace, "queries": 1, "overflows": int(doc["overflow"])}
        check_formats(gputrace, ["query", trace, *extra], cand, f"{trace} query {extra}", meta,
                      types={"batch": pa.uint32(), "level": pa.uint32()})
        doc = json.loads(run(gputrace, ["query", trace, "--expand", *extra])[0], parse_float=Decimal)
        sp = [{"level": doc["level"], **s} for s in doc["spans"]]
        check_formats(gputrace, ["query", trace, "--expand", *extra], sp, f"{trace} query --expand {extra}", meta,
                      types={"id": pa.uint32(), "ts_ns": pa.int64(), "name": pa.dictionary(pa.int32(), pa.string())})
        counts += [len(cand), len(sp)]
    # several viewports, one repeated (a cache hit), ids of several JSON kinds
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        q = int(dur / 8) + 1
        f.write(json.dumps({"id": "first", "time": f"0:{q}us"}) + "\n")
        f.write(json.dumps({"id": "again", "time": f"0:{q}us"}) + "\n")
        f.write(json.dumps({"id": 7, "time": f"{q}:{2 * q}us", "lanes": "0:4"}) + "\n")
        f.write(json.dumps({"time": "0:1000s", "capacity": 3}) + "\n")
        vp = f.name
    try:
        for expand in ([], ["--expand"]):
            out = run(gputrace, ["query", trace, "--viewports", vp, *expand])[0].decode("utf-8")
            docs = [json.loads(line, parse_float=Decimal) for line in out.splitlines()]
            want = []
            for i, d in enumerate(docs):
                vid = d.get("id")
                head = {"query": i, "viewport": vid if vid is None or isinstance(vid, str) else json.dumps(vid),
                        "level": d["level"]}
                if expand:
                    want += [{**head, **s} for s in d["spans"]]
                else:
                    want += [{**head, "batch": b} for b in d["candidates"]]
            meta = {"queries": 4, "cache_hits": 1}
            check_formats(gputrace, ["query", trace, "--viewports", vp, *expand], want,
                          f"{trace} query --viewports {expand}", meta,
                          types={"query": pa.uint64(), "viewport": pa.string()})
            counts.append(len(want))
    finally:
        os.unlink(vp)
    return counts


def devices(gputrace):
    rows = json.loads(run(gputrace, ["devices"], None)[0], parse_float=Decimal)
    check_formats(gputrace, ["devices"], rows, "devices", device=None,
                  types={"index": pa.uint32(), "global_mem_bytes": pa.uint64()} if rows else None)
    return len(rows)


def main():
    gputrace, trace = sys.argv[1], sys.argv[2]
    device = sys.argv[3] if len(sys.argv) > 3 else "host"
    if trace == "devices":
        print(f"tables readback: devices: {devices(gputrace)} rows equal in 5 formats")
        return
    npath, nrows = critical_path(gputrace, trace, device)
    nhops, nspans = causal(gputrace, trace, device)
    if device != "host":
        where = device or "GPUTRACE_DEVICE=" + os.environ.get("GPUTRACE_DEVICE", "")
        print(f"tables readback: {trace} on {where}: critical path {npath} rows, {nrows} rows, causal "
              f"{nhops} hops, {nspans} span rows equal the host")
        return
    q = query(gputrace, trace)
    print(f"tables readback: {trace}: critical path {npath} rows, per-row {nrows}, query tables {q}, "
          "equal in 5 formats")


if __name__ == "__main__":
    main()
