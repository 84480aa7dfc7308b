"""Checks a `gputrace render` SVG against `gputrace query --expand` for the
same viewport, with an independent classification of every span.

usage: render_check.py SVG QUERY.json INFO.json SPANS.csv T0:T1|- WIDTH

T0:T1 is the window in integer ns from the trace start ("-": the whole
trace). Checks: the SVG parses as XML; every span of the query is drawn
exactly once, either as a box (the longest wide span starting in its lane
and pixel cell) or counted in its lane's density cell, with the longest
span as representative; the element count is at most lanes x width; the
critical-path chain (if any) lists query spans in parent-chain order.
"""
import csv
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from decimal import Decimal

NS = "{http://www.w3.org/2000/svg}"


def us_to_ns(v):
    return int(Decimal(str(v)) * 1000)


def main():
    svg, qpath, ipath, spath, window, width = sys.argv[1:7]
    W = int(width)
    root = ET.parse(svg).getroot()  # raises on invalid XML
    import json
    q = json.load(open(qpath), parse_float=Decimal)
    info = json.load(open(ipath), parse_float=Decimal)
    start = us_to_ns(info["time"]["start_us"])
    end = us_to_ns(info["time"]["end_us"])
    if window == "-":
        t0, t1 = 0, end - start
    else:
        a, b = window.split(":")
        t0, t1 = int(a), int(b)
    D = t1 - t0 + 1
    spans = q["spans"]
    fails = []

    # the independent classification
    box = {}
    dens = defaultdict(int)
    rep = {}
    def longer(a, b):
        return (a["dur"], -a["id"]) > (b["dur"], -b["id"])
    def add_d(key, s):
        dens[key] += 1
        if key not in rep or longer(s, rep[key]):
            rep[key] = s
    for s in spans:
        s = dict(s)
        s["ts"] = us_to_ns(s["ts_us"]) - start
        s["dur"] = us_to_ns(s["dur_us"])
        s0 = max(s["ts"], t0)
        e0 = min(s["ts"] + s["dur"], t1)
        assert e0 >= s0, s
        cell = min(max((s0 - t0) * W // D, 0), W - 1)
        key = (s["lane"], cell)
        if (e0 - s0) * W < D:
            add_d(key, s)
        elif key not in box:
            box[key] = s
        elif longer(s, box[key]):
            add_d(key, box[key])
            box[key] = s
        else:
            add_d(key, s)

    got_box = {}
    got_dens = {}
    for r in root.iter(NS + "rect"):
        cls = r.get("class", "").split()
        if "span" in cls:
            k = int(r.get("data-span-id"))
            if k in got_box:
                fails.append("span %d drawn twice" % k)
            got_box[k] = int(r.get("data-lane"))
        elif "density" in cls:
            key = (int(r.get("data-lane")), int(r.get("data-cell")))
            got_dens[key] = (int(r.get("data-density")), int(r.get("data-span-id")))
    want_box = {s["id"]: s["lane"] for s in box.values()}
    want_dens = {k: (n, rep[k]["id"]) for k, n in dens.items()}
    if got_box != want_box:
        extra = sorted(set(got_box) - set(want_box))[:10]
        missing = sorted(set(want_box) - set(got_box))[:10]
        fails.append("boxes differ: extra %s missing %s" % (extra, missing))
    if got_dens != want_dens:
        diff = [k for k in set(got_dens) | set(want_dens) if got_dens.get(k) != want_dens.get(k)][:10]
        fails.append("density cells differ at %s: got %s want %s" %
                     (diff, [got_dens.get(k) for k in diff], [want_dens.get(k) for k in diff]))
    drawn = len(got_box) + sum(n for n, _ in got_dens.values())
    if drawn != len(spans):
        fails.append("%d spans drawn, the query has %d" % (drawn, len(spans)))
    lanes = {s["lane"] for s in spans}
    if len(got_box) + len(got_dens) > max(len(lanes), 1) * W:
        fails.append("more than lanes x width elements")
    labels = {int(t.get("data-lane")) for t in root.iter(NS + "text") if t.get("class") == "lane-label"}
    if not labels <= lanes:
        fails.append("lane labels on lanes without spans: %s" % sorted(labels - lanes))

    # critical path chain: query spans, each an ancestor of the next
    parent = {}
    with open(spath) as f:
        for row in csv.DictReader(f):
            parent[int(row["id"])] = int(row["parent"]) if row["parent"] else None
    ids = {s["id"] for s in spans}
    for pl in root.iter(NS + "polyline"):
        chain = [int(x) for x in pl.get("data-span-ids").split()]
        if not set(chain) <= ids:
            fails.append("critical path lists spans outside the viewport")
        for a, b in zip(chain, chain[1:]):
            p = parent.get(b)
            while p is not None and p != a:
                p = parent.get(p)
            if p != a:
                fails.append("critical path: %d is not an ancestor of %d" % (a, b))
                break
    for f in fails:
        print("FAIL: %s: %s" % (svg, f))
    print("%s: %d spans, %d boxes, %d density cells" % (svg, len(spans), len(got_box), len(got_dens)))
    return 1 if fails else 0


sys.exit(main())
