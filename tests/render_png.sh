#!/bin/sh
# Looks at what render draws: real traces rendered with their critical path,
# turned into PNG by rsvg-convert (librsvg2-bin, scripts/install-deps), and
# checked on the pixels (tests/png_check.py): the path's colour is there,
# every lane label and legend label has ink, no label has an empty side.
bin=${GPUTRACE_BIN:-build/gputrace}
shared=${GPUTRACE_SHARED:-../shared}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v rsvg-convert >/dev/null 2>&1 || { echo "FAIL: rsvg-convert is missing (scripts/install-deps installs librsvg2-bin)"; exit 1; }
n=0
for t in kineto__resnet50_autograd_api_num_workers_0-worker0.pt.trace.json.gz \
	hta__cuda_event_sync-event_sync_trace.json.gz catapult__big_trace.json; do
	f=$shared/traces/$t
	[ -f "$f" ] || { echo "skip: $f"; continue; }
	n=$((n + 1))
	"$bin" render -q --device host "$f" --critical-path -w 900 -o "$tmp/$n.svg" &&
		rsvg-convert "$tmp/$n.svg" -o "$tmp/$n.png" ||
		{ echo "FAIL: render/rsvg-convert $t"; fail=1; continue; }
	(cd tests && python3 png_check.py "$tmp/$n.svg" "$tmp/$n.png") || { echo "FAIL: $t"; fail=1; }
done
# the check sees a picture that lost its path and a label
if [ -f "$tmp/1.svg" ]; then
	sed -e 's/stroke="#882255"/stroke="#dddddd"/g; s/\.span\.cp{stroke:#882255/.span.cp{stroke:#dddddd/' \
		-e '0,/class="lane-label"\([^>]*\)>[^<]*</s//class="lane-label"\1></' "$tmp/1.svg" >"$tmp/bad.svg"
	rsvg-convert "$tmp/bad.svg" -o "$tmp/bad.png"
	(cd tests && python3 png_check.py "$tmp/bad.svg" "$tmp/bad.png") >"$tmp/bad.out" &&
		{ echo "FAIL: png_check passed a picture without its path and a label"; fail=1; }
	grep -q "colour is in" "$tmp/bad.out" && grep -q "empty side" "$tmp/bad.out" ||
		{ cat "$tmp/bad.out"; echo "FAIL: png_check missed what was taken out"; fail=1; }
fi
[ $fail = 0 ] && echo "render_png: ok ($n pictures)"
exit $fail
