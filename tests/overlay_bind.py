"""Checks that every flow of a critical-path overlay binds to the slice it
was written for, read the way the viewers read it (tests/overlay_bind.sh):
  overlay_bind.py OVERLAY.json CP.json SPANS.ndjson [EXPECT.json]
CP.json is the critical-path output, SPANS.ndjson `spans -f ndjson --parents
nesting` of the input. Flow k of the overlay is the path's k-th hop between
two tracks (windows in order): its 's' must bind to the slice that opens at
the from span's event, its 'f' to the to span's, in catapult's arithmetic
(tests/catapult_model.py) and in Perfetto's (ns; the top of the track's
slice stack when the flow event comes). And no hop slice on the path track
nests in another (a row of its own) in catapult's nesting. Prints one line
of counts, the first failures before it. EXPECT.json, when given, gets each flow's intended
slices as catapult sees them (title, start and duration in ms before its
shift to zero), for scripts/check-viewer."""
import bisect
import json
import sys

import catapult_model as cm


def load_ndjson(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def path_flows(cp, spans):
    """(from span, to span) per added flow, in id order."""
    track = {s["id"]: s["track"] for s in spans}
    return [(h["from"]["span"], h["to"]["span"]) for w in cp["windows"] for h in w["path"]
            if track[h["from"]["span"]] != track[h["to"]["span"]]]


class Tracks:
    """Spans per track by start, for what Perfetto's stack holds at a time."""

    def __init__(self, spans, events):
        self.by_id = {s["id"]: s for s in spans}
        self.events = events
        self.lists, self.starts = {}, {}
        for s in sorted(spans, key=lambda s: (s["ts_ns"], s["id"])):
            self.lists.setdefault(s["track"], []).append(s)
            self.starts.setdefault(s["track"], []).append(s["ts_ns"])

    def ancestor(self, a, s):
        p = s.get("parent")
        while p is not None:
            if p == a["id"]:
                return True
            p = self.by_id[p].get("parent")
        return False

    def own_part_end(self, s):
        """Where s's own part ends: the first start of a span on its track,
        within s, that takes points from it (not s, not an ancestor starting
        with it, not an instant on a process or global track); all of s
        when that one starts with s (src/overlay/overlay.c: first_taker)."""
        lst = self.lists[s["track"]]
        end = s["ts_ns"] + s["dur_ns"]
        for x in lst[bisect.bisect_left(self.starts[s["track"]], s["ts_ns"]):]:
            if x["ts_ns"] > end:
                break
            if x is s or self.off_track(x) or (x["ts_ns"] == s["ts_ns"] and self.ancestor(x, s)):
                continue
            return x["ts_ns"] if x["ts_ns"] > s["ts_ns"] else end
        return end

    def flow_time(self, s, t):
        """Where gputrace puts a point at t of span s (overlay.c: flow_time):
        into s's own part, a margin of 2^(bits - 50) ns from its ends, bits
        the bit length of s's larger end; its middle when shorter than two
        margins."""
        a, b = s["ts_ns"], self.own_part_end(s)
        bits = max(abs(s["ts_ns"]), abs(s["ts_ns"] + s["dur_ns"])).bit_length()
        k = 1 << (bits - 50) if bits > 50 else 1
        if b - a < 2 * k:
            return a + (b - a) // 2
        return min(max(t, a + k), b - k)

    def drawable(self, a, b):
        """Whether a flow from span a to span b can be bound in time order:
        the latest point of b is not before the earliest of a."""
        return self.flow_time(b, float("inf")) >= self.flow_time(a, float("-inf"))

    def off_track(self, x):
        """An instant Perfetto puts on a process or global track."""
        e = self.events[x["event"]]
        return e.get("ph") in ("i", "I", "R") and e.get("s") in ("g", "p")

    def start_ns(self, s):
        return cm.perfetto_ns(self.events[s["event"]]["ts"])

    def perfetto_ok(self, flow_ev, span):
        """Perfetto binds a v1 flow event to the top of its track's slice
        stack when it comes (in ts order, after the trace's own events of
        that ts): span, if the point lies in it and no other span of the
        track, bar its ancestors, has begun in it by then. Times are
        Perfetto's ns; a span's end is its start plus gputrace's dur_ns."""
        p, b = cm.perfetto_ns(flow_ev["ts"]), self.start_ns(span)
        if not b <= p <= b + span["dur_ns"]:
            return False
        lst = self.lists[span["track"]]
        for x in lst[bisect.bisect_left(self.starts[span["track"]], span["ts_ns"]):]:
            if self.start_ns(x) > p:
                break
            if x is not span and not self.off_track(x) and not self.ancestor(x, span):
                return False
        return True


def main():
    ov_path, cp_path, spans_path = sys.argv[1:4]
    expect_path = sys.argv[4] if len(sys.argv) > 4 else None
    events, unit = cm.load_events(ov_path)
    with open(cp_path) as f:
        cp = json.load(f)
    spans = load_ndjson(spans_path)
    by_id = {s["id"]: s for s in spans}
    tracks = Tracks(spans, events)
    want = path_flows(cp, spans)
    bound, warnings, slice_of = cm.bind_flows(events, unit, "critical_path")
    points = {}
    for e in events:
        if isinstance(e, dict) and e.get("cat") == "critical_path" and e.get("ph") in ("s", "f"):
            points.setdefault(cm.js_key(e["id"]), {})[e["ph"]] = e
    fails = []
    ok_c = ok_p = 0
    expect = []
    undrawn = 0
    for k, (a, b) in enumerate(want, 1):
        fid = str(k)
        sa, sb = by_id[a], by_id[b]
        if fid not in points and not tracks.drawable(sa, sb):
            undrawn += 1  # left out, as it must be: no order of points binds it
            ok_c += 1
            ok_p += 1
            expect.append({"id": k, "from": None, "to": None})
            continue
        got = bound.get(fid)
        ia, ib = slice_of.get(sa["event"]), slice_of.get(sb["event"])
        expect.append({"id": k, "from": ia and [ia.title, ia.start, ia.duration],
                       "to": ib and [ib.title, ib.start, ib.duration]})
        if got and got[0] is ia and got[1] is ib:
            ok_c += 1
        else:
            where = "unbound" if not got else \
                f"bound to events {got[0].event}, {got[1].event} ({got[0].title!r} -> {got[1].title!r})"
            fails.append(f"flow {k}: span {a} (event {sa['event']}, {sa['name']!r}) -> span {b} "
                         f"(event {sb['event']}, {sb['name']!r}) in catapult: {where}")
        pt = points.get(fid, {})
        if "s" in pt and "f" in pt and tracks.perfetto_ok(pt["s"], sa) and tracks.perfetto_ok(pt["f"], sb):
            ok_p += 1
        else:
            fails.append(f"flow {k}: span {a} -> span {b}: Perfetto binds it elsewhere")
    # the path track: one row, no hop slice nested in another
    hop_threads = {(cm.js_key(e["pid"]), cm.js_key(e["tid"])) for e in events
                   if isinstance(e, dict) and e.get("cat") == "critical_path" and e.get("ph") == "X"}
    nested = sum(1 for th in cm.build_threads(events, hop_threads, unit).values() for x in th.slices if x.parent)
    if nested:
        fails.append(f"{nested} hop slices nest in another on the path track")
    extra = len(points) - (len(want) - undrawn)
    if extra:
        fails.append(f"{len(points)} flows in the overlay, {len(want)} cross-track hops")
    for line in fails[:12]:
        print(line)
    for w in warnings[:5]:
        print("warning:", w)
    print(f"flows {len(want)} catapult {ok_c} perfetto {ok_p} warnings {len(warnings)} nested {nested} "
          f"undrawable {undrawn}")
    if expect_path:
        with open(expect_path, "w") as f:
            json.dump(expect, f)
    sys.exit(1 if fails or warnings else 0)


main()
