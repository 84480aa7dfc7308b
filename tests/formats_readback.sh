#!/bin/sh
# Every output format read back by independent parsers (tests/readback.py:
# json, csv, pyarrow and polars), and the atomic -o path: failures injected
# halfway through a write (a FAULTS=1 build) leave no partial file and the old
# file untouched.
. tests/lib/preamble.sh
demo=$build/tools/table_demo
py=.venv/bin/python
if [ ! -x "$py" ]; then
	echo "formats_readback: skipped: .venv is absent ('make deps' installs pyarrow and polars)"
	exit 0
fi
[ -x "$demo" ] || { echo "formats_readback: $demo is missing (run make)"; exit 1; }

# 1000 rows in batches of 300 (4 record batches), then the default batching
for f in json ndjson csv arrow arrow-stream; do
	if "$demo" "$f" "$tmp/t.$f" 1000 300 && $py tests/readback.py "$f" "$tmp/t.$f" 1000 4; then ok; else bad "$f read back"; fi
done
for f in arrow arrow-stream json csv; do
	if "$demo" "$f" "$tmp/e.$f" 0 && $py tests/readback.py "$f" "$tmp/e.$f" 0 1; then ok; else bad "$f empty table"; fi
done
if "$demo" arrow "$tmp/d.arrow" 2000 && $py tests/readback.py arrow "$tmp/d.arrow" 2000 1; then ok; else bad "arrow default batching"; fi
# past the default batch size (1048576 rows): two batches, bounded buffers
for f in arrow arrow-stream; do
	if "$demo" "$f" "$tmp/big.$f" 1100000 && $py tests/readback.py "$f" "$tmp/big.$f" 1100000 2 sample; then ok; else bad "$f large table"; fi
	rm -f "$tmp/big.$f"
done

# binary formats are refused on a terminal (status 2), text is not
if command -v script >/dev/null 2>&1; then
	script -qec "$demo arrow - 10" /dev/null >/dev/null 2>&1
	st=$?
	[ "$st" = 2 ] && ok || bad "arrow to a terminal exited $st, want 2"
	script -qec "$demo json - 10" /dev/null >/dev/null 2>&1
	st=$?
	[ "$st" = 0 ] && ok || bad "json to a terminal exited $st, want 0"
else
	echo "formats_readback: terminal check skipped: no script(1)"
fi

# a missing directory is an error naming the path; a device is written in place
if "$demo" json "$tmp/nodir/x.json" 10 2>"$tmp/err"; then bad "missing directory succeeded"; else
	grep -q "nodir/x.json" "$tmp/err" && ok || bad "error does not name the path: $(cat "$tmp/err")"
fi
"$demo" arrow /dev/null 10 && ok || bad "writing to /dev/null failed"

# a new file keeps the umask's mode; a replaced file keeps its own mode
"$demo" json "$tmp/mode.json" 3 && chmod 640 "$tmp/mode.json" && "$demo" json "$tmp/mode.json" 4 &&
	[ "$(stat -c %a "$tmp/mode.json")" = 640 ] && ok || bad "replaced file lost its mode"

# fault injection: a write fails halfway (part of a buffer written, then
# ENOSPC) or an allocation fails; the target must be untouched
echo "building the fault-injection variant (make FAULTS=1)"
# always the plain build-faults variant, whatever the caller set (scripts/sub-make)
if ! sh scripts/sub-make -s FAULTS=1 tools >"$tmp/make.log" 2>&1 ||
	[ ! -x build-faults/tools/table_demo ]; then
	cat "$tmp/make.log"
	bad "FAULTS=1 build"
else
	fdemo=build-faults/tools/table_demo
	mkdir "$tmp/f"
	for spec in "arrow write:3 200000" "arrow-stream write:2 200000" "json write:5 20000" \
		    "csv write:4 20000" "ndjson write:1 20000" "arrow alloc:5 200000"; do
		set -- $spec
		printf 'old contents\n' >"$tmp/f/out"
		if GPUTRACE_FAULT=$2 "$fdemo" "$1" "$tmp/f/out" "$3" 2>"$tmp/err"; then
			bad "$spec: the injected fault did not fail the write"
			continue
		fi
		[ "$(cat "$tmp/f/out")" = "old contents" ] || bad "$spec: the old file was changed"
		[ "$(ls -A "$tmp/f")" = out ] || bad "$spec: files left behind: $(ls -A "$tmp/f")"
		case $2 in
		write:*) want="No space left on device" ;;
		*) want="out of memory" ;;
		esac
		grep -q "$want" "$tmp/err" || bad "$spec: error lacks '$want': $(cat "$tmp/err")"
		rm -f "$tmp/f/out"
		GPUTRACE_FAULT=$2 "$fdemo" "$1" "$tmp/f/out" "$3" 2>/dev/null
		[ -z "$(ls -A "$tmp/f")" ] && ok || bad "$spec: a new file was left: $(ls -A "$tmp/f")"
	done
	# the same build without a fault writes a complete file
	if "$fdemo" arrow "$tmp/f/out" 1000 300 && $py tests/readback.py arrow "$tmp/f/out" 1000 4; then ok; else bad "fault build without a fault"; fi
fi

# end to end: `gputrace spans` on real traces, in every format, through the
# same writers; every format must carry the JSON table's values
if [ -x "$bin" ] && "$bin" spans --help >/dev/null 2>&1; then
	traces="testdata/demo/kineto_resnet50.json.gz"
	for d in ../shared/traces ../../shared/traces; do
		[ -d "$d" ] || continue
		for t in catapult__flow.json catapult__async_begin_end.json hta__inference_rank_1.json.gz \
			 kineto__before_fix_trace.json perfetto__json_tests.py--test_json_all_slice_types.json \
			 perfetto__json_tests.py--test_string_pid_tid.json; do
			[ -f "$d/$t" ] && traces="$traces $d/$t"
		done
		break
	done
	for t in $traces; do
		if $py tests/spans_readback.py "$bin" "$t"; then ok; else bad "spans readback of $t"; fi
	done
else
	echo "formats_readback: spans end-to-end skipped: $bin has no 'spans' command"
fi

echo "formats_readback: $pass passed, $fail failed"
[ "$fail" = 0 ]
