#!/bin/sh
# The temporal index on real traces through the CLI: pack + verify, query on
# the trace vs its index file and on every device vs the host, --expand vs a
# brute-force filter of the span table, --update vs a full rebuild (bytes),
# corrupted and truncated index files, --strict and the viewport cache.
. tests/lib/preamble.sh
traces=${GPUTRACE_TRACES:-../shared/traces}
py=python3
[ -d "$traces" ] || { echo "tindex_real: skipped: $traces is absent"; exit 0; }

for t in param__linear_kineto.json.gz kineto__worker0.1623143089861.pt.trace.json.gz \
	 catapult__big_trace.json \
	 catapult__flow.json perfetto__json_tests.py--test_json_flow.json; do
	tr=$traces/$t
	[ -f "$tr" ] || continue
	if ! "$bin" pack "$tr" -o "$tmp/i.gtx" --batch-spans 16 --partition-batches 8 --fanout 2 >/dev/null; then
		bad "pack $t"; continue
	fi
	"$bin" verify -q "$tmp/i.gtx" >/dev/null && ok || bad "verify $t"
	"$bin" verify -q --device host "$tmp/i.gtx" >/dev/null && ok || bad "verify --device host $t"
	"$bin" spans -f ndjson "$tr" >"$tmp/spans.ndjson" || { bad "spans $t"; continue; }
	"$bin" info "$tr" >"$tmp/info1.json" && "$bin" info "$tmp/i.gtx" >"$tmp/info2.json"
	# the index file restores the model: info matches but for the source name
	grep -v -e '"source"' "$tmp/info1.json" >"$tmp/info1.txt"
	grep -v -e '"source"' "$tmp/info2.json" >"$tmp/info2.txt"
	if cmp -s "$tmp/info1.txt" "$tmp/info2.txt"; then ok
	else bad "info of $t differs between trace and index"; fi
	$py tests/tindex_helper.py viewports >"$tmp/v.jsonl"
	"$bin" query -q "$tmp/i.gtx" --viewports "$tmp/v.jsonl" --expand --device host >"$tmp/host.out" ||
		{ bad "host viewports on $t"; continue; }
	# every device gives the same bytes as the host reference
	"$bin" query -q "$tmp/i.gtx" --viewports "$tmp/v.jsonl" --expand >"$tmp/dev.out" || bad "device viewports on $t"
	cmp -s "$tmp/host.out" "$tmp/dev.out" && ok || bad "device differs from the host on $t"
	# expand == brute force; candidates increasing and equal at every level
	$py tests/tindex_helper.py check "$tmp/spans.ndjson" "$tmp/host.out" && ok || bad "brute-force check on $t"
	"$bin" query -q "$tr" --time 0:1000s --device host >"$tmp/a.json" &&
		"$bin" query -q "$tmp/i.gtx" --time 0:1000s --device host >"$tmp/b.json" || bad "query trace $t"
done

# --update after appended events is byte-identical to a full rebuild
src=$traces/catapult__big_trace.json
if [ -f "$src" ]; then
	n=$($py -c "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['traceEvents'] if isinstance(d, dict) else d))" "$src")
	for k in 1 $((n / 3)) $((n - 1)) $n; do
		$py tests/tindex_helper.py grow "$src" "$k" "$tmp/prefix.json" "$tmp/full.json"
		cp "$tmp/prefix.json" "$tmp/trace.json"
		"$bin" pack "$tmp/trace.json" -o "$tmp/u.gtx" --batch-spans 8 --partition-batches 4 --epoch-spans 256 >/dev/null || bad "pack prefix $k"
		cp "$tmp/full.json" "$tmp/trace.json"
		"$bin" pack -q --update "$tmp/u.gtx" "$tmp/trace.json" >"$tmp/upd.json" || bad "update $k"
		"$bin" pack "$tmp/trace.json" -o "$tmp/f.gtx" --batch-spans 8 --partition-batches 4 --epoch-spans 256 >/dev/null
		cmp -s "$tmp/u.gtx" "$tmp/f.gtx" && ok || bad "update after $k of $n events differs from a rebuild"
		grep -q '"rebuilt_partitions"' "$tmp/upd.json" && ok || bad "update reports rebuilt partitions"
	done
	# a trace that changed (not only grew) is refused
	$py tests/tindex_helper.py grow "$src" 10 "$tmp/prefix.json" "$tmp/full.json"
	"$bin" pack "$tmp/full.json" -o "$tmp/c.gtx" >/dev/null
	"$bin" pack -q --update "$tmp/c.gtx" "$tmp/prefix.json" >/dev/null 2>&1
	[ $? = 1 ] && ok || bad "update of a changed trace must exit 1"
fi

# --update keeps the parent forest the index was packed with
"$bin" pack --parents nesting "$traces/param__linear_kineto.json.gz" -o "$tmp/n.gtx" >/dev/null
cp "$tmp/n.gtx" "$tmp/n2.gtx"
"$bin" pack -q --update "$tmp/n2.gtx" "$traces/param__linear_kineto.json.gz" >/dev/null
cmp -s "$tmp/n.gtx" "$tmp/n2.gtx" && ok || bad "update of a --parents nesting index differs"

# corrupt and truncated index files: exit 1, a message, never a crash
"$bin" pack "$traces/param__linear_kineto.json.gz" -o "$tmp/g.gtx" >/dev/null
size=$(wc -c <"$tmp/g.gtx")
for cut in 0 64 200 4096 $((size / 2)) $((size - 1)); do
	head -c "$cut" "$tmp/g.gtx" >"$tmp/t.gtx"
	"$bin" verify "$tmp/t.gtx" >/dev/null 2>"$tmp/err"
	[ $? = 1 ] && grep -q "not a valid index file" "$tmp/err" && ok || bad "truncated to $cut"
	"$bin" query "$tmp/t.gtx" --time 0:1ms >/dev/null 2>&1
	[ $? = 1 ] && ok || bad "query of a file truncated to $cut"
done
for at in 10 130 3000 $((size / 3)) $((size - 100)); do
	cp "$tmp/g.gtx" "$tmp/t.gtx"
	printf '\377' | dd of="$tmp/t.gtx" bs=1 seek="$at" conv=notrunc 2>/dev/null
	"$bin" verify "$tmp/t.gtx" >/dev/null 2>&1
	rc=$?
	[ $rc = 1 ] || [ $rc = 0 ] && ok || bad "flipped byte at $at: exit $rc"
done

# --strict: overflow exits 4, the ordered prefix is still written
"$bin" query -q "$tmp/g.gtx" --time 0:1000s --capacity 3 --strict >"$tmp/s.json" 2>/dev/null
[ $? = 4 ] && ok || bad "--strict overflow must exit 4"
grep -q '"overflow": true' "$tmp/s.json" && ok || bad "overflow flag"

# viewports: one line per query, repeated queries hit the cache
printf '%s\n' '{"id":1,"time":"0:10ms"}' '{"id":2,"time":"0:10ms"}' '{"id":"x","time":"1ms:3ms","lanes":"0:4","groups":1,"level":0}' \
	'{"id":4,"time":"1ms:3ms","lanes":[0,4],"groups":"1","level":"0"}' >"$tmp/v.jsonl"
"$bin" query "$tmp/g.gtx" --viewports "$tmp/v.jsonl" >"$tmp/v.out" 2>"$tmp/v.err" || bad "viewports"
[ "$(wc -l <"$tmp/v.out")" = 4 ] && ok || bad "viewports: 4 lines"
grep -q "4 queries, 2 cache hits" "$tmp/v.err" && ok || bad "viewports: cache hits ($(cat "$tmp/v.err"))"

echo "tindex_real: $pass passed, $fail failed"
[ "$fail" = 0 ]
