#!/bin/sh
# An event that ends on the last byte of the ingest's first window (8 MiB
# with one thread), its ',' in the next: it is parsed again there, and the
# counts of what it holds (a tab in a string: control_character) are taken
# once, read from the file and through a pipe.
. tests/lib/preamble.sh
python3 - "$tmp/edge.json" <<'PY'
import sys
window = 8 << 20
pad = '{"ph":"X","name":"pad","pid":1,"tid":1,"ts":1,"dur":1,"args":{"s":"%s"}},\n'
edge = '{"ph":"X","name":"tab\there","pid":1,"tid":2,"ts":5,"dur":1,"args":{"s":"%s"}}'
out = ['[']
size = 1
while window - size > 2 * len(pad % ('x' * 1000)):
    out.append(pad % ('x' * 1000))
    size += len(out[-1])
fill = window - size - len(edge % '')
out.append(edge % ('y' * fill))
assert sum(map(len, out)) == window
out.append(',\n{"ph":"X","name":"after","pid":1,"tid":2,"ts":9,"dur":1}]\n')
open(sys.argv[1], 'w').write(''.join(out))
PY
for how in file pipe; do
	case $how in
	file) "$bin" info -j1 "$tmp/edge.json" >"$tmp/info" 2>/dev/null ;;
	pipe) cat "$tmp/edge.json" | "$bin" info -j1 - >"$tmp/info" 2>/dev/null ;;
	esac
	[ "$(jq .warnings.control_character "$tmp/info")" = 1 ] && ok ||
		bad "$how: the tab at the window's edge counted $(jq .warnings.control_character "$tmp/info") times"
	[ "$(jq .spans "$tmp/info")" = "$(grep -c '"ph":"X"' "$tmp/edge.json")" ] && ok || bad "$how: spans $(jq .spans "$tmp/info")"
done
echo "window_edges: $pass passed, $fail failed"
[ "$fail" = 0 ]
