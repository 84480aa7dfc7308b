#!/bin/sh
# The causal document is summary first (man gputrace: critical-path, JSON):
# without options it holds the aggregate and each window's summary and top
# breakdown entries, no path and no rows. For every shared trace (and the
# 8-rank job, per step) it parses, stays under 64 KB (up to 100 windows), equals the aggregate
# and summaries of --path --rows, and its breakdown's times (the top
# entries, "others", the wall's parts) sum to each window's wall. A table
# option without a table format, or a JSON option with one, is a usage error.
. tests/lib/preamble.sh
traces=../shared/traces
[ -d "$traces" ] || { echo "summary_doc: skipped: $traces is absent"; exit 0; }
check_doc() { # LABEL ARGS...
	label=$1
	shift
	"$bin" critical-path -q -d host "$@" >"$tmp/s.json" 2>"$tmp/err"
	rc=$?
	if [ $rc = 1 ] && grep -q "no thread-track span takes part\|matching nothing\|matches nothing" "$tmp/err"; then
		return 0
	fi
	[ $rc = 0 ] || { bad "$label: exit $rc: $(head -c 200 "$tmp/err")"; return; }
	"$bin" critical-path -q -d host --path --rows "$@" >"$tmp/full.json" || { bad "$label: --path --rows"; return; }
	python3 - "$tmp/s.json" "$tmp/full.json" <<'PY' && ok || bad "$label: $(cat "$tmp/why")"
import json, sys
raw = open(sys.argv[1], "rb").read()
why = open(sys.argv[1].replace("s.json", "why"), "w")
def fail(msg):
    why.write(msg)
    sys.exit(1)
s, full = json.loads(raw), json.load(open(sys.argv[2]))
if len(raw) >= 64 * 1024 and len(s["windows"]) <= 100:
    fail("the default document of %d windows is %d bytes" % (len(s["windows"]), len(raw)))
if s["aggregate"] != full["aggregate"]:
    fail("the aggregate differs from --path --rows's")
if len(s["windows"]) != len(full["windows"]):
    fail("windows differ")
for a, b in zip(s["windows"], full["windows"]):
    if set(a) != {"summary", "breakdown", "classes"}:
        fail("window keys %s" % sorted(a))
    if a["summary"] != b["summary"] or a["breakdown"] != b["breakdown"] or a["classes"] != b["classes"]:
        fail("window %d differs from --path --rows's" % a["summary"]["window"])
    top = [e for e in a["breakdown"] if e["kind"] not in ("others", "before_root", "after_endpoint")]
    if len(top) > 10:
        fail("window %d: %d entries past the top 10" % (a["summary"]["window"], len(top)))
    if a["summary"]["hops"] and sum(e["critical_ns"] for e in a["breakdown"]) != a["summary"]["wall_ns"]:
        fail("window %d: the breakdown sums to %d, the wall is %d" %
             (a["summary"]["window"], sum(e["critical_ns"] for e in a["breakdown"]), a["summary"]["wall_ns"]))
PY
}
for f in "$traces"/*.json "$traces"/*.gz; do
	check_doc "$(basename "$f")" "$f"
done
check_doc "the 8-rank job, per step" --step 'ProfilerStep*' "$traces"/param__worker*.json
check_doc "nccl_data, per step" --step 'ProfilerStep*' "$traces/hta__nccl_data.json.gz"
# many windows are formatted on threads: the same bytes on one thread and
# on three, and the summaries the --path document holds
if [ -x "$gen" ]; then
	"$gen" --spans 200000 --seed 4 -o "$tmp/g.json" 2>/dev/null
	"$bin" critical-path -q -d host -j 1 --step 'ProfilerStep#*' "$tmp/g.json" >"$tmp/j1.json" &&
		"$bin" critical-path -q -d host -j 3 --step 'ProfilerStep#*' "$tmp/g.json" >"$tmp/j3.json" &&
		[ "$(jq '.windows | length' "$tmp/j1.json")" -gt 64 ] && cmp -s "$tmp/j1.json" "$tmp/j3.json" && ok ||
		bad "the step document differs between 1 and 3 threads"
	check_doc "a generated trace per step" --step 'ProfilerStep#*' "$tmp/g.json"
fi
# --top: the others entry holds the rest, and --top 0 all of it
f=$traces/hta__nccl_data.json.gz
"$bin" critical-path -q -d host --top 2 "$f" >"$tmp/t2.json" && "$bin" critical-path -q -d host --top 0 "$f" >"$tmp/t0.json" &&
	python3 - "$tmp/t2.json" "$tmp/t0.json" <<'PY' && ok || bad "--top 2 against --top 0"
import json, sys
t2, t0 = (json.load(open(p))["windows"][0]["breakdown"] for p in sys.argv[1:])
path = lambda b: [e for e in b if e["kind"] not in ("before_root", "after_endpoint")]
assert not any(e["kind"] == "others" for e in t0)
top = sorted(path(t0), key=lambda e: -e["critical_ns"])[:2]
others = [e for e in t2 if e["kind"] == "others"]
assert len(others) == 1 and others[0]["entries"] == len(path(t0)) - 2
assert others[0]["critical_ns"] == sum(e["critical_ns"] for e in path(t0)) - sum(e["critical_ns"] for e in top)
assert [e for e in path(t2) if e["kind"] != "others"] == [e for e in path(t0) if e in top]
PY
# options in the wrong format
for args in "--table breakdown" "--table path -f json" "--path -f csv" "--top 3 -f ndjson"; do
	"$bin" critical-path -q $args testdata/compare/base.json >/dev/null 2>"$tmp/err"
	[ $? = 2 ] && ok || bad "critical-path $args: not a usage error"
done
grep -q "give -f csv|ndjson|arrow" "$tmp/err" || "$bin" critical-path -q --table breakdown testdata/compare/base.json 2>&1 |
	grep -q "give -f csv|ndjson|arrow" && ok || bad "the --table error does not name the table formats"
# a clean run says nothing on stderr
"$bin" critical-path testdata/compare/base.json >/dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ] && ok ||
	bad "a clean run printed: $(cat "$tmp/err")"
echo "summary_doc: $pass passed, $fail failed"
[ "$fail" = 0 ]
