#!/bin/sh
# compare --fail-if on hand-built pairs (man gputrace: compare): in an "and",
# the terms over one selector bind one key (a key must meet them all);
# key[any:...] keeps each term to any key; a p threshold the step counts
# cannot reach is said on stderr and in the report.
. tests/lib/preamble.sh
make_pair() { # DIR "A base" "A new" "B base" "B new": durations (us) per step of gemmA and gemmB
	python3 - "$@" <<'PY'
import json, sys
d, ab, an, bb, bn = sys.argv[1:6]
for side, a, b in (("base", ab, bb), ("new", an, bn)):
    ev = []
    for k, (x, y) in enumerate(zip(a.split(), b.split())):
        t = k * 1000
        ev.append({"ph": "X", "name": "ProfilerStep#%d" % k, "cat": "user_annotation", "pid": 1, "tid": 1, "ts": t, "dur": 900})
        ev.append({"ph": "X", "name": "gemmA", "cat": "kernel", "pid": 1, "tid": 7, "ts": t + 100, "dur": int(x)})
        ev.append({"ph": "X", "name": "gemmB", "cat": "kernel", "pid": 1, "tid": 7, "ts": t + 500, "dur": int(y)})
    json.dump(ev, open("%s/%s.json" % (d, side), "w"))
PY
}
both='key[glob:gemm*].dur_ns.median.rel > 10% and key[glob:gemm*].dur_ns.p < 0.01'
anyk='key[any:glob:gemm*].dur_ns.median.rel > 10% and key[any:glob:gemm*].dur_ns.p < 0.01'
# gemmA 44% slower but not significantly, gemmB 8% slower and significantly:
# no one key meets both terms, so the condition does not hold; any: does
mkdir -p "$tmp/a" "$tmp/b" "$tmp/c"
make_pair "$tmp/a" "100 100 100 100 100" "100 100 144 144 300" "100 101 102 103 104" "108 109 110 111 112"
"$bin" compare -q --step 'ProfilerStep#*' "$tmp/a/base.json" "$tmp/a/new.json" --fail-if "$both" >"$tmp/a.json" 2>"$tmp/a.err"
[ $? = 0 ] && jq -e '.conditions[0].held == false' "$tmp/a.json" >/dev/null && ok || bad "one key each: it held ($(cat "$tmp/a.err"))"
"$bin" compare -q --step 'ProfilerStep#*' "$tmp/a/base.json" "$tmp/a/new.json" --fail-if "$anyk" >"$tmp/a2.json" 2>"$tmp/a2.err"
[ $? = 5 ] && jq -e '[.conditions[0].terms[].key] == ["gemmA", "gemmB"]' "$tmp/a2.json" >/dev/null && ok ||
	bad "any: did not hold for any keys: $(jq -c '.conditions' "$tmp/a2.json")"
# gemmB 20% slower in every step: both terms hold for gemmB, which is named once
make_pair "$tmp/b" "100 100 100 100 100" "100 100 100 100 100" "100 101 102 103 104" "120 121 122 123 124"
"$bin" compare -q --step 'ProfilerStep#*' "$tmp/b/base.json" "$tmp/b/new.json" --fail-if "$both" >"$tmp/b.json" 2>"$tmp/b.err"
[ $? = 5 ] && jq -e '.conditions[0].held and ([.conditions[0].terms[].key] == ["gemmB", "gemmB"])' "$tmp/b.json" >/dev/null &&
	[ "$(grep -o 'gemmB' "$tmp/b.err" | wc -l)" = 1 ] && ok || bad "the same key: $(cat "$tmp/b.err") $(jq -c .conditions "$tmp/b.json")"
# 4 and 4 steps: the smallest p is 2/70, so p < 0.01 cannot hold: said once
make_pair "$tmp/c" "100 100 100 100" "120 120 120 120" "100 101 102 103" "120 121 122 123"
"$bin" compare -q --step 'ProfilerStep#*' "$tmp/c/base.json" "$tmp/c/new.json" --fail-if "$both" >"$tmp/c.json" 2>"$tmp/c.err"
[ $? = 0 ] && [ "$(grep -c 'with 4 and 4 steps the smallest p is 0.0286: it cannot hold' "$tmp/c.err")" = 1 ] &&
	jq -e '.conditions[0].terms[1].unreachable == {"smallest_p": 0.028571, "steps": [4, 4]}' "$tmp/c.json" >/dev/null && ok ||
	bad "unreachable p: $(cat "$tmp/c.err") $(jq -c '.conditions[0].terms[1]' "$tmp/c.json")"
"$bin" compare -q --step 'ProfilerStep#*' "$tmp/c/base.json" "$tmp/c/new.json" -f text --fail-if "$both" 2>/dev/null |
	grep -q "cannot hold: with 4 and 4 steps the smallest p is 0.0286" && ok || bad "the text report does not say the p cannot hold"
# p <= the smallest p can hold; p < it cannot
"$bin" compare -q --step 'ProfilerStep#*' "$tmp/c/base.json" "$tmp/c/new.json" \
	--fail-if 'key[gemmB].dur_ns.p <= 0.028572' >/dev/null 2>"$tmp/d.err"
[ $? = 5 ] && ! grep -q "cannot hold" "$tmp/d.err" && ok || bad "p <= the smallest p: $(cat "$tmp/d.err")"
echo "fail_if: $pass passed, $fail failed"
[ "$fail" = 0 ]
