"""Cross-checks `gputrace stats` against HTA (Holistic Trace Analysis 0.5.0,
PyPI HolisticTraceAnalysis; make check-hta installs it into the venv):
HTA's temporal breakdown against --report gpu-time, its GPU kernel breakdown
against the kernels report, its communication/computation overlap against
--report overlap, on a trace or a job (a directory of rank files).

usage: hta_check.py [--timings FILE] [--runs N] GPUTRACE TRACE_OR_DIR...

Prints what agrees per unit and one line per disagreement; exits 0 when all
agrees or differs only by a definition named here, 1 on any unexplained
disagreement ("FAIL: trace rank R: quantity: gputrace G, HTA H [run]"), 3
when HTA fails ("HTA fails: reason") and nothing could be compared, on every
unit given. A TRACE_OR_DIR that is a folder is a job: its .json/.gz files
are the ranks (HTA reads the folder, gputrace the files). --timings FILE
also times HTA (its load, the TraceAnalysis construction, and each analysis)
and gputrace's matching commands, the median of N runs (default 5) of each,
into a Markdown table.

How HTA 0.5.0 defines each quantity (read from its source) and how that
differs from gputrace:

* Which events. HTA's "GPU kernels" are the rows whose args.stream is an
  integer other than -1, whatever their category: kernels, gpu_memcpy,
  gpu_memset, and also cuda_sync events with a stream ("Stream Wait Event"),
  MTIA events, even a cpu_op carrying a stream argument (Triton launches).
  gputrace's device spans are the categories kernel, gpu_memcpy, gpu_memset,
  memcpy, memset (any case). HTA keeps a trace file as one rank and merges
  all its GPUs (pids); gputrace works per process (pid).
* HTA's load (TraceAnalysis) drops GPU work: when the traces name at least
  two ProfilerStep#N it keeps only GPU events whose correlation id matches a
  CPU event starting before the start of the last ProfilerStep (the last
  step, and any GPU event without a CPU launch, are gone). gputrace keeps
  every span. So the comparison is made twice: HTA as a user runs it
  ("default"), where the differences are named and counted (dropped spans,
  extra stream events), and HTA's own load without that filter, restricted
  to gputrace's device categories ("same events": HTA's parser, its
  alignment and its analysis functions, fed the spans gputrace reads; the
  event sets are checked equal, by event index, first). Only the second is
  held to agreement; when the default keeps exactly those events its
  results must equal the second's.
* Time. HTA reads ts/dur as the JSON numbers (µs); when any is fractional
  it rounds every event inward, ts = ceil(ts), end = floor(ts + dur), in
  float64, and works in integer µs (an event shorter than a µs can become
  negative: kineto__before_fix_trace fails HTA's own assertion so). gputrace
  reads exact integer ns. Integer-µs traces must agree exactly (HTA µs x 1000
  = gputrace ns). Traces with fractional times are held to the bound HTA's
  rounding allows (each endpoint moves under 1 µs plus the float64 spacing;
  unions, sums and order statistics move at most that per event), and are
  also run through HTA as an ns-scaled copy (every ts and dur x 1000, exact
  integers, so HTA's "µs" are ns and nothing rounds): that run must agree
  exactly.
* Classes. HTA types kernels by name only: COMMUNICATION ^nccl.*Kernel,
  MEMORY ^Memcpy|^Memset|^dma, COMPUTATION anything else not matching
  ^nccl.*Kernel|.*Memcpy|^Memset|.*Sync, else OTHER. gputrace: compute is a
  kernel-category span not naming nccl/rccl/hccl (any case), communication
  one that does, memcpy/memset by category. A span the two class
  differently is counted and its class-dependent quantities are reported as
  a definition difference (none in the shared traces).
* Temporal breakdown (get_temporal_breakdown), per rank: kernel_time = last
  end - first start of its GPU events (= gputrace wall), idle = kernel_time -
  union of all GPU events (= idle), compute = union of COMPUTATION events
  (= compute: gputrace's top class), non_compute = the rest (= communication
  + memcpy + memset); HTA's pctg columns are 100 x each / kernel_time
  rounded to 2 decimals (gputrace *_share: 6 decimals).
* Kernel breakdown (get_gpu_kernel_breakdown, called with num_kernels and
  duration_ratio that group nothing into "others"; its defaults, 10 and 0.8,
  fold the rest into an "others" row), per rank and name, over COMPUTATION,
  COMMUNICATION and MEMORY kernels (OTHER never listed): sum, max, min, mean
  (float), std (pandas: the sample deviation, n - 1; gputrace: population,
  rounded to the ns, compared after x sqrt((n-1)/n)); no count, median, p95
  or share: count, lower median and nearest-rank p95 are taken from HTA's
  own frame. Its first table is per kernel type: the union of each type's
  events, split by which types overlap ("COMPUTATION overlapping
  COMMUNICATION"...), summed over ranks, percentages of their total: the
  total is the GPU busy time (gputrace's share denominator: the union per
  process, summed over the processes; with --by rank gputrace has used the
  job's sum and now the rank's own, so the check finds which one every row
  follows and says so, the rank's being its union in HTA's frame), the
  labels with COMPUTATION are gputrace's compute, those with COMMUNICATION
  and not COMPUTATION its communication, MEMORY alone its memcpy + memset.
* Overlap (get_comm_comp_overlap), per rank over the whole trace (no
  per-iteration averaging in 0.5.0): the measure of (union of COMMUNICATION)
  intersected with (union of COMPUTATION) over the union of COMMUNICATION,
  returned only as a percentage rounded to 2 decimals, NaN (0/0) on a rank
  without communication, where gputrace says 0. The unions and their
  intersection are recomputed from HTA's frame with HTA's own interval
  merge (checked to give HTA's percentage) and compared in ns with --report
  overlap; gputrace's exposed communication (gpu-time) must be HTA's
  communication minus that overlap.
"""
import argparse
import collections
import contextlib
import csv
import datetime
import decimal
import gzip
import importlib.metadata
import io
import json
import logging
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

warnings.filterwarnings("ignore")
try:
    from hta.analyzers.breakdown_analysis import BreakdownAnalysis
    from hta.analyzers.communication_analysis import CommunicationAnalysis
    from hta.common.trace import Trace
    from hta.trace_analysis import TraceAnalysis
    from hta.utils.utils import get_kernel_type, merge_kernel_intervals
    import hta
except ImportError as e:
    print("hta_check: HTA is not importable (%s); scripts/install-deps hta installs it" % e)
    sys.exit(2)
logging.disable(logging.CRITICAL)  # HTA logs every parse as a warning
HTA_DIR = os.path.dirname(os.path.abspath(hta.__file__)) + os.sep

DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}
CLASS_OF_CAT = {"kernel": "compute", "gpu_memcpy": "memcpy", "memcpy": "memcpy",
                "gpu_memset": "memset", "memset": "memset"}
HTA_TYPE = {"compute": "COMPUTATION", "communication": "COMMUNICATION",
            "memcpy": "MEMORY", "memset": "MEMORY"}
ALL = 10 ** 9  # num_kernels: fold nothing into "others"


def gclass(cat, name):
    c = CLASS_OF_CAT[cat.lower()]
    if c == "compute" and any(w in name.lower() for w in ("nccl", "rccl", "hccl")):
        c = "communication"
    return c


def one_line(e):
    """an exception in a line, with the innermost HTA function it came from"""
    s = str(e).strip().splitlines()
    where = [f for f in traceback.extract_tb(e.__traceback__) if f.filename.startswith(HTA_DIR)]
    at = " (in HTA's %s: %s)" % (where[-1].name, (where[-1].line or "").strip()[:80]) if where else ""
    return "%s%s%s" % (type(e).__name__, (": " + s[0][:160]) if s else "", at)


# ---------------------------------------------------------------- gputrace


def gputrace(binary, args, paths):
    p = subprocess.run([binary] + args + list(paths), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.strip()


def gputrace_side(binary, paths, job):
    """Rows of the three reports and the device spans, keyed by rank (None
    outside a job)."""
    g = {}
    rc, out, err = gputrace(binary, ["stats", "-q", "-f", "json"] + (["--by", "rank"] if job else []), paths)
    if rc == 1 and "no device spans" in err:
        return None
    if rc != 0:
        raise RuntimeError("gputrace stats exit %d: %s" % (rc, err[:200]))
    g["kernels"] = json.loads(out)
    rc, out, err = gputrace(binary, ["stats", "-q", "-f", "json", "--report", "gpu-time"], paths)
    if rc != 0:
        raise RuntimeError("gputrace stats --report gpu-time exit %d: %s" % (rc, err[:200]))
    g["gpu_time"] = json.loads(out)
    rc, out, err = gputrace(binary, ["stats", "-q", "-f", "json", "--report", "overlap"], paths)
    if rc == 2:
        g["overlap"] = None  # not in this build
    elif rc != 0:
        raise RuntimeError("gputrace stats --report overlap exit %d: %s" % (rc, err[:200]))
    else:
        g["overlap"] = json.loads(out)
    rc, out, err = gputrace(binary, ["spans", "-q", "-f", "csv"], paths)
    if rc != 0:
        raise RuntimeError("gputrace spans exit %d: %s" % (rc, err[:200]))
    spans = collections.defaultdict(dict)  # rank -> event -> (name, class, pid, dur_ns)
    for r in csv.DictReader(io.StringIO(out)):
        if r["cat"].lower() in DEVICE_CATS:
            rank = int(r["rank"]) if "rank" in r else None
            spans[rank][int(r["event"])] = (r["name"], gclass(r["cat"], r["name"]), r["pid"], int(r["dur_ns"]))
    g["spans"] = spans
    return g


# ---------------------------------------------------------------- staging


class NotExact(Exception):
    pass


def read_json(path):
    with (gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")) as f:
        return json.loads(f.read(), parse_float=decimal.Decimal)


def events_of(doc):
    return doc.get("traceEvents", []) if isinstance(doc, dict) else doc


def time_facts(doc):
    """(every ts and dur an integer µs, the largest |ts|)"""
    integral, top = True, 0
    for e in events_of(doc):
        for k in ("ts", "dur"):
            v = e.get(k)
            if isinstance(v, bool) or not isinstance(v, (int, decimal.Decimal)):
                continue
            if isinstance(v, decimal.Decimal) and v != v.to_integral_value():
                integral = False
            if k == "ts":
                top = max(top, abs(v))
    return integral, top


def write_scaled(doc, dst):
    """dst: doc with every ts and dur x 1000 as an exact integer (HTA reads
    ns as its µs: nothing to round)."""
    for e in events_of(doc):
        for k in ("ts", "dur"):
            v = e.get(k)
            if isinstance(v, bool) or not isinstance(v, (int, decimal.Decimal)):
                continue
            s = v * 1000
            if s != int(s):
                raise NotExact("%s %s is not a whole number of ns" % (k, v))
            e[k] = int(s)
    with open(dst, "w") as f:
        json.dump(doc, f, default=float)


def stage(paths, where, scaled):
    d = tempfile.mkdtemp(dir=where)
    for i, p in enumerate(paths):
        base = os.path.basename(p)
        if not scaled:
            os.symlink(os.path.abspath(p), os.path.join(d, base))
        else:
            stem = base[:-3] if base.endswith(".gz") else base
            stem = stem if stem.endswith(".json") else stem + ".json"
            write_scaled(read_json(p), os.path.join(d, "%d-%s" % (i, stem)))
    return d


# ---------------------------------------------------------------- HTA side


def hta_default(d):
    return TraceAnalysis(trace_dir=d).t


def hta_same_events(d):
    """HTA's own load without its GPU-event filter, then only the rows of
    gputrace's device categories among those with a stream; returns the
    trace and the non-device stream rows dropped, counted by category."""
    t = Trace(trace_dir=d)
    t._filter_irrelevant_gpu_kernels = lambda *a, **k: None
    t.load_traces()
    sym = t.symbol_table.get_sym_table()
    extra = collections.Counter()
    for rank, df in list(t.traces.items()):
        cats = df["cat"].map(lambda i: sym[i])
        other = df["stream"].ne(-1) & ~cats.str.lower().isin(DEVICE_CATS)
        extra.update(cats[other])
        t.traces[rank] = df[~other]
    return t, extra


def hta_analyses(t):
    """The three analyses; an analysis HTA fails on gives its reason."""
    out = {}
    calls = {
        "temporal": lambda: BreakdownAnalysis.get_temporal_breakdown(t, visualize=False),
        "kernels": lambda: BreakdownAnalysis.get_gpu_kernel_breakdown(
            t, visualize=False, duration_ratio=1.0, num_kernels=ALL, include_memory_kernels=True),
        "overlap": lambda: CommunicationAnalysis.get_comm_comp_overlap(t, visualize=False),
    }
    for k, f in calls.items():
        try:
            out[k] = f()
        except Exception as e:  # HTA's own failure, reported, not ours
            out[k] = e
    return out


def measure(iv):
    return int((iv["end"] - iv["ts"]).sum()) if len(iv) else 0


def intersection(a, b):
    """measure of the intersection of two sorted disjoint interval lists"""
    a = list(zip(a["ts"].tolist(), a["end"].tolist()))
    b = list(zip(b["ts"].tolist(), b["end"].tolist()))
    i = j = 0
    total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def hta_frame_facts(t):
    """Per rank, from HTA's frame: its GPU events by index, per-name
    durations, and the unions by HTA type (HTA's merge_kernel_intervals)."""
    sym = t.symbol_table.get_sym_table()
    facts = {}
    for rank, df in t.traces.items():
        g = df[df["stream"].ne(-1)].copy()
        names = g["name"].map(lambda i: sym[i])
        g["type"] = names.map(get_kernel_type)
        g["sname"] = names
        f = {"index": {int(i): (n, ty) for i, n, ty in zip(g["index"], names, g["type"])}}
        f["durs"] = {n: sorted(int(x) for x in s) for n, s in g.groupby("sname")["dur"]}
        unions = {}
        for ty in ("COMPUTATION", "COMMUNICATION"):
            unions[ty] = merge_kernel_intervals(g[g["type"].eq(ty)][["ts", "dur"]].copy())
        f["comp"], f["comm"] = measure(unions["COMPUTATION"]), measure(unions["COMMUNICATION"])
        f["busy"] = measure(merge_kernel_intervals(g[g["type"].isin(["COMPUTATION", "COMMUNICATION", "MEMORY"])][["ts", "dur"]].copy()))
        f["overlap"] = intersection(unions["COMPUTATION"], unions["COMMUNICATION"])
        f["n"] = collections.Counter(g["type"])
        facts[int(rank)] = f
    return facts


# ---------------------------------------------------------------- comparing


class Compare:
    """One run of HTA against gputrace: scale turns HTA's unit into ns;
    per_event the rounding bound per event in ns (0: exact)."""

    def __init__(self, label, run, scale, per_event, fails):
        self.label, self.run, self.scale, self.per_event = label, run, scale, per_event
        self.fails = fails
        self.n = 0
        self.exact = 0
        self.worst = collections.defaultdict(lambda: [0, 0])  # family -> [max |d|, its bound]

    def ns(self, family, rank, what, g, h, events=1, slack=0.0):
        """gputrace g (ns) against HTA h (HTA units), within the rounding
        bound of `events` events plus slack ns"""
        self.n += 1
        hv = float(h) * self.scale
        d = abs(g - hv)
        tol = self.per_event * events + slack + 1e-6
        if d == 0:
            self.exact += 1
        w = self.worst[family]
        if d > w[0]:
            w[0], w[1] = d, tol
        if d > tol:
            self.fail(rank, what, "%d ns" % g if isinstance(g, int) else "%.3f ns" % g, ("%d ns" % hv) if hv.is_integer() else "%.3f ns" % hv,
                      "" if not self.per_event else " (bound %.0f ns)" % tol)

    def val(self, family, rank, what, g, h, tol, other="HTA"):
        self.n += 1
        d = abs(g - h)
        if d == 0:
            self.exact += 1
        w = self.worst[family]
        if d > w[0]:
            w[0], w[1] = d, tol
        if d > tol + 1e-12:
            self.fail(rank, what, repr(g), repr(h), " (within %g)" % tol, other)

    def fail(self, rank, what, g, h, extra="", other="HTA"):
        r = "" if rank is None else " rank %s" % rank
        self.fails.append("FAIL: %s%s: %s: gputrace %s, %s %s%s [%s]" % (self.label, r, what, g, other, h, extra, self.run))

    def summary(self):
        near = ", ".join("%s %s (bound %s)" % (k, fmt(k, v[0]), fmt(k, v[1])) for k, v in sorted(self.worst.items()) if v[0])
        if not self.per_event:
            head = "%d values, %d exact" % (self.n, self.exact)
            return head + ("" if not near else "; the rest within the outputs' own rounding: " + near)
        return "%d values within HTA's µs rounding, %d exact; largest differences: %s" % (self.n, self.exact, near)


def fmt(family, v):
    if family in ("share", "pctg"):
        return "%.2g" % v
    return "%.3g ns" % v if v < 10 else "%.0f ns" % v


def gpu_rows_by_rank(rows, ranks):
    """gputrace rows per HTA rank: in a job by rank, else all to the one rank"""
    out = collections.defaultdict(list)
    for r in rows:
        out[int(r["rank"]) if "rank" in r else ranks[0]].append(r)
    return out


def compare(label, t, gt, cmpr, notes, job):
    """HTA's analyses on trace t against gputrace's reports gt"""
    res = hta_analyses(t)
    facts = hta_frame_facts(t)
    ranks = sorted(facts)
    failed = {k: one_line(v) for k, v in res.items() if isinstance(v, Exception)}
    for k, why in failed.items():
        notes.append("%s (%s): HTA fails: %s; not compared" % (k, cmpr.run, why))
    # the same events, class by class
    mismatch = {}
    spans = gt["spans"]
    if job and set(spans) != set(ranks):
        cmpr.fail(None, "ranks", sorted(spans), sorted(ranks))
        return res, facts
    for rank in ranks:
        gs = spans.get(rank if job else None, {})
        hs = facts[rank]["index"]
        if set(gs) != set(hs):
            only_g, only_h = sorted(set(gs) - set(hs)), sorted(set(hs) - set(gs))
            cmpr.fail(rank, "device events", "%d (%d HTA lacks, e.g. event %s)" % (len(gs), len(only_g), only_g[:3]),
                      "%d (%d gputrace lacks, e.g. %s)" % (len(hs), len(only_h), only_h[:3]))
            return res, facts
        mm = [e for e in gs if HTA_TYPE[gs[e][1]] != hs[e][1]]
        if mm:
            mismatch[rank] = mm
            notes.append("rank %s: %d device spans HTA classes otherwise by name (e.g. %r: gputrace %s, HTA %s); "
                         "class-dependent values differ by definition" %
                         (rank, len(mm), gs[mm[0]][0][:60], gs[mm[0]][1], hs[mm[0]][1]))
    per = lambda n: n  # the events a rounding bound covers
    gtime = gpu_rows_by_rank(gt["gpu_time"], ranks)
    # temporal breakdown
    tb = res["temporal"]
    if not isinstance(tb, Exception):
        for _, row in tb.iterrows():
            rank = int(row["rank"])
            rows = gtime.get(rank, [])
            n_all = sum(facts[rank]["n"].values())
            if len(rows) != 1:
                notes.append("temporal rank %s: gputrace has %d GPUs (processes) here, HTA one rank: differs by definition" % (rank, len(rows)))
                continue
            g = rows[0]
            cmpr.ns("temporal", rank, "temporal kernel_time = wall", g["wall_ns"], row["kernel_time(us)"], 2)
            cmpr.ns("temporal", rank, "temporal idle_time = idle", g["idle_ns"], row["idle_time(us)"], per(n_all) + 2)
            if rank not in mismatch:
                cmpr.ns("temporal", rank, "temporal compute_time = compute", g["compute_ns"], row["compute_time(us)"], per(facts[rank]["n"]["COMPUTATION"]))
                cmpr.ns("temporal", rank, "temporal non_compute_time = communication + memcpy + memset",
                        g["communication_ns"] + g["memcpy_ns"] + g["memset_ns"], row["non_compute_time(us)"], per(n_all) + 2)
            if not cmpr.per_event and g["wall_ns"]:
                for h, gk in (("idle_time_pctg", "idle_ns"), ("compute_time_pctg", "compute_ns")):
                    if gk == "compute_ns" and rank in mismatch:
                        continue
                    cmpr.val("pctg", rank, "temporal %s (2 decimals) = 100 %s / wall_ns" % (h, gk), 100.0 * g[gk] / g["wall_ns"], float(row[h]), 0.005 + 1e-9)
                cmpr.val("share", rank, "gpu-time idle_share (6 decimals)", g["idle_share"], g["idle_ns"] / g["wall_ns"], 5e-7, "its idle_ns / wall_ns")
    # kernel breakdown
    kb = res["kernels"]
    if not isinstance(kb, Exception):
        types, kern = kb
        busy_h = float(types["sum"].sum())
        n_all = sum(sum(f["n"].values()) for f in facts.values())
        allrows = [r for rs in gtime.values() for r in rs]
        busy_g = sum(r["wall_ns"] - r["idle_ns"] for r in allrows)
        if not mismatch:
            cmpr.ns("kernel types", None, "kernel-type total = GPU busy (sum of wall - idle)", busy_g, busy_h, per(n_all))
            lab = lambda f: float(types[types["kernel_type"].map(f).astype(bool)]["sum"].sum())
            cmpr.ns("kernel types", None, "kernel types with COMPUTATION = compute", sum(r["compute_ns"] for r in allrows),
                    lab(lambda s: "COMPUTATION" in s), per(n_all))
            cmpr.ns("kernel types", None, "kernel types with COMMUNICATION, not COMPUTATION = communication",
                    sum(r["communication_ns"] for r in allrows), lab(lambda s: "COMMUNICATION" in s and "COMPUTATION" not in s), per(n_all))
            cmpr.ns("kernel types", None, "kernel type MEMORY alone = memcpy + memset",
                    sum(r["memcpy_ns"] + r["memset_ns"] for r in allrows), lab(lambda s: s == "MEMORY"), per(n_all))
            if gt["overlap"] is not None:
                cmpr.ns("kernel types", None, "kernel types with COMPUTATION and COMMUNICATION = overlap",
                        sum(r["overlap_ns"] for r in gt["overlap"]), lab(lambda s: "COMPUTATION" in s and "COMMUNICATION" in s), per(n_all))
        grows = collections.defaultdict(dict)
        shares = []
        for r in gt["kernels"]:
            grows[int(r["rank"]) if job else ranks[0]][r["name"]] = r
        for rank in ranks:
            hk = kern[kern["rank"].astype(int).eq(rank)]
            hnames = set(hk["name"])
            gnames = set(grows[rank])
            other = {n for n in gnames - hnames if get_kernel_type(n) == "OTHER"}
            if other:
                notes.append("kernels rank %s: %d names HTA types OTHER (never in its breakdown), e.g. %r" % (rank, len(other), sorted(other)[0][:60]))
            if gnames - hnames - other or hnames - gnames:
                cmpr.fail(rank, "kernel names", "%d (e.g. %r not in HTA)" % (len(gnames), sorted(gnames - hnames - other)[:1]),
                          "%d (e.g. %r not in gputrace)" % (len(hnames), sorted(hnames - gnames)[:1]))
            durs = facts[rank]["durs"]
            for _, h in hk.iterrows():
                name = h["name"]
                g = grows[rank].get(name)
                if g is None:
                    continue
                ds = durs[name]
                n = len(ds)
                w = "kernel %r" % name[:70]
                cmpr.val("count", rank, w + " count (HTA's frame)", g["count"], n, 0)
                if h["mean (us)"]:
                    cmpr.val("count", rank, w + " HTA sum/mean = its frame's count", n, round(h["sum (us)"] / h["mean (us)"]), 0)
                cmpr.ns("kernel sum", rank, w + " total = sum", g["total_ns"], h["sum (us)"], per(n))
                cmpr.ns("kernel min/max/median/p95", rank, w + " min", g["min_ns"], h["min (us)"], 1)
                cmpr.ns("kernel min/max/median/p95", rank, w + " max", g["max_ns"], h["max (us)"], 1)
                cmpr.ns("kernel mean/std", rank, w + " mean", g["mean_ns"], h["mean (us)"], 1, 0.5 + 1e-9 * g["mean_ns"])
                pop = float(h["stddev"]) * math.sqrt((n - 1) / n) if n > 1 else 0.0
                cmpr.ns("kernel mean/std", rank, w + " stddev (HTA's sample std x sqrt((n-1)/n))", g["stddev_ns"], pop, 1, 0.5 + 1e-9 * g["stddev_ns"])
                cmpr.ns("kernel min/max/median/p95", rank, w + " lower median (HTA's frame)", g["median_ns"], ds[(n - 1) // 2], 1)
                cmpr.ns("kernel min/max/median/p95", rank, w + " p95, nearest rank (HTA's frame)", g["p95_ns"], ds[(95 * n + 99) // 100 - 1], 1)
                if busy_h and not mismatch:
                    # share: HTA's sum over HTA's busy time: the kernel-type total (every rank), or,
                    # by rank, possibly the rank's own (its union in HTA's frame)
                    tol = 5e-7 + (cmpr.per_event * n + g["share"] * cmpr.per_event * n_all) / max(busy_g, 1)
                    den_rank = facts[rank]["busy"]
                    shares.append((rank, w, g["share"], float(h["sum (us)"]) / busy_h,
                                   float(h["sum (us)"]) / den_rank if den_rank else 0.0, tol))
        # by rank, a share is of the rank's GPU busy time (man gputrace: STATS); else the job's
        use = 4 if job else 3
        for x in shares:
            cmpr.val("share", x[0], x[1] + " share = sum / busy (%s)" % ("kernel-type total" if use == 3 else "the rank's union"), x[2], x[use], x[5])
    # overlap
    ov = res["overlap"]
    if not isinstance(ov, Exception):
        grows = gpu_rows_by_rank(gt["overlap"], ranks) if gt["overlap"] is not None else None
        for _, row in ov.iterrows():
            rank = int(row["rank"])
            f = facts[rank]
            pct = float(row["comp_comm_overlap_pctg"])
            # the recomputation must give HTA's own percentage
            if f["comm"] == 0:
                if not math.isnan(pct):
                    cmpr.fail(rank, "overlap recomputed from HTA's frame", "no communication", "%r %%" % pct)
            elif abs(round(100.0 * f["overlap"] / f["comm"], 2) - pct) > 0.0051:
                cmpr.fail(rank, "overlap recomputed from HTA's frame", "%.4f %%" % (100.0 * f["overlap"] / f["comm"]), "%r %%" % pct)
            if rank in mismatch:
                continue
            nc, np_ = f["n"]["COMMUNICATION"], f["n"]["COMPUTATION"]
            trow = gtime.get(rank, [])
            if len(trow) == 1:
                cmpr.ns("overlap", rank, "gpu-time communication = HTA communication - overlap (exposed)",
                        trow[0]["communication_ns"], f["comm"] - f["overlap"], per(nc + np_))
            if grows is None:
                continue
            rows = grows.get(rank, [])
            if len(rows) != 1:
                notes.append("overlap rank %s: gputrace has %d GPUs here, HTA one rank: differs by definition" % (rank, len(rows)))
                continue
            g = rows[0]
            cmpr.ns("overlap", rank, "overlap communication_ns = union of COMMUNICATION", g["communication_ns"], f["comm"], per(nc))
            cmpr.ns("overlap", rank, "overlap compute_ns = union of COMPUTATION", g["compute_ns"], f["comp"], per(np_))
            cmpr.ns("overlap", rank, "overlap overlap_ns = their intersection", g["overlap_ns"], f["overlap"], per(nc + np_))
            if g["communication_ns"]:
                cmpr.val("share", rank, "overlap_share (6 decimals)", g["overlap_share"], g["overlap_ns"] / g["communication_ns"], 5e-7,
                         "its overlap_ns / communication_ns")
                tol = 0.005 + 1e-9
                if cmpr.per_event:
                    tol += 100.0 * cmpr.per_event * (nc + np_ + nc) / g["communication_ns"]
                cmpr.val("pctg", rank, "comp_comm_overlap_pctg (2 decimals) = 100 overlap_ns / communication_ns", 100.0 * g["overlap_ns"] / g["communication_ns"], pct, tol)
            else:
                cmpr.val("share", rank, "overlap_share without communication (gputrace 0, HTA NaN)", g["overlap_share"], 0, 0)
                if not math.isnan(pct):
                    cmpr.fail(rank, "comp_comm_overlap_pctg without communication", "0", repr(pct))
    return res, facts


def default_vs_same(label, t_def, t_same, res_def, res_same, facts_same, gt, job, notes, fails):
    """What HTA as a user runs it drops or adds, and, where it keeps exactly
    the same events, that its results are the same-events run's."""
    facts_def = hta_frame_facts(t_def)
    sym = t_def.symbol_table.get_sym_table()
    same = True
    for rank in sorted(facts_same):
        fs, fd = facts_same[rank]["index"], facts_def.get(rank, {"index": {}})["index"]
        df = t_def.traces[rank]
        cats = df["cat"].map(lambda i: sym[i])
        extra = collections.Counter(cats[df["stream"].ne(-1) & ~cats.str.lower().isin(DEVICE_CATS)])
        dropped = sorted(set(fs) - set(fd))
        if dropped or extra:
            same = False
            why = []
            if dropped:
                # by reason: HTA keeps GPU events launched (correlation) by CPU events before the last ProfilerStep starts
                u = t_same.traces[rank]
                usym = t_same.symbol_table.get_sym_table()
                names = u["name"].map(lambda i: usym[i])
                steps = u[names.str.contains("ProfilerStep") & u["stream"].eq(-1)]
                last = steps["ts"].max() if len(steps) else None
                cpu = u[u["stream"].eq(-1) & u["correlation"].ge(0)]
                launch = dict(zip(cpu["correlation"], cpu["ts"]))
                d = u.loc[u["index"].isin(dropped)]
                nolaunch = sum(1 for c in d["correlation"] if c not in launch)
                inlast = sum(1 for c in d["correlation"] if c in launch and last is not None and launch[c] >= last)
                why.append("drops %d of %d device spans (%d launched in the last ProfilerStep, %d without a CPU launch%s)" %
                           (len(dropped), len(fs), inlast, nolaunch,
                            "" if inlast + nolaunch == len(dropped) else ", %d otherwise" % (len(dropped) - inlast - nolaunch)))
            if extra:
                why.append("adds %s event(s) with a stream (%s)" % (sum(extra.values()), ", ".join("%s %d" % kv for kv in sorted(extra.items()))))
            tb = res_def["temporal"]
            if not isinstance(tb, Exception):
                r = tb[tb["rank"].eq(rank)]
                g = gpu_rows_by_rank(gt["gpu_time"], sorted(facts_same)).get(rank, [])
                if len(r) and len(g) == 1:
                    r, g = r.iloc[0], g[0]
                    why.append("so its temporal breakdown (kernel_time, idle, compute, non_compute) is %s µs against gputrace's %s" % (
                        "/".join("%g" % float(r[k]) for k in ("kernel_time(us)", "idle_time(us)", "compute_time(us)", "non_compute_time(us)")),
                        "/".join("%g" % (v / 1000) for v in (g["wall_ns"], g["idle_ns"], g["compute_ns"],
                                                             g["communication_ns"] + g["memcpy_ns"] + g["memset_ns"]))))
            notes.append("default HTA%s %s: differs by definition" % ("" if not job else " rank %d" % rank, "; ".join(why)))
    if not same:
        return
    for k in ("temporal", "kernels", "overlap"):
        a, b = res_def[k], res_same[k]
        if isinstance(a, Exception) or isinstance(b, Exception):
            if type(a) is not type(b):
                fails.append("FAIL: %s: %s: default HTA and same-events HTA disagree on failing (%s / %s)" % (label, k, one_line(a), one_line(b)))
            continue
        for x, y in (zip(a, b) if k == "kernels" else [(a, b)]):
            try:
                import pandas.testing as pdt
                pdt.assert_frame_equal(x.reset_index(drop=True), y.reset_index(drop=True), check_dtype=False)
            except AssertionError as e:
                fails.append("FAIL: %s: %s: default HTA keeps the same events but its result differs: %s" % (label, k, one_line(e)))
    notes.append("default HTA keeps exactly gputrace's device spans: its results are the same-events run's")


def rounding_bound_ns(top_us):
    """per event: two endpoints, each moved under 1 µs by ceil/floor plus
    float64's spacing at the trace's timestamps (twice: ts, then ts + dur)"""
    ulp = math.ulp(float(top_us)) if top_us else 0.0
    return 2 * (1.0 + 2 * ulp) * 1000


def check_unit(binary, label, paths, job, work):
    fails, notes = [], []
    print("%s:" % label)
    # does HTA run (as a user runs it)?
    d = stage(paths, work, scaled=False)
    try:
        t_def = hta_default(d)
        res_def = hta_analyses(t_def)
    except Exception as e:
        t_def, res_def = None, None
        why = one_line(e)
    if res_def is not None and all(isinstance(v, Exception) for v in res_def.values()):
        why = "; ".join("%s: %s" % (k, one_line(v)) for k, v in res_def.items())
        t_def = None
    gt = gputrace_side(binary, paths, job)
    if t_def is None:
        print("  HTA fails: %s" % why)
    else:
        for k, v in res_def.items():
            if isinstance(v, Exception):
                print("  HTA fails: %s: %s" % (k, one_line(v)))
    if gt is None:
        byc = {} if t_def is None else hta_events_by_cat(t_def)
        print("  gputrace: no device spans (its categories: %s); %s" % (
            ", ".join(sorted(DEVICE_CATS)),
            "HTA finds no GPU events either: nothing to compare" if not byc else
            "HTA reads %s as GPU events: differs by definition, nothing to compare" %
            ", ".join("%d %s" % (v, k) for k, v in sorted(byc.items()))))
        return 3 if t_def is None or any(isinstance(v, Exception) for v in res_def.values()) else 0
    if gt["overlap"] is None:
        print("  overlap: not in this build, skipped")
    docs = [read_json(p) for p in paths]
    integral = all(time_facts(doc)[0] for doc in docs)
    top = max(time_facts(doc)[1] for doc in docs)
    runs = []
    if t_def is not None or integral:
        runs.append(("same events", False, 1000.0, 0.0 if integral else rounding_bound_ns(top)))
    if not integral:
        if top * 1000 < 2 ** 53:
            runs.append(("same events, ns-scaled copy", True, 1.0, 0.0))
        else:
            notes.append("no ns-scaled run: ts x 1000 exceeds float64's exact integers")
    for run, scaled, scale, per_event in runs:
        dd = d if not scaled else stage(paths, work, scaled=True)
        try:
            t_same, extra = hta_same_events(dd)
        except Exception as e:
            notes.append("%s: HTA fails: %s" % (run, one_line(e)))
            continue
        if extra and not scaled:
            notes.append("left out of HTA's GPU events (not a device category for gputrace): %s" %
                         ", ".join("%s %d" % kv for kv in sorted(extra.items())))
        cmpr = Compare(label, run, scale, per_event, fails)
        res_same, facts_same = compare(label, t_same, gt, cmpr, notes, job)
        print("  %s: %s" % (run, cmpr.summary()))
        if not scaled and t_def is not None:
            default_vs_same(label, t_def, t_same, res_def, res_same, facts_same, gt, job, notes, fails)
    for n in notes:
        print("  " + n)
    for f in fails:
        print(f)
    if fails:
        return 1
    return 3 if t_def is None else 0


def hta_events_by_cat(t):
    sym = t.symbol_table.get_sym_table()
    c = collections.Counter()
    for df in t.traces.values():
        c.update(df[df["stream"].ne(-1)]["cat"].map(lambda i: sym[i]))
    return c


# ---------------------------------------------------------------- timings


def median_time(f, runs):
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def timings(binary, units, work, runs, out):
    """the median wall time of HTA's load and analyses and of gputrace's
    matching commands, for each unit HTA loads; a Markdown table"""
    rows = []
    for label, paths, job in units:
        d = stage(paths, work, scaled=False)
        try:
            ta = TraceAnalysis(trace_dir=d)
        except Exception:
            continue
        r = {"trace": label, "size": sum(os.path.getsize(p) for p in paths)}
        r["load"] = median_time(lambda: TraceAnalysis(trace_dir=d), runs)
        calls = {"temporal": lambda: ta.get_temporal_breakdown(visualize=False),
                 "kernels": lambda: ta.get_gpu_kernel_breakdown(visualize=False, duration_ratio=1.0, num_kernels=ALL),
                 "overlap": lambda: ta.get_comm_comp_overlap(visualize=False)}
        for k, f in calls.items():
            try:
                f()
            except Exception:
                r[k] = "fails"
                continue
            r[k] = median_time(f, runs)
        by = ["--by", "rank"] if job else []
        cmds = {"g_kernels": ["stats", "-q", "-f", "json"] + by, "g_gpu": ["stats", "-q", "-f", "json", "--report", "gpu-time"],
                "g_overlap": ["stats", "-q", "-f", "json", "--report", "overlap"]}
        for k, a in cmds.items():
            rc = gputrace(binary, a, paths)[0]
            if rc != 0:
                r[k] = "exit %d" % rc + (" (no device spans)" if rc == 1 else " (not in this build)" if rc == 2 else "")
                continue
            r[k] = median_time(lambda a=a: subprocess.run([binary] + a + list(paths), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), runs)
        rows.append(r)
        print("timed %s" % label, file=sys.stderr)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or "?"
    cpu = "?"
    with contextlib.suppress(OSError):
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    ms = lambda v: v if isinstance(v, str) else "%.1f" % (v * 1000)
    total = lambda vs: "n/a" if any(isinstance(v, str) for v in vs) else "%.1f" % (1000 * sum(vs))
    with open(out, "w") as f:
        f.write("# HTA against gputrace stats: wall times\n\n")
        f.write("Date %s. HTA (PyPI HolisticTraceAnalysis) %s with pandas %s, numpy %s, Python %s; gputrace commit %s\n"
                "(`%s`, built with the Makefile's -O2). Machine: %d cores (%s).\n"
                "Each cell: the median of %d runs, wall time in ms (Python `time.perf_counter`).\n\n" %
                (datetime.date.today().isoformat(), importlib.metadata.version("HolisticTraceAnalysis"),
                 __import__("pandas").__version__, __import__("numpy").__version__, sys.version.split()[0],
                 commit, binary, os.cpu_count(), cpu, runs))
        f.write("HTA, in one Python process, imports done: *load* = `TraceAnalysis(trace_dir=D)`, D a folder holding\n"
                "the trace (symlinked), or the job's 8 rank files; then, on that object,\n"
                "*temporal* = `get_temporal_breakdown(visualize=False)`,\n"
                "*kernels* = `get_gpu_kernel_breakdown(visualize=False, duration_ratio=1.0, num_kernels=10**9)` (every\n"
                "kernel, as gputrace lists them; the defaults fold all but the top 10 into \"others\"),\n"
                "*overlap* = `get_comm_comp_overlap(visualize=False)`.\n"
                "gputrace, each command a process of its own (start, read, analyse, JSON to /dev/null), default threads:\n"
                "*kernels* = `gputrace stats -q -f json TRACE` (the job: `--by rank` and its 8 files),\n"
                "*gpu-time* = `gputrace stats -q -f json --report gpu-time TRACE`,\n"
                "*overlap* = `gputrace stats -q -f json --report overlap TRACE`.\n"
                "Each gputrace command reads the trace again; HTA's analyses reuse the loaded object, so HTA's\n"
                "total is load + temporal + kernels + overlap and gputrace's the sum of its three commands.\n"
                "*fails*: HTA raises (see make check-hta's output); *exit 1*: gputrace finds no device spans;\n"
                "totals with either are n/a. Load average when the table was made: %s (other work shares the\n"
                "machine, so the smallest cells are noisy).\n\n"
                "Made (from the repository root) with:\n\n    %s\n\n" %
                (" ".join(open("/proc/loadavg").read().split()[:3]), " ".join([os.path.relpath(sys.executable)] + sys.argv)))
        f.write("| trace | size (KB) | HTA load | HTA temporal | HTA kernels | HTA overlap | HTA total | gputrace kernels | gputrace gpu-time | gputrace overlap | gputrace total |\n")
        f.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for r in rows:
            f.write("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
                r["trace"], r["size"] // 1024, ms(r["load"]), ms(r["temporal"]), ms(r["kernels"]), ms(r["overlap"]),
                total([r["load"], r["temporal"], r["kernels"], r["overlap"]]),
                ms(r["g_kernels"]), ms(r["g_gpu"]), ms(r["g_overlap"]), total([r["g_kernels"], r["g_gpu"], r["g_overlap"]])))


# ---------------------------------------------------------------- main


def unit_of(path):
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith((".json", ".gz")))
        return os.path.basename(os.path.normpath(path)), files, True
    return os.path.basename(path), [path], False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timings", metavar="FILE")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("gputrace")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    units = [unit_of(p) for p in a.traces]
    work = tempfile.mkdtemp(prefix="hta_check.")
    try:
        if a.timings:
            timings(a.gputrace, units, work, a.runs, a.timings)
            return 0
        rcs = []
        for label, paths, job in units:
            try:
                rcs.append(check_unit(a.gputrace, label, paths, job, work))
            except RuntimeError as e:  # gputrace itself failed
                print("FAIL: %s: %s" % (label, e))
                rcs.append(1)
        return 1 if 1 in rcs else 3 if all(rc == 3 for rc in rcs) else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
