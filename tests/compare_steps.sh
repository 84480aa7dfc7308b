#!/bin/sh
# gputrace compare --step: per-step statistics and the U test on generated
# pairs (scripts/gen-trace --repeat-steps, one seed): the same trace twice,
# one kernel family 20% slower in every step, one extra wrapper span, one
# step 3x slower; what fires and what does not. Then the condition safety
# rules (exit 2, the column named) and the text and markdown reports.
bin=${GPUTRACE_BIN:-build/gputrace}
gen=${GPUTRACE_GEN:-$(dirname "$bin")/tools/gen_trace}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
GPUTRACE_DEVICE=host; export GPUTRACE_DEVICE
bad() { echo "FAIL: $*"; fail=1; }

g() { "$gen" --events 20000 --seed 3 "$@" 2>/dev/null; }
g --repeat-steps -o "$tmp/base.json" && g --repeat-steps -o "$tmp/same.json" &&
	g --slow-kernel 'at::native:20' -o "$tmp/slow.json" && g --wrapper -o "$tmp/wrap.json" &&
	g --slow-step 4:3 -o "$tmp/noisy.json" || { echo "FAIL: gen_trace"; exit 1; }
cmp -s "$tmp/base.json" "$tmp/same.json" || bad "the same seed twice gives different traces"

S='ProfilerStep#*'
CP='critical_path.median.rel > 3% and critical_path.p < 0.01'
K='key[glob:*at::native*].self_ns.median.rel > 10% and key[glob:*at::native*].self_ns.p < 0.01'
D='total.dur_ns.median.rel > 3%'
run() { # variant, expected status; the JSON report in $tmp/r.json, stderr in $tmp/e.txt
	v=$1 want=$2; shift 2
	"$bin" compare -q --step "$S" "$tmp/base.json" "$tmp/$v.json" --fail-if "$CP" --fail-if "$K" --fail-if "$D" "$@" \
		>"$tmp/r.json" 2>"$tmp/e.txt"; rc=$?
	[ $rc = "$want" ] || bad "$v: exit $rc, expected $want: $(cat "$tmp/e.txt")"
}

# (a) the same trace: nothing holds, p = 1 on the critical path
run same 0
jq -e '.windows.base > 5 and .windows.base == .windows.new and .critical_path.p >= 0.5 and
	.critical_path.median.rel == 0 and .critical_path.mad.base >= 0 and .critical_path.n.base == .windows.base and
	([.conditions[].held] == [false, false, false]) and .regression == false' "$tmp/r.json" >/dev/null ||
	bad "same: $(jq -c '[.windows, .critical_path.p, .critical_path.median]' "$tmp/r.json")"

# (b) one kernel family 20% slower in every step: the critical path's median
# and the kernels' keys fire, significantly; the regression line names a key
run slow 5
jq -e '.conditions[0].held and .conditions[1].held and .critical_path.p < 0.01 and .critical_path.median.rel > 0.03 and
	(.conditions[1].terms[0].key | test("at::native")) and
	([.keys[] | select(.key | test("at::native")) | .self_ns.p] | length > 0 and all(. < 0.01)) and
	([.keys[] | select(.key | test("at::native")) | .self_ns.median.rel] | all(. > 0.19 and . < 0.21))' \
	"$tmp/r.json" >/dev/null || bad "slow: $(jq -c '[.critical_path.median, .critical_path.p, .conditions]' "$tmp/r.json")"
grep -F "gputrace: regression: $K (values " "$tmp/e.txt" | grep -qF "; key void at::native" || bad "slow: the key is not named: $(cat "$tmp/e.txt")"
# the report's keys are the kernels that changed most (default --sort self)
jq -e '.keys[0].key | test("at::native")' "$tmp/r.json" >/dev/null || bad "slow: first key $(jq -r '.keys[0].key' "$tmp/r.json")"

# (c) one extra wrapper span over the trace: nothing fires
run wrap 0 --top 0
jq -e '.key_count > 0 and ([.keys[].key] | index("wrapper")) != null' "$tmp/r.json" >/dev/null ||
	bad "wrap: the wrapper key is missing from the report"

# (d) one step 3x slower: the medians do not move; the max does
run noisy 0
"$bin" compare -q --step "$S" "$tmp/base.json" "$tmp/noisy.json" --fail-if 'critical_path.max.rel > 50%' >/dev/null 2>&1
[ $? = 5 ] || bad "noisy: the slow step does not show in the maximum"

# the per-step critical path is critical-path --step's, window by window:
# n, min, median, max and mad recomputed here from its windows
for v in base noisy; do
	"$bin" critical-path -q --step "$S" "$tmp/$v.json" | jq '[.windows[].summary.path_duration_ns]' >"$tmp/$v.cp"
done
"$bin" compare -q --step "$S" "$tmp/base.json" "$tmp/noisy.json" >"$tmp/r.json"
python3 - "$tmp/base.cp" "$tmp/noisy.cp" "$tmp/r.json" <<'PY' || bad "per-step critical path statistics"
import json, sys
from fractions import Fraction as F
def med(v):
    v = sorted(v); n = len(v)
    return F(v[n // 2]) if n % 2 else F(v[n // 2 - 1] + v[n // 2], 2)
rep = json.load(open(sys.argv[3]))["critical_path"]
for side, path in (("base", sys.argv[1]), ("new", sys.argv[2])):
    v = json.load(open(path))
    m = med(v)
    want = {"n": len(v), "min": min(v), "max": max(v), "median": m, "mad": med([abs(x - m) for x in v])}
    for k, w in want.items():
        got = rep[k][side]
        assert abs(F(str(got)) - w) < F(1, 10**6), (side, k, got, w)
PY
# every key's per-step statistics against an independent computation from
# the span tables and the causal rows of each window
for v in base slow; do
	"$bin" spans --parents nesting -f csv "$tmp/$v.json" >"$tmp/$v.spans.csv"
	"$bin" critical-path -q --step "$S" --table rows -f csv "$tmp/$v.json" >"$tmp/$v.rows.csv"
done
"$bin" compare -q --step "$S" --top 0 "$tmp/base.json" "$tmp/slow.json" >"$tmp/all.json"
python3 tests/compare_steps_check.py "$tmp/all.json" "$tmp/base.spans.csv" "$tmp/base.rows.csv" \
	"$tmp/slow.spans.csv" "$tmp/slow.rows.csv" >"$tmp/chk.txt" || bad "per-step key statistics: $(head -5 "$tmp/chk.txt")"

# without --step: one window per side, the whole trace (n = 1, p = 1 when equal)
"$bin" compare -q "$tmp/base.json" "$tmp/same.json" --fail-if 'critical_path.n.base != 1 or critical_path.p < 1' >/dev/null 2>&1
[ $? = 0 ] || bad "without --step, not one window"

# safety: bare numbers, selectors matching nothing, bad options (exit 2,
# the column named, no output)
while IFS='|' read -r expr col; do
	[ -n "$expr" ] || continue
	"$bin" compare -q "$tmp/base.json" "$tmp/same.json" --fail-if "$expr" -o "$tmp/x.json" >"$tmp/o.txt" 2>"$tmp/e.txt"; rc=$?
	[ $rc = 2 ] && [ ! -s "$tmp/o.txt" ] && [ ! -e "$tmp/x.json" ] && grep -q "at column $col " "$tmp/e.txt" ||
		bad "unsafe '$expr': exit $rc, $(head -1 "$tmp/e.txt")"
done <<'EOF2'
critical_path.rel > 5|21
critical_path.median.abs > 2|28
key[aten::matmull].self_ns.rel > 5%|5
key[glob:*nothing*].self_ns.rel > 5%|5
total.spans.abs > 1 and key[re:^nomatch$].count.new > 1|29
key[aten::linear].cp_share.abs > 0.1|34
key[aten::linear].self_ns.p < 5ms|32
EOF2
"$bin" compare -q "$tmp/base.json" "$tmp/same.json" --fail-if 'key?[aten::matmull].self_ns.rel > 5%' >/dev/null 2>&1
[ $? = 0 ] || bad "key?[...] matching nothing is not allowed"
for o in "--sort nope" "--step x --model forest"; do
	# shellcheck disable=SC2086
	"$bin" compare -q $o "$tmp/base.json" "$tmp/same.json" >/dev/null 2>&1; [ $? = 2 ] || bad "'$o' is not a usage error"
done
"$bin" compare -q --step 'NoSuchStep*' "$tmp/base.json" "$tmp/same.json" >/dev/null 2>&1; [ $? = 1 ] || bad "a --step glob matching nothing"

# the reports: text aligned with units and the conditions marked, markdown
# tables; nothing but the report on stdout, the device notice only with -v
"$bin" compare --step "$S" --device auto "$tmp/base.json" "$tmp/slow.json" -f text --top 5 --fail-if "$CP" >"$tmp/t.txt" 2>"$tmp/e.txt"
grep -q '^critical path .* ms .* ms .*+[0-9.]*%' "$tmp/t.txt" && grep -q "^  HELD  $CP" "$tmp/t.txt" &&
	grep -q '…' "$tmp/t.txt" && [ "$(grep -c 'kernel<…>(…)' "$tmp/t.txt")" -ge 3 ] || bad "text report: $(cat "$tmp/t.txt")"
# long C++ names are folded by their structure, and no two keys print alike
keys=$(sed -n '/^key /,/^$/p' "$tmp/t.txt" | sed '1d;/^$/d' | sed 's/  .*//')
[ "$(printf '%s\n' "$keys" | sort | uniq -d)" = "" ] && [ "$(printf '%s\n' "$keys" | wc -l)" = 5 ] || bad "text report keys alike: $keys"
[ "$(wc -l <"$tmp/e.txt")" = 1 ] && grep -qF "gputrace: regression: $CP (values " "$tmp/e.txt" ||
	bad "stderr without -v: $(cat "$tmp/e.txt")"
"$bin" compare --device auto "$tmp/base.json" "$tmp/same.json" -f text >/dev/null 2>"$tmp/e.txt"
[ ! -s "$tmp/e.txt" ] || bad "notices without -v: $(cat "$tmp/e.txt")"
# with -v the device chosen automatically is named (when one is)
"$bin" compare -v --device auto "$tmp/base.json" "$tmp/same.json" -f text >/dev/null 2>"$tmp/e.txt"
[ ! -s "$tmp/e.txt" ] || grep -Eq 'chosen automatically|device: ' "$tmp/e.txt" || bad "-v: $(cat "$tmp/e.txt")"
"$bin" compare --step "$S" "$tmp/base.json" "$tmp/slow.json" -f markdown --top 3 --sort cp --fail-if "$CP" >"$tmp/m.md" 2>/dev/null
grep -q '^| key | self base | self new | change | p | total new | change | cp new |$' "$tmp/m.md" &&
	grep -q '^- \*\*held\*\* `' "$tmp/m.md" && [ "$(grep -c '^| `' "$tmp/m.md")" = 3 ] || bad "markdown report: $(cat "$tmp/m.md")"
# --sort cp and change order the JSON keys too
"$bin" compare -q --step "$S" --sort cp --top 0 "$tmp/base.json" "$tmp/slow.json" |
	jq -e '[.keys[] | .cp_ns.median.abs | if . < 0 then -. else . end] as $v | $v == ($v | sort | reverse)' >/dev/null ||
	bad "--sort cp is not by |median cp_ns change|"

[ $fail = 0 ] && echo "compare_steps: ok"
exit $fail
