#!/bin/sh
# critical-path --overlay: the overlay is strict JSON (Python's json), holds
# the original events unchanged plus exactly the path's annotations, flows
# and track (tests/overlay_check.py), re-reads in gputrace as the original
# spans plus the hop slices; .gz and .zst outputs decompress to the same
# bytes; errors leave no file; memory stays flat in the trace's size.
bin=${GPUTRACE_BIN:-build/gputrace}
gen=${GPUTRACE_GEN:-$(dirname "$bin")/tools/gen_trace}
shared=${GPUTRACE_SHARED:-../shared}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# check TRACE STRICT(1: Python reads the original) [critical-path options...]
check() {
	f=$1 strict=$2; shift 2
	[ -f "$f" ] || { echo "skip: $f"; return; }
	"$bin" critical-path --path --top 0 -q --device host --rows "$f" "$@" --overlay "$tmp/ov.json" >"$tmp/cp.json" ||
		{ echo "FAIL: critical-path --overlay $f $*"; fail=1; return; }
	orig=-
	if [ "$strict" = 1 ]; then
		case $f in
		*.gz) gzip -dc "$f" >"$tmp/orig.json" ;;
		*) cp "$f" "$tmp/orig.json" ;;
		esac
		orig=$tmp/orig.json
	fi
	"$bin" spans -q -f ndjson --parents nesting "$f" >"$tmp/s.ndjson" &&
		"$bin" spans -f ndjson --parents nesting "$tmp/ov.json" >"$tmp/so.ndjson" &&
		"$bin" info -q "$f" >"$tmp/i.json" && "$bin" info "$tmp/ov.json" >"$tmp/io.json" ||
		{ echo "FAIL: re-read $f"; fail=1; return; }
	python3 tests/overlay_check.py "$tmp/ov.json" "$orig" "$tmp/s.ndjson" "$tmp/so.ndjson" "$tmp/cp.json" \
		"$tmp/i.json" "$tmp/io.json" >"$tmp/out" || { cat "$tmp/out"; echo "FAIL: overlay $f $*"; fail=1; }
}

check testdata/compare/new.json 1
check testdata/compare/new.json 1 --window 0:60us
k=$shared/traces/kineto__resnet50_autograd_api_num_workers_0-worker0.pt.trace.json.gz
check "$k" 1
check "$shared/traces/hta__cuda_event_sync-event_sync_trace.json.gz" 1 --step 'ProfilerStep#*'
check "$shared/traces/catapult__flow.json" 1
check "$shared/traces/perfetto__flow_events_json_v2.json" 1
# leniencies the overlay must not copy: a trailing comma, a raw control
# character, invalid UTF-8, a missing ']'
printf '[{"ph":"X","name":"a\tb","cat":"c","pid":1,"tid":1,"ts":0,"dur":10,"args":{"x":[1,2,],},},\n{"ph":"X","name":"k","cat":"kernel","pid":1,"tid":2,"ts":12,"dur":5,"args":{}},\n{"ph":"s","id":1,"cat":"ac2g","name":"f","pid":1,"tid":1,"ts":3},{"ph":"f","bp":"e","id":1,"cat":"ac2g","name":"f","pid":1,"tid":2,"ts":12}' \
	>"$tmp/lenient.json"
check "$tmp/lenient.json" 0
# NaN, Infinity and -Infinity, which the reader takes: null in the overlay
check testdata/messy/nan_in_args.json 0
# traces cut short (a profiler killed while writing; read with truncated_input):
# the events complete before the cut, then the array and the object closed
head -c 1000 testdata/compare/new.json >"$tmp/cut.json"
check "$tmp/cut.json" 0
if [ -f "$k" ]; then
	head -c $(($(wc -c <"$k") / 2)) "$k" >"$tmp/cut.json.gz"
	check "$tmp/cut.json.gz" 0
fi
printf '{"traceEvents":[{"ph":"X","name":"a","cat":"c","pid":1,"tid":1,"ts":0,"dur":10}],"otherData":{"v":[1,{"w":' >"$tmp/cut_member.json"
check "$tmp/cut_member.json" 0
# the object format after a byte order mark, members around traceEvents, args
# that are null, escaped keys and strings
printf '\357\273\277{"displayTimeUnit":"ns","traceEvents":[{"ph":"B","name":"a\\"q","cat":"c","pid":1,"tid":1,"ts":0,"args":null},\n{"ph":"E","pid":1,"tid":1,"ts":9},{"ph":"X","name":"b","cat":"c","pid":1,"tid":1,"ts":2,"dur":3,"\\u0061rgs":{"k":"\\u00e9"},"args":{"x":{"args":1}}}],"otherData":{"v":[1,{"w":"]"}]}}' \
	>"$tmp/object.json"
check "$tmp/object.json" 1
# hops shorter than 1 µs share a slice with the ones after them, a short
# rest at the end with the slice before (overlay.h)
printf '[{"ph":"X","name":"a","cat":"c","pid":1,"tid":1,"ts":0,"dur":10},{"ph":"X","name":"b","cat":"c","pid":1,"tid":1,"ts":10,"dur":0.3},{"ph":"X","name":"c","cat":"c","pid":1,"tid":1,"ts":10.3,"dur":0.3},{"ph":"X","name":"d","cat":"c","pid":1,"tid":1,"ts":10.6,"dur":9.4},{"ph":"X","name":"e","cat":"c","pid":1,"tid":1,"ts":20,"dur":0},{"ph":"X","name":"f","cat":"c","pid":1,"tid":1,"ts":20,"dur":0.2}]' \
	>"$tmp/short.json"
check "$tmp/short.json" 1
grep -q '"name":"work d","args":{"kind":"work","owner":3,"window":0,"hops":10}}' "$tmp/ov.json" ||
	{ echo "FAIL: short hops: not one slice of 10 hops named by the longest"; fail=1; }
# a name longer than any buffer (template-heavy kernel names run to kilobytes)
long=$(python3 -c "print('k' * 3000)")
printf '[{"ph":"X","name":"%s","cat":"kernel","pid":1,"tid":1,"ts":0,"dur":10}]' "$long" >"$tmp/long.json"
check "$tmp/long.json" 1

# compressed overlays hold the same bytes
"$bin" critical-path -q --device host testdata/compare/new.json --overlay "$tmp/p.json" >/dev/null &&
	"$bin" critical-path -q --device host testdata/compare/new.json --overlay "$tmp/p.json.gz" >/dev/null &&
	"$bin" critical-path -q --device host testdata/compare/new.json --overlay "$tmp/p.json.zst" >/dev/null &&
	gzip -dc "$tmp/p.json.gz" | cmp -s - "$tmp/p.json" && zstd -qdc "$tmp/p.json.zst" | cmp -s - "$tmp/p.json" ||
	{ echo "FAIL: compressed overlays differ"; fail=1; }

# errors: stdin, an index file, the forest model; no file left behind
"$bin" critical-path -q --device host - --overlay "$tmp/e1.json" <testdata/compare/new.json >/dev/null 2>&1
[ $? = 2 ] && [ ! -e "$tmp/e1.json" ] || { echo "FAIL: overlay of stdin"; fail=1; }
"$bin" pack -q testdata/compare/new.json -o "$tmp/n.gtx" >/dev/null 2>&1
"$bin" critical-path -q --device host "$tmp/n.gtx" --overlay "$tmp/e2.json" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && [ ! -e "$tmp/e2.json" ] && grep -q "index file" "$tmp/err" || { echo "FAIL: overlay of an index file"; fail=1; }
"$bin" critical-path -q --model forest testdata/compare/new.json --overlay "$tmp/e3.json" >/dev/null 2>&1
[ $? = 2 ] && [ ! -e "$tmp/e3.json" ] || { echo "FAIL: overlay with --model forest"; fail=1; }

# memory: the overlay re-reads the trace, it does not hold it
"$gen" --events 600000 --seed 3 -o "$tmp/big.json" >/dev/null 2>&1 || { echo "FAIL: gen_trace"; exit 1; }
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
a=$(rss "$bin" critical-path -q --device host --rows "$tmp/big.json" -o /dev/null)
b=$(rss "$bin" critical-path -q --device host --rows "$tmp/big.json" -o /dev/null --overlay "$tmp/big_ov.json.gz")
size=$(($(wc -c <"$tmp/big.json") / 1024))
echo "memory: ${a} KiB without the overlay, ${b} KiB with it, trace ${size} KiB"
[ "$((b - a))" -lt "$((size / 4))" ] || { echo "FAIL: the overlay's memory grows with the trace"; fail=1; }

[ $fail = 0 ] && echo "overlay: ok"
exit $fail
