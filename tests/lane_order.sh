#!/bin/sh
# Lane order: string tids (and pids) with numeric tails order by the number
# ("stream 7" < "stream 15"), other strings as bytes, numbers first; pack
# writes an index of version 3 or later (the numeric-tail rule) and the index
# keeps the lanes; render labels use
# process_labels and never leave a side of "PROCESS / THREAD" empty.
bin=${GPUTRACE_BIN:-build/gputrace}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.json" <<'J'
[{"ph":"X","name":"a","cat":"kernel","pid":"gpu","tid":"stream 15","ts":0,"dur":5},
{"ph":"X","name":"b","cat":"kernel","pid":"gpu","tid":"stream 7","ts":1,"dur":5},
{"ph":"X","name":"c","cat":"kernel","pid":"gpu","tid":"stream 100","ts":2,"dur":5},
{"ph":"X","name":"d","cat":"kernel","pid":"gpu","tid":"stream 07","ts":3,"dur":5},
{"ph":"X","name":"e","cat":"kernel","pid":"gpu","tid":"streamer","ts":4,"dur":5},
{"ph":"X","name":"f","cat":"kernel","pid":"gpu","tid":"stream","ts":5,"dur":5},
{"ph":"X","name":"g","cat":"cpu_op","pid":"gpu","tid":3,"ts":6,"dur":5},
{"ph":"X","name":"h","cat":"cpu_op","pid":5,"tid":1,"ts":6,"dur":5},
{"ph":"M","name":"process_name","pid":5,"args":{"name":""}},
{"ph":"M","name":"process_labels","pid":5,"args":{"labels":"GPU 0"}},
{"ph":"M","name":"thread_name","pid":5,"tid":1,"args":{"name":""}}]
J
want="h g f d b a c e"
got=$("$bin" spans -f csv "$tmp/t.json" | python3 -c "
import csv, sys
print(' '.join(r['name'] for r in sorted(csv.DictReader(sys.stdin), key=lambda r: int(r['lane']))))")
[ "$got" = "$want" ] || { echo "FAIL: lane order '$got', want '$want'"; fail=1; }
"$bin" pack -q "$tmp/t.json" -o "$tmp/t.gtx" >/dev/null || { echo "FAIL: pack"; fail=1; }
v=$(python3 -c "import struct; print(struct.unpack_from('<I', open('$tmp/t.gtx','rb').read(), 8)[0])")
[ "$v" -ge 3 ] || { echo "FAIL: index version $v, want 3 or later"; fail=1; }
[ "$("$bin" spans -f csv "$tmp/t.gtx" | md5sum)" = "$("$bin" spans -f csv "$tmp/t.json" | md5sum)" ] ||
	{ echo "FAIL: the index's spans differ from the trace's"; fail=1; }
"$bin" render -q --device host "$tmp/t.json" -w 200 -o "$tmp/t.svg" || { echo "FAIL: render"; fail=1; }
labels=$(python3 -c "
import xml.etree.ElementTree as ET
r = ET.parse('$tmp/t.svg').getroot()
print('|'.join(''.join(t.itertext()) for t in r.iter('{http://www.w3.org/2000/svg}text') if t.get('class') == 'lane-label'))")
case $labels in
"GPU 0 / tid 1|gpu / tid 3|gpu / stream|gpu / stream 07|gpu / stream 7|gpu / stream 15|gpu / stream 100|gpu / streamer") ;;
*) echo "FAIL: labels '$labels'"; fail=1 ;;
esac
[ $fail = 0 ] && echo "lane_order: ok"
exit $fail
