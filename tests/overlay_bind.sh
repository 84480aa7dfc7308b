#!/bin/sh
# critical-path --overlay on every shared trace: each added flow binds to
# the slice of the span its hop leaves or reaches, read as catapult's viewer
# reads it (µs x 0.001 as doubles, slices per thread nested by time,
# tests/catapult_model.py) and as Perfetto does (ns, the top of the track's
# slice stack), and no hop slice nests in another on the path track:
# tests/overlay_bind.py. A trace the analysis refuses (nothing takes part)
# is skipped; any other failure fails.
. tests/lib/preamble.sh
traces=${GPUTRACE_TRACES:-../shared/traces}
[ -d "$traces" ] || { echo "overlay_bind: skipped: no $traces"; exit 0; }
flows=0 undrawn=0 cat=0 pf=0 nested=0 skipped=0
for t in "$traces"/*; do
	case "$t" in *.md) continue ;; esac
	name=$(basename "$t")
	"$bin" critical-path --path --top 0 -q --device host "$t" --overlay "$tmp/ov.json" -o "$tmp/cp.json" 2>"$tmp/err"
	rc=$?
	if [ $rc = 1 ] && grep -q "takes part" "$tmp/err"; then
		skipped=$((skipped + 1))
		continue
	fi
	[ $rc = 0 ] || { bad "$name: critical-path --overlay exit $rc: $(head -c 300 "$tmp/err")"; continue; }
	"$bin" spans -q -f ndjson --parents nesting "$t" >"$tmp/spans.ndjson" || { bad "$name: spans"; continue; }
	if python3 tests/overlay_bind.py "$tmp/ov.json" "$tmp/cp.json" "$tmp/spans.ndjson" >"$tmp/out"; then
		ok
	else
		sed "s|^|  $name: |" "$tmp/out"
		bad "$name: overlay flows that do not bind as intended"
	fi
	# "flows N catapult N perfetto N warnings N nested N undrawable N"
	set -- $(awk '/^flows / { print $2, $4, $6, $10, $12 }' "$tmp/out") 0 0 0 0 0
	flows=$((flows + $1)) cat=$((cat + $2)) pf=$((pf + $3)) nested=$((nested + $4)) undrawn=$((undrawn + $5))
done
echo "overlay_bind: $pass traces bind as intended, $fail do not, $skipped skipped (nothing takes part);" \
	"$flows path flows, $cat bound as intended in catapult's arithmetic, $pf in Perfetto's ($undrawn of them left" \
	"out: no order of points binds them); $nested hop slices nested"
[ $fail = 0 ]
