#!/bin/sh
# Messages name what the user gave: the file (or index file) on the command
# line, not the trace an index was packed from; a render of a trace with no
# span says so; --step that matches nothing names the file; an index file
# gives the same skipped-events notice as its trace.
. tests/lib/preamble.sh

expect() { # WHAT STATUS PATTERN CMD...: exit STATUS, stderr matching PATTERN
	what=$1 want=$2 pat=$3; shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = "$want" ] && grep -q "$pat" "$tmp/err" && ok || bad "$what: exit $rc, stderr: $(cat "$tmp/err")"
}

bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
cd "$tmp" || exit 1
printf '[{"ph":"M","pid":1,"name":"process_name","args":{"name":"x"}}]' >nospan.json
printf '[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":5,"name":"a"},{"ph":"X","pid":1,"tid":1,"ts":"bad","dur":5,"name":"b"}]' >skip.json
printf '[{"ph":"i","pid":1,"tid":1,"ts":0,"name":"only an instant"}]' >instant.json
"$bin" pack -q nospan.json -o nospan.gtx >/dev/null || bad "pack nospan"
"$bin" pack -q skip.json -o skip.gtx >/dev/null 2>&1 || bad "pack skip"
"$bin" pack -q instant.json -o instant.gtx >/dev/null || bad "pack instant"

expect "render, no span" 1 "^gputrace: nospan.json: the trace has no span to draw$" "$bin" render nospan.json -o x.svg
expect "render, no span, index" 1 "^gputrace: nospan.gtx: the trace has no span to draw$" "$bin" render nospan.gtx -o x.svg
[ ! -e x.svg ] && ok || bad "render of nothing left x.svg"
expect "render, window off the trace" 1 "^gputrace: skip.json: the window @1000000:@2000000 holds no span" \
	"$bin" render -q skip.json -t 1s:2s -o x.svg
expect "critical-path of an index names it" 1 "^gputrace: instant.gtx: no thread-track span takes part" \
	"$bin" critical-path instant.gtx
expect "--step matching nothing names the file" 1 "^gputrace: skip.gtx: --step 'Nope\*' matches no span" \
	"$bin" critical-path -q --step 'Nope*' skip.gtx
expect "compare --step names the side" 1 "^gputrace: skip.json: --step 'Nope\*' matches no span" \
	"$bin" compare -q --step 'Nope*' skip.json skip.gtx
expect "a job is named by its first file" 1 "^gputrace: instant.json (+1 more): no thread-track span" \
	"$bin" critical-path instant.json instant.gtx
expect "the notice of an index file" 0 "^gputrace: skip.gtx: 1 event skipped (invalid_ts 1)" \
	"$bin" critical-path skip.gtx
expect "the notice of its trace" 0 "^gputrace: skip.json: 1 event skipped (invalid_ts 1)" \
	"$bin" critical-path skip.json
echo "messages: $pass passed, $fail failed"
[ "$fail" = 0 ]
