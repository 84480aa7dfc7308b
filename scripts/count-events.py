#!/usr/bin/env python3
"""Counts the events of a Chrome Trace Event Format file, independently of gputrace.

    scripts/count-events.py TRACE        (plain JSON, gzip, or zstd; '-' reads stdin)

Prints one JSON object: {"events": N, "phases": {ph: count}, "lenient": {...}}.
Events without a "ph" are counted under "" and elements that are not objects
under "?" (they still count as events).

Standard library only. Streams: the traceEvents array is decoded one element at
a time (json.JSONDecoder.raw_decode over a buffered read), so memory stays small
for any file size. As lenient as trace viewers are where producers are sloppy:
a trailing comma in any object or array, a missing closing ']' (or '}'), and raw
control characters inside strings are accepted and counted under "lenient".
Compression is recognised by magic bytes: gzip (concatenated members too) with
the gzip module; zstd with compression.zstd where Python has it (3.14), else
through `zstd -dc`, or pipe it in: `zstd -dc T.zst | count-events.py -`.
"""
import codecs
import gzip
import io
import json
import re
import shutil
import subprocess
import sys

CHUNK = 1 << 22
WS = re.compile(r"[ \t\n\r]*")
STRICT = json.JSONDecoder()
LENIENT = json.JSONDecoder(strict=False)  # raw control characters in strings


class BadTrace(Exception):
    pass


def open_stream(path):
    """A binary stream of the uncompressed bytes, chosen by magic bytes."""
    raw = sys.stdin.buffer if path == "-" else open(path, "rb")
    head = raw.peek(4)[:4] if hasattr(raw, "peek") else b""
    if not hasattr(raw, "peek"):
        raw = io.BufferedReader(raw)
        head = raw.peek(4)[:4]
    if head[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw)
    if head == b"\x28\xb5\x2f\xfd":
        try:
            from compression import zstd  # Python 3.14+
            return zstd.ZstdFile(raw)
        except ImportError:
            pass
        if path == "-" or not shutil.which("zstd"):
            raise BadTrace("zstd input needs Python 3.14 or the zstd tool: pipe it through 'zstd -dc'")
        proc = subprocess.Popen(["zstd", "-dc", path], stdout=subprocess.PIPE)
        return proc.stdout
    return raw


class Reader:
    """A text buffer over the stream that grows on demand."""

    def __init__(self, stream):
        self.stream = stream
        self.dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.buf = ""
        self.pos = 0
        self.eof = False

    def more(self):
        if self.eof:
            return False
        data = self.stream.read(CHUNK)
        if self.pos > len(self.buf) // 2:  # drop what was consumed
            self.buf = self.buf[self.pos:]
            self.pos = 0
        if not data:
            self.eof = True
            self.buf += self.dec.decode(b"", final=True)
            return False
        self.buf += self.dec.decode(data)
        return True

    def skip_ws(self):
        while True:
            self.pos = WS.match(self.buf, self.pos).end()
            if self.pos < len(self.buf) or not self.more():
                return

    def peek(self):
        self.skip_ws()
        return self.buf[self.pos] if self.pos < len(self.buf) else ""

    def expect(self, ch):
        if self.peek() != ch:
            raise BadTrace("expected '%s' at character %d" % (ch, self.pos))
        self.pos += 1


def value_end(text, start):
    """End of the JSON value at start, matching brackets outside strings; -1 if cut."""
    depth, i, n, in_str = 0, start, len(text), False
    while i < n:
        c = text[i]
        if in_str:
            if c == "\\":
                i += 1
            elif c == '"':
                in_str = False
                if depth == 0:
                    return i + 1
        elif c == '"':
            in_str = True
        elif depth == 0 and c in ",]}":
            return i
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def drop_trailing_commas(text):
    """The text with every comma that directly precedes a closing bracket removed."""
    out, i, n, in_str, dropped = [], 0, len(text), False, 0
    while i < n:
        c = text[i]
        if in_str:
            if c == "\\":
                out.append(text[i:i + 2])
                i += 2
                continue
            if c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == ",":
            j = WS.match(text, i + 1).end()
            if j < n and text[j] in "}]":
                dropped += 1
                i += 1
                continue
        out.append(c)
        i += 1
    return "".join(out), dropped


def decode_value(rd, stats):
    """Decodes the value at rd.pos, strictly where possible, leniently otherwise."""
    rd.skip_ws()
    while True:
        try:
            try:
                val, end = STRICT.raw_decode(rd.buf, rd.pos)
                lenient = 0
            except ValueError:
                val, end = LENIENT.raw_decode(rd.buf, rd.pos)
                lenient = 1
            # raw_decode may stop early on a bare number cut by the buffer's end
            if end == len(rd.buf) and rd.more():
                continue
            stats["control_chars"] += lenient
            rd.pos = end
            return val
        except ValueError:
            end = value_end(rd.buf, rd.pos)
            if end >= 0 or not rd.more():
                break  # complete but not strict JSON, or cut off for good
    end = value_end(rd.buf, rd.pos)
    if end < 0:
        raise BadTrace("value cut off at character %d" % rd.pos)
    text, dropped = drop_trailing_commas(rd.buf[rd.pos:end])
    try:
        val = LENIENT.decode(text)
    except ValueError as e:
        raise BadTrace("invalid JSON at character %d: %s" % (rd.pos, e))
    stats["trailing_commas"] += dropped
    try:
        json.loads(text)
    except ValueError:
        stats["control_chars"] += 1
    rd.pos = end
    return val


def count_array(rd, stats, phases):
    """Counts the elements of the array whose '[' was just consumed."""
    events = 0
    while True:
        c = rd.peek()
        if c == "]":
            rd.pos += 1
            return events
        if c == "":
            stats["missing_close"] += 1
            return events
        if c == ",":  # a trailing or doubled comma
            stats["trailing_commas"] += 1
            rd.pos += 1
            continue
        ev = decode_value(rd, stats)
        events += 1
        ph = (ev.get("ph", "") if isinstance(ev, dict) else "?")
        ph = ph if isinstance(ph, str) else "?"
        phases[ph] = phases.get(ph, 0) + 1
        c = rd.peek()
        if c == ",":
            rd.pos += 1
            if rd.peek() == "]":
                stats["trailing_commas"] += 1
        elif c not in "]":
            raise BadTrace("expected ',' or ']' at character %d" % rd.pos)


def count(path):
    stats = {"trailing_commas": 0, "control_chars": 0, "missing_close": 0}
    phases = {}
    rd = Reader(open_stream(path))
    rd.more()
    if rd.buf.startswith("\ufeff"):
        rd.pos = 1
    c = rd.peek()
    events = 0
    if c == "[":
        rd.pos += 1
        events = count_array(rd, stats, phases)
    elif c == "{":
        rd.pos += 1
        found = False
        while True:
            c = rd.peek()
            if c == "}" or c == "":
                if c == "":
                    stats["missing_close"] += 1
                break
            if c == ",":
                rd.pos += 1
                continue
            key = decode_value(rd, stats)
            rd.expect(":")
            if key == "traceEvents" and rd.peek() == "[":
                rd.pos += 1
                events += count_array(rd, stats, phases)
                found = True
            else:
                decode_value(rd, stats)
        if not found:
            raise BadTrace("no traceEvents array")
    else:
        raise BadTrace("not a JSON array or object")
    return {"events": events, "phases": dict(sorted(phases.items())), "lenient": stats}


def main():
    if len(sys.argv) != 2:
        print("usage: count-events.py TRACE|-", file=sys.stderr)
        return 2
    try:
        result = count(sys.argv[1])
    except (BadTrace, OSError, EOFError) as e:
        print("count-events: '%s': %s" % (sys.argv[1], e), file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
