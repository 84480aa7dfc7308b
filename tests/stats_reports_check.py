"""Checks every `gputrace stats` report (man gputrace: STATS) against the
span and flow tables, independently: kernels by class, ops, runtime,
gpu-time, overlap, launches and idle, for the whole trace or per step.

usage: stats_reports_check.py STATS.json SPANS.csv NESTING.csv FLOWS.csv [STEP_GLOB]

STATS.json is `stats --report all` (with --group class, and --step when a
glob is given); SPANS.csv is `spans -f csv`, NESTING.csv the same with
--parents nesting (nesting parents only), FLOWS.csv `spans --flows -f csv`.
Steps are checked on single traces (not a job's windows).
"""
import bisect
import csv
import fnmatch
import json
import sys
from collections import defaultdict
from decimal import Decimal

DEVICE = {"kernel": "compute", "gpu_memcpy": "memcpy", "memcpy": "memcpy", "gpu_memset": "memset", "memset": "memset"}
ORDER = ["compute", "communication", "memcpy", "memset"]
RUNTIME_WORDS = [("launch", "launch"), ("synchronize", "sync"), ("waitevent", "sync"), ("query", "sync"),
                 ("memcpy", "memory"), ("memset", "memory"), ("prefetch", "memory"), ("malloc", "alloc"),
                 ("free", "alloc"), ("alloc", "alloc"), ("mempool", "alloc")]


def share(num, den):
    if den <= 0 or num < 0:
        return Decimal(0)
    return Decimal((num * 2000000 // den + 1) // 2) / Decimal(1000000)


def dist(durs):
    durs = sorted(durs)
    n, total = len(durs), sum(durs)
    return {"count": n, "total_ns": total, "mean_ns": (2 * total + n) // (2 * n), "median_ns": durs[(n - 1) // 2],
            "p95_ns": durs[(95 * n + 99) // 100 - 1], "min_ns": durs[0], "max_ns": durs[-1]}


def measure(iv):
    """The length of the union of intervals."""
    total, hi = 0, None
    for b, e in sorted(iv):
        if hi is None or b > hi:
            total += e - b
            hi = e
        elif e > hi:
            total += e - hi
            hi = e
    return total


def union(iv):
    out = []
    for b, e in sorted(iv):
        if out and b <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([b, e])
    return out


def intersect(a, b):
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


class Trace:
    def __init__(self, spans_csv, nesting_csv, flows_csv, glob):
        self.spans = list(csv.DictReader(open(spans_csv, newline="")))
        nest = list(csv.DictReader(open(nesting_csv, newline="")))
        self.job = "rank" in self.spans[0] if self.spans else False
        for s, n in zip(self.spans, nest):
            s["b"], s["d"] = int(s["ts_ns"]), int(s["dur_ns"])
            s["e"] = s["b"] + s["d"]
            s["nest_parent"] = int(n["parent"]) if n["parent"] else None
            s["id"] = int(s["id"])
            cat = s["cat"].lower()
            s["dev"] = None
            if cat in DEVICE:
                s["dev"] = "communication" if any(w in s["name"].lower() for w in ("nccl", "rccl", "hccl")) else DEVICE[cat]
            pre = "rank %s:" % s["rank"] if self.job else ""
            s["stream"] = "%s%s/%s" % (pre, s["pid"], s["tid"])
            s["proc"] = (s.get("rank"), s["pid"])
        self.launcher, self.depart = {}, {}
        for f in csv.DictReader(open(flows_csv, newline="")):
            if not f["src"] or not f["dst"] or f["src"] == f["dst"]:
                continue
            src, dst = self.spans[int(f["src"])], self.spans[int(f["dst"])]
            if dst["dev"] is None or src["dev"] is not None:
                continue
            t = min(max(int(f["src_ts_ns"]), src["b"]), src["e"])
            if dst["id"] not in self.launcher or t < self.depart[dst["id"]]:
                self.launcher[dst["id"]], self.depart[dst["id"]] = src["id"], t
        self.windows = None
        if glob:
            dev_tracks = {(s.get("rank"), s["track"]) for s in self.spans if s["dev"]}
            self.windows = [s for s in self.spans if (s.get("rank"), s["track"]) not in dev_tracks
                            and fnmatch.fnmatchcase(s["name"], glob)]

    def window(self, s):
        """The step of a span (its launch, else its B), or None; 0 without steps."""
        if self.windows is None:
            return 0
        t = self.depart.get(s["id"], s["b"])
        best = None
        for k, w in enumerate(self.windows):  # the latest begun, ties the lowest index
            if w["b"] <= t <= w["e"] and (best is None or w["b"] > self.windows[best]["b"]):
                best = k
        return best

    def step_name(self, w):
        return self.windows[w]["name"] if self.windows is not None else None


def check(got, want, what, fails):
    for k in sorted(set(got) | set(want), key=str):
        if k not in got or k not in want:
            fails.append("%s %s: %s" % (what, k, "missing from gputrace" if k not in got else "not expected"))
            continue
        for f, v in want[k].items():
            g = got[k].get(f)
            if g != v:
                fails.append("%s %s %s: gputrace %s, expected %s" % (what, k, f, g, v))


def rows(doc, name, keyf):
    return {keyf(r): r for r in doc.get(name, [])}


def main():
    doc = json.load(open(sys.argv[1]), parse_float=Decimal)
    tr = Trace(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
    sp = tr.spans
    win = {s["id"]: tr.window(s) for s in sp}
    step = lambda r: r.get("step")
    fails = []

    dev = [s for s in sp if s["dev"] and win[s["id"]] is not None]
    # kernels by class (the document is --group class)
    busy = defaultdict(int)
    per = defaultdict(list)
    for s in dev:
        per[(win[s["id"]], s["proc"])].append((s["b"], s["e"]))
    for (w, _), iv in per.items():
        busy[w] += measure(iv)
    groups = defaultdict(list)
    for s in dev:
        groups[(win[s["id"]], s["dev"])].append(s["d"])
    want = {}
    for (w, cls), durs in groups.items():
        want[(tr.step_name(w), cls)] = dict(dist(durs), share=share(sum(durs), busy[w]))
    check(rows(doc, "kernels", lambda r: (step(r), r["class"])), want, "kernels", fails)

    # gpu-time and overlap, per (step, device)
    by = defaultdict(list)
    for s in dev:
        by[(win[s["id"]], s["proc"])].append(s)
    want_g, want_o = {}, {}
    for (w, proc), ss in by.items():
        lo, hi = min(s["b"] for s in ss), max(s["e"] for s in ss)
        # each instant to the highest class running: the union of each class
        # less what the classes above it cover
        above, parts = [], {}
        for cls in ORDER:
            iv = [(s["b"], s["e"]) for s in ss if s["dev"] == cls]
            parts[cls] = measure(above + iv) - measure(above)
            above += iv
        idle = (hi - lo) - measure(above)
        key = (tr.step_name(w), int(proc[0]) if proc[0] is not None else None, proc[1])
        want_g[key] = {"wall_ns": hi - lo, "idle_ns": idle, "idle_share": share(idle, hi - lo)}
        for cls in ORDER:
            want_g[key][cls + "_ns"] = parts[cls]
            want_g[key][cls + "_share"] = share(parts[cls], hi - lo)
        comm = union([(s["b"], s["e"]) for s in ss if s["dev"] == "communication"])
        comp = union([(s["b"], s["e"]) for s in ss if s["dev"] == "compute"])
        ov = intersect(comm, comp)
        cm = sum(e - b for b, e in comm)
        want_o[key] = {"communication_ns": cm, "compute_ns": sum(e - b for b, e in comp), "overlap_ns": ov,
                       "overlap_share": share(ov, cm)}
    gkey = lambda r: (step(r), r.get("rank"), r["device"])
    check(rows(doc, "gpu_time", gkey), want_g, "gpu_time", fails)
    check(rows(doc, "overlap", gkey), want_o, "overlap", fails)

    # ops and runtime
    kids = defaultdict(int)
    for s in sp:
        p = s["nest_parent"]
        if p is not None and sp[p]["track"] == s["track"] and sp[p].get("rank") == s.get("rank"):
            kids[p] += s["d"]
    gpu, launched = defaultdict(int), defaultdict(int)
    for d, l in tr.launcher.items():
        x = l
        while x is not None:
            gpu[x] += sp[d]["d"]
            launched[x] += 1
            x = sp[x]["nest_parent"]
    for name, test in (("ops", lambda c: c in ("cpu_op", "operator")),
                       ("runtime", lambda c: "runtime" in c or "driver" in c)):
        calls = [s for s in sp if s["dev"] is None and test(s["cat"].lower()) and win[s["id"]] is not None]
        g = defaultdict(list)
        for s in calls:
            g[(tr.step_name(win[s["id"]]), s["name"])].append(s)
        want = {}
        for k, ss in g.items():
            want[k] = dict(dist([s["d"] for s in ss]), self_ns=sum(s["d"] - kids[s["id"]] for s in ss),
                           gpu_ns=sum(gpu[s["id"]] for s in ss), launched=sum(launched[s["id"]] for s in ss))
            if name == "runtime":
                low = k[1].lower()
                want[k]["kind"] = next((kind for w, kind in RUNTIME_WORDS if w in low), "other")
        check(rows(doc, name, lambda r: (step(r), r["name"])), want, name, fails)

    # launches: the queue per stream over the whole trace, summarised per (step, stream)
    per_stream = defaultdict(list)
    for d, l in tr.launcher.items():
        per_stream[sp[d]["stream"]].append((sp[l]["b"], sp[d]["b"], d))
    q = {}
    for stream, ls in per_stream.items():
        launch_times = sorted(b for b, _, _ in ls)
        leaves = sorted(max(b, s) for b, s, _ in ls)
        for b, s, d in ls:
            q[d] = bisect.bisect_right(launch_times, b) - bisect.bisect_right(leaves, b)
    g = defaultdict(list)
    for d, l in tr.launcher.items():
        if win[d] is not None:
            g[(tr.step_name(win[d]), sp[d]["stream"])].append(d)
    want = {}
    for k, ds in g.items():
        lat = dist([sp[d]["b"] - sp[tr.launcher[d]]["b"] for d in ds])
        qs = sorted(q[d] for d in ds)
        n = len(qs)
        want[k] = {"launches": n, "latency_median_ns": lat["median_ns"], "latency_p95_ns": lat["p95_ns"],
                   "latency_min_ns": lat["min_ns"], "latency_max_ns": lat["max_ns"],
                   "latency_mean_ns": lat["mean_ns"], "queue_median": qs[(n - 1) // 2],
                   "queue_p95": qs[(95 * n + 99) // 100 - 1], "queue_max": qs[-1]}
    check(rows(doc, "launches", lambda r: (step(r), r["stream"])), want, "launches", fails)

    # idle, per (step, stream), kernel wait below 30 ns
    g = defaultdict(list)
    for s in dev:
        g[(tr.step_name(win[s["id"]]), s["stream"])].append(s)
    want = {}
    for k, ss in g.items():
        ss.sort(key=lambda s: (s["b"], s["id"]))
        end, parts, gaps = ss[0]["e"], {"host_wait": 0, "kernel_wait": 0, "other": 0}, 0
        for s in ss[1:]:
            if s["b"] > end:
                gap = s["b"] - end
                l = tr.launcher.get(s["id"])
                kind = "host_wait" if l is not None and sp[l]["b"] > end else "kernel_wait" if gap < 30 else "other"
                parts[kind] += gap
                gaps += 1
            end = max(end, s["e"])
        idle = sum(parts.values())
        want[k] = {"spans": len(ss), "gaps": gaps, "idle_ns": idle}
        for kind, v in parts.items():
            want[k][kind + "_ns"] = v
            want[k][kind + "_share"] = share(v, idle)
    check(rows(doc, "idle", lambda r: (step(r), r["stream"])), want, "idle", fails)

    for f in fails[:10]:
        print(f)
    if fails:
        print("%d differences" % len(fails))
        sys.exit(1)


main()
