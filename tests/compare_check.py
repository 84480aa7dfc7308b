"""Checks a `gputrace compare --top 0` report against per-key statistics
computed here from the two span tables (`spans --parents nesting -f csv`):
count, total duration, self time (duration minus nesting children's
durations), nearest-rank p50/p95 and max, their changes, and the order of
the keys.

usage: compare_check.py REPORT.json BASE_SPANS.csv NEW_SPANS.csv name|cat
"""
import csv
import json
import sys
from collections import defaultdict
from decimal import Decimal


def stats(path, by):
    rows = list(csv.DictReader(open(path, newline="")))
    dur = {int(r["id"]): int(Decimal(r["dur_us"]) * 1000) for r in rows}
    children = defaultdict(int)
    for r in rows:
        if r["parent"]:
            children[int(r["parent"])] += dur[int(r["id"])]
    per = defaultdict(list)
    selfs = defaultdict(int)
    for r in rows:
        i = int(r["id"])
        per[r[by]].append(dur[i])
        selfs[r[by]] += dur[i] - children[i]
    out = {}
    for k, ds in per.items():
        ds.sort()
        n = len(ds)
        rank = lambda p: ds[max(-(-p * n // 100), 1) - 1]
        out[k] = {"count": n, "dur_ns": sum(ds), "self_ns": selfs[k], "p50_ns": rank(50), "p95_ns": rank(95),
                  "max_ns": ds[-1]}
    return out, len(rows)


rep = json.load(open(sys.argv[1]))
base, nb = stats(sys.argv[2], sys.argv[4])
new, nn = stats(sys.argv[3], sys.argv[4])
fails = []
if rep["total"]["spans"]["base"] != nb or rep["total"]["spans"]["new"] != nn:
    fails.append("span totals")
keys = set(base) | set(new)
if rep["key_count"] != len(keys) or len(rep["keys"]) != len(keys):
    fails.append("key count %d, expected %d" % (rep["key_count"], len(keys)))
for k in rep["keys"]:
    for side, st in (("base", base), ("new", new)):
        s = st.get(k["key"])
        for f in ("count", "dur_ns", "self_ns"):
            want = s[f] if s else 0
            if k[f][side] != want:
                fails.append("%s %s.%s: %s, expected %s" % (k["key"], f, side, k[f][side], want))
        for f in ("p50_ns", "p95_ns", "max_ns"):
            want = s[f] if s else None
            if k[f][side] != want:
                fails.append("%s %s.%s: %s, expected %s" % (k["key"], f, side, k[f][side], want))
    b, n = k["dur_ns"]["base"], k["dur_ns"]["new"]
    if k["dur_ns"]["abs"] != n - b:
        fails.append("%s dur_ns.abs" % k["key"])
    want_rel = None if b == 0 else round(Decimal(n - b) / Decimal(b), 6)
    got = k["dur_ns"]["rel"]
    if (got is None) != (want_rel is None) or (got is not None and abs(Decimal(str(got)) - want_rel) > Decimal("0.0000005")):
        fails.append("%s dur_ns.rel %s, expected %s" % (k["key"], got, want_rel))
order = sorted(rep["keys"], key=lambda k: (-abs(k["self_ns"]["abs"]), k["key"].encode()))
if [k["key"] for k in order] != [k["key"] for k in rep["keys"]]:
    fails.append("keys are not sorted by |self_ns.abs| (the default --sort self), then key")
for f in fails[:20]:
    print("FAIL: " + f)
print("compare_check: %d keys, %d + %d spans" % (len(keys), nb, nn))
sys.exit(1 if fails else 0)
