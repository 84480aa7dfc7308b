#!/usr/bin/env python3
"""The benchmark harness behind `make bench` and `make bench-smoke` (scripts/bench).

    python3 scripts/bench.py [--smoke] BUILD

Generates Kineto-like traces (scripts/gen-trace) as .json, .json.gz and .json.zst
under bench-out/, then measures on the same files, in the same run:
  - gputrace stages: ingest (info), pack, critical-path (causal, and forest:
    the fast host path, each device and the reference), the .gtx's load
    (info T.gtx) and critical-path T.gtx, and a replay of 1,000
    viewport queries (one pan-and-zoom sequence), each on --device host and on
    every OpenCL device that `gputrace devices` lists, where the command takes
    --device;
  - peers: zstd -dc / gzip -dc to /dev/null, Python's json and orjson loading
    the trace, Holistic Trace Analysis parsing it (and its critical path), jq
    counting the events.
Each is run BENCH_RUNS times (default 5); the table gives the median wall time,
the spread (min-max), MB/s of uncompressed JSON, spans/s, the peak RSS from
/usr/bin/time -v, and each peer's time as a ratio to gputrace info on the same
file. A stage or peer that cannot run is listed as "skipped: <reason>".
Results: stdout and bench-out/results.md; raw measurements in bench-out/results.jsonl.

Environment: BENCH_SIZES (spans, default "1M 10M"; add 100M for the full set),
BENCH_RUNS, BENCH_REAL (number of largest real traces, default 4),
BENCH_OUT (default bench-out), BENCH_PEERS (default "all"; "none" skips them),
BENCH_INSTALL=0 (never pip-install orjson/HTA), BENCH_TIMEOUT (s per run, 900).

--smoke: tiny sizes, 2 runs, one small real trace, no installs. It checks the
harness itself (the generator's counts against scripts/count-events.py, the
table) and exits non-zero only when the harness breaks, never for a skipped
stage or peer.
"""
import gzip
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# ../shared/traces beside the checkout (a worktree may sit one level deeper)
TRACES = os.environ.get("BENCH_TRACES") or next(
    (p for p in (os.path.join(ROOT, "..", "shared", "traces"), os.path.join(ROOT, "..", "..", "shared", "traces"))
     if os.path.isdir(p)), os.path.join(ROOT, "..", "shared", "traces"))
GTIME = "/usr/bin/time"
MB = 1e6


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_size(s):
    mult = {"k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9}
    return int(float(s[:-1]) * mult[s[-1]]) if s[-1] in mult else int(s)


def human(n):
    for unit, div in (("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if n >= div and n % (div // 10 or 1) == 0:
            return ("%g" % (n / div)) + unit
    return str(n)


def rate(x):
    """Three significant figures with a k/M/G suffix."""
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= div:
            return "%.3g%s" % (x / div, unit)
    return "%.3g" % x


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


class Harness:
    def __init__(self, build, smoke):
        self.smoke = smoke
        self.build = build if os.path.isabs(build) else os.path.join(ROOT, build)
        self.gputrace = os.path.join(self.build, "gputrace")
        self.out = os.path.abspath(os.environ.get("BENCH_OUT", os.path.join(ROOT, "bench-out")))
        self.runs = int(os.environ.get("BENCH_RUNS", "2" if smoke else "5"))
        self.timeout = int(os.environ.get("BENCH_TIMEOUT", "120" if smoke else "900"))
        self.sizes = [parse_size(s) for s in os.environ.get("BENCH_SIZES", "20k" if smoke else "1M 10M").split()]
        self.nreal = int(os.environ.get("BENCH_REAL", "1" if smoke else "4"))
        self.peers_on = os.environ.get("BENCH_PEERS", "all") != "none"
        self.install = os.environ.get("BENCH_INSTALL", "0" if smoke else "1") != "0"
        self.rows = []       # measured or skipped rows, in order
        self.skips = []      # (what, reason) printed once
        self.broken = []     # harness failures (smoke exits non-zero)
        self.venv_py = None
        self.have_time = os.access(GTIME, os.X_OK)
        os.makedirs(self.out, exist_ok=True)
        self.jsonl = open(os.path.join(self.out, "results.jsonl"), "w")

    # ---- running and measuring ----
    def measure(self, argv, stdout=subprocess.DEVNULL, shell=False):
        """One run: (wall seconds, peak RSS bytes or None, rc, stderr tail)."""
        with tempfile.NamedTemporaryFile(dir=self.out, prefix=".time-", delete=False) as tf:
            tpath = tf.name
        cmd = argv
        if self.have_time:
            cmd = [GTIME, "-v", "-o", tpath] + (["sh", "-c", argv] if shell else argv)
        elif shell:
            cmd = ["sh", "-c", argv]
        t0 = time.perf_counter()
        # its own session, so that a timeout ends the whole tree, not just /usr/bin/time
        p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = p.communicate(timeout=self.timeout)
            rc, err = p.returncode, err.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            rc, err = 124, "timed out after %d s" % self.timeout
        wall = time.perf_counter() - t0
        rss = None
        try:
            with open(tpath) as f:
                for line in f:
                    if "Maximum resident set size" in line:
                        rss = int(line.split(":")[1]) * 1024
        except OSError:
            pass
        os.unlink(tpath)
        tail = err.strip().splitlines()[-1] if err.strip() else ""
        return wall, rss, rc, tail

    def bench(self, trace, stage, device, argv, ubytes, spans, shell=False, note="", ref=None, per=None):
        """Runs argv self.runs times and records a row; returns the row."""
        row = {"trace": trace, "stage": stage, "device": device, "ubytes": ubytes, "spans": spans, "note": note}
        walls, rsss = [], []
        for i in range(self.runs):
            wall, rss, rc, tail = self.measure(argv, shell=shell)
            if rc != 0:
                row["skipped"] = "failed (exit %d): %s" % (rc, tail[:160])
                break
            walls.append(wall)
            if rss:
                rsss.append(rss)
            # a slow tool gets fewer runs rather than holding the whole bench
            if i == 0 and wall * self.runs > self.timeout:
                row["note"] = (note + " " if note else "") + "1 run only: %.0f s each" % wall
                break
        if walls:
            row.pop("skipped", None)
            row.update(runs=len(walls), median=statistics.median(walls), min=min(walls), max=max(walls),
                       rss=max(rsss) if rsss else None)
        if ref is not None:
            row["ref"] = ref
        if per:
            row["per"] = per
        self.add(row)
        return row

    def skip(self, trace, stage, device, reason):
        self.add({"trace": trace, "stage": stage, "device": device, "skipped": reason})

    def add(self, row):
        self.rows.append(row)
        self.jsonl.write(json.dumps(row) + "\n")
        self.jsonl.flush()
        if "skipped" in row:
            log("  %-28s %-8s skipped: %s" % (row["stage"], row["device"], row["skipped"]))
        else:
            log("  %-28s %-8s median %.3f s (%.3f-%.3f), n=%d" % (row["stage"], row["device"], row["median"],
                                                                 row["min"], row["max"], row["runs"]))

    # ---- gputrace capabilities ----
    def help_text(self, cmd):
        if not os.access(self.gputrace, os.X_OK):
            return None
        p = subprocess.run([self.gputrace, "help", cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return p.stdout.decode("utf-8", "replace") if p.returncode == 0 else None

    def devices(self):
        """OpenCL device indices from `gputrace devices` (JSON), with names."""
        if self.help_text("devices") is None:
            self.skips.append(("OpenCL devices", "'gputrace devices' is not available yet; host path only"))
            return []
        p = subprocess.run([self.gputrace, "devices"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            self.skips.append(("OpenCL devices", "'gputrace devices' did not print JSON; host path only"))
            return []
        found = []

        def walk(v):
            if isinstance(v, dict):
                if "index" in v and "name" in v:
                    found.append((v["index"], v["name"]))
                for x in v.values():
                    walk(x)
            elif isinstance(v, list):
                for x in v:
                    walk(x)
        walk(doc)
        if not found:  # no explicit index: number the devices in listed order
            def names(v):
                if isinstance(v, dict):
                    if "devices" in v and isinstance(v["devices"], list):
                        for d in v["devices"]:
                            found.append((len(found), d.get("name", "?") if isinstance(d, dict) else str(d)))
                    else:
                        for x in v.values():
                            names(x)
                elif isinstance(v, list):
                    for x in v:
                        names(x)
            names(doc)
        return found

    def device_list(self, cmd):
        """[(label, extra argv)] for a gputrace command: host plus every device, if it takes --device."""
        text = self.help_text(cmd) or ""
        if "--device" not in text:
            return [("-", [])]
        return [("host", ["--device", "host"])] + [("cl%s" % i, ["--device", str(i)]) for i, _ in self.devs]

    # ---- traces ----
    def generate(self, spans):
        """The generated trace set for a size: {ext: path}, its summary; None with a reason when skipped."""
        name = "gen-%s" % human(spans)
        base = os.path.join(self.out, name)
        summary_path = base + ".gen.json"
        paths = {ext: base + ext for ext in (".json", ".json.gz", ".json.zst")}
        gen = [os.path.join(ROOT, "scripts", "gen-trace"), "--spans", str(spans), "--seed", "1"]
        summary = None
        if all(os.path.exists(p) for p in paths.values()) and os.path.exists(summary_path):
            with open(summary_path) as f:
                summary = json.load(f)
            if summary.get("spans") != spans or summary.get("generator_mtime") != os.path.getmtime(
                    os.path.join(ROOT, "tools", "gen_trace.c")):
                summary = None
        if summary is None:
            need = spans * 560 * 1.3 + 2e9  # bytes per span measured at 1M, plus the compressed copies
            free = shutil.disk_usage(self.out).free
            if free < need:
                return None, "needs about %.0f GB of disk, %.0f GB free" % (need / 1e9, free / 1e9)
            log("generating %s (%d spans)" % (name, spans))
            write_s = {}
            for ext, p in paths.items():
                env = dict(os.environ, BUILD=self.build)
                t0 = time.perf_counter()
                r = subprocess.run(gen + ["-o", p], stderr=subprocess.PIPE, env=env)
                wall = time.perf_counter() - t0
                if r.returncode != 0:
                    self.broken.append("gen-trace failed for %s: %s" % (p, r.stderr.decode()[-300:]))
                    return None, "gen-trace failed"
                summary = json.loads(r.stderr.decode().strip().splitlines()[-1])
                write_s[ext] = wall
                summary["write_s"] = write_s
            summary["generator_mtime"] = os.path.getmtime(os.path.join(ROOT, "tools", "gen_trace.c"))
            with open(summary_path, "w") as f:
                json.dump(summary, f)
        return (paths, summary), None

    def real_traces(self):
        """The largest real traces by uncompressed size: [(path, ubytes)]."""
        if not os.path.isdir(TRACES):
            self.skips.append(("real traces", "%s not found" % TRACES))
            return []
        sized = []
        for n in os.listdir(TRACES):
            p = os.path.join(TRACES, n)
            if n.endswith(".md") or not os.path.isfile(p):
                continue
            with open(p, "rb") as f:
                magic = f.read(2)
            if magic == b"\x1f\x8b":
                with gzip.open(p) as g:
                    size = sum(len(c) for c in iter(lambda: g.read(1 << 20), b""))
            else:
                size = os.path.getsize(p)
            sized.append((size, p))
        sized.sort(reverse=True)
        if self.smoke:  # something small but real keeps the smoke run fast
            sized = [s for s in sized if "param__worker" in s[1]]
        return [(p, s) for s, p in sized[:self.nreal]]

    # ---- peers ----
    def setup_venv(self):
        """A Python with orjson and HTA, from bench-out/.venv-bench or the project .venv."""
        for py in (os.path.join(self.out, ".venv-bench", "bin", "python"), os.path.join(ROOT, ".venv", "bin", "python")):
            if os.access(py, os.X_OK):
                self.venv_py = py
                break
        if self.install and not self.venv_py or self.install and self.venv_missing():
            venv = os.path.join(self.out, ".venv-bench")
            log("installing orjson and HolisticTraceAnalysis into %s" % venv)
            r = subprocess.run([sys.executable, "-m", "venv", venv], stdout=subprocess.DEVNULL)
            py = os.path.join(venv, "bin", "python")
            if r.returncode == 0:
                # HTA 0.5 breaks on pandas 3 (drop(axis=, columns=)); pin the series it was written for
                subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                                "orjson", "HolisticTraceAnalysis", "pandas<3"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                self.venv_py = py

    def venv_missing(self):
        if not self.venv_py:
            return True
        r = subprocess.run([self.venv_py, "-c", "import orjson, hta"], stderr=subprocess.DEVNULL)
        return r.returncode != 0

    def has_module(self, mod):
        if not self.venv_py:
            return False
        return subprocess.run([self.venv_py, "-c", "import " + mod], stderr=subprocess.DEVNULL).returncode == 0

    def run_decompressors(self, label, ubytes, spans, comp):
        """zstd -dc / gzip -dc on the compressed files: {ext: (path, gputrace info's median on it)}."""
        if not self.peers_on:
            return
        for ext, cmd in ((".json.zst", "zstd"), (".json.gz", "gzip")):
            if ext not in comp:
                continue
            p, ref = comp[ext]
            if not shutil.which(cmd):
                self.skip(label, "%s -dc > /dev/null" % cmd, "-", "%s is not installed" % cmd)
                continue
            self.bench(label, "%s -dc > /dev/null" % cmd, "-", [cmd, "-dc", p], ubytes, spans,
                       note="reads %s" % os.path.basename(p), ref=ref)

    def run_peers(self, label, path, ubytes, spans, ref, kineto):
        """The loaders (json, orjson, jq, HTA) on one trace file."""
        if not self.peers_on:
            return
        avail = mem_available()
        # tree-building loaders need several times the JSON size: skip what cannot fit
        opener = "gzip.open(sys.argv[1])" if path.endswith(".gz") else "open(sys.argv[1], 'rb')"
        loaders = [
            ("python json.load", sys.executable, "import gzip, json, sys; d = json.load(%s); "
             "print(len(d['traceEvents'] if isinstance(d, dict) else d))" % opener, 8),
            ("orjson.loads", self.venv_py, "import gzip, orjson, sys; d = orjson.loads(%s.read()); "
             "print(len(d['traceEvents'] if isinstance(d, dict) else d))" % opener, 10),
        ]
        for stage, py, code, ratio in loaders:
            if stage.startswith("orjson") and not self.has_module("orjson"):
                self.skip(label, stage, "-", "orjson is not installed (BENCH_INSTALL=1 installs it into bench-out/.venv-bench)")
                continue
            if ubytes * ratio > avail * 0.8:
                self.skip(label, stage, "-", "would need about %.0f GB of memory (%dx the JSON), %.0f GB available"
                          % (ubytes * ratio / 1e9, ratio, avail / 1e9))
                continue
            self.bench(label, stage, "-", [py, "-c", code, path], ubytes, spans, ref=ref)
        if not shutil.which("jq"):
            self.skip(label, "jq '.traceEvents|length'", "-", "jq is not installed")
        elif ubytes * 8 > avail * 0.8:
            self.skip(label, "jq '.traceEvents|length'", "-", "would need about %.0f GB of memory, %.0f GB available"
                      % (ubytes * 8 / 1e9, avail / 1e9))
        else:
            src = "gzip -dc '%s'" % path if path.endswith(".gz") else "cat '%s'" % path
            self.bench(label, "jq '.traceEvents|length'", "-", "%s | jq '.traceEvents|length'" % src,
                       ubytes, spans, shell=True, ref=ref)
        self.run_hta(label, path, ubytes, spans, ref, kineto, avail)

    def run_hta(self, label, path, ubytes, spans, ref, kineto, avail):
        stage = "HTA TraceAnalysis parse"
        if not self.has_module("hta"):
            self.skip(label, stage, "-", "HolisticTraceAnalysis is not installed (BENCH_INSTALL=1 installs it)")
            return
        if not kineto:
            self.skip(label, stage, "-", "not a PyTorch profiler (Kineto) trace, which is all HTA reads")
            return
        if ubytes * 25 > avail * 0.8:
            self.skip(label, stage, "-", "would need about %.0f GB of memory (pandas frames, ~25x the JSON), %.0f GB available"
                      % (ubytes * 25 / 1e9, avail / 1e9))
            return
        # HTA reads a directory of rank files
        d = os.path.join(self.out, "hta-" + label.replace("/", "_"))
        os.makedirs(d, exist_ok=True)
        link = os.path.join(d, "rank0" + (".json.gz" if path.endswith(".gz") else ".json"))
        if not os.path.lexists(link):
            os.symlink(os.path.abspath(path), link)
        parse = ("import logging, sys; logging.disable(logging.WARNING)\n"
                 "from hta.trace_analysis import TraceAnalysis\n"
                 "a = TraceAnalysis(trace_dir=sys.argv[1])\n")
        self.bench(label, stage, "-", [self.venv_py, "-c", parse, d], ubytes, spans, ref=ref)
        # critical path over every ProfilerStep (or the whole first annotation HTA finds)
        cp = parse + (
            "import sys\n"
            "r = sorted(a.t.traces)[0]  # HTA keys a trace by its distributedInfo rank, not by file\n"
            "df = a.t.get_trace(r); names = a.t.symbol_table.get_sym_table()\n"
            "steps = [i for i, n in enumerate(names) if n.startswith('ProfilerStep#')]\n"
            "k = int(df['name'].isin(steps).sum())\n"
            "if k == 0: sys.exit('no ProfilerStep annotation: HTA critical path needs one')\n"
            "g, ok = a.critical_path_analysis(rank=r, annotation='ProfilerStep', instance_id=(0, k - 1))\n"
            "if not ok: sys.exit('critical_path_analysis reported failure')\n"
            "print(len(g.critical_path_nodes))\n")
        if self.smoke:
            self.skip(label, "HTA parse + critical_path_analysis", "-", "smoke run: seconds per run even on tiny traces")
            return
        self.bench(label, "HTA parse + critical_path_analysis", "-", [self.venv_py, "-c", cp, d], ubytes, spans,
                   ref=ref, note="all ProfilerStep instances")

    # ---- gputrace stages ----
    def info(self, path):
        p = subprocess.run([self.gputrace, "info", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            return None
        try:
            return json.loads(p.stdout)
        except ValueError:
            return None

    def viewports(self, info, path):
        """1,000 viewport queries, one pan-and-zoom sequence over the trace, as JSONL."""
        dur = float(info.get("time", {}).get("duration_us", 0)) or 1.0
        lanes = int(info.get("lanes", 1)) or 1
        groups = [g.get("name") for g in info.get("groups", []) if isinstance(g, dict) and g.get("name")]
        seed = 12345
        with open(path, "w") as f:
            width, center = dur, dur / 2
            for q in range(1000):
                phase = (q // 50) % 4  # zoom in, pan right, zoom out, pan left
                seed = (seed * 6364136223846793005 + 1442695040888963407) % 2**64
                jitter = ((seed >> 33) % 1000) / 1000.0
                if phase == 0:
                    width = max(width * 0.85, dur / 1e5)
                elif phase == 1:
                    center += width * (0.05 + 0.1 * jitter)
                elif phase == 2:
                    width = min(width / 0.85, dur)
                else:
                    center -= width * (0.05 + 0.1 * jitter)
                center = min(max(center, width / 2), dur - width / 2)
                a, b = center - width / 2, center + width / 2
                l0 = 0 if q % 3 else int(lanes * jitter / 2)
                l1 = lanes if q % 3 else max(l0 + 1, min(lanes, l0 + 1 + lanes // 4))
                rec = {"id": q, "time": "%.3f:%.3fus" % (a, b), "lanes": "%d:%d" % (l0, l1), "level": "auto"}
                if groups and q % 5 == 4:
                    rec["groups"] = ",".join(groups[:max(1, len(groups) // 2)])
                f.write(json.dumps(rec) + "\n")

    def run_stages(self, label, path, ubytes, spans_hint, is_json_variant=True):
        """gputrace stages on one trace; returns (ref row of info on host, spans)."""
        if not os.access(self.gputrace, os.X_OK):
            self.skip(label, "gputrace (all stages)", "-", "%s is not built" % self.gputrace)
            return None, spans_hint
        ref = None
        spans = spans_hint
        if self.help_text("info") is None:
            self.skip(label, "ingest: gputrace info", "-", "'gputrace info' is not available yet")
        else:
            inf = self.info(path)
            if inf and isinstance(inf.get("spans"), int):
                spans = inf["spans"]
            for dev, extra in self.device_list("info"):
                r = self.bench(label, "ingest: gputrace info", dev, [self.gputrace, "info", path] + extra, ubytes, spans)
                if ref is None and "median" in r:
                    ref = r["median"]
        if not is_json_variant:
            return ref, spans
        gtx = os.path.join(self.out, os.path.basename(path).split(".json")[0] + ".gtx")
        have_pack = self.help_text("pack") is not None
        if not have_pack:
            self.skip(label, "pack", "-", "'gputrace pack' is not available yet")
        else:
            for dev, extra in self.device_list("pack"):
                self.bench(label, "pack", dev, [self.gputrace, "pack", path, "-o", gtx] + extra, ubytes, spans)
        if self.help_text("critical-path") is None:
            self.skip(label, "critical-path", "-", "'gputrace critical-path' is not available yet")
        else:
            for dev, extra in self.device_list("critical-path"):
                self.bench(label, "critical-path", dev, [self.gputrace, "critical-path", path] + extra, ubytes, spans)
            # the forest path: the fast host path and each device, then the
            # reference it is checked against (#17), on the same file
            for dev, extra in self.device_list("critical-path"):
                self.bench(label, "critical-path --model forest", dev,
                           [self.gputrace, "critical-path", "--model", "forest", path] + extra, ubytes, spans)
            self.bench(label, "critical-path --model forest", "host-ref",
                       "GPUTRACE_CRITPATH_REFERENCE=1 '%s' critical-path --model forest --device host '%s'"
                       % (self.gputrace, path), ubytes, spans, shell=True,
                       note="the reference (gt_critpath_host), the fast host path's oracle")
        if have_pack and os.path.exists(gtx):
            # from the index file: its load alone, and the critical path after it
            self.bench(label, "load: gputrace info T.gtx", "-", [self.gputrace, "info", gtx], 0, spans)
            for dev, extra in self.device_list("critical-path"):
                self.bench(label, "critical-path T.gtx", dev, [self.gputrace, "critical-path", gtx] + extra, 0, spans)
        if self.help_text("query") is None:
            self.skip(label, "query: 1,000 viewports", "-", "'gputrace query' is not available yet")
        elif not os.path.exists(gtx):
            self.skip(label, "query: 1,000 viewports", "-", "no index file (pack did not run)")
        else:
            inf = self.info(path)
            if not inf:
                self.skip(label, "query: 1,000 viewports", "-", "'gputrace info' gave no trace extent for the viewports")
            else:
                vp = os.path.join(self.out, os.path.basename(gtx) + ".viewports.jsonl")
                self.viewports(inf, vp)
                for dev, extra in self.device_list("query"):
                    self.bench(label, "query: 1,000 viewports", dev,
                               [self.gputrace, "query", gtx, "--viewports", vp] + extra, 0, spans, per=1000,
                               note="replay of one pan-and-zoom sequence")
        return ref, spans

    # ---- the whole run ----
    def run(self):
        if not self.have_time:
            log("/usr/bin/time is missing: installing it through scripts/install-deps")
            subprocess.run(["sh", os.path.join(ROOT, "scripts", "install-deps")])
            self.have_time = os.access(GTIME, os.X_OK)
            if not self.have_time:
                self.skips.append(("peak RSS", "/usr/bin/time is not installed"))
        self.devs = self.devices()
        if self.peers_on:
            self.setup_venv()

        for spans in self.sizes:
            label = "gen %s spans" % human(spans)
            got, reason = self.generate(spans)
            if got is None:
                self.skip(label, "(all)", "-", reason)
                continue
            paths, summary = got
            ubytes = summary["bytes"]
            log("== %s: %.0f MB of JSON, %d events" % (label, ubytes / MB, summary["events"]))
            if self.smoke:
                self.check_counts(paths[".json"], summary)
            self.bench(label, "generate (gen-trace to /dev/null)", "-",
                       "'%s' --spans %d --seed 1 > /dev/null" % (os.path.join(self.build, "tools", "gen_trace"), spans),
                       ubytes, spans, shell=True)
            refs = {}
            for ext in (".json", ".json.gz", ".json.zst"):
                refs[ext], _ = self.run_stages("%s %s" % (label, ext), paths[ext], ubytes, spans,
                                               is_json_variant=(ext == ".json"))
            self.run_peers(label + " .json", paths[".json"], ubytes, spans, refs[".json"], True)
            # decompressors compare with gputrace reading the same compressed file
            self.run_decompressors(label + " compressed", ubytes, spans,
                                   {e: (paths[e], refs[e]) for e in (".json.zst", ".json.gz")})
        for path, ubytes in self.real_traces():
            label = os.path.basename(path)
            log("== real trace %s (%.1f MB of JSON)" % (label, ubytes / MB))
            kineto = any(label.startswith(p) for p in ("kineto__", "hta__", "param__", "tracelens__"))
            ref, spans = self.run_stages(label, path, ubytes, self.count_spans(path))
            if path.endswith(".gz"):
                self.run_decompressors(label, ubytes, spans, {".json.gz": (path, ref)})
            self.run_peers(label, path, ubytes, spans, ref, kineto)
        self.report()
        return 1 if self.broken else 0

    def count_spans(self, path):
        """Spans by the independent counter (X, B, i/I, b, S openers) when gputrace info cannot say."""
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "count-events.py"), path],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            ph = json.loads(p.stdout)["phases"]
        except (ValueError, KeyError):
            return None
        return sum(ph.get(k, 0) for k in ("X", "B", "i", "I", "b", "S"))

    def check_counts(self, path, summary):
        """The smoke run checks the generator against the independent counter."""
        p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "count-events.py"), path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            got = json.loads(p.stdout)
        except ValueError:
            self.broken.append("count-events.py failed on %s: %s" % (path, p.stderr.decode()[-300:]))
            return
        if got["events"] != summary["events"] or got["phases"].get("X") != summary["spans"] \
                or got["phases"].get("s", 0) + got["phases"].get("f", 0) != summary["flows"]:
            self.broken.append("generator summary %s disagrees with count-events %s" % (summary, got))

    # ---- the table ----
    def report(self):
        lines = []
        lines.append("| trace | stage | device | runs | median s | min-max s | MB/s | spans/s | peak RSS MB | vs gputrace info | note |")
        lines.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in self.rows:
            if "skipped" in r:
                lines.append("| %s | %s | %s | | | | | | | | skipped: %s |" % (r["trace"], r["stage"], r["device"], r["skipped"]))
                continue
            med = r["median"]
            mbs = "%.0f" % (r["ubytes"] / MB / med) if r.get("ubytes") else "-"
            if r.get("per"):
                sps = "%.1f µs/query" % (med / r["per"] * 1e6)
            else:
                sps = rate(r["spans"] / med) if r.get("spans") else "-"
            rss = "%.0f" % (r["rss"] / MB) if r.get("rss") else "-"
            ratio = "%.1fx slower" % (med / r["ref"]) if r.get("ref") and not r["stage"].startswith("ingest") else ""
            if r.get("ref") and med < r["ref"] and not r["stage"].startswith("ingest"):
                ratio = "%.1fx faster" % (r["ref"] / med)
            lines.append("| %s | %s | %s | %d | %.3f | %.3f-%.3f | %s | %s | %s | %s | %s |" % (
                r["trace"], r["stage"], r["device"], r["runs"], med, r["min"], r["max"], mbs, sps, rss, ratio,
                r.get("note", "")))
        text = "\n".join(lines) + "\n"
        if self.skips:
            text += "\n" + "\n".join("- %s: skipped: %s" % s for s in self.skips) + "\n"
        text += ("\nMB/s is uncompressed JSON bytes per second of wall time; peak RSS from /usr/bin/time -v; "
                 "'vs gputrace info' is the peer's median over gputrace info's median on the same file "
                 "(host path).\n")
        if self.broken:
            text += "\nHARNESS FAILURES:\n" + "\n".join("- " + b for b in self.broken) + "\n"
        with open(os.path.join(self.out, "results.md"), "w") as f:
            f.write(text)
        sys.stdout.write(text)


def main():
    args = sys.argv[1:]
    smoke = "--smoke" in args
    args = [a for a in args if a != "--smoke"]
    if len(args) > 1:
        print("usage: bench.py [--smoke] [BUILD]", file=sys.stderr)
        return 2
    h = Harness(args[0] if args else "build", smoke)
    return h.run()


if __name__ == "__main__":
    sys.exit(main())
