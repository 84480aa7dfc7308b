#!/bin/sh
# Every trace in ../shared/traces: gputrace info must succeed and its event
# and per-phase counts must equal an independent count (a Python standard
# library script, scripts/count-events.py).
bin=${GPUTRACE_BIN:-build/gputrace}
dir=../shared/traces
[ -d "$dir" ] || { echo "skipped: $dir not present"; exit 0; }
fail=0; n=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in "$dir"/*; do
	case "$f" in *.md) continue ;; esac
	n=$((n+1))
	if ! "$bin" info "$f" >"$tmp/info.json" 2>"$tmp/err"; then
		echo "FAIL info: $f: $(cat "$tmp/err")"; fail=$((fail+1)); continue
	fi
	python3 scripts/count-events.py "$f" >"$tmp/count.json" 2>"$tmp/cerr" || {
		echo "FAIL counter: $f: $(cat "$tmp/cerr")"; fail=$((fail+1)); continue; }
	python3 - "$tmp/info.json" "$tmp/count.json" "$f" <<'PY' || fail=$((fail+1))
import json, sys
info = json.load(open(sys.argv[1])); ref = json.load(open(sys.argv[2]))
ok = info["events"] == ref["events"] and info["phases"] == ref["phases"]
if not ok:
    print("FAIL counts:", sys.argv[3], "gputrace", info["events"], info["phases"], "reference", ref["events"], ref["phases"])
sys.exit(0 if ok else 1)
PY
done
echo "real traces: $n checked, $fail failed"
[ "$fail" = 0 ]
