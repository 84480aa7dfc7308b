"""Checks the class breakdown of a `critical-path --path` document (the path
in the words of GPU work, man gputrace) against the hops, independently:
each hop's class from its kind, its owner's name and category and its track
(from `spans -f csv`), summed per window, must equal the window's classes,
which must sum to path_duration_ns; the aggregate is the windows' sum.

usage: classes_check.py DOC.json SPANS.csv [COLLECTIVE_REGEX]
"""
import csv
import json
import re
import sys
from collections import defaultdict

DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}


def main():
    doc = json.load(open(sys.argv[1]))
    extra = re.compile(sys.argv[3]) if len(sys.argv) > 3 else None
    spans, device_tracks = {}, set()
    with open(sys.argv[2], newline="") as f:
        for row in csv.DictReader(f):
            rank = row.get("rank")
            sid = int(row["id"])
            if rank is not None:  # a job: ids per rank; the document's are global, in rank order
                sid = len(spans)
            spans[sid] = row
            if row["cat"].lower() in DEVICE_CATS:
                label = "%s/%s" % (row["pid"], row["tid"])
                device_tracks.add(label if rank is None else "rank %s:%s" % (rank, label))

    def device(sid):
        return spans[sid]["cat"].lower() in DEVICE_CATS

    def work(sid):
        name, cat = spans[sid]["name"], spans[sid]["cat"].lower()
        if device(sid):
            if any(w in name.lower() for w in ("nccl", "rccl", "hccl")) or (extra and extra.search(name)):
                return "gpu_communication"
            return "gpu_memcpy" if "memcpy" in cat else "gpu_memset" if "memset" in cat else "gpu_compute"
        if "runtime" in cat or "driver" in cat:
            return "cpu_runtime"
        if "annotation" in cat or cat.startswith("python"):
            return "cpu_annotation"
        return "cpu_operator"

    def hop_class(h):
        k = h["kind"]
        if k == "work":
            return work(h["owner"])
        if k == "idle":
            return "gpu_idle" if h["track"] in device_tracks else "idle"
        if k == "flow":
            return "launch" if device(h["to"]["span"]) else "sync_wait"
        if k == "queue":
            return "queue"
        if k == "wait":
            return "cpu_waits_gpu" if device(h["from"]["span"]) and not device(h["owner"]) else "sync_wait"
        return "sync_wait"

    fails, total = [], defaultdict(int)
    for w in doc["windows"]:
        want = defaultdict(int)
        for h in w["path"]:
            c = hop_class(h)
            if h.get("class") != c:
                fails.append("window %d: a %s hop of class %s, the rule gives %s" % (
                    w["summary"]["window"], h["kind"], h.get("class"), c))
            want[c] += h["duration_ns"]
        got = {c["class"]: c["critical_ns"] for c in w["classes"]}
        if got != {c: v for c, v in want.items() if v}:
            fails.append("window %d: classes %s, the hops give %s" % (w["summary"]["window"], got, dict(want)))
        if sum(got.values()) != w["summary"]["path_duration_ns"]:
            fails.append("window %d: classes sum to %d, path %d" % (
                w["summary"]["window"], sum(got.values()), w["summary"]["path_duration_ns"]))
        for c, v in got.items():
            total[c] += v
    if {c["class"]: c["critical_ns"] for c in doc["aggregate"]["classes"]} != dict(total):
        fails.append("the aggregate's classes are not the windows' sum")
    for f in fails[:10]:
        print("FAIL: %s: %s" % (sys.argv[1], f))
    print("classes_check: %d windows, %d failures" % (len(doc["windows"]), len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
