"""Checks a critical-path overlay (tests/overlay.sh) against the analysis:
  overlay_check.py OVERLAY.json ORIGINAL.json|- SPANS.ndjson SPANS_OVERLAY.ndjson CP.json INFO.json INFO_OVERLAY.json
ORIGINAL is '-' when Python's json cannot read it (gputrace's leniencies).
The overlay must be strict JSON; its first events the original's with only
args.critical_path / args.float_us added (the floats and path marks of
CP.json, critical-path --rows); the rest the added ones: the critical-path
process, one slice per group of hops (hops shorter than 1 µs drawn with
their neighbours, overlay.h), a v1 flow pair per cross-track hop. gputrace's
re-read of the overlay must give the original spans, then the hop slices,
and the flows plus the added pairs."""
import json
import sys
from decimal import Decimal


def bad_constant(name):
    raise ValueError("not JSON: " + name)


def load_ndjson(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


MIN_SLICE_NS = 1000


def groups(path):
    """overlay.h's hop slices: (first, end) index ranges of the path, each at
    least MIN_SLICE_NS long but a window's only one; a shorter rest joins
    the slice before it."""
    n = len(path)
    rest = [0] * (n + 1)  # rest[j]: the duration of hops j..n-1
    for j in range(n - 1, -1, -1):
        rest[j] = rest[j + 1] + path[j]["duration_ns"]
    out, i = [], 0
    while i < n:
        j = i
        while j < n and rest[i] - rest[j] < MIN_SLICE_NS:
            j += 1
        if rest[j] < MIN_SLICE_NS:
            j = n
        out.append((i, j))
        i = j
    return out


def main():
    ov_path, orig_path, spans_path, spans_ov_path, cp_path, info_path, info_ov_path = sys.argv[1:8]
    with open(ov_path, "rb") as f:
        ov = json.loads(f.read().decode("utf-8"), parse_float=Decimal, parse_constant=bad_constant)
    evs = ov["traceEvents"] if isinstance(ov, dict) else ov
    info = json.load(open(info_path))
    info_ov = json.load(open(info_ov_path))
    spans = load_ndjson(spans_path)
    spans_ov = load_ndjson(spans_ov_path)
    cp = json.load(open(cp_path))
    n = info["events"]
    errors = []

    def err(msg):
        if len(errors) < 20:
            errors.append(msg)

    # the annotations the analysis asks for, the first window's where several
    want = {}
    for w in cp["windows"]:
        for r in w.get("rows", []):
            want.setdefault(r["span"], (r["float_ns"], r["on_path"]))
    opener = {s["id"]: s["event"] for s in spans}
    by_event = {opener[s]: s for s in want}
    for i in range(n):
        args = evs[i].get("args")
        s = by_event.get(i)
        got_f = args.get("float_us") if isinstance(args, dict) else None
        got_p = args.get("critical_path") if isinstance(args, dict) else None
        if s is None:
            continue
        if "args" in evs[i] and not isinstance(args, dict):
            if got_f is not None or got_p is not None:
                err(f"event {i}: args {args!r} is not an object, yet annotated")
            continue  # args that are not an object are left as they are
        fl, on = want[s]
        if got_f is None or Decimal(got_f) * 1000 != fl:
            err(f"event {i} (span {s}): float_us {got_f}, want {fl} ns")
        if (got_p == 1) != on or (got_p is not None and got_p != 1):
            err(f"event {i} (span {s}): critical_path {got_p}, on_path {on}")
    if orig_path != "-":
        with open(orig_path, "rb") as f:
            orig = json.loads(f.read().decode("utf-8-sig"), parse_float=Decimal)
        oevs = orig["traceEvents"] if isinstance(orig, dict) else orig
        if len(oevs) != n:
            err(f"original has {len(oevs)} events, info says {n}")
        for i in range(min(n, len(oevs))):
            e = dict(evs[i])
            if i in by_event and isinstance(e.get("args", {}), dict):
                a = dict(e.get("args", {}))
                a.pop("float_us", None)
                a.pop("critical_path", None)
                if a or "args" in oevs[i]:
                    e["args"] = a
                else:
                    e.pop("args", None)
            if e != oevs[i]:
                err(f"event {i} changed: {oevs[i]} -> {evs[i]}")
        if isinstance(orig, dict):
            ko = [k for k in orig]
            kv = [k for k in ov]
            if ko != kv:
                err(f"top-level members {ko} -> {kv}")
            for k in ko:
                if k != "traceEvents" and orig[k] != ov[k]:
                    err(f"top-level member {k} changed")
    # the added events
    added = evs[n:]
    meta = [e for e in added if e.get("ph") == "M"]
    rest = [e for e in added if e.get("ph") != "M"]
    if not meta or meta[0].get("name") != "process_name" or meta[0]["args"]["name"] != "critical path":
        err("no process_name 'critical path'")
    cp_pid = meta[0]["pid"] if meta else None
    numeric = [int(s["pid"]) for s in spans if str(s["pid"]).lstrip("-").isdigit()]
    if numeric and cp_pid <= max(numeric):
        err(f"critical path pid {cp_pid} is a trace's pid")
    if len(meta) != 1 + len(cp["windows"]):
        err(f"{len(meta)} metadata events for {len(cp['windows'])} windows")
    if any(e.get("cat") != "critical_path" for e in rest):
        err("an added event outside cat critical_path")
    slices = [e for e in rest if e["ph"] == "X"]
    starts = [e for e in rest if e["ph"] == "s"]
    ends = [e for e in rest if e["ph"] == "f"]
    if len(slices) + len(starts) + len(ends) != len(rest):
        err("added events of other phases")
    track_of = {s["id"]: (str(s["pid"]), str(s["tid"])) for s in spans}
    hops = [(wi, h) for wi, w in enumerate(cp["windows"]) for h in w["path"]]
    cross = [h for _, h in hops if track_of[h["from"]["span"]] != track_of[h["to"]["span"]]]
    drawn = [(wi, w["path"][i:j]) for wi, w in enumerate(cp["windows"]) for i, j in groups(w["path"])]
    if len(slices) != len(drawn):
        err(f"{len(slices)} hop slices, {len(drawn)} groups of hops")
    for (wi, g), e in zip(drawn, slices):
        h = max(g, key=lambda h: h["duration_ns"])  # the first of the longest
        name = h["kind"] + (" " + h["owner_name"] if h.get("owner") is not None else "")
        args = {"kind": h["kind"], **({"owner": h["owner"]} if h.get("owner") is not None else {}), "window": wi,
                **({"hops": len(g)} if len(g) > 1 else {})}
        if (e["name"], e["tid"], e["pid"], Decimal(e["ts"]) * 1000, Decimal(e["dur"]) * 1000, e["args"]) != (
                name, wi + 1, cp_pid, g[0]["from"]["ts_ns"], sum(x["duration_ns"] for x in g), args):
            err(f"hop slice {e} for hops {g}")
    # flow k is the k-th cross-track hop's; one that no order of points could
    # bind is left out (tests/overlay_bind.py checks that it must be)
    if len(starts) != len(ends) or len(starts) > len(cross):
        err(f"{len(starts)} flow starts, {len(ends)} ends, {len(cross)} cross-track hops")
    for s, f in zip(starts, ends):
        h = cross[s["id"] - 1] if isinstance(s["id"], int) and 0 < s["id"] <= len(cross) else None
        if h is None or s["id"] != f["id"] or f.get("bp") != "e" or \
                (str(s["pid"]), str(s["tid"])) != track_of[h["from"]["span"]] or \
                (str(f["pid"]), str(f["tid"])) != track_of[h["to"]["span"]]:
            err(f"flow pair {s} {f} for hop {h}")
    if len({s["id"] for s in starts}) != len(starts):
        err("flow ids repeat")
    # gputrace's re-read: the original spans, then exactly the hop slices
    keys = ("id", "event", "name", "cat", "pid", "tid", "ts_us", "dur_us", "depth", "track")
    if len(spans_ov) != len(spans) + len(drawn):
        err(f"re-read: {len(spans_ov)} spans, want {len(spans)} + {len(drawn)}")
    for a, b in zip(spans, spans_ov):
        if any(a[k] != b[k] for k in keys):
            err(f"re-read span differs: {a} -> {b}")
    for (wi, _), s in zip(drawn, spans_ov[len(spans):]):
        if (s["cat"], str(s["pid"]), str(s["tid"])) != ("critical_path", str(cp_pid), str(wi + 1)):
            err(f"re-read hop span {s}")
    if info_ov["flows"] != info["flows"] + len(starts):
        err(f"re-read: {info_ov['flows']} flows, want {info['flows']} + {len(starts)}")
    if info_ov["warnings"].get("unbound_flow", 0) != info["warnings"].get("unbound_flow", 0):
        err("re-read: an added flow does not bind")
    if info_ov["warnings"].get("trailing_comma", 0) or info_ov["warnings"].get("control_character", 0):
        err("re-read: the overlay has leniencies")
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print(f"ok: {n} events, {len(want)} floats, {len(hops)} hops in {len(drawn)} slices, {len(cross)} flows")


main()
