"""Checks a `gputrace critical-path --rows` document (the causal model)
against what its rules imply, independently of how gputrace computed it.

usage: causal_check.py DOC.json SPANS.csv

Per window: the hops are contiguous in time and in points, root first and
endpoint last; each lasts to - from; they sum to path_duration_ns, which is
at most wall_ns and the window's bounds; the breakdown is the hops summed by
(kind, key) and sums to path_duration_ns exactly, and with its before_root
and after_endpoint entries to wall_ns; every span row has float
>= 0; the spans on the path are exactly those of the hops' points; a span's
critical_ns is the work hops it owns; the time waited equals the time
caused; the aggregate is the windows' min/median/max and summed breakdown.
"""
import csv
import json
import sys
from collections import defaultdict


def check_window(w, spans, by, fails):
    s = w["summary"]
    tag = "window %d" % s["window"]
    path = w["path"]
    total = 0
    for i, h in enumerate(path):
        if h["duration_ns"] != h["to"]["ts_ns"] - h["from"]["ts_ns"] or h["duration_ns"] < 0:
            fails.append("%s hop %d: duration %d, points %d..%d" % (tag, i, h["duration_ns"], h["from"]["ts_ns"],
                                                                    h["to"]["ts_ns"]))
        if i and (path[i - 1]["to"] != h["from"]):
            fails.append("%s hop %d does not start where hop %d ends" % (tag, i, i - 1))
        total += h["duration_ns"]
    if path and (path[0]["from"] != s["root"] or path[-1]["to"] != s["endpoint"]):
        fails.append("%s: the hops do not run from the root to the endpoint" % tag)
    if total != s["path_duration_ns"]:
        fails.append("%s: hops sum to %d, path_duration_ns %d" % (tag, total, s["path_duration_ns"]))
    if s["path_duration_ns"] > s["wall_ns"]:
        fails.append("%s: path %d longer than the wall time %d" % (tag, s["path_duration_ns"], s["wall_ns"]))
    if s["hops"] != len(path):
        fails.append("%s: hops %d, path has %d" % (tag, s["hops"], len(path)))
    if s["step_span"] is not None and not (s["begin_ns"] <= s["end_ns"]):
        fails.append("%s: bounds %d..%d" % (tag, s["begin_ns"], s["end_ns"]))

    # breakdown: the hops by (kind, key)
    want = defaultdict(int)
    for h in path:
        if h["kind"] == "work":
            key = spans[h["owner"]][by] if h["owner"] is not None else None
        elif h["kind"] == "flow":
            key = h.get("flow_cat")
        elif h["kind"] == "queue":
            key = h["track"]
        elif h["kind"] == "stream_wait":
            key = h.get("wait_source")
        else:
            key = None
        want[(h["kind"], key)] += h["duration_ns"]
    wall_parts = {b["kind"]: b["critical_ns"] for b in w["breakdown"] if b["kind"] in ("before_root", "after_endpoint")}
    got = {(b["kind"], b["key"]): b["critical_ns"] for b in w["breakdown"]
           if b["kind"] not in ("before_root", "after_endpoint")}
    # the wall whole: before the root, the path, after the endpoint
    if s.get("before_root_ns") is not None:
        if (s["before_root_ns"] + s["path_duration_ns"] + s["after_endpoint_ns"] != s["wall_ns"] or
                wall_parts.get("before_root", 0) != s["before_root_ns"] or
                wall_parts.get("after_endpoint", 0) != s["after_endpoint_ns"] or
                s["before_root_ns"] < 0 or s["after_endpoint_ns"] < 0):
            fails.append("%s: wall %d is not before_root %s + path %d + after_endpoint %s" %
                         (tag, s["wall_ns"], s["before_root_ns"], s["path_duration_ns"], s["after_endpoint_ns"]))
    if got != {k: v for k, v in want.items() if v or k in got}:
        fails.append("%s: breakdown %s, hops give %s" % (tag, sorted(got.items())[:6], sorted(want.items())[:6]))
    if sum(got.values()) != s["path_duration_ns"]:
        fails.append("%s: breakdown sums to %d" % (tag, sum(got.values())))

    # rows
    on = {h["from"]["span"] for h in path} | {h["to"]["span"] for h in path}
    work = defaultdict(int)
    for h in path:
        if h["kind"] == "work" and h["owner"] is not None:
            work[h["owner"]] += h["duration_ns"]
    waited = caused = 0
    for r in w.get("rows", []):
        if r["float_ns"] < 0:
            fails.append("%s: span %d has float %d" % (tag, r["span"], r["float_ns"]))
        if r["on_path"] != (r["span"] in on):
            fails.append("%s: span %d on_path %s" % (tag, r["span"], r["on_path"]))
        if r["critical_ns"] != work.get(r["span"], 0):
            fails.append("%s: span %d critical_ns %d, its work hops %d" % (tag, r["span"], r["critical_ns"],
                                                                         work.get(r["span"], 0)))
        waited += r["waited_ns"]
        caused += r["caused_wait_ns"]
    if waited != caused:
        fails.append("%s: waited %d, caused %d" % (tag, waited, caused))
    return len(path)


def main():
    doc = json.load(open(sys.argv[1]))
    spans = {}
    with open(sys.argv[2], newline="") as f:
        for row in csv.DictReader(f):
            spans[int(row["id"])] = row
    by = "cat"
    fails = []
    hops = sum(check_window(w, spans, by, fails) for w in doc["windows"])
    agg = doc["aggregate"]
    pd = sorted(w["summary"]["path_duration_ns"] for w in doc["windows"])
    if agg["windows"] != len(pd) or (pd and (agg["path_duration"]["min_ns"], agg["path_duration"]["median_ns"],
                                              agg["path_duration"]["max_ns"]) != (pd[0], pd[(len(pd) - 1) // 2],
                                                                                   pd[-1])):
        fails.append("aggregate path_duration %s, windows %s" % (agg["path_duration"], pd))
    summed = defaultdict(int)
    for w in doc["windows"]:
        for b in w["breakdown"]:
            summed[(b["kind"], b["key"])] += b["critical_ns"]
    if {(b["kind"], b["key"]): b["critical_ns"] for b in agg["breakdown"]} != dict(summed):
        fails.append("aggregate breakdown is not the windows' sum")
    for f in fails[:20]:
        print("FAIL: %s: %s" % (sys.argv[1], f))
    print("causal_check: %d windows, %d hops, %d failures" % (len(doc["windows"]), hops, len(fails)))
    return 1 if fails else 0


sys.exit(main())
