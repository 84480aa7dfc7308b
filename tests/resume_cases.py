#!/usr/bin/env python3
"""Traces that grow by appended events, for tests/update_resume.sh.

  gen DIR SEED        writes DIR/NAME.old.json and DIR/NAME.new.json pairs
                      (the trace before and after growing) and DIR/cases.txt
                      with one "NAME RESUMED" line each (RESUMED: 1 when
                      `pack --update` must resume the parse, 0 when it must
                      read the whole trace again)
  split TRACE K OLD [open]
                      writes TRACE's text cut after its K-th event (with the
                      closers ']' / ']}' added back, or for an Array Format
                      trace with "open" left open) to OLD; exits 3 when
                      "open" is asked of an Object Format trace
  count TRACE         prints the number of events in TRACE's event array
"""
import json
import random
import sys

CATS = ["cat%d" % i for i in range(40)]


def gen_events(rng, n):
    """A random but valid-ish event stream that exercises the builder:
    B/E stacks, async b/e/n, legacy S/T/p/F, flows v1 (bp e and next
    slice) and v2, counters, metadata that reorders lanes, odd events."""
    pids = [1, 2, "3", "proc-a"]
    tids = [1, 2, "7", "t-x", 12]
    stacks = {}
    asyncs = []
    flows = []
    ev = []
    ts = 1000.0
    for i in range(n):
        ts += rng.choice([0, 0.5, 1, 3, 10])
        t = ts if rng.random() > 0.05 else ts - rng.choice([1, 50, 400])  # a few out of order
        pid, tid = rng.choice(pids), rng.choice(tids)
        key = (json.dumps(pid), json.dumps(tid))
        cat = rng.choice(CATS[: 8 + i * 40 // n])  # new categories keep arriving
        r = rng.random()
        if r < 0.22:
            e = {"ph": "X", "name": "x%d" % rng.randrange(6), "cat": cat, "pid": pid, "tid": tid, "ts": t,
                 "dur": rng.choice([0, 1, 2.5, 30, 200])}
            if rng.random() < 0.1:
                e["bind_id"] = rng.choice([7, 8, "b9"])
                e[rng.choice(["flow_in", "flow_out"])] = True
                if rng.random() < 0.3:
                    e["flow_in"] = e["flow_out"] = True
        elif r < 0.36:
            name = "b%d" % rng.randrange(4)
            stacks.setdefault(key, []).append(name)
            e = {"ph": "B", "name": name, "cat": cat, "pid": pid, "tid": tid, "ts": t}
        elif r < 0.48:
            st = stacks.get(key, [])
            e = {"ph": "E", "pid": pid, "tid": tid, "ts": t}
            if st and rng.random() < 0.3:
                e["name"] = st.pop(rng.randrange(len(st)))  # closes a named, maybe outer one
            elif st:
                st.pop()
            elif rng.random() < 0.5:
                e["name"] = "nope"  # unmatched
        elif r < 0.56:
            if asyncs and rng.random() < 0.5:
                a = asyncs.pop(rng.randrange(len(asyncs)))
                e = dict(a, ph="e" if a["ph"] == "b" else "F", ts=t)
            else:
                idk = rng.choice(["id", "id2g", "id2l"])
                a = {"ph": rng.choice("bbS"), "name": "a%d" % rng.randrange(3), "cat": cat, "pid": pid,
                     "ts": t}
                v = rng.choice([5, 6, "0x10", "s1"])
                if idk == "id":
                    a["id"] = v
                else:
                    a["id2"] = {"global" if idk == "id2g" else "local": v}
                if rng.random() < 0.2:
                    a["scope"] = "sc%d" % rng.randrange(2)
                asyncs.append(a)
                e = a
        elif r < 0.60:
            a = rng.choice(asyncs) if asyncs else {"cat": cat, "pid": pid, "id": 1}
            e = {k: v for k, v in a.items() if k in ("cat", "pid", "id", "id2", "scope")}
            e.update(ph=rng.choice("nTp"), name="step", ts=t)
        elif r < 0.70:
            fid = rng.choice([1, 2, 3, "f4"])
            ph = rng.choice("sstf")
            e = {"ph": ph, "name": "flow", "cat": rng.choice(["fl", "fl2"]), "id": fid, "pid": pid, "tid": tid,
                 "ts": t}
            if ph == "f" and rng.random() < 0.5:
                e["bp"] = "e"
            flows.append(e)
        elif r < 0.76:
            e = {"ph": "C", "name": rng.choice(["mem", "gpu"]), "pid": pid, "ts": t,
                 "args": {rng.choice(["a", "b"]): rng.randrange(100), "c": 1.5}}
        elif r < 0.82:
            e = {"ph": rng.choice("iI"), "name": "inst", "cat": cat, "pid": pid, "tid": tid, "ts": t}
            if rng.random() < 0.5:
                e["s"] = rng.choice("gpt")
        elif r < 0.92:
            kind = rng.choice(["process_name", "thread_name", "process_sort_index", "thread_sort_index",
                               "process_labels"])
            args = {"name": "n%d" % rng.randrange(9)} if kind.endswith("name") else \
                {"labels": "L"} if kind == "process_labels" else {"sort_index": rng.randrange(-3, 4)}
            e = {"ph": "M", "name": kind, "pid": pid, "tid": tid, "args": args}
        else:
            e = rng.choice([{"ph": "Q", "name": "unknown", "pid": pid, "ts": t},
                            {"ph": "X", "name": "nots", "pid": pid, "tid": tid, "dur": 1},
                            {"ph": "XY", "name": "long", "pid": pid, "ts": t},
                            {"ph": "ZZZ", "name": "long2", "pid": pid, "ts": t},
                            {"name": "nophase", "pid": pid, "ts": t},
                            {"ph": "X", "name": "ctl\u0001", "cat": cat, "pid": pid, "tid": tid, "ts": t, "dur": 1},
                            {"ph": "X", "name": "tc", "cat": cat, "pid": pid, "tid": tid, "ts": t, "dur": 2,
                             "args": {"k": [1, 2]}}])
        ev.append(e)
    return ev


def render(e):
    s = json.dumps(e)
    s = s.replace("\\u0001", "\x01")  # a raw control character: a counted warning
    if '"args": {"k": [1, 2]}' in s:
        s = s.replace('"args": {"k": [1, 2]}', '"args": {"k": [1, 2,],}')  # trailing commas inside
    return s


def write(path, text):
    with open(path, "w", newline="") as f:
        f.write(text)


def gen(d, seed):
    rng = random.Random(seed)
    cases = []
    ev = gen_events(rng, 400)
    body = [render(e) for e in ev]

    def arr(evs, tail):
        return "[" + ",\n".join(evs) + tail

    def add(name, old, new, resumed=1):
        write("%s/%s.old.json" % (d, name), old)
        write("%s/%s.new.json" % (d, name), new)
        cases.append("%s %d" % (name, resumed))

    for k in sorted({1, 2, 57, 123, 200, 333, 399, rng.randrange(3, 397)}):
        old, rest = body[:k], body[k:]
        # the producer rewrites the closing ']' after appending
        add("close_%d" % k, arr(old, "]\n"), arr(body, "]\n"))
        # the array is never closed; each write ends with ','
        add("open_comma_%d" % k, arr(old, ",\n"), arr(body, ",\n"))
        # never closed, no comma: appending writes ",\n{...}"
        add("open_bare_%d" % k, arr(old, ""), arr(body, ""))
        # a trailing comma before ']' (a counted warning) in both files
        add("trail_%d" % k, arr(old, ",]"), arr(body, ",\n]"))
        # Object Format with metadata before the events
        pre = '{"otherData": {"v": 1, "x": [1,]}, "displayTimeUnit": "ns", "traceEvents": ['
        add("object_%d" % k, pre + ",\n".join(old) + "]}\n", pre + ",\n".join(body) + "\n]\n}")
        # Object Format whose last write adds keys after the events
        post = '], "metadata": {"m": 2}, "systemTraceEvents": "x\\"y", "z": [1, {"a": 2},]}'
        add("object_after_%d" % k, pre + ",\n".join(old) + "]}", pre + ",\n".join(body) + post)
        _ = rest
    # keys after the events are part of the stable prefix: growing the
    # array then changes it, and --update refuses (tests/update_resume.sh)
    write("%s/keys_after.old.json" % d, pre + ",\n".join(body[:100]) + post)
    write("%s/keys_after.new.json" % d, pre + ",\n".join(body) + post)
    # no new events at all
    add("unchanged", arr(body, "]"), arr(body, "]"))
    add("unchanged_object", pre + ",\n".join(body) + post, pre + ",\n".join(body) + post)
    # an empty array that grows
    add("empty", "[]", arr(body[:10], "]"))
    add("empty_object", '{"traceEvents": []}', '{"traceEvents": [' + ",\n".join(body[:10]) + "]}")
    # the last packed event itself was rewritten (its closing brace): reread
    add("last_changed", arr(body[:50], "]"), arr(body[:49], ",\n") + body[49][:-1] + ', "zz": 1}]', 0)
    write("%s/cases.txt" % d, "\n".join(cases) + "\n")
    return 0


def event_ends(text):
    """Offsets just after each event of the trace's event array, and
    whether it is the Object Format."""
    dec = json.JSONDecoder()
    i = 0
    while text[i] in " \t\r\n\ufeff":
        i += 1
    obj = text[i] == "{"
    if obj:
        i = text.index("[", text.index('"traceEvents"'))
    i += 1
    ends = []
    while True:
        while text[i] in " \t\r\n,":
            i += 1
        if i >= len(text) or text[i] == "]":
            return ends, obj
        _, i = dec.raw_decode(text, i)
        ends.append(i)


def split(trace, k, out, open_array=False):
    text = open(trace, encoding="utf-8").read()
    ends, obj = event_ends(text)
    if open_array and obj:
        return 3
    write(out, text[: ends[k - 1]] + ("" if open_array else "]}" if obj else "]"))
    return 0


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "gen":
        sys.exit(gen(sys.argv[2], int(sys.argv[3])))
    if cmd == "split":
        sys.exit(split(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:] == ["open"]))
    if cmd == "count":
        print(len(event_ends(open(sys.argv[2], encoding="utf-8").read())[0]))
        sys.exit(0)
    sys.exit(2)
