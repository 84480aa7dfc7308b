#!/bin/sh
# Absolute time windows: `@A:B` / `@A:+D` with times as `spans` prints
# ts_us give the same answers as the relative window they name, in render,
# query and critical-path --window; a render whose window holds no span
# exits 1 with the trace's range and leaves no file.
bin=${GPUTRACE_BIN:-build/gputrace}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# the comparison trace moved to a Kineto-like clock (a first span at 0 would
# make absolute and relative times the same numbers)
python3 -c "
import json
evs = json.load(open('testdata/compare/new.json'))
for e in evs:
    if 'ts' in e:
        e['ts'] += 1610366387140599.5
json.dump(evs, open('$tmp/t.json', 'w'))"
f=$tmp/t.json
start=$("$bin" spans -f ndjson "$f" | python3 -c "
import json, sys
print(min(json.loads(l)['ts_us'] for l in sys.stdin))")
shift_us() { python3 -c "from decimal import Decimal as D; print(D('$start') + D('$1'))"; }
a=$(shift_us 10) b=$(shift_us 65)
for w in "@$a:+55us" "@$a:@$b" "@${a}us:${b}us"; do
	"$bin" render -q --device host "$f" --time 10:65us --critical-path --title t -w 300 -o "$tmp/rel.svg" &&
		"$bin" render -q --device host "$f" --time "$w" --critical-path --title t -w 300 -o "$tmp/abs.svg" &&
		cmp -s "$tmp/rel.svg" "$tmp/abs.svg" || { echo "FAIL: render --time $w differs from 10:65us"; fail=1; }
	"$bin" query -q --device host "$f" --time 10:65us --expand >"$tmp/rel.json" &&
		"$bin" query -q --device host "$f" --time "$w" --expand >"$tmp/abs.json" &&
		cmp -s "$tmp/rel.json" "$tmp/abs.json" || { echo "FAIL: query --time $w differs from 10:65us"; fail=1; }
	"$bin" critical-path -q --device host "$f" --window 10:65us >"$tmp/rel.json" &&
		"$bin" critical-path -q --device host "$f" --window "$w" >"$tmp/abs.json" &&
		cmp -s "$tmp/rel.json" "$tmp/abs.json" || { echo "FAIL: critical-path --window $w differs from 10:65us"; fail=1; }
done
# a window beside the trace: exit 1, the range named, no file
"$bin" render -q --device host "$f" --time 1000:2000s -o "$tmp/empty.svg" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && [ ! -e "$tmp/empty.svg" ] && grep -q "holds no span; the trace's spans run from @$start to @" "$tmp/err" ||
	{ cat "$tmp/err"; echo "FAIL: empty render: exit $rc"; fail=1; }
# malformed absolute windows are usage errors
for w in "@1:+-5" "@:5" "@5" "@-5:+x"; do
	"$bin" render -q --device host "$f" --time "$w" -o "$tmp/bad.svg" 2>/dev/null
	[ $? = 2 ] && [ ! -e "$tmp/bad.svg" ] || { echo "FAIL: render --time '$w' is not a usage error"; fail=1; }
done
[ $fail = 0 ] && echo "time_window: ok"
exit $fail
