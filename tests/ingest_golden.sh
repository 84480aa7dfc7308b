#!/bin/sh
# Ingest rules on small traces (testdata/ingest/*.json): the span table and
# info must equal the hand-checked golden files beside each trace. Then every
# file in testdata/bad/ must fail with exit 1, one stderr line naming the
# file, and nothing on stdout.
bin=${GPUTRACE_BIN:-build/gputrace}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in testdata/ingest/*.json; do
	case "$f" in *.info.json) continue ;; esac
	n=${f%.json}
	"$bin" spans -f csv "$f" >"$tmp/spans.csv" || { echo "FAIL: spans $f"; fail=1; continue; }
	cmp -s "$tmp/spans.csv" "$n.spans.csv" || { echo "FAIL: $f span table differs:"; diff "$n.spans.csv" "$tmp/spans.csv"; fail=1; }
	"$bin" info "$f" | jq -S '{events,phases,spans,flows,counters,counter_samples,processes,threads,lanes,groups,time,warnings,metadata}' >"$tmp/info.json"
	cmp -s "$tmp/info.json" "$n.info.json" || { echo "FAIL: $f info differs:"; diff "$n.info.json" "$tmp/info.json"; fail=1; }
	# the same trace through gzip, zstd and stdin gives the same table
	gzip -c "$f" >"$tmp/t.gz"; zstd -q -c "$f" >"$tmp/t.zst"
	for alt in "$tmp/t.gz" "$tmp/t.zst" -; do
		if [ "$alt" = - ]; then "$bin" spans -f csv - <"$f" >"$tmp/alt.csv"; else "$bin" spans -f csv "$alt" >"$tmp/alt.csv"; fi
		cmp -s "$tmp/alt.csv" "$n.spans.csv" || { echo "FAIL: $f via $alt differs"; fail=1; }
	done
done
# concatenated gzip members and several zstd frames read as one stream
printf '[{"ph":"X","name":"a","pid":1,"ts":1,"dur":1},' | gzip -c >"$tmp/cat.gz"
printf '{"ph":"X","name":"b","pid":1,"ts":2,"dur":1}]' | gzip -c >>"$tmp/cat.gz"
[ "$("$bin" info "$tmp/cat.gz" | jq .spans)" = 2 ] || { echo "FAIL: concatenated gzip"; fail=1; }
printf '[{"ph":"X","name":"a","pid":1,"ts":1,"dur":1},' | zstd -q -c >"$tmp/cat.zst"
printf '{"ph":"X","name":"b","pid":1,"ts":2,"dur":1}]' | zstd -q -c >>"$tmp/cat.zst"
[ "$("$bin" info "$tmp/cat.zst" | jq .spans)" = 2 ] || { echo "FAIL: several zstd frames"; fail=1; }

for f in testdata/bad/*; do
	"$bin" info -o "$tmp/out.json" "$f" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	lines=$(wc -l <"$tmp/stderr")
	if [ $rc != 1 ] || [ "$lines" != 1 ] || [ -s "$tmp/stdout" ] || [ -e "$tmp/out.json" ] ||
	   ! grep -q "$(basename "$f")" "$tmp/stderr"; then
		echo "FAIL: bad input $f: exit $rc, stderr: $(cat "$tmp/stderr")"; fail=1
	fi
	ls -A "$tmp" | grep -q '^\.out\.json\.' && { echo "FAIL: $f left a temporary file"; fail=1; }
done
[ $fail = 0 ] && echo "ingest golden: ok"

# Parallel parsing must not change anything: the same table with 1, 2 and 5
# threads, on a generated trace and on one whose args are full of fake event
# boundaries ("}, {" inside strings and arrays of objects) that mislead the
# split guesses.
gen=$(dirname "$bin")/tools/gen_trace
if [ -x "$gen" ]; then
	"$gen" --events 40000 --seed 3 -o "$tmp/par.json" >/dev/null
	python3 - "$tmp/tricky.json" <<'PY'
import json, sys
ev = []
for i in range(30000):
    ev.append({"ph": "X", "name": "op%d" % (i % 97), "pid": 1, "tid": i % 7, "ts": i * 1.5, "dur": 1.25,
               "args": {"s": "}, {\"ph\":\"X\"} , {", "a": [{"x": 1}, {"y": [{"z": 2}]}]}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"), separators=(", ", ": "))
PY
	# warnings counted in the pieces (trailing commas, raw control characters)
	# and a missing ']' at the end
	python3 - "$tmp/lenient.json" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("[")
    for i in range(30000):
        tail = ", }" if i % 101 == 0 else "}"
        name = "tab\there" if i % 203 == 0 else "op%d" % (i % 13)
        f.write('{"ph": "X", "name": "%s", "pid": 1, "tid": %d, "ts": %d, "dur": 1%s,\n' % (name, i % 5, i, tail))
PY
	# GPUTRACE_INGEST_PIECE: pieces of that many bytes, windows of 64 pieces,
	# so that these traces cross many windows, each cut and queued while the
	# one before it is stitched, or not when a wrong guess cancels it
	for t in par tricky lenient; do
		"$bin" spans -f csv -j 1 "$tmp/$t.json" >"$tmp/$t.1" || fail=1
		"$bin" info -j 1 "$tmp/$t.json" >"$tmp/$t.i1" || fail=1
		for piece in "" 256 4096; do
			for j in 2 5; do
				GPUTRACE_INGEST_PIECE=$piece "$bin" spans -f csv -j $j "$tmp/$t.json" >"$tmp/$t.$j"
				cmp -s "$tmp/$t.1" "$tmp/$t.$j" || { echo "FAIL: $t.json differs with -j $j, pieces '$piece'"; fail=1; }
				GPUTRACE_INGEST_PIECE=$piece "$bin" info -j $j "$tmp/$t.json" >"$tmp/$t.i$j"
				cmp -s "$tmp/$t.i1" "$tmp/$t.i$j" || { echo "FAIL: info on $t.json differs with -j $j, pieces '$piece'"; fail=1; }
			done
		done
	done
	# the windows queued ahead are used (the timing line counts them)
	ahead=$(GPUTRACE_INGEST_PIECE=4096 GPUTRACE_INGEST_TIMES=1 "$bin" info -q -j 3 "$tmp/par.json" 2>&1 |
		sed -n 's/.* \([0-9]*\) windows, \([0-9]*\) of them queued ahead.*/\1 \2/p')
	set -- $ahead
	if [ $# != 2 ] || [ "$2" -lt $(($1 / 2)) ]; then
		echo "FAIL: the windows of par.json were not queued ahead: '$ahead'"; fail=1
	fi
	# an error far into the file names the same byte and event whatever the
	# thread count
	python3 - "$tmp/par.json" "$tmp/broken.json" <<'PY'
import sys
d = open(sys.argv[1]).read()
at = d.index('"ph"', len(d) * 2 // 3)
open(sys.argv[2], "w").write(d[:at] + '"ph" "X", ' + d[at + 5:])
PY
	"$bin" info -j 1 "$tmp/broken.json" 2>"$tmp/broken.1" >/dev/null
	for piece in "" 256 4096; do
		for j in 2 5; do
			GPUTRACE_INGEST_PIECE=$piece "$bin" info -j $j "$tmp/broken.json" 2>"$tmp/broken.$j" >/dev/null
			cmp -s "$tmp/broken.1" "$tmp/broken.$j" ||
				{ echo "FAIL: the error differs with -j $j, pieces '$piece': $(cat "$tmp/broken.$j")"; fail=1; }
		done
	done
	grep -q "byte" "$tmp/broken.1" || { echo "FAIL: no byte offset in: $(cat "$tmp/broken.1")"; fail=1; }
else
	echo "skipped parallel check: $gen not built"
fi
[ $fail = 0 ] && echo "ingest parallel: ok"
exit $fail
