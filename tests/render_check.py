"""Checks a `gputrace render` SVG against `gputrace query --expand` for the
same viewport, with an independent classification of every span.

usage: render_check.py SVG QUERY.json INFO.json SPANS.csv T0:T1|- WIDTH [PATH.csv]

T0:T1 is the window in integer ns from the trace start ("-": the whole
trace). Checks: the SVG parses as XML; every span of the query is drawn
exactly once, either as a box (the longest wide span starting in its lane
and pixel cell) or counted in its lane's density cell, with the longest
span as representative; the element count is at most lanes x width; with
PATH.csv (`critical-path -f csv` of the trace) the picture draws exactly the
path's hops that meet the window and whose rows are drawn, each with the
kind and end spans of its row of the path, stroked in the kind's colour (none
a category has), with a legend whose shares add up to the path. Span colours
follow the stated rule (render.h: Paul Tol's "light" scheme, fixed for the
common categories, FNV-1a of the name otherwise); no lane label has an empty
side.
"""
import csv
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from decimal import Decimal

NS = "{http://www.w3.org/2000/svg}"

TOL_LIGHT = ["#77aadd", "#ee8866", "#eedd88", "#ffaabb", "#99ddff", "#44bb99", "#bbcc33", "#aaaa00", "#dddddd"]
FIXED = {"cpu_op": 0, "user_annotation": 6, "python_function": 8, "cuda_runtime": 2, "cuda_driver": 7,
         "kernel": 5, "gpu_memcpy": 1, "gpu_memset": 3, "gpu_user_annotation": 4, "ac2g": 4,
         "toplevel": 8, "v8": 2, "blink": 0, "cc": 5, "gpu": 1,
         "operator": 0, "runtime": 2, "memcpy": 1, "memset": 3}
KIND_COLOUR = {"work": "#882255", "idle": "#555555", "flow": "#332288", "queue": "#117733", "wait": "#cc3311",
               "stream_wait": "#ee7733", "handoff": "#009988"}


def category_colour(cat):
    low = "".join(c.lower() if "A" <= c <= "Z" else c for c in cat)
    if low in FIXED:
        return TOL_LIGHT[FIXED[low]]
    if low.startswith("disabled-by-default-"):
        return TOL_LIGHT[4]
    h = 2166136261
    for b in cat.encode():
        h = ((h ^ b) * 16777619) & 0xffffffff
    return TOL_LIGHT[h % len(TOL_LIGHT)]


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
    cat_of = {s["id"]: s["group"] for s in spans}  # the renderer group: a category, or "other"
    group_cat = {}
    for r in root.iter(NS + "rect"):
        cls = r.get("class", "").split()
        if "span" in cls or "density" in cls:
            cat = cat_of[int(r.get("data-span-id"))]
            if r.get("fill") != category_colour(cat):
                fails.append("span %s of %r filled %s, the rule says %s" % (r.get("data-span-id"), cat, r.get("fill"),
                                                                            category_colour(cat)))
                break
    for t in root.iter(NS + "text"):
        if t.get("class") == "lane-label":
            sides = "".join(t.itertext()).split(" / ")
            if len(sides) != 2 or not all(x.strip() for x in sides):
                fails.append("lane label %r has an empty side" % "".join(t.itertext()))
    lanes = {s["lane"] for s in spans}
    if len(got_box) + len(got_dens) > max(len(lanes), 1) * W:
        fails.append("more than lanes x width elements")
    labels = {int(t.get("data-lane")) for t in root.iter(NS + "text") if t.get("class") == "lane-label"}
    if not labels <= lanes:
        fails.append("lane labels on lanes without spans: %s" % sorted(labels - lanes))

    # critical-path hops: each one in the window whose rows are drawn, folded
    # into elements as render.h says (runs along a row, repeats in a column)
    lane_of = {}
    with open(spath) as f:
        for row in csv.DictReader(f):
            lane_of[int(row["id"])] = int(row["lane"])
    drawn = []
    for ln in root.iter(NS + "line"):
        if ln.get("class") == "cp-hop":
            drawn.append((ln.get("data-kind"), int(ln.get("data-hop")), int(ln.get("data-hops")),
                          tuple(int(v) for v in ln.get("data-cells").split()),
                          tuple(int(v) for v in ln.get("data-lanes").split())))
    for ln in root.iter(NS + "line"):
        if ln.get("class") in ("cp-hop", "cp-key") and ln.get("stroke") != KIND_COLOUR[ln.get("data-kind")]:
            fails.append("%s of kind %s stroked %s" % (ln.get("class"), ln.get("data-kind"), ln.get("stroke")))
            break
    if set(KIND_COLOUR.values()) & set(TOL_LIGHT):
        fails.append("a path colour is a category colour")
    want = []
    path_ns = 0
    if len(sys.argv) > 7:
        def cell(t):
            return (t - t0) * W // D
        with open(sys.argv[7]) as f:
            for row in csv.DictReader(f):
                if row["window"] != "0":
                    continue
                path_ns += int(row["duration_ns"])
                a, b = int(row["from_ns"]) - start, int(row["to_ns"]) - start
                if b < t0 or a > t1:
                    continue
                fs, ts = int(row["from_span"]), int(row["to_span"])
                work = row["kind"] == "work" and row["owner"] != ""
                ends = (int(row["owner"]),) * 2 if work else (fs, ts)
                if not all(lane_of[e] in lanes for e in ends):
                    continue
                seg = [row["kind"], int(row["hop"]), 1, [cell(max(a, t0)), cell(min(b, t1))],
                       (lane_of[ends[0]], lane_of[ends[1]])]
                last = want[-1] if want else None
                if (last and seg[4][0] == seg[4][1] and last[4][0] == last[4][1] == seg[4][0] and
                        last[0] == seg[0] and last[3][1] == seg[3][0]):
                    last[3][1] = max(last[3][1], seg[3][1])
                    last[2] += 1
                    continue
                same = None
                for e in reversed(want[-64:]):
                    if e[3][0] != seg[3][0]:
                        break
                    if e[0] == seg[0] and e[3] == seg[3] and e[4] == seg[4]:
                        same = e
                        break
                if same:
                    same[2] += 1
                else:
                    want.append(seg)
        want = [(k, h, n, tuple(c), l) for k, h, n, c, l in want]
    elif drawn:
        fails.append("hops drawn but no path given to check them")
    if drawn != want:
        diff = [(i, d, w) for i, (d, w) in enumerate(zip(drawn, want)) if d != w][:3]
        fails.append("critical-path elements: %d drawn, %d expected; first differences %s" % (len(drawn), len(want), diff))
    shares = [int(t.get("data-ns")) for t in root.iter(NS + "text") if t.get("class") == "cp-share"]
    if drawn and sum(shares) != path_ns:
        fails.append("the legend's shares add up to %d ns, the path is %d ns" % (sum(shares), path_ns))
    if len(drawn) > 4 * W * max(len(lanes), 1):
        fails.append("critical path: %d elements for %d px" % (len(drawn), W))
    for f in fails:
        print("FAIL: %s: %s" % (svg, f))
    print("%s: %d spans, %d boxes, %d density cells" % (svg, len(spans), len(got_box), len(got_dens)))
    return 1 if fails else 0


sys.exit(main())
