#!/bin/sh
# critical-path from the command line: a hand-checked forest, input errors
# and exit statuses, host and device output identical on real traces, the
# forest path of real Kineto traces against an independent calculation in
# Python over the span table (`gputrace spans`), and the causal path of real
# and generated traces against what its rules imply (tests/causal_check.py).
set -u
bin=${GPUTRACE_BIN:-build/gputrace}
traces=${GPUTRACE_TRACES:-../shared/traces}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # description, command...
	d=$1; shift
	if "$@"; then :; else echo "FAIL: $d"; fail=$((fail + 1)); fi
}
status() { # expected status, args...
	want=$1; shift
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$want" ] || { echo "status $rc, expected $want: gputrace $*"; cat "$tmp/err"; return 1; }
}

cldev=$("$bin" devices -f csv 2>/dev/null | awk -F, 'NR > 1 { print $1; exit }'); cldev=${cldev:-host}  # PoCL in CI: auto no longer takes a CPU device
printf 'parent,duration\n-1,5\n0,3\n1,4\n0,7\n-1,2\n' >"$tmp/f.csv"
for dev in host $cldev auto; do
	check "golden forest on $dev" status 0 critical-path --forest "$tmp/f.csv" --device $dev -q
	check "golden summary on $dev" grep -q '"max_path_duration_ns": 12' "$tmp/out"
	check "golden endpoint on $dev" grep -q '"endpoint": 2' "$tmp/out"
done
check "truncated rows" status 0 critical-path --forest "$tmp/f.csv" --rows -f csv --max-path-length 2 -q
printf 'id,parent,dur_us,dur_ns,path_duration_us,path_duration_ns,slack_us,slack_ns,critical_predecessor,root,hop_count,critical_mask\n0,,0.005,5,0.005,5,0.007,7,,0,0,true\n1,0,0.003,3,0.008,8,0.004,4,0,0,1,true\n2,1,0.004,4,0.012,12,0,0,1,0,2,false\n3,0,0.007,7,0.012,12,0,0,0,0,1,false\n4,,0.002,2,0.002,2,0.01,10,,4,0,false\n' >"$tmp/want"
check "truncated rows table" cmp -s "$tmp/out" "$tmp/want"

printf 'parent,duration\n-1,5\n1,x\n' >"$tmp/bad.csv"
check "malformed line" status 1 critical-path --forest "$tmp/bad.csv"
check "malformed line names it" grep -q "line 3" "$tmp/err"
printf 'parent,dur\n' >"$tmp/hdr.csv"
check "bad header" status 1 critical-path --forest "$tmp/hdr.csv"
printf 'parent,duration\n-1,5\n0,-3\n7,1\n2,2\n1,1\n' >"$tmp/inv.csv"
check "flagged without --strict" status 0 critical-path --forest "$tmp/inv.csv" -q
check "flag names" grep -q '"invalid_duration"' "$tmp/out"
check "flagged with --strict" status 4 critical-path --forest "$tmp/inv.csv" -q --strict
# auto: a GPU, else the host path, which it names only with -v
if ! "$bin" devices -f csv | awk -F, 'NR > 1' | grep -q ',gpu,'; then
	check "auto without a GPU" status 0 critical-path --forest "$tmp/f.csv" --device auto
	check "auto without a GPU is quiet" test ! -s "$tmp/err"
	check "auto without a GPU, -v" status 0 critical-path --forest "$tmp/f.csv" --device auto -v
	check "auto -v names the host" grep -q 'device: host' "$tmp/err"
fi
check "unknown device" status 3 critical-path --forest "$tmp/f.csv" --device no-such-device
# the causal model opens a named device at its first device step: the same
# failure, one line, and no output
check "unknown device, causal" status 3 critical-path testdata/demo/kineto_resnet50.json.gz --device no-such-device \
	-o "$tmp/never.json"
check "unknown device, causal: one line" test "$(wc -l < "$tmp/err")" = 1
check "unknown device, causal: no output" test ! -e "$tmp/never.json"
check "unknown device, compare" status 3 compare testdata/demo/kineto_resnet50.json.gz \
	testdata/demo/kineto_resnet50.json.gz --device no-such-device -o "$tmp/never.json"
check "unknown device, compare: no output" test ! -e "$tmp/never.json"
check "no operand" status 2 critical-path
check "devices lists JSON" status 0 devices

# Host and device agree on every output of real traces.
for t in kineto__worker0.1623143089861.pt.trace.json.gz param__linear_kineto.json.gz; do
	[ -f "$traces/$t" ] || { echo "skipped: $t is missing"; continue; }
	check "$t on host" status 0 critical-path --model forest "$traces/$t" --rows --device host -q
	cp "$tmp/out" "$tmp/host_full.json"
	grep -v '"device"' "$tmp/out" >"$tmp/host.json"
	check "$t on $cldev" status 0 critical-path --model forest "$traces/$t" --rows --device $cldev -q
	grep -v '"device"' "$tmp/out" >"$tmp/dev.json"
	check "$t host = device" cmp -s "$tmp/host.json" "$tmp/dev.json"
	check "$t spans" status 0 spans "$traces/$t" -f csv -q
	cp "$tmp/out" "$tmp/spans.csv"
	check "$t independent path" python3 - "$tmp/spans.csv" "$tmp/host_full.json" <<'PY'
import csv, json, sys
from decimal import Decimal
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
par = [int(r['parent']) if r['parent'] != '' else None for r in rows]
dur = [int(Decimal(r['dur_us']) * 1000) for r in rows]
total = [None] * len(rows)
for i in range(len(rows)):  # iterative: walk up, then fill back down
    chain, j = [], i
    while j is not None and total[j] is None:
        chain.append(j); j = par[j]
    acc = 0 if j is None else total[j]
    for k in reversed(chain):
        acc += dur[k]; total[k] = acc
best = max(total)
end = total.index(best)
path = []
j = end
while j is not None:
    path.append(j); j = par[j]
path.reverse()
doc = json.load(open(sys.argv[2]))
s = doc['summary']
ok = s['max_path_duration_ns'] == best and s['endpoint'] == end and [p['id'] for p in doc['path']] == path
ok = ok and [r['path_duration_us'] for r in doc['rows']] == [float(Decimal(t) / 1000) for t in total]
if not ok:
    print('independent:', best, end, path, 'gputrace:', s['max_path_duration_ns'], s['endpoint'], [p['id'] for p in doc['path']])
sys.exit(0 if ok else 1)
PY
done

jqe() { jq -e "$@" >/dev/null; }
# The causal model: host and the first OpenCL device (PoCL in CI) write the same
# bytes, and the result holds what the rules imply; whole traces and steps.
causal() { # label, trace, options...
	l=$1 t=$2; shift 2
	check "$l causal on host" status 0 critical-path --path --top 0 "$t" --rows --device host -q -j 1 "$@"
	grep -v '"device"' "$tmp/out" >"$tmp/c_host.json"; cp "$tmp/out" "$tmp/c_full.json"
	check "$l causal on $cldev" status 0 critical-path --path --top 0 "$t" --rows --device $cldev -q "$@"
	grep -v '"device"' "$tmp/out" >"$tmp/c_dev.json"
	check "$l causal host = device" cmp -s "$tmp/c_host.json" "$tmp/c_dev.json"
	# the path and rows are formatted in chunks on threads, the trace-wide
	# passes run in ranges (small ones here) and the host's batches side by
	# side: any count, same bytes
	export GPUTRACE_CAUSAL_RANGE=64
	check "$l causal on host, 3 threads" status 0 critical-path --path --top 0 "$t" --rows --device host -q -j 3 "$@"
	check "$l causal 3 threads = 1" cmp -s "$tmp/out" "$tmp/c_full.json"
	unset GPUTRACE_CAUSAL_RANGE
	"$bin" spans -q -f csv "$t" >"$tmp/c_spans.csv"
	check "$l causal rules" python3 tests/causal_check.py "$tmp/c_full.json" "$tmp/c_spans.csv"
	# the rows table in NDJSON and CSV, formatted on threads as well: the
	# same bytes on 1 and 3 threads, and the document's rows
	for f in ndjson csv; do
		check "$l rows $f" status 0 critical-path "$t" --rows -f $f --device host -q -j 1 "$@"
		mv "$tmp/out" "$tmp/c_rows.$f"
		check "$l rows $f, 3 threads" status 0 critical-path "$t" --rows -f $f --device host -q -j 3 "$@"
		check "$l rows $f 3 threads = 1" cmp -s "$tmp/out" "$tmp/c_rows.$f"
	done
	check "$l rows tables = the document's" rows_tables "$tmp/c_full.json" "$tmp/c_rows.ndjson" "$tmp/c_rows.csv"
}
rows_tables() { # document, ndjson, csv: the same rows, each with its window
	python3 - "$@" <<'PY'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
want = [dict(window=w, **r) for w, win in enumerate(doc['windows']) for r in win['rows']]
nd = [json.loads(line) for line in open(sys.argv[2], encoding='utf-8')]
ints = ('window', 'span', 'float_ns', 'critical_ns', 'waited_ns', 'caused_wait_ns')
def typed(r):
    r = {k: int(v) if k in ints else v == 'true' if k == 'on_path' else v for k, v in r.items()}
    return r
with open(sys.argv[3], newline='', encoding='utf-8') as f:
    rows = list(csv.DictReader(f))
cs = [typed(r) for r in rows]
keys = list(want[0]) if want else []
ok = nd == want and cs == want and all(list(r) == keys for r in nd) and (not rows or list(rows[0]) == keys)
if not ok:
    bad = next((i for i, (a, b, c) in enumerate(zip(want, nd, cs)) if not a == b == c), None)
    print('rows differ: %d, %d, %d rows; first at %s' % (len(want), len(nd), len(cs), bad))
sys.exit(0 if ok else 1)
PY
}
for t in kineto__resnet50_autograd_api_num_workers_0-worker0.pt.trace.json.gz hta__cuda_event_sync-event_sync_trace.json.gz \
	 param__worker1_step_12.1694128201556.pt.trace.json tracelens__h100-gaunernst_bert-small-uncased__1016001.json.gz \
	 catapult__flow.json perfetto__flow_events_json_v2.json; do
	[ -f "$traces/$t" ] || { echo "skipped: $t is missing"; continue; }
	causal "$t" "$traces/$t"
done
for t in hta__trace_diff-control.json.gz param__worker0_step_12.1694128201545.pt.trace.json; do
	[ -f "$traces/$t" ] && causal "$t --step" "$traces/$t" --step 'ProfilerStep#*'
done
gen=${GPUTRACE_GEN:-$(dirname "$bin")/tools/gen_trace}
if "$gen" --events 60000 --seed 5 -o "$tmp/g.json" >/dev/null 2>&1; then
	causal "generated" "$tmp/g.json"
	causal "generated --step" "$tmp/g.json" --step 'ProfilerStep#*'
	causal "generated --window" "$tmp/g.json" --window 1ms:40ms
	# the per-step figures are those of the same window given by --window
	"$bin" critical-path --path --top 0 -q --device host --step 'ProfilerStep#*' "$tmp/g.json" >"$tmp/steps.json"
	check "generated: several steps" jqe '.aggregate.windows > 2' "$tmp/steps.json"
	# counted only (JSON without --path), a whole trace's hops go through a
	# buffer a part at a time (16384 positions): the same document as with
	# the hops kept, less the path
	"$bin" critical-path -q --device host "$tmp/g.json" | jq . >"$tmp/counted.json"
	"$bin" critical-path --path -q --device host "$tmp/g.json" | jq 'del(.windows[].path)' >"$tmp/kept.json"
	check "generated: a path of several parts" jqe '.windows[0].summary.hops > 16384' "$tmp/counted.json"
	check "generated: the hops counted only, the same figures" cmp -s "$tmp/counted.json" "$tmp/kept.json"
else
	echo "FAIL: gen_trace"; fail=$((fail + 1))
fi
# a whole trace from its index: the span table's pages go once the graph's
# points are made, and what reads spans after them reads a copy of their
# fields (src/causal/causal_span_fields.c): the same documents as from the
# JSON, where the table is the model's own, by category and by name, on
# the host (1 and 3 threads, small ranges) and on the device
from_index() { # label, trace
	"$bin" pack -q -o "$tmp/x.gtx" "$2" >/dev/null || { echo "FAIL: $1: pack"; fail=$((fail + 1)); return; }
	for by in cat name; do
		for run in "--device host -j 1" "--device host -j 3" "--device $cldev"; do
			"$bin" critical-path --path --top 0 -q --by $by $run "$2" | grep -v '"source"' >"$tmp/x_json.json"
			GPUTRACE_CAUSAL_RANGE=64 "$bin" critical-path --path --top 0 -q --by $by $run "$tmp/x.gtx" |
				grep -v '"source"' >"$tmp/x_gtx.json"
			check "$1: from its index = from the JSON, by $by, $run" cmp -s "$tmp/x_json.json" "$tmp/x_gtx.json"
		done
	done
	# other parents than the index's are written in a copy of its span table
	"$bin" critical-path --path --top 0 -q --parents nesting "$2" | grep -v '"source"' >"$tmp/x_json.json"
	"$bin" critical-path --path --top 0 -q --parents nesting "$tmp/x.gtx" | grep -v '"source"' >"$tmp/x_gtx.json"
	check "$1: from its index = from the JSON, --parents nesting" cmp -s "$tmp/x_json.json" "$tmp/x_gtx.json"
	"$bin" critical-path -f text -q "$2" | sed 1d >"$tmp/x_json.txt" # its first line names the file
	"$bin" critical-path -f text -q "$tmp/x.gtx" | sed 1d >"$tmp/x_gtx.txt"
	check "$1: from its index = from the JSON, text" cmp -s "$tmp/x_json.txt" "$tmp/x_gtx.txt"
}
for t in kineto__resnet50_autograd_api_num_workers_0-worker0.pt.trace.json.gz hta__cuda_event_sync-event_sync_trace.json.gz \
	 tracelens__h100-gaunernst_bert-small-uncased__1016001.json.gz; do
	[ -f "$traces/$t" ] && from_index "$t" "$traces/$t"
done
[ -f "$tmp/g.json" ] && from_index "generated" "$tmp/g.json"
# the checker notices a wrong figure
causal "demo" testdata/demo/kineto_resnet50.json.gz
jq '.windows[0].path[3].duration_ns += 1' "$tmp/c_full.json" >"$tmp/bad.json"
check "the checker notices a wrong hop" sh -c "! python3 tests/causal_check.py $tmp/bad.json $tmp/c_spans.csv >/dev/null"
jq '.windows[0].rows[0].float_ns = -1' "$tmp/c_full.json" >"$tmp/bad.json"
check "the checker notices a negative float" sh -c "! python3 tests/causal_check.py $tmp/bad.json $tmp/c_spans.csv >/dev/null"

# causal errors: no span taking part, an empty window, a glob that matches
# nothing (1); a bad regex, options of the other model, both windows (2)
printf '[{"ph":"i","name":"a","pid":1,"tid":1,"ts":0,"s":"t"},{"ph":"C","name":"c","pid":1,"ts":1,"args":{"v":1}}]' >"$tmp/inst.json"
check "no span taking part" status 1 critical-path "$tmp/inst.json" -q
check "no span taking part: message" grep -q "no thread-track span takes part" "$tmp/err"
gb=testdata/compare/gpu_base.json
check "empty window" status 1 critical-path "$gb" --window 5s:6s -q
check "glob matching nothing" status 1 critical-path "$gb" --step 'NoSuchStep*' -q
check "step windows" status 0 critical-path "$gb" --step 'ProfilerStep#*' -q
check "bad wait regex" status 2 critical-path "$gb" --wait-name '(' -q
check "forest option with causal" status 2 critical-path "$gb" --max-path-length 3 -q
check "causal option with forest" status 2 critical-path "$gb" --model forest --step 'x' -q
check "window and step" status 2 critical-path "$gb" --window 0:1ms --step 'x' -q
check "bad model" status 2 critical-path "$gb" --model nope -q
check "bad table" status 2 critical-path "$gb" --table nope -q
check "bad window" status 2 critical-path "$gb" --window 5:1 -q
# the forest model is still there, unchanged
check "forest model" status 0 critical-path "$gb" --model forest -q
check "forest model: summary" jqe '.summary.max_path_duration_ns == 1650000' "$tmp/out"
# no object of either model's document repeats a key (jq would keep the last)
no_repeated_keys() {
	python3 -c '
import json, sys
def once(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        sys.exit("repeated key in %s" % keys)
    return dict(pairs)
json.load(open(sys.argv[1]), object_pairs_hook=once)' "$1"
}
check "forest model: no repeated key" no_repeated_keys "$tmp/out"
check "causal model" status 0 critical-path --path --top 0 "$gb" --rows -q
check "causal model: no repeated key" no_repeated_keys "$tmp/out"

[ "$fail" = 0 ] && echo "critical_path: all passed"
[ "$fail" = 0 ]
