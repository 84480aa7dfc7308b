#!/bin/sh
# Limits and hostile input: each case gives a correct result or a clear
# one-line error (exit 1), never a crash or a silent wrong answer. Inputs are
# generated on the fly (Python standard library) and streamed where large.
bin=${GPUTRACE_BIN:-build/gputrace}
case "$bin" in build-san*) san=1 ;; *) san=0 ;; esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# expect_error NAME PATTERN cmd...: exit 1, one stderr line matching PATTERN
expect_error() {
	name=$1; pat=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc != 1 ] || [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q "^gputrace: .*$pat" "$tmp/err"; then
		bad "$name: want exit 1 and '$pat', got exit $rc: $(head -3 "$tmp/err")"
	else
		echo "ok: $name: $(cat "$tmp/err")"
	fi
}
py() { python3 -c "$@"; }

# --- more spans than a 32-bit id holds. 2^32 spans are not generated: the
# FAULTS build's "span-id" site fires the very check (same branch, same
# message) at a chosen span, here the 1001st of 2000.
if [ $san = 1 ]; then fbin=build-san-faults/gputrace; else fbin=build-faults/gputrace; fi
sh scripts/sub-make FAULTS=1 SANITIZE=$san "$fbin" >/dev/null || bad "cannot build $fbin"
py 'import sys
print("[" + ",".join("{\"ph\":\"X\",\"name\":\"s\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1}" % (2*i) for i in range(2000)) + "]")' >"$tmp/2000.json"
GPUTRACE_FAULT=span-id:1001 expect_error "span ids past 32 bits" "event 1000: more spans than a 32-bit span id holds" "$fbin" info "$tmp/2000.json"
[ "$("$fbin" info "$tmp/2000.json" | jq .spans)" = 2000 ] || bad "2000 spans without the fault"

# --- nesting deeper than 65,535: 70,000 nested B, then their E
py 'import sys
n = 70000
w = sys.stdout.write
w("[")
for i in range(n): w("{\"ph\":\"B\",\"name\":\"d%d\",\"pid\":1,\"tid\":1,\"ts\":%d},\n" % (i, i))
for i in range(n): w("{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":%d}%s\n" % (n + i, "," if i < n - 1 else ""))
w("]")' >"$tmp/deep.json"
"$bin" info "$tmp/deep.json" >"$tmp/deep.info" || bad "deep nesting: info failed"
[ "$(jq -c '[.spans, .lanes, .warnings.improper_nesting]' "$tmp/deep.info")" = "[70000,70000,0]" ] ||
	bad "deep nesting: $(jq -c '[.spans, .lanes, .warnings.improper_nesting]' "$tmp/deep.info")"
"$bin" spans -f csv "$tmp/deep.json" >"$tmp/deep.csv" || bad "deep nesting: spans failed"
py 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 70000
for i, r in enumerate(rows):
    assert int(r["depth"]) == i and int(r["lane"]) == i, r
    assert r["parent"] == ("" if i == 0 else str(i - 1)), r
    assert r["dur_us"] == str(2 * 70000 - 1 - 2 * i), r' "$tmp/deep.csv" && echo "ok: 70,000 nested spans: depth, lane, parent and duration of each" || bad "deep nesting: span table"

# --- a single 1 GiB string, streamed through a pipe: over the 1 GiB cap on
# one event, so a clear error (the window holds at most 1 GiB)
py 'import sys
o = sys.stdout.buffer
o.write(b"[{\"ph\":\"X\",\"pid\":1,\"ts\":0,\"dur\":1,\"name\":\"")
chunk = b"a" * (1 << 20)
for i in range(1024): o.write(chunk)
o.write(b"\"}]")' | expect_error "a 1 GiB string" "larger than 1024 MiB" "$bin" info -
# ...and a 64 MiB name is read, interned and printed whole
py 'import sys
o = sys.stdout.buffer
o.write(b"[{\"ph\":\"X\",\"pid\":1,\"ts\":0,\"dur\":1,\"name\":\"")
for i in range(64): o.write(b"b" * (1 << 20))
o.write(b"\"}]")' | "$bin" spans -f ndjson - | py 'import json, sys
r = json.loads(sys.stdin.read())
assert r["name"] == "b" * (64 << 20)' && echo "ok: a 64 MiB name" || bad "64 MiB name"

# --- 10^6 tracks: one event on each of a million threads
py 'import sys
w = sys.stdout.write
w("[")
w(",\n".join("{\"ph\":\"X\",\"name\":\"t\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":1}" % (i, i % 1000) for i in range(1000000)))
w("]")' >"$tmp/tracks.json"
r=$("$bin" info "$tmp/tracks.json" | jq -c '[.spans, .threads, .lanes, .processes]')
[ "$r" = "[1000000,1000000,1000000,1]" ] && echo "ok: 10^6 tracks" || bad "10^6 tracks: $r"
"$bin" spans -f csv "$tmp/tracks.json" | py 'import csv, sys
for i, r in enumerate(csv.DictReader(sys.stdin)):
    assert int(r["tid"]) == i and int(r["lane"]) == i and r["parent"] == "", r
assert i == 999999' || bad "10^6 tracks: lanes"

# --- every event at the same timestamp: with spans of random durations all
# starting together, each contains the shorter ones, so the parent chain
# follows (duration descending, id ascending)
py 'import random, sys
random.seed(7)
ev = ["{\"ph\":\"X\",\"name\":\"s%d\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":%d}" % (i, random.randint(0, 20)) for i in range(3000)]
ev += ["{\"ph\":\"i\",\"name\":\"inst\",\"pid\":1,\"tid\":2,\"ts\":5,\"s\":\"t\"}"] * 10
ev += ["{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":3,\"ts\":5}"] * 5 + ["{\"ph\":\"E\",\"pid\":1,\"tid\":3,\"ts\":5}"] * 5
print("[" + ",\n".join(ev) + "]")' >"$tmp/same.json"
"$bin" spans -f csv "$tmp/same.json" >"$tmp/same.csv" || bad "same timestamp: spans failed"
py 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 3015
for tid in ("1", "2", "3"):
    t = [r for r in rows if r["tid"] == tid]
    order = sorted(t, key=lambda r: (-float(r["dur_us"]), int(r["id"])))
    for k, r in enumerate(order):
        assert int(r["depth"]) == k, (tid, k, r)
        assert r["parent"] == ("" if k == 0 else order[k - 1]["id"]), (tid, k, r)
        assert r["ts_us"] == "5", r' "$tmp/same.csv" && echo "ok: every event at one timestamp" || bad "same timestamp"

# --- timestamps near the int64 range (int64 nanoseconds)
echo '[{"ph":"X","name":"max","pid":1,"ts":9223372036854775.807,"dur":0},
{"ph":"X","name":"min","pid":1,"ts":-9223372036854775.808,"dur":0.001}]' >"$tmp/edge.json"
expect_error "spans at both ends of int64" "the trace spans more than 2^63 ns" "$bin" info "$tmp/edge.json"
echo '[{"ph":"X","name":"max","pid":1,"ts":9223372036854775.807,"dur":0},
{"ph":"X","name":"zero","pid":1,"ts":0,"dur":0.001}]' >"$tmp/edge2.json"
r=$("$bin" info "$tmp/edge2.json" | tr -d ' \n' | grep -o '"time":{[^}]*}')
[ "$r" = '"time":{"start_us":0,"start_ns":0,"end_us":9223372036854775.807,"end_ns":9223372036854775807,"duration_us":9223372036854775.807,"duration_ns":9223372036854775807}' ] &&
	echo "ok: a span at the int64 maximum" || bad "int64 maximum: $r"
# an event past the range is skipped and counted, never the trace
echo '[{"ph":"X","name":"a","pid":1,"ts":9223372036854775.807,"dur":0.001},{"ph":"X","name":"b","pid":1,"ts":1,"dur":1}]' >"$tmp/ovf.json"
r=$("$bin" info -q "$tmp/ovf.json" | jq -c '[.spans, .warnings.invalid_dur]')
[ "$r" = "[1,1]" ] && echo "ok: ts + dur past int64 skips the event" || bad "ts + dur past int64: $r"
echo '[{"ph":"X","name":"a","pid":1,"ts":9223372036854775.808,"dur":0},{"ph":"X","name":"b","pid":1,"ts":1,"dur":1}]' >"$tmp/ovf2.json"
r=$("$bin" info -q "$tmp/ovf2.json" | jq -c '[.spans, .warnings.invalid_ts]')
[ "$r" = "[1,1]" ] && echo "ok: ts past int64 skips the event" || bad "ts past int64: $r"
echo '[{"ph":"B","name":"a","pid":1,"ts":-9223372036854775.808},{"ph":"E","pid":1,"ts":9223372036854775.807}]' >"$tmp/ovf3.json"
expect_error "E minus B past int64" "out of range" "$bin" info "$tmp/ovf3.json"
echo '[{"ph":"B","name":"a","pid":1,"ts":-9223372036854775.808},{"ph":"X","name":"b","pid":2,"ts":9223372036854775.807,"dur":0}]' >"$tmp/ovf4.json"
expect_error "unclosed B to the end past int64" "out of range" "$bin" info "$tmp/ovf4.json"

# --- duplicate flow ids: a repeated 's' starts a new flow, so both 'f's
# bind to the second source (one start, many finishes, as Kineto writes a
# CUDA graph's kernels)
cat >"$tmp/dupflow.json" <<'J'
[{"ph":"X","name":"A","cat":"c","pid":1,"tid":1,"ts":10,"dur":5},
{"ph":"s","name":"fl","cat":"c","id":7,"pid":1,"tid":1,"ts":11},
{"ph":"X","name":"B","cat":"c","pid":1,"tid":2,"ts":20,"dur":5},
{"ph":"s","name":"fl","cat":"c","id":7,"pid":1,"tid":2,"ts":21},
{"ph":"X","name":"C","cat":"c","pid":2,"tid":1,"ts":30,"dur":5},
{"ph":"f","name":"fl","cat":"c","id":7,"pid":2,"tid":1,"ts":30,"bp":"e"},
{"ph":"X","name":"D","cat":"c","pid":2,"tid":2,"ts":40,"dur":5},
{"ph":"f","name":"fl","cat":"c","id":7,"pid":2,"tid":2,"ts":40,"bp":"e"}]
J
r=$("$bin" info "$tmp/dupflow.json" | jq -c '[.flows, .warnings.unbound_flow]')
p=$("$bin" spans -f csv "$tmp/dupflow.json" | awk -F, 'NR > 1 { printf "%s:%s ", $3, $11 }')
[ "$r" = "[2,0]" ] && [ "$p" = "A: B: C:1 D:1 " ] && echo "ok: duplicate flow ids" || bad "duplicate flow ids: $r, parents $p"

# --- E events before any B: counted, never matched
echo '[{"ph":"E","pid":1,"tid":1,"ts":1},{"ph":"E","name":"x","pid":1,"tid":1,"ts":2},
{"ph":"B","name":"x","pid":1,"tid":1,"ts":3},{"ph":"E","pid":1,"tid":1,"ts":4}]' >"$tmp/e_first.json"
r=$("$bin" info "$tmp/e_first.json" | jq -c '[.spans, .warnings.unmatched_end, .warnings.unclosed_begin]')
d=$("$bin" spans -f csv "$tmp/e_first.json" | awk -F, 'NR == 2 { print $12 "/" $14 }')
[ "$r" = "[1,2,0]" ] && [ "$d" = "3/1" ] && echo "ok: E before any B" || bad "E before B: $r $d"

# --- decompression bombs: 2 GiB of '0's inside JSON strings, as 2048
# gzip members (or zstd frames) of one 1 MiB-padded event each. Deflate
# cannot pass ~1030:1, so the gzip bomb needs a cap below its ratio; zstd
# goes far past the default cap of 1000.
py 'import sys, zlib
ev = b"{\"ph\":\"X\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"args\":{\"pad\":\"" + b"0" * (1 << 20) + b"\"}},"
m = lambda b: (lambda c: c.compress(b) + c.flush())(zlib.compressobj(9, zlib.DEFLATED, 31))
o = sys.stdout.buffer
o.write(m(b"["))
one = m(ev)
for i in range(2048): o.write(one)
o.write(m(b"{\"ph\":\"X\",\"name\":\"last\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}]"))' >"$tmp/bomb.json.gz"
expect_error "gzip bomb, default cap" "is [0-9][0-9]* times the compressed size, over the cap of 200 " "$bin" info "$tmp/bomb.json.gz"
r=$("$bin" info --max-expansion 0 "$tmp/bomb.json.gz" | jq -c '[.spans, .bytes > 2147483648]')
[ "$r" = "[2049,true]" ] && echo "ok: gzip bomb read whole with --max-expansion 0" || bad "gzip bomb with no cap: $r"
{ printf '[' | zstd -q -c
  python3 -c 'import sys; sys.stdout.buffer.write(b"{\"ph\":\"X\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"args\":{\"pad\":\"" + b"0" * (1 << 20) + b"\"}},")' | zstd -q -19 -c >"$tmp/one.zst"
  i=0; while [ $i -lt 256 ]; do cat "$tmp/one.zst"; i=$((i + 1)); done
  printf '{"ph":"X","name":"last","pid":1,"ts":0,"dur":1}]' | zstd -q -c; } >"$tmp/bomb.json.zst"
expect_error "zstd bomb, default cap" "is [0-9][0-9]* times the compressed size, over the cap of 200 " "$bin" info "$tmp/bomb.json.zst"

# --- index files from another version or endianness (header CRC made
# right, so the version and byte-order checks themselves are what answer)
if [ -f cli/cmd_pack.c ]; then
	"$bin" pack -q -o "$tmp/ok.gtx" testdata/ingest/lanes.json >/dev/null || bad "pack"
	python3 - "$tmp" <<'PY'
import struct, sys, zlib
d = sys.argv[1]
b = open(d + "/ok.gtx", "rb").read()
def save(name, x):
    x[124:128] = struct.pack("<I", zlib.crc32(bytes(x[:124])))
    open(d + "/" + name, "wb").write(x)
v = bytearray(b); v[8:12] = struct.pack("<I", 7); save("v7.gtx", v)
# what a big-endian writer would make of the same header
be = bytearray(b)
for off, f in [(8, "I"), (12, "I"), (16, "I"), (20, "I"), (24, "Q"), (32, "Q"), (40, "I"), (44, "I")]:
    n = struct.calcsize(f)
    be[off:off + n] = struct.pack(">" + f, struct.unpack("<" + f, b[off:off + n])[0])
save("be.gtx", be)
PY
	expect_error "index file of version 7" "version 7, this gputrace reads versions 1 to 6" "$bin" info "$tmp/v7.gtx"
	expect_error "big-endian index file" "endianness" "$bin" spans "$tmp/be.gtx"
	"$bin" verify "$tmp/be.gtx" >/dev/null 2>&1; [ $? = 1 ] || bad "verify of a big-endian index: not exit 1"
	[ "$("$bin" info "$tmp/ok.gtx" | jq .spans)" = "$("$bin" info testdata/ingest/lanes.json | jq .spans)" ] ||
		bad "the unmodified index does not load"
fi

[ $fail = 0 ] && echo "limits: ok"
exit $fail
