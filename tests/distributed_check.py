#!/usr/bin/env python3
"""Checks for tests/distributed.sh: independent readings of gputrace's
job outputs (plain JSON, no gputrace code).

  distributed_check.py concat JOB_SPANS.ndjson SINGLE0.ndjson SINGLE1.ndjson ...
      the job's spans are the files' spans one after the other, each with its
      rank; ids, parents, tracks and lanes offset by the files before; the
      same cat (groups are renumbered over the job, so they are compared by
      their category).
  distributed_check.py straggler STRAGGLERS.json BY_RANK.json RANK DELAY NRANKS
      exactly one collective late, by rank RANK, DELAY ns, the others waited
      (NRANKS - 1) * DELAY; every other collective on time; per rank totals.
  distributed_check.py crosses PATH.json SPANS.ndjson RANK
      the first window's path has a hop whose span is on RANK and one off it.
  distributed_check.py window SPANS.ndjson RANK STEP
      prints A:B (ns, relative to the first span) from RANK's ProfilerStep#STEP
      to the end of the first cudaDeviceSynchronize after it.
"""
import json
import sys
from fractions import Fraction


def ndjson(path):
    with open(path) as f:
        return [json.loads(line, parse_float=str) for line in f if line.strip()]


def ns(us):
    # text formats print exact decimal microseconds
    return int(Fraction(str(us)) * 1000)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def concat(job_path, singles):
    job = ndjson(job_path)
    pos = 0
    span_base = track_base = lane_base = 0
    for rank, path in enumerate(singles):
        rows = ndjson(path)
        tracks = lanes = 0
        for r in rows:
            j = job[pos] if pos < len(job) else fail(f"job has {len(job)} spans, fewer than the files")
            pos += 1
            if j.get("rank") != rank:
                fail(f"span {j['id']}: rank {j.get('rank')}, want {rank}")
            want = dict(r)
            want["id"] = r["id"] + span_base
            want["parent"] = None if r["parent"] is None else r["parent"] + span_base
            want["track"] = r["track"] + track_base
            want["lane"] = r["lane"] + lane_base
            got = {k: v for k, v in j.items() if k not in ("rank", "group")}
            want.pop("group")
            if got != want:
                fail(f"rank {rank} span {r['id']}: {got} != {want}")
            tracks = max(tracks, r["track"] + 1)
            lanes = max(lanes, r["lane"] + 1)
        span_base += len(rows)
        track_base += tracks
        lane_base += lanes
    if pos != len(job):
        fail(f"job has {len(job)} spans, the files {pos}")
    # groups: one per category in order of first appearance over the job
    seen = {}
    for j in job:
        g = seen.setdefault(j["cat"], min(len(seen), 31))
        if j["group"] != g:
            fail(f"span {j['id']}: group {j['group']}, want {g} (cat {j['cat']})")
    print(f"concat: {len(job)} spans over {len(singles)} files")


def straggler(path, by_rank_path, rank, delay, nranks):
    rows = json.load(open(path), parse_float=str)
    late = [r for r in rows if ns(r["late_us"]) or ns(r["waited_us"])]
    if len(late) != 1:
        fail(f"{len(late)} late collectives, want 1: {late}")
    r = late[0]
    if r["last_rank"] != rank or ns(r["late_us"]) != delay or ns(r["waited_us"]) != (nranks - 1) * delay:
        fail(f"late collective {r}, want rank {rank} late {delay} ns, waited {(nranks - 1) * delay} ns")
    if ns(r["last_entry_us"]) - ns(r["median_entry_us"]) != delay:
        fail(f"{r}: last entry minus median is not the lateness")
    for rr in json.load(open(by_rank_path), parse_float=str):
        want = (nranks - 1) * delay if rr["rank"] == rank else 0
        if ns(rr["caused_wait_us"]) != want or rr["last"] != (1 if rr["rank"] == rank else 0):
            fail(f"rank row {rr}: want caused {want} ns")
    print(f"straggler: rank {rank} late {delay} ns in 1 of {len(rows)} collectives")


def crosses(path_json, spans_path, rank):
    span_rank = {s["id"]: s["rank"] for s in ndjson(spans_path)}
    hops = json.load(open(path_json))["windows"][0]["path"]
    ranks = {span_rank[h["from"]["span"]] for h in hops} | {span_rank[h["to"]["span"]] for h in hops}
    if rank not in ranks or len(ranks) < 2:
        fail(f"the path's spans are on ranks {sorted(ranks)}: it does not cross into rank {rank}")
    print(f"crosses: the path visits ranks {sorted(ranks)}")


def window(spans_path, rank, step):
    spans = ndjson(spans_path)
    first = min(ns(s["ts_us"]) for s in spans)
    mine = [s for s in spans if s["rank"] == rank]
    st = next(s for s in mine if s["name"] == f"ProfilerStep#{step}")
    b = ns(st["ts_us"])
    sync = min((s for s in mine if s["name"] == "cudaDeviceSynchronize" and ns(s["ts_us"]) >= b),
               key=lambda s: ns(s["ts_us"]))
    e = ns(sync["ts_us"]) + ns(sync["dur_us"])
    print(f"{b - first}ns:{e - first + 1}ns")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "concat":
        concat(args[0], args[1:])
    elif cmd == "straggler":
        straggler(args[0], args[1], int(args[2]), int(args[3]), int(args[4]))
    elif cmd == "crosses":
        crosses(args[0], args[1], int(args[2]))
    elif cmd == "window":
        window(args[0], int(args[1]), int(args[2]))
    else:
        fail("unknown check " + cmd)


if __name__ == "__main__":
    main()
