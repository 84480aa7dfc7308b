"""Checks `gputrace stats --report gpu-time` against the span table,
independently: per process with device spans, its wall (first start to last
end) split by a sweep over its spans' begins and ends into compute,
communication (nccl/rccl/hccl in the name), memcpy, memset (by category),
with that precedence, and idle.

usage: gpu_time_check.py GPU_TIME.json SPANS.csv
"""
import csv
import json
import sys
from collections import defaultdict

CLASS = {"kernel": 0, "gpu_memcpy": 2, "memcpy": 2, "gpu_memset": 3, "memset": 3}
NAMES = ["compute", "communication", "memcpy", "memset"]


def main():
    got = json.load(open(sys.argv[1]))
    events = defaultdict(list)
    with open(sys.argv[2], newline="") as f:
        for row in csv.DictReader(f):
            c = CLASS.get(row["cat"].lower())
            if c is None:
                continue
            if c == 0 and any(w in row["name"].lower() for w in ("nccl", "rccl", "hccl")):
                c = 1
            b, d = int(row["ts_ns"]), int(row["dur_ns"])
            key = (row.get("rank"), row["pid"])
            events[key] += [(b, 1, c), (b + d, -1, c)]
    want = []
    for key in events:
        ev = sorted(events[key], key=lambda e: (e[0], e[1]))
        run, parts, idle, at = [0] * 4, [0] * 4, 0, ev[0][0]
        for t, delta, c in ev:
            if t > at:
                top = next((k for k in range(4) if run[k]), None)
                if top is None:
                    idle += t - at
                else:
                    parts[top] += t - at
            at = t
            run[c] += delta
        want.append((key, ev[0][0], at, parts, idle))
    fails = []
    byk = {(None if "rank" not in r else str(r["rank"]), r["device"]): r for r in got}
    if len(got) != len(want):
        fails.append("%d rows, %d processes with device spans" % (len(got), len(want)))
    for key, b, e, parts, idle in want:
        r = byk.get(key)
        if r is None:
            fails.append("no row for %s" % (key,))
            continue
        vals = [r[n + "_ns"] for n in NAMES]
        if r["wall_ns"] != e - b or vals != parts or r["idle_ns"] != idle:
            fails.append("%s: wall %d %s idle %d, want %d %s %d" % (key, r["wall_ns"], vals, r["idle_ns"], e - b, parts, idle))
    for f in fails[:10]:
        print("FAIL: %s: %s" % (sys.argv[1], f))
    print("gpu_time_check: %d rows, %d failures" % (len(got), len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
