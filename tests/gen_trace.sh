#!/bin/sh
# The trace generator against the independent counter (scripts/count-events.py):
# exact event/span counts, the same bytes for a seed whatever the compression,
# and when gputrace info exists, its counts and a clean model (no improper
# nesting, every flow bound).
. tests/lib/preamble.sh
need_gen gen_trace
field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }

for args in "--events 1 --seed 1" "--events 5000 --seed 7" "--spans 3000 --seed 9 --ranks 3" "--events 20000 --seed 2 --ranks 2"; do
	# shellcheck disable=SC2086
	if ! "$gen" $args -o "$tmp/t.json" 2> "$tmp/sum"; then bad "gen_trace $args failed"; continue; fi
	python3 scripts/count-events.py "$tmp/t.json" > "$tmp/cnt" || { bad "count-events on gen_trace $args"; continue; }
	ev=$(field 'd["events"]' < "$tmp/sum"); sp=$(field 'd["spans"]' < "$tmp/sum"); fl=$(field 'd["flows"]' < "$tmp/sum")
	want=$(echo "$args" | awk '{print $2}')
	case $args in --events*) [ "$ev" = "$want" ] && ok || bad "$args: $ev events";; *) [ "$sp" = "$want" ] && ok || bad "$args: $sp spans";; esac
	[ "$(field 'd["events"]' < "$tmp/cnt")" = "$ev" ] && ok || bad "$args: count-events disagrees on events"
	[ "$(field 'd["phases"].get("X", 0)' < "$tmp/cnt")" = "$sp" ] && ok || bad "$args: count-events disagrees on spans"
	[ "$(field 'd["phases"].get("s", 0) + d["phases"].get("f", 0)' < "$tmp/cnt")" = "$fl" ] && ok || bad "$args: flows"
	[ "$(field 'd["phases"].get("s", 0) - d["phases"].get("f", 0)' < "$tmp/cnt")" = 0 ] && ok || bad "$args: unpaired flows"
	if [ -x "$bin" ] && "$bin" help info > /dev/null 2>&1 && [ "$ev" -gt 0 ]; then
		"$bin" info -q "$tmp/t.json" > "$tmp/info" || { bad "$args: gputrace info failed"; continue; }
		[ "$(field 'd["events"]' < "$tmp/info")" = "$ev" ] && ok || bad "$args: gputrace info events"
		[ "$(field 'd["spans"]' < "$tmp/info")" = "$sp" ] && ok || bad "$args: gputrace info spans"
		[ "$(field 'd["warnings"]["improper_nesting"] + d["warnings"].get("unbound_flow", 0)' < "$tmp/info")" = 0 ] \
			&& ok || bad "$args: improper nesting or unbound flows"
	fi
done

# Deterministic for a seed; the compressed files hold the same JSON.
"$gen" --events 30000 --seed 5 --ranks 2 -o "$tmp/a.json" 2>/dev/null
"$gen" --events 30000 --seed 5 --ranks 2 -o "$tmp/a.json.gz" 2>/dev/null
"$gen" --events 30000 --seed 5 --ranks 2 -o "$tmp/a.json.zst" 2>/dev/null
"$gen" --events 30000 --seed 5 --ranks 2 > "$tmp/b.json" 2>/dev/null
cmp -s "$tmp/a.json" "$tmp/b.json" && ok || bad "same seed, different bytes"
gzip -dc "$tmp/a.json.gz" | cmp -s - "$tmp/a.json" && ok || bad "gzip output differs"
if command -v zstd > /dev/null; then zstd -qdc "$tmp/a.json.zst" | cmp -s - "$tmp/a.json" && ok || bad "zstd output differs"; fi
"$gen" --events 30000 --seed 6 --ranks 2 > "$tmp/c.json" 2>/dev/null
cmp -s "$tmp/a.json" "$tmp/c.json" && bad "different seeds, same bytes" || ok
# timestamps carry exactly three decimals
grep -o '"ts": [0-9.]*' "$tmp/a.json" | grep -vqE '"ts": [0-9]+\.[0-9]{3}$' && bad "ts without 3 decimals" || ok
# usage errors exit 2 and leave no file
"$gen" --seed 1 -o "$tmp/u.json" 2>/dev/null; [ $? = 2 ] && [ ! -e "$tmp/u.json" ] && ok || bad "missing --events"

# Enough flow points (> 65536) that finishing the model binds them on
# several threads, and (-j 4) orders them by their packed keys on two: the
# index file must not depend on the thread count.
if [ -x "$bin" ] && "$bin" help pack > /dev/null 2>&1; then
	"$gen" --events 220000 --seed 3 -o "$tmp/big.json" 2>/dev/null
	"$bin" pack -q -j 1 -o "$tmp/j1.gtx" "$tmp/big.json" > /dev/null && "$bin" pack -q -j 2 -o "$tmp/j2.gtx" "$tmp/big.json" > /dev/null \
		&& cmp -s "$tmp/j1.gtx" "$tmp/j2.gtx" && ok || bad "pack -j 1 and -j 2 differ"
	"$bin" pack -q -j 4 -o "$tmp/j4.gtx" "$tmp/big.json" > /dev/null && cmp -s "$tmp/j1.gtx" "$tmp/j4.gtx" && ok ||
		bad "pack -j 1 and -j 4 differ"
	# the generator writes each flow's points in order; here they come
	# shuffled, a flow's 'f' before its 's' too, some ids with three points
	python3 - "$tmp/shuffled.json" <<'PY'
import json, random, sys
random.seed(7)
ev, pts = [], []
for i in range(50000):
    ev.append({"ph": "X", "name": "op", "pid": 1, "tid": 1 + i % 3, "ts": i * 10, "dur": 5})
for f in range(40000):  # from inside span i to inside span i + 1 (another thread)
    i = random.randrange(0, 49999)
    pts.append({"ph": "s", "id": f, "cat": "ac2g", "name": "fl", "pid": 1, "tid": 1 + i % 3, "ts": i * 10 + 1})
    pts.append({"ph": "f", "bp": "e", "id": f, "cat": "ac2g", "name": "fl", "pid": 1, "tid": 1 + (i + 1) % 3,
                "ts": i * 10 + 11})
    if f % 5 == 0:
        pts.append({"ph": "t", "id": f, "cat": "ac2g", "name": "fl", "pid": 1, "tid": 1 + i % 3, "ts": i * 10 + 2})
random.shuffle(pts)
json.dump({"traceEvents": ev + pts}, open(sys.argv[1], "w"))
PY
	"$bin" pack -q -j 1 -o "$tmp/s1.gtx" "$tmp/shuffled.json" > /dev/null &&
		"$bin" pack -q -j 4 -o "$tmp/s4.gtx" "$tmp/shuffled.json" > /dev/null && cmp -s "$tmp/s1.gtx" "$tmp/s4.gtx" && ok ||
		bad "shuffled flow points: pack -j 1 and -j 4 differ"
	# an index this large is copied into its file through a mapping (with 4
	# cores or more), else written as a stream, and into a FIFO always: the
	# same bytes
	[ "$(wc -c < "$tmp/j1.gtx")" -ge 8388608 ] && ok || bad "big.gtx too small to be mapped"
	GPUTRACE_GTX_WRITE=mapped "$bin" pack -q -o "$tmp/mapped.gtx" "$tmp/big.json" > /dev/null &&
		GPUTRACE_GTX_WRITE=stream "$bin" pack -q -o "$tmp/stream.gtx" "$tmp/big.json" > /dev/null &&
		cmp -s "$tmp/mapped.gtx" "$tmp/j1.gtx" && cmp -s "$tmp/stream.gtx" "$tmp/j1.gtx" && ok ||
		bad "the index mapped and streamed differ"
	mkfifo "$tmp/fifo.gtx" && { GPUTRACE_GTX_WRITE=mapped "$bin" pack -q -o "$tmp/fifo.gtx" "$tmp/big.json" > /dev/null & } &&
		cat "$tmp/fifo.gtx" > "$tmp/streamed.gtx" && wait && cmp -s "$tmp/j1.gtx" "$tmp/streamed.gtx" && ok ||
		bad "the index written into a FIFO differs"
	GPUTRACE_GTX_WRITE=both "$bin" pack -q -o "$tmp/u.gtx" "$tmp/big.json" > /dev/null 2>&1
	[ $? = 2 ] && [ ! -e "$tmp/u.gtx" ] && ok || bad "GPUTRACE_GTX_WRITE=both: not exit 2, or a file left"
	"$bin" info -q -j 2 "$tmp/big.json" > "$tmp/big.info"
	[ "$(field 'd["warnings"].get("unbound_flow", 0)' < "$tmp/big.info")" = 0 ] && ok || bad "unbound flows with -j 2"
fi

# --kineto-order: the same events, each kind of the whole trace in a run of
# its own (the host threads' ops, then their runtime calls), as Kineto writes
# them; the causal analysis reads the same trace from it (span ids aside).
"$gen" --events 60000 --seed 4 --ranks 2 --sync-markers -o "$tmp/time.json" 2>/dev/null
"$gen" --events 60000 --seed 4 --ranks 2 --sync-markers --kineto-order -o "$tmp/kineto.json" 2> "$tmp/k.sum"
[ "$(field 'd["events"]' < "$tmp/k.sum")" = 60000 ] && ok || bad "--kineto-order: not 60000 events"
python3 - "$tmp/time.json" "$tmp/kineto.json" <<'PY' && ok || bad "--kineto-order: not the same events, or not in Kineto's order"
import json, sys
a, b = (json.load(open(p))["traceEvents"] for p in sys.argv[1:])
key = lambda e: json.dumps(e, sort_keys=True)
assert sorted(map(key, a)) == sorted(map(key, b))
host = lambda e: e.get("ph") == "X" and e.get("cat") in ("cpu_op", "cuda_runtime")
cats = [e["cat"] for e in b if host(e)]
assert cats == sorted(cats) and "cuda_runtime" in cats  # every op, then every runtime call
PY
if [ -x "$bin" ] && "$bin" help critical-path > /dev/null 2>&1; then
	same=1
	set -f # the step's pattern is no file name
	for opts in "--path --rows" "--step ProfilerStep#*" "-j 1 --rows"; do
		for f in time kineto; do
			# shellcheck disable=SC2086
			"$bin" critical-path $opts "$tmp/$f.json" -o "$tmp/$f.cp.json" && python3 - "$tmp/$f.cp.json" > "$tmp/$f.cp.n" <<'PY' || same=0
import json, sys
def strip(x):  # the ids, which follow the file's order
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in ("point", "span", "owner", "step_span")}
    return [strip(v) for v in x] if isinstance(x, list) else x
d = strip(json.load(open(sys.argv[1])))
for w in d["windows"]:
    w["rows"] = sorted(w.get("rows", []), key=lambda r: json.dumps(r, sort_keys=True))
print(json.dumps(d, sort_keys=True))
PY
		done
		cmp -s "$tmp/time.cp.n" "$tmp/kineto.cp.n" || same=0
	done
	set +f
	[ $same = 1 ] && ok || bad "critical-path reads a Kineto-ordered trace differently"
fi

echo "gen_trace: $pass passed, $fail failed"
[ "$fail" = 0 ]
