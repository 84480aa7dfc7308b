"""Checks the per-step statistics of a `gputrace compare --step GLOB --top 0`
report against values computed here: each side's span table
(`spans --parents nesting -f csv`) and its causal rows per window
(`critical-path --step GLOB --table rows -f csv`, which say which window
each span belongs to, whether it is on the path and its time on it). Per
window and key: count, dur_ns, self_ns (minus nesting children's
durations), cp_count, cp_ns (0 where the key is absent), nearest-rank
p50/p95 and max (no value there); then n, min, median, max and mad.

usage: compare_steps_check.py REPORT.json BASE_SPANS BASE_ROWS NEW_SPANS NEW_ROWS
"""
import csv
import json
import sys
from collections import defaultdict
from decimal import Decimal
from fractions import Fraction

FIELDS = ("count", "dur_ns", "self_ns", "cp_count", "cp_ns", "p50_ns", "p95_ns", "max_ns")


def per_window(spans_path, rows_path):
    spans = list(csv.DictReader(open(spans_path, newline="")))
    dur = {int(r["id"]): int(Decimal(r["dur_us"]) * 1000) for r in spans}
    name = {int(r["id"]): r["name"] for r in spans}
    children = defaultdict(int)
    for r in spans:
        if r["parent"]:
            children[int(r["parent"])] += dur[int(r["id"])]
    windows = defaultdict(lambda: defaultdict(list))  # window -> key -> rows
    for r in csv.DictReader(open(rows_path, newline="")):
        windows[int(r["window"])][name[int(r["span"])]].append(r)
    out = []  # per window: key -> stats
    for w in sorted(windows):
        st = {}
        for k, rows in windows[w].items():
            ds = sorted(dur[int(r["span"])] for r in rows)
            n = len(ds)
            rank = lambda p: ds[max(-(-p * n // 100), 1) - 1]
            on = [r for r in rows if r["on_path"] == "true"]
            st[k] = {"count": n, "dur_ns": sum(ds),
                     "self_ns": sum(dur[int(r["span"])] - children[int(r["span"])] for r in rows),
                     "cp_count": len(on), "cp_ns": sum(int(r["critical_ns"]) for r in on),
                     "p50_ns": rank(50), "p95_ns": rank(95), "max_ns": ds[-1]}
        out.append(st)
    return out


def median(v):
    v = sorted(v)
    n = len(v)
    return Fraction(v[n // 2]) if n % 2 else Fraction(v[n // 2 - 1] + v[n // 2], 2)


rep = json.load(open(sys.argv[1]))
sides = {"base": per_window(sys.argv[2], sys.argv[3]), "new": per_window(sys.argv[4], sys.argv[5])}
fails = []
checked = 0
for k in rep["keys"]:
    for f in FIELDS:
        for side, wins in sides.items():
            if f.startswith("p") or f == "max_ns":
                v = [w[k["key"]][f] for w in wins if k["key"] in w]
            else:
                v = [w[k["key"]][f] if k["key"] in w else 0 for w in wins]
            got = k[f]
            if got["n"][side] != len(v):
                fails.append("%s %s n.%s %s, expected %d" % (k["key"], f, side, got["n"][side], len(v)))
                continue
            if not v:
                continue
            m = median(v)
            want = {"min": min(v), "max": max(v), "median": m, "mad": median([abs(x - m) for x in v])}
            for s, w in want.items():
                g = got[s][side]
                if g is None or abs(Fraction(str(g)) - w) >= Fraction(1, 10**6):
                    fails.append("%s %s %s.%s %s, expected %s" % (k["key"], f, s, side, g, w))
            checked += 1
if rep["windows"]["base"] != len(sides["base"]) or rep["windows"]["new"] != len(sides["new"]):
    fails.append("windows %s, expected %d and %d" % (rep["windows"], len(sides["base"]), len(sides["new"])))
for f in fails[:20]:
    print("FAIL: " + f)
print("compare_steps_check: %d keys, %d statistics sets" % (len(rep["keys"]), checked))
sys.exit(1 if fails else 0)
