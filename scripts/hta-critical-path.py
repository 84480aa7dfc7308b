#!/usr/bin/env python3
"""HTA's critical path, one JSON line per step, to set beside `gputrace critical-path --step`.

usage: hta-critical-path.py TRACE [--step-annotation ProfilerStep] [--instances N] [--runs R]
                             [--cpu-steps-only] [--include-last-step]

Runs Holistic Trace Analysis (HolisticTraceAnalysis on PyPI; 0.5 needs pandas<3, as
scripts/bench.py installs it into bench-out/.venv-bench) on one Kineto trace: TraceAnalysis
reads a directory of rank files, so the trace is symlinked as rank0 into a temporary one.
Then critical_path_analysis(rank=0, annotation=A, instance_id=i) for each instance i of the
annotation, in HTA's own numbering: every event whose name contains A (CPU ProfilerStep#N
spans and their gpu_user_annotation twins alike), in HTA's frame order. With two or more
step names HTA drops the last step and everything after its start (include_last_profiler_step,
--include-last-step here). Per instance, prints

  {"trace", "step" (HTA's instance_id), "step_name", "step_on" ("cpu"; "gpu": the
   step's gpu_user_annotation),
   "step_wall_us" (the annotation's dur), "hta_path_us" (sum of the graph weights along
   HTA's longest path), "path_start_us" (its first node, from the step's start),
   "path_span_us" (last node's ts - first's: the path's weight plus the time its zero-weight
   edges skip), "nodes", "edges", "breakdown": {"by_bound": {cpu_bound,
   gpu_compute_bound, gpu_communication_bound, gpu_kernel_launch_overhead,
   gpu_kernel_kernel_overhead: us}, "by_edge_type": {...: us}, "edge_count": {...}},
   "seconds" (critical_path_analysis + breakdown, median of R runs), "parse_seconds"}

HTA's times are integer microseconds (it rounds ns-resolution traces: start up, end down).
Exits non-zero with a one-line message when HTA fails (parse, no annotation, an assertion
in its graph construction, an invalid graph). Standard library + HTA only.
"""
import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
import traceback
import warnings


def die(msg):
    sys.exit("hta-critical-path: " + msg)


def run_cp(analysis, rank, annotation, i, step_ts):
    """One critical_path_analysis call and its totals: (result dict, seconds)."""
    t0 = time.perf_counter()
    r = analysis.critical_path_analysis(rank=rank, annotation=annotation, instance_id=i)
    if r is None:  # HTA logs and returns None when the annotation is missing
        raise RuntimeError("critical_path_analysis returned None (annotation %r not found)" % annotation)
    g, ok = r
    if not ok:
        raise RuntimeError("critical_path_analysis reported failure (cycle in the graph)")
    # the weights dag_longest_path maximised: HTA's graph attribute (it zeroes -1 edges, the
    # rounding artefact, there but not in the CPEdge objects the breakdown reads)
    nodes = g.critical_path_nodes
    path = sum(g.edges[u, v]["weight"] for u, v in zip(nodes, nodes[1:]))
    first, last = g.node_list[nodes[0]].ts, g.node_list[nodes[-1]].ts
    bd = g.get_critical_path_breakdown()
    by_bound, by_type, count = {}, {}, {}
    for typ, bound, dur in zip(bd["type"], bd["bound_by"], bd["duration"]):
        typ = typ.replace("critical_path_", "")
        by_type[typ] = by_type.get(typ, 0) + int(dur)
        count[typ] = count.get(typ, 0) + 1
        if bound:
            by_bound[bound] = by_bound.get(bound, 0) + int(dur)
    res = {"hta_path_us": int(path), "path_start_us": int(first - step_ts), "path_span_us": int(last - first),
           "nodes": len(nodes), "edges": len(nodes) - 1,
           "breakdown": {"by_bound": by_bound, "by_edge_type": by_type, "edge_count": count}}
    return res, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--step-annotation", default="ProfilerStep")
    ap.add_argument("--instances", type=int, default=0, help="only the first N instances (default all)")
    ap.add_argument("--runs", type=int, default=1, help="time each stage R times, report the median")
    ap.add_argument("--cpu-steps-only", action="store_true",
                    help="skip instances that are gpu_user_annotation twins of a step")
    ap.add_argument("--include-last-step", action="store_true",
                    help="keep the last ProfilerStep, which HTA drops by default when a trace has several")
    a = ap.parse_args()
    if not os.path.isfile(a.trace):
        die("no such file: %s" % a.trace)
    if not os.environ.get("HTA_VERBOSE"):
        logging.disable(logging.ERROR)
        warnings.filterwarnings("ignore")  # pandas FutureWarnings from HTA's own code
    try:
        from hta.trace_analysis import TraceAnalysis
    except ImportError as e:
        die("HTA is not importable (%s): run this with bench-out/.venv-bench/bin/python (scripts/bench.py "
            "makes it) or a Python with: pip install HolisticTraceAnalysis 'pandas<3'" % e)

    with tempfile.TemporaryDirectory(prefix="hta-cp-") as d:
        ext = ".json.gz" if a.trace.endswith(".gz") else ".json"
        os.symlink(os.path.abspath(a.trace), os.path.join(d, "rank0" + ext))
        parse_s = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            try:
                analysis = TraceAnalysis(trace_dir=d, include_last_profiler_step=a.include_last_step)
            except (Exception, SystemExit) as e:  # HTA exits or raises on what it cannot read
                die("HTA failed to parse %s: %s: %s" % (a.trace, type(e).__name__, e))
            parse_s.append(time.perf_counter() - t0)
        rank = sorted(analysis.t.traces)[0]  # HTA keys by the trace's distributedInfo rank
        df = analysis.t.get_trace(rank)
        sym = analysis.t.symbol_table
        names = sym.get_sym_table()
        # HTA's instance numbering (analyzers/critical_path_analysis.py): rows whose name
        # contains the annotation, in frame order, indexed by position
        ids = [v for k, v in sym.get_sym_id_map().items() if a.step_annotation in k]
        steps = df[df.name.isin(ids)]
        if len(steps) == 0:
            die("no %r annotation in %s: HTA's critical path needs one" % (a.step_annotation, a.trace))
        n = len(steps) if a.instances <= 0 else min(a.instances, len(steps))
        no_gpu = not (df.stream != -1).any()
        tried = failed = 0
        for i in range(n):
            row = steps.iloc[i]
            on_gpu = names[int(row["cat"])] == "gpu_user_annotation"
            if a.cpu_steps_only and on_gpu:
                continue
            out = {"trace": os.path.basename(a.trace), "step": i, "step_name": names[int(row["name"])],
                   "step_on": "gpu" if on_gpu else "cpu", "step_wall_us": int(row["dur"])}
            secs = []
            tried += 1
            try:
                for _ in range(a.runs):
                    res, s = run_cp(analysis, rank, a.step_annotation, i, int(row["ts"]))
                    secs.append(s)
            except Exception as e:  # AssertionError, ValueError, TypeError, ... from HTA
                msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
                tb = traceback.extract_tb(e.__traceback__)
                at = " (at %s:%d)" % (os.path.basename(tb[-1].filename), tb[-1].lineno) if tb else ""
                out["error"] = "%s%s%s" % (type(e).__name__, ": " + msg if msg else "", at)
                if no_gpu:
                    out["error"] += "; the trace has no GPU kernels, which HTA's critical path needs"
                failed += 1
                print(json.dumps(out), flush=True)
                continue
            out.update(res)
            out["seconds"] = round(statistics.median(secs), 3)
            out["parse_seconds"] = round(statistics.median(parse_s), 3)
            print(json.dumps(out), flush=True)
        if failed and failed == tried:
            die("HTA's critical path failed on every instance of %r in %s" % (a.step_annotation, a.trace))


if __name__ == "__main__":
    main()
