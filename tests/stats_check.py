"""Checks `gputrace stats` (the kernels report, man gputrace: stats) against
the span table, independently: per device-span name (or stream, or rank)
count, total, mean (half up), lower median, p95 (nearest rank), min, max,
population stddev (rounded), and the share of GPU busy time (the union of
the device spans per process, summed over the GPUs the row covers: every
one by name, the rank's by rank, the stream's by stream).

usage: stats_check.py STATS.json SPANS.csv [name|stream|rank]
"""
import csv
import json
import math
import sys
from collections import defaultdict
from decimal import Decimal
from fractions import Fraction

DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}


def main():
    got = json.load(open(sys.argv[1]), parse_float=Decimal)
    by = sys.argv[3] if len(sys.argv) > 3 else "name"
    groups, per_proc, scope = defaultdict(list), defaultdict(list), {}
    with open(sys.argv[2], newline="") as f:
        for row in csv.DictReader(f):
            if row["cat"].lower() not in DEVICE:
                continue
            b, d = int(row["ts_ns"]), int(row["dur_ns"])
            rank = row.get("rank")
            proc = (rank, row["pid"])
            per_proc[proc].append((b, b + d))
            stream = "%s/%s" % (row["pid"], row["tid"]) if rank is None else "rank %s:%s/%s" % (rank, row["pid"], row["tid"])
            key = {"name": (), "stream": (stream,), "rank": (int(rank or 0),)}[by]
            groups[key + (row["name"],)].append(d)
            scope.setdefault(key + (row["name"],), set()).add(proc)
    busy_of = {}
    for proc, iv in per_proc.items():
        iv.sort()
        lo, hi = iv[0]
        b = 0
        for s, e in iv[1:]:
            if s <= hi:
                hi = max(hi, e)
            else:
                b += hi - lo
                lo, hi = s, e
        busy_of[proc] = b + hi - lo
    busy = sum(busy_of.values())

    def covered(key):
        """The busy time of the GPUs a row covers."""
        if by == "name":
            return busy
        if by == "stream":
            return sum(busy_of[p] for p in scope[key])
        return sum(v for p, v in busy_of.items() if int(p[0] or 0) == key[0])

    want = {}
    for key, durs in groups.items():
        durs.sort()
        n, total = len(durs), sum(durs)
        mean = (2 * total + n) // (2 * n)
        var = Fraction(sum(x * x for x in durs), n) - Fraction(total, n) ** 2
        sd = math.isqrt(round(var))
        sd = sd + 1 if round(var) - sd * sd > sd else sd
        den = covered(key)
        share = ((total * 2000000 // den) + 1) // 2 if den else 0
        want[key] = {"count": n, "total_ns": total, "mean_ns": mean, "median_ns": durs[(n - 1) // 2],
                     "p95_ns": durs[(95 * n + 99) // 100 - 1], "min_ns": durs[0], "max_ns": durs[-1],
                     "stddev_ns": sd, "share": Decimal(share) / Decimal(1000000)}
    fails = []
    seen = {}
    for r in got:
        key = {"name": (), "stream": (r.get("stream"),), "rank": (r.get("rank"),)}[by] + (r["name"],)
        seen[key] = {k: r[k] for k in want.get(key, {})}
        if key not in want:
            fails.append("a row of no device spans: %s" % (key,))
            continue
        for k, v in want[key].items():
            if k == "share":
                ok = abs(Decimal(r[k]) - v) <= Decimal("0.0000005")
            else:
                ok = r[k] == v
            if not ok:
                fails.append("%s %s: %s, want %s" % (key, k, r[k], v))
    for key in want:
        if key not in seen:
            fails.append("no row for %s" % (key,))
    totals = [r["total_ns"] for r in got]
    if totals != sorted(totals, reverse=True):
        fails.append("rows not by total, descending")
    for f in fails[:10]:
        print("FAIL: %s: %s" % (sys.argv[1], f))
    print("stats_check: %d rows, busy %d ns, %d failures" % (len(got), busy, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
