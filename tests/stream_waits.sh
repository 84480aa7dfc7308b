#!/bin/sh
# Inferred stream waits of the causal model (man gputrace: Stream waits):
# on real Kineto traces their count equals an independent reading of the
# rule from the trace's own events (scripts/stream-wait-agreement); turned
# off (--edges=-stream-wait, or a slack of 0) the documents are the model
# without them, byte for byte, and say nothing of them; on, every window
# still holds path <= wall and float >= 0 (tests/causal_check.py).
. tests/lib/preamble.sh
traces=../shared/traces
[ -d "$traces" ] || { echo "stream_waits: skipped: $traces is absent"; exit 0; }

for t in hta__trace_diff-control.json.gz hta__nccl_data.json.gz param__worker3_step_12.1694128201557.pt.trace.json \
	kineto__resnet50_autograd_api_num_workers_0-worker0.pt.trace.json.gz hta__benchmark_result_2869224_1695835535_trace.json.gz \
	tracelens__gpu_only_trace.json.gz hta__cuda_event_sync-event_sync_trace.json.gz kineto__before_fix_trace.json; do
	f=$traces/$t
	[ -f "$f" ] || continue
	# recorded waits (where the trace has cuda_sync markers), and the
	# inferred ones of the spans without one, against the rules read again
	got=$("$bin" critical-path -q -d host "$f" |
		jq -r '[(.sync_markers.stream_waits // 0), ([.windows[].summary.edges.inferred_stream_wait] | add)] | join(" ")')
	want=$(python3 scripts/stream-wait-agreement --recorded-count "$f")
	[ "$got" = "$want" ] && ok || bad "$t: $got recorded and inferred stream waits, the rules read again give $want"
	got=$("$bin" critical-path -q -d host --edges=-recorded-wait "$f" | jq '[.windows[].summary.edges.inferred_stream_wait] | add')
	want=$(python3 scripts/stream-wait-agreement --count "$f")
	[ "$got" = "$want" ] && ok || bad "$t: $got inferred stream waits alone, the rule read again gives $want"
	"$bin" critical-path --path --top 0 -q -d host --rows "$f" >"$tmp/on.json"
	"$bin" spans -q -f csv "$f" >"$tmp/spans.csv"
	python3 tests/causal_check.py "$tmp/on.json" "$tmp/spans.csv" >"$tmp/check" 2>&1 && ok ||
		bad "$t: the causal rules with stream waits: $(head -3 "$tmp/check")"
	"$bin" critical-path -q -d host --edges=-stream-wait "$f" >"$tmp/off.json"
	"$bin" critical-path -q -d host --stream-wait-slack 0 "$f" >"$tmp/zero.json"
	cmp -s "$tmp/off.json" "$tmp/zero.json" && ok || bad "$t: --edges=-stream-wait and a slack of 0 differ"
	"$bin" critical-path -q -d host --edges=-stream-wait,-recorded-wait "$f" >"$tmp/off.json"
	grep -q 'stream_wait\|sync_markers' "$tmp/off.json" && bad "$t: the document off still names stream waits" || ok
done
# the sync args survive an index file: the same recorded waits from it
f=$traces/hta__benchmark_result_2869224_1695835535_trace.json.gz
if [ -f "$f" ]; then
	"$bin" pack -q "$f" -o "$tmp/sync.gtx" >/dev/null
	"$bin" critical-path --path --top 0 -q -d host "$f" | jq -S '{sync_markers, windows}' >"$tmp/json.out"
	"$bin" critical-path --path --top 0 -q -d host "$tmp/sync.gtx" | jq -S '{sync_markers, windows}' >"$tmp/gtx.out"
	[ "$(jq .sync_markers.stream_waits "$tmp/json.out")" -gt 0 ] && cmp -s "$tmp/json.out" "$tmp/gtx.out" && ok ||
		bad "the recorded waits of an index file differ from its trace's"
fi
# the last word for a kind wins; units as elsewhere
f=$traces/param__worker3_step_12.1694128201557.pt.trace.json
if [ -f "$f" ]; then
	"$bin" critical-path -q -d host --edges=-stream-wait,+stream-wait --stream-wait-slack 5us "$f" >"$tmp/a.json"
	"$bin" critical-path -q -d host "$f" >"$tmp/b.json"
	cmp -s "$tmp/a.json" "$tmp/b.json" && ok || bad "--edges=-stream-wait,+stream-wait is not the default"
	[ "$(jq .stream_wait_slack_ns "$tmp/a.json")" = 5000 ] && ok || bad "stream_wait_slack_ns"
	# compare applies the option to both sides
	"$bin" compare -q -d host --edges=-stream-wait "$f" "$f" >"$tmp/c.json" && ok || bad "compare --edges"
fi
for bad_arg in "--edges=bogus" "--edges=-stream-wait,bogus" "--edges=recorded" "--stream-wait-slack=-1us" "--stream-wait-slack=1x"; do
	"$bin" critical-path -q $bad_arg testdata/compare/base.json >/dev/null 2>"$tmp/err"
	[ $? = 2 ] && ok || bad "$bad_arg: exit $? ($(cat "$tmp/err"))"
done
echo "stream_waits: $pass passed, $fail failed"
[ "$fail" = 0 ]
