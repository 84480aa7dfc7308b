#!/bin/sh
# Inputs that once crashed or tripped a sanitizer (most found by the fuzz
# harnesses in fuzz/): each must now give exit 0, or exit 1 with exactly one
# stderr line starting "gputrace: " -- never a crash, a hang or a sanitizer
# report. Names say which reader: trace-* go through `info` (and `spans`);
# other prefixes name the reader's command once it exists (causal-*: a trace
# for critical-path; overlay-*: a trace whose critical-path overlay must be
# strict JSON; compare_cond-*: the file is a --fail-if condition).
bin=${GPUTRACE_BIN:-build/gputrace}
fail=0; n=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() { # file, command...
	f=$1; shift
	n=$((n+1))
	timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ $rc = 0 ] && [ "$lines" = 0 ]; then return 0; fi
	if [ $rc = 1 ] && [ "$lines" = 1 ] && grep -q '^gputrace: ' "$tmp/err"; then return 0; fi
	# query reports a malformed viewport as a usage error, compare a bad --fail-if
	case "$f" in */viewports-*|*/compare_cond-*) [ $rc = 2 ] && [ "$lines" = 1 ] && return 0 ;; esac
	# a --fail-if condition that held
	case "$f" in */compare_cond-*) [ $rc = 5 ] && [ "$lines" = 0 ] && return 0 ;; esac
	echo "FAIL: $f: $* exit $rc, stderr:"; head -5 "$tmp/err"; fail=1
}
for f in testdata/regress/*; do
	[ -f "$f" ] || continue
	case "$(basename "$f")" in
	trace-*)
		check "$f" "$bin" info "$f"
		check "$f" "$bin" spans -f csv -o "$tmp/spans.csv" "$f"
		ls -A "$tmp" | grep -q '^\.spans\.csv\.' && { echo "FAIL: $f left a temporary file"; fail=1; } ;;
	gtx-*) # index files: the loader behind every command that takes a trace
		[ -f cli/cmd_pack.c ] || continue
		check "$f" "$bin" info "$f"
		check "$f" "$bin" verify "$f" ;;
	forest-*) # critical-path --forest CSV
		[ -f cli/cmd_critical_path.c ] || continue
		check "$f" "$bin" critical-path -q --device host --forest "$f"
		check "$f" "$bin" critical-path -q --device host --rows -f csv -o "$tmp/cp.csv" --forest "$f" ;;
	viewports-*) # query --viewports JSONL over a small index
		[ -f cli/cmd_query.c ] || continue
		[ -f "$tmp/lanes.gtx" ] || "$bin" pack -q -o "$tmp/lanes.gtx" testdata/ingest/lanes.json >/dev/null
		check "$f" "$bin" query -q --device host --expand --viewports "$f" "$tmp/lanes.gtx" ;;
	causal-*) # the causal critical path, whole and per step, with rows
		[ -f cli/cmd_critical_path.c ] || continue
		check "$f" "$bin" critical-path -q --device host --rows -o /dev/null "$f"
		check "$f" "$bin" critical-path -q --device host --rows --step 'ProfilerStep*' -o /dev/null "$f" ;;
	overlay-*) # critical-path --overlay: a trace the analysis takes has an overlay, strict JSON
		[ -f cli/critpath_overlay.c ] || continue
		rm -f "$tmp/ov.json"
		check "$f" "$bin" critical-path -q --device host -o /dev/null --overlay "$tmp/ov.json" "$f"
		if [ ! -f "$tmp/ov.json" ] && "$bin" critical-path -q --device host -o /dev/null "$f" 2>/dev/null; then
			echo "FAIL: $f: analysed, but no overlay written"; fail=1
		elif [ -f "$tmp/ov.json" ] && ! python3 -c 'import json, sys
def bad(c): raise ValueError("not JSON: " + c)
json.loads(open(sys.argv[1], "rb").read().decode("utf-8"), parse_constant=bad)' "$tmp/ov.json" 2>"$tmp/err"; then
			echo "FAIL: $f: the overlay is not strict JSON:"; tail -1 "$tmp/err"; fail=1
		fi ;;
	compare_cond-*) # compare --fail-if TEXT over the golden pair
		[ -f cli/cmd_compare.c ] || continue
		check "$f" "$bin" compare -q -o /dev/null --fail-if "$(cat "$f")" testdata/compare/base.json testdata/compare/new.json
		check "$f" "$bin" compare -q -o /dev/null --step 'ProfilerStep*' --fail-if "$(cat "$f")" \
			testdata/compare/gpu_base.json testdata/compare/gpu_slow.json ;;
	*) echo "FAIL: $f: no reader for this name (trace-, gtx-, forest-, viewports-, causal-, overlay-, compare_cond-)"; fail=1 ;;
	esac
done
[ $fail = 0 ] && echo "regress: $n runs ok"
exit $fail
