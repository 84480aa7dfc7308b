#!/bin/sh
# The forest critical path of every trace in ../shared/traces: the fast host
# path (one thread and one per core), the reference (gt_critpath_host, chosen
# by GPUTRACE_CRITPATH_REFERENCE=1) and the first OpenCL device (PoCL in CI;
# its input uploaded in one piece and in pieces of 4093 rows)
# write the same JSON, summary and rows, or fail with the same status.
set -u
bin=${GPUTRACE_BIN:-build/gputrace}
traces=${GPUTRACE_TRACES:-../shared/traces}
[ -d "$traces" ] || { echo "critpath_traces: skipped: no $traces"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cldev=$("$bin" devices -f csv 2>/dev/null | awk -F, 'NR > 1 { print $1; exit }')
fail=0 n=0
run() { # name, env assignment or "", options...
	out=$1 envset=$2; shift 2
	env $envset "$bin" critical-path --model forest --rows -q "$@" "$t" >"$tmp/$out" 2>/dev/null
	echo $? >>"$tmp/$out"
}
for t in "$traces"/*; do
	case "$t" in *.md) continue ;; esac
	run ref GPUTRACE_CRITPATH_REFERENCE=1 --device host
	run fast1 "" --device host -j 1
	run fast "" --device host
	cmp -s "$tmp/ref" "$tmp/fast1" || { echo "FAIL: $t: fast host path, one thread, differs from the reference"; fail=1; }
	cmp -s "$tmp/ref" "$tmp/fast" || { echo "FAIL: $t: fast host path differs from the reference"; fail=1; }
	if [ -n "$cldev" ]; then
		run dev "" --device "$cldev"
		# the summary's "device" names the device: compare the rest
		grep -v '"device"' "$tmp/ref" >"$tmp/ref.c"; grep -v '"device"' "$tmp/dev" >"$tmp/dev.c"
		cmp -s "$tmp/ref.c" "$tmp/dev.c" || { echo "FAIL: $t: device $cldev differs from the reference"; fail=1; }
		# the columns gathered and copied in pieces of 4093 rows, most of a
		# trace's copy overlapping the next piece's gather
		run pieces GPUTRACE_UPLOAD_PIECE_ROWS=4093 --device "$cldev"
		cmp -s "$tmp/dev" "$tmp/pieces" || { echo "FAIL: $t: device $cldev in pieces of 4093 rows differs"; fail=1; }
	fi
	n=$((n + 1))
done
[ $fail = 0 ] && echo "critpath_traces: $n traces, the same bytes on the reference, the fast host path${cldev:+ and device $cldev}"
exit $fail
