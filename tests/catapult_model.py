"""How catapult's trace viewer (chrome://tracing, /tmp/shared/viewer) binds
flow events to slices, re-done in Python for the overlay tests
(tests/overlay_bind.py, scripts/check-viewer). Its JSON importer
(trace_event_importer.js), as far as thread slices and v1 flows go:
  - ts and dur (µs) become ms as doubles: ts * (1e-6 / 1e-3), the same
    IEEE arithmetic Python's floats do;
  - thread slices: X (start ts, duration dur; no dur: open to the end), B/E
    (a stack per thread; duration E - B), thread-scoped instants (zero
    long); a slice's end is start + duration;
  - nesting: slices sorted by start (ties: the order they were pushed), each
    the child of the latest open one that bounds it, compared after rounding
    to the display unit (Math.round(ms * 1000), µs; * 1e6 with
    displayTimeUnit "ns");
  - flow events sorted by ts (µs), ties in file order; an 's' binds to
    findSliceAtTs (the top-level slice whose closed interval holds ts, then
    down through its children the same way), an 'f' with bp "e" too.
Only what the overlay's flows need is done: slices on the threads that
flows of the asked category live on."""
import json
import math

MS_PER_US = 1e-6 / 1e-3  # tr.b.convertUnit(us, MICRO, MILLI)


class IntToken(float):
    """A JSON number written without a fraction or exponent (Perfetto reads
    those exactly)."""


def load_events(path):
    """(events, display unit) of a trace file: numbers as doubles, as
    JSON.parse gives them; integer tokens as IntToken."""
    with open(path, "rb") as f:
        data = json.loads(f.read().decode("utf-8-sig"), parse_int=IntToken)
    if isinstance(data, dict):
        return data.get("traceEvents", []), data.get("displayTimeUnit")
    return data, None


def js_key(v):
    """A pid or tid as a JavaScript property name (1 and "1" are one)."""
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else repr(v)
    return str(v)


def js_round(x):
    """Math.round: the nearest integer, halves up."""
    r = math.floor(x)
    return r + 1 if x - r >= 0.5 else r


def to_ms(us):
    return us * MS_PER_US


class Slice:
    __slots__ = ("start", "duration", "event", "title", "subs", "parent", "open")

    def __init__(self, start, duration, event, title):
        self.start, self.duration, self.event, self.title = start, duration, event, title
        self.subs, self.parent, self.open = [], None, duration is None

    @property
    def end(self):
        return self.start + self.duration


def low_index(ary, fn, val):
    """tr.b.findLowIndexInSortedArray."""
    if not ary:
        return 1
    low, high, hit = 0, len(ary) - 1, -1
    while low <= high:
        i = (low + high) // 2
        c = fn(ary[i]) - val
        if c < 0:
            low = i + 1
        elif c > 0:
            high = i - 1
        else:
            hit, high = i, i - 1
    return hit if hit != -1 else low


def closed_index(ary, val):
    """tr.b.findIndexInSortedClosedIntervals over slices [start, end]."""
    i = low_index(ary, lambda s: s.start, val)
    inside = lambda k: ary[k].start <= val <= ary[k].end
    if i == 0:
        return 0 if inside(0) else -1
    if i < len(ary):
        if inside(i - 1):
            return i - 1
        return i if inside(i) else len(ary)
    if i == len(ary) and inside(i - 1):
        return i - 1
    return len(ary)


class Thread:
    def __init__(self):
        self.slices, self.stack, self.top = [], [], []

    def nest(self, scale):
        """createSubSlicesImpl_: scale 1000 (ms display) or 1e6 (ns)."""
        if not self.slices:
            return
        r = lambda x: js_round(x * scale)
        order = sorted(range(len(self.slices)), key=lambda i: (self.slices[i].start, i))
        slices = [self.slices[i] for i in order]
        root = slices[0]
        self.top = [root]
        for s in slices[1:]:
            while root is not None and (r(s.start) < r(root.start) or r(root.end) < r(s.end)):
                root = root.parent
            if root is None:
                self.top.append(s)
            else:
                root.subs.append(s)
                s.parent = root
            root = s

    def slice_at(self, ts):
        """findSliceAtTs."""
        i = closed_index(self.top, ts)
        if i == -1 or i == len(self.top):
            return None
        cur = self.top[i]
        while True:
            i = closed_index(cur.subs, ts)
            if i == -1 or i == len(cur.subs):
                return cur
            cur = cur.subs[i]


def build_threads(events, keys, unit):
    """The slices of the threads in keys ((pid, tid) as js_key pairs)."""
    threads = {k: Thread() for k in keys}
    hi = -math.inf
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        ts = e.get("ts")
        if isinstance(ts, float):
            hi = max(hi, to_ms(ts) + (to_ms(e["dur"]) if isinstance(e.get("dur"), float) else 0))
        if ph not in ("X", "B", "E", "I", "i", "R"):
            continue
        th = threads.get((js_key(e.get("pid")), js_key(e.get("tid"))))
        if th is None or not isinstance(ts, float):
            continue
        if ph == "X":
            if "trace_event_overhead" in str(e.get("cat", "")):
                continue
            dur = e.get("dur")
            th.slices.append(Slice(to_ms(ts), to_ms(dur) if isinstance(dur, float) else None, i, e.get("name")))
        elif ph == "B":
            s = Slice(to_ms(ts), None, i, e.get("name"))
            th.slices.append(s)
            th.stack.append(s)
        elif ph == "E":
            if th.stack:
                s = th.stack.pop()
                s.duration, s.open = to_ms(ts) - s.start, False
        elif e.get("s", "t") == "t" and e.get("name") not in ("JitCodeAdded", "JitCodeMoved"):
            th.slices.append(Slice(to_ms(ts), 0.0, i, e.get("name")))
    scale = 1e6 if unit == "ns" else 1000
    for th in threads.values():
        for s in th.slices:  # autoCloseOpenSlices
            if s.open:
                s.duration = hi - s.start
        th.nest(scale)
    return threads


def bind_flows(events, unit, cat):
    """Binds the v1 flows of category cat as catapult does: returns
    ({id: (start slice, end slice)}, [warnings], {event index: slice} of
    the flows' threads)."""
    flows = [(i, e) for i, e in enumerate(events)
             if isinstance(e, dict) and e.get("ph") in ("s", "t", "f") and e.get("cat") == cat]
    keys = {(js_key(e.get("pid")), js_key(e.get("tid"))) for _, e in flows}
    threads = build_threads(events, keys, unit)
    flows.sort(key=lambda x: (x[1]["ts"], x[0]))
    open_, bound, warnings = {}, {}, []
    for _, e in flows:
        fid = js_key(e.get("id"))
        th = threads[(js_key(e.get("pid")), js_key(e.get("tid")))]
        at = th.slice_at(to_ms(e["ts"]))
        if e["ph"] == "s":
            if fid in open_:
                warnings.append(f"event id {fid} already seen when encountering start of flow event.")
            elif at is None:
                warnings.append(f"event id {fid} does not start at an actual slice, so cannot be created.")
            else:
                open_[fid] = at
            continue
        start = open_.pop(fid, None)
        if start is None:
            warnings.append(f"Found flow phase {e['ph']} for id: {fid} but no flow start found.")
        elif e.get("bp") != "e":
            warnings.append(f"event id {fid}: only bp \"e\" is modelled")
        elif at is None:
            warnings.append(f"event id {fid} does not end at an actual slice, so cannot be created.")
        else:
            bound[fid] = (start, at)
    by_event = {s.event: s for th in threads.values() for s in th.slices}
    return bound, warnings, by_event


def perfetto_ns(v):
    """Perfetto's JSON importer's ts in ns: integers exactly, other numbers
    llround(µs * 1000.0)."""
    if isinstance(v, IntToken):
        return int(v) * 1000
    x = float(v) * 1000.0
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


if __name__ == "__main__":
    import sys
    evs, unit = load_events(sys.argv[1])
    b, w, _ = bind_flows(evs, unit, sys.argv[2] if len(sys.argv) > 2 else "critical_path")
    print(json.dumps({"bound": len(b), "warnings": w[:20]}))
