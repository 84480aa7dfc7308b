#!/bin/sh
# gputrace render: the SVG is valid XML; its boxes and density cells account
# for exactly the spans of `query --expand` for the same viewport, as an
# independent classification (tests/render_check.py) says they should; the
# critical path's hops drawn are those of `critical-path` in the window; an
# index file renders the
# same picture; errors leave no file; and a real browser (headless
# Chromium, when installed) turns it into a picture that is not blank.
bin=${GPUTRACE_BIN:-build/gputrace}
gen=${GPUTRACE_GEN:-$(dirname "$bin")/tools/gen_trace}
shared=${GPUTRACE_SHARED:-../shared}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# check TRACE WINDOW_NS|- WIDTH [render/query options...]
check() {
	f=$1 win=$2 w=$3; shift 3
	"$bin" info "$f" >"$tmp/info.json" && "$bin" spans -f csv "$f" >"$tmp/spans.csv" &&
		"$bin" critical-path -q --device host -f csv "$f" >"$tmp/cp.csv" || { echo "FAIL: info/spans/critical-path $f"; fail=1; return; }
	if [ "$win" = - ]; then
		qwin=0:$(python3 -c "import json,decimal; i=json.load(open('$tmp/info.json'),parse_float=decimal.Decimal)
print(int(i['time']['end_us']*1000)-int(i['time']['start_us']*1000))")ns
		rwin=
	else
		qwin=${win}ns; rwin="--time ${win}ns"
	fi
	# shellcheck disable=SC2086
	"$bin" render -q --device host "$f" $rwin -w "$w" --critical-path "$@" -o "$tmp/r.svg" || { echo "FAIL: render $f $win $*"; fail=1; return; }
	"$bin" query -q --device host "$f" --time "$qwin" --expand "$@" >"$tmp/q.json" || { echo "FAIL: query $f $win $*"; fail=1; return; }
	python3 tests/render_check.py "$tmp/r.svg" "$tmp/q.json" "$tmp/info.json" "$tmp/spans.csv" "$win" "$w" "$tmp/cp.csv" >"$tmp/check.out" ||
		{ cat "$tmp/check.out"; echo "FAIL: render $f $win $*"; fail=1; }
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$tmp/r.svg" || { echo "FAIL: xmllint $f"; fail=1; }
	fi
}

check testdata/compare/new.json - 800
check testdata/compare/new.json 10000:65000 300
check testdata/compare/new.json 0:130000 40 --lanes 1:4
"$gen" --events 30000 --seed 7 -o "$tmp/g.json" >/dev/null 2>&1 || { echo "FAIL: gen_trace"; exit 1; }
check "$tmp/g.json" - 900
check "$tmp/g.json" 300000000:300400000 700
check "$tmp/g.json" 100000000:160000000 500
check "$tmp/g.json" 100000000:160000000 500 --lanes 2:9 --groups 0x5
# bounded output: a narrow picture of many spans stays small
"$bin" render -q --device host "$tmp/g.json" -w 50 -o "$tmp/narrow.svg" || fail=1
n=$(grep -c 'class="\(span\|density\)' "$tmp/narrow.svg")
lanes=$("$bin" info "$tmp/g.json" | jq .lanes)
[ "$n" -le $((lanes * 50)) ] || { echo "FAIL: $n elements for $lanes lanes x 50 px"; fail=1; }

# the checker itself notices a missing box and a wrong density count
"$bin" render -q --device host testdata/compare/new.json -w 800 --critical-path -o "$tmp/r.svg"
"$bin" info testdata/compare/new.json >"$tmp/info.json"; "$bin" spans -f csv testdata/compare/new.json >"$tmp/spans.csv"
"$bin" query -q --device host testdata/compare/new.json --time 0:130000ns --expand >"$tmp/q.json"
"$bin" critical-path -q --device host -f csv testdata/compare/new.json >"$tmp/cp.csv"
grep -v 'data-span-id="3"' "$tmp/r.svg" >"$tmp/bad.svg"
python3 tests/render_check.py "$tmp/bad.svg" "$tmp/q.json" "$tmp/info.json" "$tmp/spans.csv" - 800 "$tmp/cp.csv" >/dev/null &&
	{ echo "FAIL: the checker missed a dropped box"; fail=1; }
python3 tests/render_check.py "$tmp/r.svg" "$tmp/q.json" "$tmp/info.json" "$tmp/spans.csv" - 800 "$tmp/cp.csv" >/dev/null ||
	{ echo "FAIL: the checker rejects a good picture with its path"; fail=1; }
grep -c 'class="cp-hop"' "$tmp/r.svg" >/dev/null || { echo "FAIL: no critical-path hop drawn"; fail=1; }
awk '/class="cp-hop"/ && !done { done = 1; next } { print }' "$tmp/r.svg" >"$tmp/bad.svg"
python3 tests/render_check.py "$tmp/bad.svg" "$tmp/q.json" "$tmp/info.json" "$tmp/spans.csv" - 800 "$tmp/cp.csv" >/dev/null &&
	{ echo "FAIL: the checker missed a dropped hop"; fail=1; }
"$bin" render -q --device host "$tmp/g.json" -w 300 -o "$tmp/r2.svg"
sed '0,/data-density="\([0-9]*\)"/s//data-density="9\1"/' "$tmp/r2.svg" >"$tmp/bad.svg"
"$bin" info "$tmp/g.json" >"$tmp/ginfo.json"; "$bin" spans -f csv "$tmp/g.json" >"$tmp/gspans.csv"
qwin=0:$(python3 -c "import json,decimal; i=json.load(open('$tmp/ginfo.json'),parse_float=decimal.Decimal)
print(int(i['time']['end_us']*1000)-int(i['time']['start_us']*1000))")ns
"$bin" query -q --device host "$tmp/g.json" --time "$qwin" --expand >"$tmp/gq.json"
python3 tests/render_check.py "$tmp/r2.svg" "$tmp/gq.json" "$tmp/ginfo.json" "$tmp/gspans.csv" - 300 >/dev/null ||
	{ echo "FAIL: the checker rejects a good picture"; fail=1; }
python3 tests/render_check.py "$tmp/bad.svg" "$tmp/gq.json" "$tmp/ginfo.json" "$tmp/gspans.csv" - 300 >/dev/null &&
	{ echo "FAIL: the checker missed a wrong density count"; fail=1; }

# an index file gives the same picture as the trace
"$bin" pack -q testdata/compare/new.json -o "$tmp/n.gtx" >/dev/null &&
"$bin" render -q --device host "$tmp/n.gtx" --title t --critical-path -o "$tmp/a.svg" &&
"$bin" render -q --device host testdata/compare/new.json --title t --critical-path -o "$tmp/b.svg" &&
cmp -s "$tmp/a.svg" "$tmp/b.svg" || { echo "FAIL: index file and trace render differently"; fail=1; }

# drawing split over threads (down to 1000 spans each) merges to the same picture
for ws in 1000 4321; do
	GPUTRACE_RENDER_WORKER_SPANS=$ws "$bin" render -q -j 5 --device host "$tmp/g.json" -w 700 --critical-path --title t -o "$tmp/mt.svg" &&
	"$bin" render -q -j 1 --device host "$tmp/g.json" -w 700 --critical-path --title t -o "$tmp/st.svg" &&
	cmp -s "$tmp/mt.svg" "$tmp/st.svg" || { echo "FAIL: $ws spans per thread draws differently"; fail=1; }
done

# the query on the first OpenCL device (PoCL in CI; the host when there is
# none) draws the same picture
cldev=$("$bin" devices -f csv 2>/dev/null | awk -F, 'NR > 1 { print $1; exit }'); cldev=${cldev:-host}  # PoCL in CI: auto no longer takes a CPU device
"$bin" render -q --device $cldev "$tmp/g.json" -w 500 --critical-path --title t -o "$tmp/dev.svg" &&
"$bin" render -q --device host "$tmp/g.json" -w 500 --critical-path --title t -o "$tmp/host.svg" &&
cmp -s "$tmp/dev.svg" "$tmp/host.svg" || { echo "FAIL: the device and the host render differently"; fail=1; }

# names are escaped: markup in a name stays text
printf '[{"ph":"X","name":"<a & \\"b\\">","cat":"x&y","pid":1,"tid":1,"ts":0,"dur":100}]' >"$tmp/esc.json"
"$bin" render -q --device host "$tmp/esc.json" -o "$tmp/esc.svg" && python3 -c "
import sys, xml.etree.ElementTree as ET
r = ET.parse('$tmp/esc.svg').getroot()
t = [e.text for e in r.iter('{http://www.w3.org/2000/svg}text') if e.text and e.text.startswith('<a')]
sys.exit(0 if t == ['<a & \"b\">'] else 1)" || { echo "FAIL: escaping"; fail=1; }

# usage and input errors: status 2 or 1, no output file
"$bin" render -q testdata/compare/new.json --time 5:1 -o "$tmp/x.svg" 2>/dev/null; rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/x.svg" ] || { echo "FAIL: a reversed window: exit $rc"; fail=1; }
"$bin" render -q testdata/compare/new.json -w 3 -o "$tmp/x.svg" 2>/dev/null; rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/x.svg" ] || { echo "FAIL: a bad width: exit $rc"; fail=1; }
"$bin" render -q testdata/bad/truncated.json -o "$tmp/x.svg" 2>/dev/null; rc=$?
[ $rc = 1 ] && [ ! -e "$tmp/x.svg" ] || { echo "FAIL: a bad trace: exit $rc"; fail=1; }

# a real trace renders and checks out too
real="$shared/traces/kineto__resnet50_autograd_api_num_workers_0-worker0.pt.trace.json.gz"
if [ -f "$real" ]; then
	check "$real" - 1200
	check "$real" 2000000000:2100000000 1000
else
	echo "skipped real trace: $real not present"
fi

# a real browser draws it
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
	"$bin" render -q --device host "$tmp/g.json" --time 100000000:160000000ns -w 900 --critical-path -o "$tmp/shot.svg"
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,700 \
		--screenshot="$tmp/shot.png" "file://$tmp/shot.svg" >/dev/null 2>&1
	python3 tests/png_ink.py "$tmp/shot.png" || { echo "FAIL: the browser's picture is blank or unreadable"; fail=1; }
else
	echo "skipped browser check: chromium is not installed (apt-get install chromium)"
fi

[ $fail = 0 ] && echo "render: ok"
exit $fail
