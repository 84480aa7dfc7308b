#!/bin/sh
# The tables of critical-path (path and per-row), query (candidates and
# spans, one viewport and --viewports) and devices, in every table format,
# read back by json, csv, pyarrow and polars and compared with the JSON output
# (tests/tables_readback.py), on the demo trace and real traces; one PoCL run
# of critical-path; binary formats refused on a terminal; -o leaves nothing
# behind on failure.
. tests/lib/preamble.sh
py=.venv/bin/python
if [ ! -x "$py" ]; then
	echo "tables_readback: skipped: .venv is absent ('make deps' installs pyarrow and polars)"
	exit 0
fi
[ -x "$bin" ] || { echo "tables_readback: $bin is missing (run make)"; exit 1; }

traces="testdata/demo/kineto_resnet50.json.gz"
real=""
for d in ../shared/traces ../../shared/traces; do
	[ -d "$d" ] || continue
	# string pids/tids, async tracks, flows, a GPU trace
	for t in perfetto__json_tests.py--test_string_pid_tid.json catapult__async_begin_end.json \
		 catapult__flow.json kineto__before_fix_trace.json; do
		[ -f "$d/$t" ] && real="$real $d/$t"
	done
	break
done
[ -n "$real" ] || echo "tables_readback: ../shared/traces is absent; the demo trace only"
for t in $traces $real; do
	if $py tests/tables_readback.py "$bin" "$t"; then ok; else bad "tables readback of $t"; fi
done
if $py tests/tables_readback.py "$bin" devices; then ok; else bad "devices readback"; fi

# critical-path's tables from an OpenCL device equal the host's JSON
pocl=$("$bin" devices -f csv | awk -F, 'NR > 1 && /Portable Computing Language/ { print $1; exit }')
if [ -n "$pocl" ]; then
	for t in testdata/demo/kineto_resnet50.json.gz $(printf '%s\n' $real | tail -n 1); do
		if GPUTRACE_DEVICE=$pocl $py tests/tables_readback.py "$bin" "$t" ""; then ok; else bad "PoCL tables of $t"; fi
	done
else
	echo "tables_readback: PoCL run skipped: no PoCL device"
fi

# binary tables are refused on a terminal (status 2), text is not
t=testdata/demo/kineto_resnet50.json.gz
if command -v script >/dev/null 2>&1; then
	for args in "critical-path --device host $t" "query --device host --time 0:1ms $t" "devices"; do
		script -qec "$bin $args -f arrow" /dev/null >/dev/null 2>&1
		st=$?
		[ "$st" = 2 ] && ok || bad "'$args -f arrow' to a terminal exited $st, want 2"
		script -qec "$bin $args -f csv" /dev/null >/dev/null 2>&1
		st=$?
		[ "$st" = 0 ] && ok || bad "'$args -f csv' to a terminal exited $st, want 0"
	done
else
	echo "tables_readback: terminal check skipped: no script(1)"
fi

# -o: a failed run leaves the old file untouched and no temporary file
mkdir "$tmp/o"
for args in "critical-path --device host -f arrow" "critical-path --device host --rows -f csv" \
	    "query --device host --time 0:1ms -f arrow-stream" "query --device host --time 0:1ms --expand -f ndjson"; do
	printf 'old\n' >"$tmp/o/out"
	# a missing trace: the command fails before any output
	if "$bin" $args -o "$tmp/o/out" "$tmp/missing.json" 2>/dev/null; then bad "$args on a missing trace succeeded"; fi
	[ "$(cat "$tmp/o/out")" = old ] && [ "$(ls -A "$tmp/o")" = out ] && ok || bad "$args: -o changed or left files"
	"$bin" $args -q -o "$tmp/o/out" "$t" && [ "$(cat "$tmp/o/out")" != old ] && [ "$(ls -A "$tmp/o")" = out ] &&
		ok || bad "$args -o did not replace the file"
done
"$bin" devices -f arrow -o "$tmp/o/nodir/x.arrow" 2>"$tmp/err" && bad "devices -o into a missing directory succeeded"
grep -q "nodir/x.arrow" "$tmp/err" && ok || bad "devices -o error does not name the path: $(cat "$tmp/err")"

# --quiet silences the summary notice; the table is the same
"$bin" critical-path --device host -f csv -q "$t" >"$tmp/q.csv" 2>"$tmp/q.err" && [ ! -s "$tmp/q.err" ] &&
	ok || bad "critical-path -q printed: $(cat "$tmp/q.err")"

echo "tables_readback: $pass passed, $fail failed"
[ "$fail" = 0 ]
