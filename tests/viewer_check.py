"""Loads a trace and its critical-path overlay into catapult's trace viewer
(what chrome://tracing is) in headless Chromium and reads the viewer's
model (scripts/check-viewer; needs PyPI's websocket-client):
  viewer_check.py VIEWER.html TRACE OVERLAY.json EXPECT.json
EXPECT.json (tests/overlay_bind.py) lists each path flow's intended slices:
title, start and duration in ms, as the trace gives them. Checks that the
overlay brings no import warning the trace does not already have, that
every path flow is in the model bound to its intended slices (titles and
times), that the trace's threads keep their slices, that the spans marked
critical_path carry their args, and that no hop slice nests in another on
the path track. Prints the figures; exits 1 on a failure."""
import base64
import collections
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket

MARKER = "<!-- VIEWER-DATA -->"
TOLERANCE_MS = 1e-6  # 1 ns: the model's times are shifted to zero and back

READ_MODEL = r"""(() => {
  const m = g_timelineViewEl.model, sh = m.timestampShiftToZeroAmount_;
  const at = s => s ? [s.title, s.start - sh, s.duration] : null;
  const procs = m.getAllProcesses().map(p => ({
    pid: String(p.pid), name: p.name || null,
    threads: Object.values(p.threads).map(t => {
      const sl = t.sliceGroup.slices;
      return {tid: String(t.tid), slices: sl.length,
              nested: sl.filter(s => s.parentSlice).length,
              marked: sl.filter(s => s.args && s.args.critical_path === 1 &&
                                     s.args.float_us !== undefined).length};
    })}));
  return JSON.stringify({
    warnings: m.importWarnings.map(w => [w.type, w.message]),
    flows: m.flowEvents.filter(f => f.category === 'critical_path')
              .map(f => ({id: String(f.id), from: at(f.startSlice), to: at(f.endSlice)})),
    procs});
})()"""


class Browser:
    """Headless Chromium driven over the DevTools protocol."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="gputrace-viewer-")
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            raise SystemExit("viewer_check: chromium is missing (sh scripts/install-deps viewer)")
        self.proc = subprocess.Popen(
            [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
             "--remote-allow-origins=*", f"--user-data-dir={self.dir}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.dir, "DevToolsActivePort")
        for _ in range(600):
            if os.path.exists(port_file) and open(port_file).read().count("\n") >= 1:
                break
            time.sleep(0.1)
        else:
            self.close()
            raise SystemExit("viewer_check: chromium did not open its DevTools port")
        port = open(port_file).read().split("\n")[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=600, suppress_origin=True)
        self.n = 0

    def call(self, method, **params):
        self.n += 1
        self.ws.send(json.dumps({"id": self.n, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.n:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"page: {r['exceptionDetails'].get('text')}: {expr[:80]}")
        return r["result"].get("value")

    def load(self, page, limit_s=600):
        """Opens page and waits for the viewer's model; the model, read."""
        self.call("Page.navigate", url="file://" + os.path.abspath(page))
        t0 = time.time()
        while time.time() - t0 < limit_s:
            time.sleep(0.5)
            # a top-level let, so not window's property
            if self.eval("typeof g_timelineViewEl !== 'undefined' && !!g_timelineViewEl.model"):
                return json.loads(self.eval(READ_MODEL))
            if self.eval("Array.from(document.querySelectorAll('tr-ui-b-overlay'))"
                         ".some(o => (o.title || '').includes('Import error'))"):
                raise RuntimeError(f"{page}: the viewer shows an import error")
        raise RuntimeError(f"{page}: no model after {limit_s} s")

    def close(self):
        if getattr(self, "proc", None):
            self.proc.terminate()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def page_for(viewer, trace, out):
    """The page trace2html would write: the trace's bytes gzipped (as they
    are when already gzip), base64, in a viewer-data script element."""
    with open(trace, "rb") as f:
        data = f.read()
    if data[:2] != b"\x1f\x8b":
        data = gzip.compress(data)
    with open(viewer, encoding="utf-8") as f:
        html = f.read()
    if MARKER not in html:
        raise SystemExit(f"viewer_check: {viewer} has no {MARKER}")
    elem = '<script id="viewer-data" type="text/plain">' + base64.b64encode(data).decode() + "</script>"
    with open(out, "w", encoding="utf-8") as f:
        f.write(html.replace(MARKER, elem, 1))


def same_slice(got, want):
    return got is not None and want is not None and got[0] == want[0] and \
        abs(got[1] - want[1]) <= TOLERANCE_MS and abs(got[2] - want[2]) <= TOLERANCE_MS


def marked_in_file(path):
    with open(path, "rb") as f:
        evs = json.loads(f.read().decode("utf-8"))
    evs = evs["traceEvents"] if isinstance(evs, dict) else evs
    return sum(1 for e in evs if isinstance(e.get("args"), dict) and e["args"].get("critical_path") == 1)


def main():
    viewer, trace, overlay, expect_path = sys.argv[1:5]
    with open(expect_path) as f:
        expect = json.load(f)
    name = os.path.basename(trace)
    tmp = tempfile.mkdtemp(prefix="gputrace-pages-")
    browser = None
    try:
        page_for(viewer, trace, os.path.join(tmp, "trace.html"))
        page_for(viewer, overlay, os.path.join(tmp, "overlay.html"))
        browser = Browser()
        before = browser.load(os.path.join(tmp, "trace.html"))
        after = browser.load(os.path.join(tmp, "overlay.html"))
    finally:
        if browser:
            browser.close()
        shutil.rmtree(tmp, ignore_errors=True)
    fails = []
    new = collections.Counter(map(tuple, after["warnings"])) - collections.Counter(map(tuple, before["warnings"]))
    for (kind, msg), n in list(new.items())[:10]:
        fails.append(f"new import warning ({n}x) {kind}: {msg}")
    got = {f["id"]: f for f in after["flows"]}
    # a flow no order of points binds is left out of the overlay (overlay_bind.py checked that)
    expect = [e for e in expect if e["from"] is not None or e["to"] is not None or str(e["id"]) in got]
    present = sum(1 for e in expect if str(e["id"]) in got)
    bound = 0
    for e in expect:
        f = got.get(str(e["id"]))
        if f and same_slice(f["from"], e["from"]) and same_slice(f["to"], e["to"]):
            bound += 1
        elif len(fails) < 20:
            fails.append(f"flow {e['id']}: want {e['from']} -> {e['to']}, the viewer has "
                         f"{(f['from'], f['to']) if f else 'none'}")
    threads = lambda m: {(p["pid"], t["tid"]): t for p in m["procs"] for t in p["threads"]}
    tb, ta = threads(before), threads(after)
    path_pids = {p["pid"] for p in after["procs"] if p["name"] == "critical path"}
    for k, t in tb.items():
        if k not in ta or ta[k]["slices"] != t["slices"]:
            fails.append(f"thread {k}: {t['slices']} slices, {ta[k]['slices'] if k in ta else 'none'} in the overlay")
    extra = [k for k in ta if k not in tb and k[0] not in path_pids]
    if extra:
        fails.append(f"threads only the overlay has: {extra[:5]}")
    nested = sum(t["nested"] for k, t in ta.items() if k[0] in path_pids)
    hop_slices = sum(t["slices"] for k, t in ta.items() if k[0] in path_pids)
    if nested or not path_pids:
        fails.append(f"path track: {nested} hop slices nest in another" if path_pids else "no critical path process")
    marked = sum(t["marked"] for t in ta.values())
    want_marked = marked_in_file(overlay)
    if marked != want_marked:
        fails.append(f"{marked} slices carry critical_path and float_us in the viewer, {want_marked} in the file")
    for line in fails[:20]:
        print(f"  {name}: {line}")
    print(f"{name}: flows {len(expect)} expected, {present} present, {bound} bound to their slices; "
          f"import warnings {len(before['warnings'])} before, {len(after['warnings'])} after "
          f"({sum(new.values())} new); {hop_slices} hop slices, {nested} nested; {marked} marked spans")
    sys.exit(1 if fails else 0)


main()
