#!/bin/sh
# gputrace compare: golden reports on small hand-checked traces
# (testdata/compare/), every --fail-if operator and unit with exit 5 and its
# stderr lines, malformed conditions (exit 2, column named), every output
# format read back, index files, and on real traces, per-key statistics
# against an independent computation from the span table
# (tests/compare_check.py).
bin=${GPUTRACE_BIN:-build/gputrace}
shared=${GPUTRACE_SHARED:-../shared}
d=testdata/compare
B=$d/base.json N=$d/new.json
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# the host reference here; one check below runs the OpenCL device too
GPUTRACE_DEVICE=host; export GPUTRACE_DEVICE
cldev=$("$bin" devices -f csv 2>/dev/null | awk -F, 'NR > 1 { print $1; exit }'); cldev=${cldev:-host}  # PoCL in CI: auto no longer takes a CPU device
bad() { echo "FAIL: $*"; fail=1; }

# golden reports (hand-checked: see testdata/compare/README): the forest
# model's, then the causal path's (the default)
F="--model forest"
"$bin" compare -q $F "$B" "$N" >"$tmp/out.json" || bad "compare exit $?"
cmp -s "$tmp/out.json" "$d/base_new.json" || { bad "report differs from $d/base_new.json"; diff "$d/base_new.json" "$tmp/out.json" | head -20; }
"$bin" compare -q --by cat --top 2 "$B" "$N" | jq -c '[.key_count, (.keys[] | [.key, .count.new, .dur_ns.base, .dur_ns.new, .self_ns.base, .self_ns.new, .p50_ns.base, .p50_ns.new, .p95_ns.new])]' >"$tmp/cat.json"
[ "$(cat "$tmp/cat.json")" = '[3,["io",8,34000,155000,34000,155000,1000,4000,100000],["cpu_op",5,160000,265000,100000,130000,40000,40000,130000]]' ] ||
	bad "--by cat: $(cat "$tmp/cat.json")"
"$bin" compare -q --by group --top 0 "$B" "$N" | jq -c '[.keys[].key]' >"$tmp/grp.json"
[ "$(cat "$tmp/grp.json")" = '["io","cpu_op","kernel"]' ] || bad "--by group: $(cat "$tmp/grp.json")"
# the critical path on the first OpenCL device (PoCL in CI) gives the same report
"$bin" compare -q $F --device $cldev "$B" "$N" | cmp -s - "$d/base_new.json" || bad "the report on device $cldev differs"
"$bin" compare -q "$B" "$N" >"$tmp/causal.json" || bad "causal compare exit $?"
cmp -s "$tmp/causal.json" "$d/base_new_causal.json" || { bad "report differs from $d/base_new_causal.json"; diff "$d/base_new_causal.json" "$tmp/causal.json" | head -20; }
"$bin" compare -q --device $cldev "$B" "$N" | cmp -s - "$d/base_new_causal.json" || bad "the causal report on device $cldev differs"
# a trace against itself: nothing changes, nothing holds
"$bin" compare -q "$N" "$N" --fail-if 'total.dur_ns.abs != 0ns' --fail-if 'critical_path.rel != 0%' >"$tmp/same.json" || bad "self-compare exit $?"
jq -e '.total.spans.abs == 0 and .critical_path.joined == [] and .critical_path.left == [] and
	([.keys[] | .dur_ns.abs, .self_ns.abs, .p95_ns.abs] | all(. == 0)) and .regression == false' "$tmp/same.json" >/dev/null ||
	bad "self-compare is not all zero"

# conditions: expression, expected status (0: does not hold, 5: holds)
while IFS='|' read -r expr want; do
	[ -n "$expr" ] || continue
	"$bin" compare -q $F "$B" "$N" --fail-if "$expr" >"$tmp/o.json" 2>"$tmp/e.txt"; rc=$?
	[ "$rc" = "$want" ] || { bad "'$expr': exit $rc, expected $want ($(cat "$tmp/e.txt"))"; continue; }
	held=$(jq -r '.conditions[0].held' "$tmp/o.json")
	if [ "$want" = 5 ]; then
		[ "$held" = true ] && [ "$(wc -l <"$tmp/e.txt")" = 1 ] && grep -qF "gputrace: regression: $expr (value " "$tmp/e.txt" ||
			bad "'$expr': stderr '$(cat "$tmp/e.txt")', held $held"
	else
		[ "$held" = false ] && [ ! -s "$tmp/e.txt" ] || bad "'$expr': stderr '$(cat "$tmp/e.txt")', held $held"
	fi
done <<'EOF'
critical_path.rel > 5%|5
critical_path.rel > 7.9%|0
critical_path.rel >= 7.8947%|5
critical_path.abs == 15us|5
critical_path.abs == 15001ns|0
critical_path.new != 205000ns|0
critical_path.base < 0.19ms|0
critical_path.base <= 0.19ms|5
total.critical_path_ns.abs > 14999ns|5
total.dur_ns.abs > 2ms|0
total.dur_ns.abs >= 30us|5
total.dur_ns.abs > 0.00003s|0
total.dur_ns.abs >= 0.00003s|5
total.dur_ns.rel == 30%|5
total.dur_ns.rel == 1.3x|5
total.dur_ns.rel > 1.3000000001x|0
total.spans.abs >= 100|0
total.spans.abs >= 6|5
total.spans.new < 14|0
total.spans.base == 8|5
total.spans.rel == 75%|5
key[aten::matmul].self_ns.rel > 10%|5
key[aten::matmul].self_ns.rel > 25%|0
key[step].self_ns.abs < -9us|5
key[step].self_ns.abs <= -10us|5
key[step].self_ns.abs < -10us|0
key[tick].p50_ns.new == 3us|5
key[tick].p95_ns.new == 100us|5
key[tick].p95_ns.base == 2000ns|5
key[tick].max_ns.rel == 4900%|5
key[loader].p50_ns.rel < -66.6666%|5
key[loader].p50_ns.rel < -66.6667%|0
key[loader].count.abs == 1|5
key[slice[0\]].count.new == 1|5
key[softmax].p50_ns.rel > 0%|0
key[softmax].p50_ns.rel != 0%|0
key[softmax].p50_ns.abs != 0ns|0
key[softmax].count.rel != 0%|0
key?[absent].count.new == 0|5
key?[absent].dur_ns.abs == 0ns|5
key[step].cp_share.abs > 10%|5
key[step].cp_share.new > 63.4146%|5
key[step].cp_share.new > 63.4147%|0
key[aten::gelu].cp_count.new == 1|5
key[aten::matmul].cp_ns.rel == -100%|5
  total.spans.abs>5  |5
EOF

# several conditions: each one that holds gets its line, in order
"$bin" compare -q "$B" "$N" --fail-if 'total.spans.abs > 1' --fail-if 'total.spans.abs > 100' \
	--fail-if 'key[tick].dur_ns.rel > 1000%' >/dev/null 2>"$tmp/e.txt"; rc=$?
printf 'gputrace: regression: total.spans.abs > 1 (value 6)\ngputrace: regression: key[tick].dur_ns.rel > 1000%% (value 26.500000)\n' >"$tmp/want.txt"
[ $rc = 5 ] && cmp -s "$tmp/e.txt" "$tmp/want.txt" || bad "two conditions: exit $rc, stderr: $(cat "$tmp/e.txt")"
# the report is still written (-o) when a condition holds: CI keeps it
"$bin" compare -q "$B" "$N" --fail-if 'total.spans.abs > 1' -o "$tmp/rep.json" 2>/dev/null; rc=$?
[ $rc = 5 ] && jq -e '.regression == true' "$tmp/rep.json" >/dev/null || bad "-o with a regression: exit $rc"

# malformed conditions: exit 2, one message naming the column, no output
while IFS='|' read -r expr col; do
	[ -n "$expr" ] || continue
	"$bin" compare -q "$B" "$N" --fail-if "$expr" -o "$tmp/x.json" >"$tmp/o.txt" 2>"$tmp/e.txt"; rc=$?
	[ $rc = 2 ] && [ ! -s "$tmp/o.txt" ] && [ ! -e "$tmp/x.json" ] && grep -q "at column $col " "$tmp/e.txt" ||
		bad "malformed '$expr': exit $rc, $(head -1 "$tmp/e.txt")"
done <<'EOF'
totl.spans.abs > 1|1
total.span.abs > 1|7
total.spans > 1|12
total.spans.abs >> 1|18
total.spans.abs => 1|17
total.spans.abs = 1|17
total.spans.abs > |19
total.spans.abs > 1ms|20
total.spans.abs > 1.5|19
total.spans.abs > 1 x|21
total.dur_ns.abs > 2mss|21
total.dur_ns.abs > 2%|21
critical_path.rel > 5ms|22
critical_path > 5%|14
critical_path.total > 5%|15
key[aten::matmul.self_ns.rel > 10%|4
key[].count.new > 0|5
key[a\b].count.new > 0|6
key[a].bogus.new > 0|8
key[a].count.delta > 0|14
total.spans.abs > 1234567890123456789|19
EOF

"$bin" compare -q "$B" "$N" --fail-if '' >/dev/null 2>"$tmp/e.txt"; rc=$?
[ $rc = 2 ] && grep -q "at column 1 " "$tmp/e.txt" || bad "an empty condition: exit $rc"

# every format: the per-key table reads back with the report's values
top=$("$bin" compare -q "$B" "$N" | jq '.keys | length')
"$bin" compare -q "$B" "$N" -f ndjson | jq -s -e --argjson n "$top" 'length == $n and .[0].key == "tick" and .[0]["dur_ns.abs"] == 106000 and .[0]["p95_ns.new"] == 100000' >/dev/null ||
	bad "ndjson read back"
"$bin" compare -q "$B" "$N" -f json -o "$tmp/full.json" && jq -e '.keys[1].key == "aten::gelu"' "$tmp/full.json" >/dev/null || bad "json -o"
"$bin" compare -q "$B" "$N" -f csv >"$tmp/k.csv" && python3 - "$tmp/k.csv" "$tmp/full.json" <<'PY' || bad "csv read back"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
rep = json.load(open(sys.argv[2]))
assert len(rows) == len(rep["keys"]), (len(rows), len(rep["keys"]))
for r, k in zip(rows, rep["keys"]):
    assert r["key"] == k["key"], (r["key"], k["key"])
    for f in ("count", "dur_ns", "self_ns", "cp_count", "cp_ns"):
        for c in ("base", "new", "abs"):
            assert int(r[f + "." + c]) == k[f][c], (k["key"], f, c)
    for f in ("p50_ns", "p95_ns", "max_ns"):
        for c in ("base", "new", "abs"):
            assert int(r[f + "." + c]) == (k[f][c] or 0), (k["key"], f, c)
        rel = k[f]["rel"]
        assert (r[f + ".rel"] == "") == (rel is None), (k["key"], f)
        if rel is not None:
            assert abs(float(r[f + ".rel"]) - rel) < 1e-12
PY
py=.venv/bin/python
if [ -x "$py" ]; then
	for f in arrow arrow-stream; do
		"$bin" compare -q "$B" "$N" -f $f -o "$tmp/k.$f" && $py - "$f" "$tmp/k.$f" "$tmp/full.json" <<'PY' || bad "$f read back"
import json, math, sys
import pyarrow as pa, polars as pl
fmt, path, rep = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
with pa.OSFile(path, "rb") as f:
    t = (pa.ipc.open_file(f) if fmt == "arrow" else pa.ipc.open_stream(f)).read_all()
assert t.num_rows == len(rep["keys"])
assert t.schema.field("dur_ns.abs").type == pa.int64()
assert t.column("key").to_pylist() == [k["key"] for k in rep["keys"]]
assert t.column("self_ns.new").to_pylist() == [k["self_ns"]["new"] for k in rep["keys"]]
rel = t.column("dur_ns.rel").to_pylist()
for v, k in zip(rel, rep["keys"]):
    want = k["dur_ns"]["rel"]
    assert (want is None and math.isnan(v)) or abs(v - want) < 1e-12, (v, want)
df = pl.read_ipc(path) if fmt == "arrow" else pl.read_ipc_stream(path)
assert df["count.new"].to_list() == [k["count"]["new"] for k in rep["keys"]]
PY
	done
else
	echo "skipped arrow read-back: .venv is absent ('make deps' installs pyarrow and polars)"
fi

# index files compare like their traces
"$bin" pack -q "$B" -o "$tmp/b.gtx" >/dev/null && "$bin" pack -q "$N" -o "$tmp/n.gtx" >/dev/null &&
	"$bin" compare -q $F "$tmp/b.gtx" "$tmp/n.gtx" | jq 'del(.base, .new)' >"$tmp/gtx.json" &&
	jq 'del(.base, .new)' "$d/base_new.json" | cmp -s - "$tmp/gtx.json" || bad "index files compare differently"
"$bin" compare -q "$tmp/b.gtx" "$tmp/n.gtx" | jq 'del(.base, .new)' >"$tmp/gtx.json" &&
	jq 'del(.base, .new)' "$d/base_new_causal.json" | cmp -s - "$tmp/gtx.json" || bad "index files compare differently (causal)"

# the causal path's conditions (hand-checked: see testdata/compare/README)
while IFS='|' read -r expr want; do
	[ -n "$expr" ] || continue
	"$bin" compare -q "$B" "$N" --fail-if "$expr" >/dev/null 2>"$tmp/e.txt"; rc=$?
	[ "$rc" = "$want" ] || bad "causal '$expr': exit $rc, expected $want ($(cat "$tmp/e.txt"))"
done <<'EOF'
critical_path.rel == 30%|5
critical_path.base == 100us|5
critical_path.new == 130us|5
key[step].cp_ns.base == 40us|5
key[step].cp_ns.new == 30us|5
key[aten::gelu].cp_ns.new == 35us|5
key[aten::relu].cp_ns.new == 5us|5
key[aten::matmul].cp_ns.abs == 10us|5
key[gemm_kernel].cp_count.new == 0|5
key[step].cp_share.new > 23.0769%|5
key[step].cp_share.new > 23.077%|0
EOF

# what a CI gate must see: a GPU-bound step whose kernels get 20% slower
# fails it; a harmless wrapper span (a profiler annotation around the step,
# and a wrapper thread spanning the trace) does not
for v in slow wrapper; do
	"$bin" compare -q "$d/gpu_base.json" "$d/gpu_$v.json" --fail-if 'critical_path.rel > 5%' >"$tmp/g.json" 2>/dev/null; rc=$?
	want=5; [ $v = wrapper ] && want=0
	[ $rc = $want ] || bad "gpu_$v: exit $rc, expected $want: $(jq -c .critical_path "$tmp/g.json")"
done
"$bin" compare -q --model forest "$d/gpu_base.json" "$d/gpu_wrapper.json" --fail-if 'critical_path.rel > 5%' >/dev/null 2>&1
[ $? = 5 ] || bad "the forest model no longer fires on the wrapper span (the case the causal model fixes)"
# usage and input errors
"$bin" compare -q "$B" >/dev/null 2>&1; [ $? = 2 ] || bad "one operand is not a usage error"
"$bin" compare -q --by nope "$B" "$N" >/dev/null 2>&1; [ $? = 2 ] || bad "--by nope is not a usage error"
"$bin" compare -q --model nope "$B" "$N" >/dev/null 2>&1; [ $? = 2 ] || bad "--model nope is not a usage error"
"$bin" compare -q "$B" testdata/bad/truncated.json -o "$tmp/y.json" >/dev/null 2>&1; rc=$?
[ $rc = 1 ] && [ ! -e "$tmp/y.json" ] || bad "a bad trace: exit $rc"

# generated traces (many keys, repeated durations): the same check as for real traces
gen=${GPUTRACE_GEN:-$(dirname "$bin")/tools/gen_trace}
"$gen" --events 40000 --seed 11 -o "$tmp/g1.json" >/dev/null 2>&1 && "$gen" --events 50000 --seed 12 -o "$tmp/g2.json" >/dev/null 2>&1 ||
	bad "gen_trace"
"$bin" spans --parents nesting -f csv "$tmp/g1.json" >"$tmp/g1.csv"
"$bin" spans --parents nesting -f csv "$tmp/g2.json" >"$tmp/g2.csv"
for by in name cat; do
	"$bin" compare -q --by $by --top 0 "$tmp/g1.json" "$tmp/g2.json" >"$tmp/gen.json" || bad "generated compare exit $?"
	python3 tests/compare_check.py "$tmp/gen.json" "$tmp/g1.csv" "$tmp/g2.csv" $by || bad "generated traces by $by"
done

# real traces: per-key statistics against an independent computation
real0="$shared/traces/param__worker0_step_12.1694128201545.pt.trace.json"
real1="$shared/traces/param__worker1_step_12.1694128201556.pt.trace.json"
if [ -f "$real0" ] && [ -f "$real1" ]; then
	for by in name cat; do
		"$bin" compare -q --by $by --top 0 "$real0" "$real1" >"$tmp/real.json" || bad "real compare exit $?"
		"$bin" spans --parents nesting -f csv "$real0" >"$tmp/s0.csv"
		"$bin" spans --parents nesting -f csv "$real1" >"$tmp/s1.csv"
		python3 tests/compare_check.py "$tmp/real.json" "$tmp/s0.csv" "$tmp/s1.csv" $by || bad "real traces by $by"
	done
else
	echo "skipped real traces: $real0 not present"
fi

[ $fail = 0 ] && echo "compare: ok"
exit $fail
