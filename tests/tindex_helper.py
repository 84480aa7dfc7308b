"""Helpers for tests/tindex_real.sh (standard library only).

viewports
    Prints a viewport file: windows x lane windows x group masks x levels
    0 to 3 and auto; each id encodes the viewport.
check SPANS.ndjson RESULTS.ndjson
    Brute-force filter of `gputrace spans -f ndjson` output: checks that the
    "spans" of every result are exactly the spans meeting its viewport
    (closed time window from the first span's start, half-open lanes, group
    mask), in id order; that candidates strictly increase; and that every
    level gives the same candidates.
grow TRACE.json K PREFIX.json FULL.json
    Writes a trace holding the first K events and the whole trace, so that
    FULL.json is PREFIX.json with events appended.
"""
import json
import sys
from decimal import Decimal


def ns(us):
    return int(Decimal(str(us)) * 1000)


UNIT = {"ns": 1, "us": 1000, "ms": 1000000, "s": 1000000000}
WINDOWS = ["0:1ms", "10:20ms", "0:1000s", "1.5ms:1.75ms"]
LANES = ["0:", "2:9"]
GROUPS = [0xffffffff, 6]


def window_ns(w):
    def one(x, default):
        for u in ("ns", "us", "ms", "s"):
            if x.endswith(u):
                return int(Decimal(x[:-len(u)]) * UNIT[u]), UNIT[u]
        return None, default
    a, b = w.split(":")
    bv, bu = one(b, 1000)
    if bv is None:
        bv = int(Decimal(b) * bu)
    av, _ = one(a, bu)
    if av is None:
        av = int(Decimal(a) * bu)
    return av, bv


def viewports():
    for w in WINDOWS:
        for lanes in LANES:
            for g in GROUPS:
                for level in [0, 1, 2, 3, "auto"]:
                    vid = "%s|%s|%d|%s" % (w, lanes, g, level)
                    print(json.dumps({"id": vid, "time": w, "lanes": lanes, "groups": g, "level": level}))
    return 0


def check(spans_path, results_path):
    rows = [json.loads(l) for l in open(spans_path) if l.strip()]
    start = min((ns(r["ts_us"]) for r in rows), default=0)
    by_view = {}
    bad = 0
    for line in open(results_path):
        res = json.loads(line)
        w, lanes, g, level = res["id"].split("|")
        a, b = window_ns(w)
        t0, t1 = start + a, start + b
        l0, l1 = lanes.split(":")
        l0, l1 = int(l0), int(l1) if l1 else 2**32 - 1
        mask = int(g)
        want = [r["id"] for r in rows
                if ns(r["ts_us"]) <= t1 and ns(r["ts_us"]) + max(ns(r["dur_us"]), 0) >= t0
                and l0 <= r["lane"] < l1 and (mask >> r["group"]) & 1]
        got = [s["id"] for s in res["spans"]]
        c = res["candidates"]
        key = (w, lanes, g)
        if got != want:
            print("%s: %d spans from the index, %d by brute force" % (res["id"], len(got), len(want)))
            bad += 1
        if any(x >= y for x, y in zip(c, c[1:])):
            print("%s: candidates not strictly increasing" % res["id"])
            bad += 1
        if by_view.setdefault(key, c) != c:
            print("%s: candidates differ between levels" % res["id"])
            bad += 1
    return 1 if bad else 0


def grow(trace, k, prefix, full):
    data = json.load(open(trace))
    events = data["traceEvents"] if isinstance(data, dict) else data
    def write(path, evs):
        with open(path, "w") as f:
            f.write("[\n" + ",\n".join(json.dumps(e, sort_keys=True) for e in evs) + "\n]\n")
    write(prefix, events[:k])
    write(full, events)
    return 0


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "viewports":
        sys.exit(viewports())
    if cmd == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    if cmd == "grow":
        sys.exit(grow(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]))
    sys.exit(2)
