#!/bin/sh
# Messy traces (testdata/messy/, README.md there): one bad event is skipped
# and counted, never the trace. Exact kept-event and warning counts, exit 4
# under --strict, and truncated gzip/zstd streams cut at several offsets
# keeping exactly the events complete before the cut.
bin=${GPUTRACE_BIN:-build/gputrace}
d=testdata/messy
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# file, events, spans, the exit status under --strict, and the nonzero
# warning counts as compact sorted JSON
while read -r f events spans strict warn; do
	[ -n "$f" ] || continue
	"$bin" info -q "$d/$f" >"$tmp/info.json" 2>"$tmp/err" || { echo "FAIL: $f: exit $?: $(cat "$tmp/err")"; fail=1; continue; }
	got=$(jq -c '[.events, .spans]' "$tmp/info.json")
	gotw=$(jq -cS '.warnings | with_entries(select(.value > 0))' "$tmp/info.json")
	[ "$got" = "[$events,$spans]" ] || { echo "FAIL: $f: [events,spans] $got, want [$events,$spans]"; fail=1; }
	[ "$gotw" = "$warn" ] || { echo "FAIL: $f: warnings $gotw, want $warn"; fail=1; }
	# every counted warning kind found while reading has an example
	jq -e '.warnings as $w | .warning_examples | to_entries | all(.value | length >= 1 and length <= 5)' \
		"$tmp/info.json" >/dev/null || { echo "FAIL: $f: warning_examples"; fail=1; }
	"$bin" spans --strict "$d/$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$strict" = 4 ]; then
		[ $rc = 4 ] && [ ! -s "$tmp/out" ] || { echo "FAIL: $f: --strict exit $rc (want 4, no output)"; fail=1; }
	else
		[ $rc = "$strict" ] || { echo "FAIL: $f: --strict exit $rc (want $strict)"; fail=1; }
	fi
	"$bin" spans "$d/$f" >/dev/null 2>"$tmp/err"
	[ "$(wc -l <"$tmp/err")" -le 1 ] || { echo "FAIL: $f: more than one notice line"; fail=1; }
	"$bin" spans -q "$d/$f" >/dev/null 2>"$tmp/err"
	[ ! -s "$tmp/err" ] || { echo "FAIL: $f: -q printed: $(cat "$tmp/err")"; fail=1; }
done <<'LIST'
null_ts.json 5 3 4 {"invalid_ts":1,"unclosed_async":1}
perfetto_bad_values.json 6 2 4 {"invalid_dur":1,"invalid_ts":1}
string_dur.json 1 0 4 {"invalid_dur":1}
negative_dur.json 1 0 4 {"negative_dur":1}
huge_number.json 1 0 4 {"invalid_ts":1}
nan.json 1 0 4 {"invalid_ts":1,"nonstandard_number":1}
nan_in_args.json 3 1 4 {"nonstandard_number":4}
fractional_pid.json 1 0 4 {"invalid_id":1}
bad_field.json 4 1 4 {"invalid_field":2,"invalid_id":1}
invalid_utf8.json 1 1 4 {"invalid_utf8":2,"unfinished_complete":1}
invalid_utf8_two.json 2 2 4 {"invalid_utf8":3}
unknown_phase.json 4 2 4 {"missing_phase":1,"unknown_phase":1}
object_truncated.json 1 1 4 {"truncated_input":1,"unfinished_complete":1}
cut_array.json 2 2 4 {"truncated_input":1}
kineto_meta.json 1 1 0 {}
graph_flows.json 13 6 4 {"unbound_flow":1}
chrome_rules.json 8 6 4 {"mismatched_end_name":1,"unfinished_complete":1}
instant_scopes.json 8 8 0 {}
async_ids.json 9 4 4 {"invalid_id":2,"unclosed_async":1,"unmatched_async_end":1}
counter_ids.json 5 1 0 {}
flow_v2_steps.json 5 5 4 {"unbound_flow":2}
LIST

# what the rules keep, beyond the counts
# instants: thread-scoped ones nest in their thread, "p" ones share their
# process's instant track, "g" ones the trace's one global track
got=$("$bin" spans -q -f csv $d/instant_scopes.json | awk -F, 'NR > 1 { printf "%s:%s:%s ", $3, $8, $10 }')
[ "$got" = "task:0:0 thread mark:0:1 no scope:0:1 process mark:1:0 Iteration Start:1:0 global mark:2:0 global from 1:2:0 other:3:0 " ] ||
	{ echo "FAIL: instant scopes (name:track:depth): $got"; fail=1; }
[ "$("$bin" info -q $d/instant_scopes.json -t lanes -f csv | grep -c ',instant,')" = 2 ] ||
	{ echo "FAIL: instant tracks in the lanes table"; fail=1; }
# async: a plain id and id2.global match across processes, id2.local not
got=$("$bin" spans -q -f csv $d/async_ids.json | awk -F, 'NR > 1 { printf "%s:%s ", $3, $15 }')
[ "$got" = "InputLatency::MouseUp:17000 local:310000 global2:10000 end:10000 " ] ||
	{ echo "FAIL: async ids (name:dur_ns): $got"; fail=1; }
# counters: one series per (name, id, key); numeric strings are samples
[ "$("$bin" info -q $d/counter_ids.json | jq -c '[.counters, .counter_samples]')" = "[3,4]" ] ||
	{ echo "FAIL: counter series by id, numeric-string values"; fail=1; }
# v2 steps: a chain starts only at a flow_out-only span
[ "$("$bin" spans -q -f csv $d/flow_v2_steps.json | awk -F, 'NR > 1 { printf "%s ", $11 }')" = "   2 3 " ] ||
	{ echo "FAIL: v2 flow steps (parents): $("$bin" spans -q -f csv $d/flow_v2_steps.json | cut -d, -f11 | tr '\n' ' ')"; fail=1; }
[ "$("$bin" info -q $d/perfetto_bad_values.json -t lanes -f csv | grep -c 'main\|worker')" = 2 ] ||
	{ echo "FAIL: metadata events without or with a null ts lose their thread names"; fail=1; }
[ "$("$bin" info -q $d/nan_in_args.json | jq .counter_samples)" = 3 ] || { echo "FAIL: NaN counter samples"; fail=1; }
[ "$("$bin" spans -q -f csv $d/invalid_utf8_two.json | grep -c "$(printf '\357\277\275')")" = 2 ] ||
	{ echo "FAIL: U+FFFD in names"; fail=1; }
[ "$("$bin" info -q $d/unknown_phase.json | jq -r '.warning_examples.unknown_phase[0].excerpt')" = XXX ] ||
	{ echo "FAIL: unknown_phase example text"; fail=1; }
[ "$("$bin" info -q $d/perfetto_bad_values.json | jq -c '.warning_examples.invalid_ts[0] | [.offset, .event]')" = "[107,1]" ] ||
	{ echo "FAIL: invalid_ts example location"; fail=1; }

# Kineto's top-level keys are kept as metadata; distributedInfo's rank and
# world size (worldSize here) surface on their own
[ "$("$bin" info -q $d/kineto_meta.json | jq -c '[.rank, .world_size, (.metadata | keys)]')" = \
  '[5,16,["baseTimeNanoseconds","deviceProperties","displayTimeUnit","distributedInfo","schemaVersion","traceName"]]' ] ||
	{ echo "FAIL: kineto metadata: $("$bin" info -q $d/kineto_meta.json | jq -c '[.rank, .world_size, .metadata]')"; fail=1; }
printf '{"distributedInfo":{"backend":"nccl","rank":3,"world_size":8},"traceEvents":[]}' >"$tmp/dist.json"
[ "$("$bin" info -q "$tmp/dist.json" | jq -c '[.rank, .world_size]')" = '[3,8]' ] || { echo "FAIL: world_size"; fail=1; }
printf '{"distributedInfo":{"rank":1.5},"traceEvents":[]}' >"$tmp/dist2.json"
[ "$("$bin" info -q "$tmp/dist2.json" | jq -c '[.rank, .world_size]')" = '[null,null]' ] || { echo "FAIL: a fractional rank"; fail=1; }
# as written: 19 digits stay exact (jq 1.6 itself would round them)
"$bin" info -q $d/kineto_meta.json | grep -q '"baseTimeNanoseconds": *1700000000000000000[,}]' ||
	{ echo "FAIL: baseTimeNanoseconds not exact"; fail=1; }
[ "$("$bin" info -q $d/null_ts.json | jq -c '[.rank, .world_size, .metadata]')" = '[null,null,null]' ] ||
	{ echo "FAIL: a trace without metadata"; fail=1; }

# the writers' rules: one 's', many 'f' (a CUDA graph's kernels all link to
# its launch, until a new 's' of the id); an X without dur runs to the
# trace's end; E closes the top of its stack; R marks are instants
[ "$("$bin" spans -q $d/graph_flows.json | jq -c '[.[] | .parent]')" = "[null,0,0,0,null,4]" ] ||
	{ echo "FAIL: graph flows: parents $("$bin" spans -q $d/graph_flows.json | jq -c '[.[] | .parent]')"; fail=1; }
[ "$("$bin" info -q $d/graph_flows.json | jq -c '[.flows, .flows_bound]')" = "[4,4]" ] || { echo "FAIL: flows_bound"; fail=1; }
[ "$("$bin" spans -q $d/chrome_rules.json | jq -c '[.[] | [.name, .dur_us, .depth]]')" = \
  '[["navigationStart",0,0],["outer",10,0],["inner",3,1],["still_running",30,0],["firstContentfulPaint",0,0],["last",10,0]]' ] ||
	{ echo "FAIL: chrome rules: $("$bin" spans -q $d/chrome_rules.json | jq -c '[.[] | [.name, .dur_us, .depth]]')"; fail=1; }

# gzip and zstd cut at several offsets: the kept spans are exactly those of
# the events complete in what decompresses before the cut
# 3000 X events, one a line (zstd decompresses whole blocks of up to 128 KiB:
# the trace spans several)
python3 - "$tmp/src.json" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    f.write("[")
    for i in range(3000):
        e = {"ph": "X", "name": "op%d" % (i % 13), "cat": "c%d" % (i % 3), "pid": 1, "tid": i % 4,
             "ts": i * 10, "dur": 5 + i % 4, "args": {"i": i, "pad": "x" * (i % 37)}}
        f.write(("," if i else "") + "\n" + json.dumps(e, separators=(",", ":")))
    f.write("\n]\n")
PY
gzip -9 -c "$tmp/src.json" >"$tmp/src.gz"
zstd -q -19 -c "$tmp/src.json" >"$tmp/src.zst"
for z in gz zst; do
	size=$(wc -c <"$tmp/src.$z")
	kept=""
	for frac in 1 10 25 50 75 90 99; do
		cut=$((size * frac / 100))
		head -c $cut "$tmp/src.$z" >"$tmp/cut.$z"
		if [ $z = gz ]; then gzip -dc "$tmp/cut.$z" >"$tmp/prefix" 2>/dev/null; else zstd -qdc "$tmp/cut.$z" >"$tmp/prefix" 2>/dev/null; fi
		# the events complete in the prefix, as a trace of their own
		python3 - "$tmp/prefix" "$tmp/want.json" <<'PY'
import json, sys
def complete(l):
    try:
        json.loads(l.rstrip(","))
        return True
    except ValueError:
        return False
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
done = [l.rstrip(",") for l in text.split("\n")[1:] if l.startswith("{") and complete(l)]
open(sys.argv[2], "w").write("[" + ",".join(done) + "]")
PY
		want=$(jq length "$tmp/want.json")
		kept="$kept $want"
		"$bin" spans -q -f csv "$tmp/cut.$z" >"$tmp/got.csv" 2>"$tmp/err"
		rc=$?
		if [ "$want" = 0 ]; then
			[ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] || { echo "FAIL: $z cut at $cut: no complete event, exit $rc"; fail=1; }
			continue
		fi
		[ $rc = 0 ] || { echo "FAIL: $z cut at $cut: exit $rc: $(cat "$tmp/err")"; fail=1; continue; }
		"$bin" spans -q -f csv "$tmp/want.json" >"$tmp/want.csv"
		cmp -s "$tmp/got.csv" "$tmp/want.csv" || { echo "FAIL: $z cut at $cut: kept spans differ from the $want complete events"; fail=1; }
		[ "$("$bin" info -q "$tmp/cut.$z" | jq .warnings.truncated_input)" = 1 ] || { echo "FAIL: $z cut at $cut: truncated_input"; fail=1; }
		"$bin" info --strict "$tmp/cut.$z" >/dev/null 2>&1
		[ $? = 4 ] || { echo "FAIL: $z cut at $cut: --strict"; fail=1; }
	done
	echo "messy: $z cuts kept:$kept of 3000"
done
# the plain file cut at several offsets too (inside events and between them)
size=$(wc -c <"$tmp/src.json")
for cut in 150 1001 4097 $((size / 2)) $((size - 3)); do
	head -c $cut "$tmp/src.json" >"$tmp/cut.json"
	n=$(python3 -c "
import json, sys
def ok(l):
    try:
        json.loads(l.rstrip(','))
        return True
    except ValueError:
        return False
print(sum(1 for l in open(sys.argv[1]).read().split('\n')[1:] if l.startswith('{') and ok(l)))" "$tmp/cut.json")
	[ "$("$bin" info -q "$tmp/cut.json" | jq .spans)" = "$n" ] || { echo "FAIL: plain cut at $cut: want $n spans"; fail=1; }
done
[ $fail = 0 ] && echo "messy: ok"
[ $fail = 0 ]
