#!/bin/sh
# The path in the words of GPU work (man gputrace: critical-path, classes):
# on every shared trace, whole and per step (and the 8-rank job), each
# window's classes are its hops' classes summed by an independent reading
# of the rule (tests/classes_check.py) and sum to the path; the classes
# table equals the document's.
. tests/lib/preamble.sh
traces=../shared/traces
[ -d "$traces" ] || { echo "classes: skipped: $traces is absent"; exit 0; }
check() { # LABEL SPANS-OPERANDS... -- CRITICAL-PATH ARGS...
	label=$1
	shift
	"$bin" critical-path -q -d host --path "$@" >"$tmp/doc.json" 2>"$tmp/err"
	rc=$?
	if [ $rc = 1 ] && grep -q "no thread-track span takes part\|matches no span\|matching nothing" "$tmp/err"; then
		return 0
	fi
	[ $rc = 0 ] || { bad "$label: exit $rc: $(head -c 200 "$tmp/err")"; return; }
	python3 tests/classes_check.py "$tmp/doc.json" "$tmp/spans.csv" >"$tmp/out" 2>&1 && ok ||
		bad "$label: $(head -3 "$tmp/out")"
}
for f in "$traces"/*.json "$traces"/*.gz; do
	"$bin" spans -q -f csv "$f" >"$tmp/spans.csv" 2>/dev/null || continue
	check "$(basename "$f")" "$f"
	case "$f" in *hta__*|*kineto__*|*param__*) check "$(basename "$f") per step" --step 'ProfilerStep*' "$f" ;; esac
done
"$bin" spans -q -f csv "$traces"/param__worker*.json >"$tmp/spans.csv"
check "the 8-rank job per step" --step 'ProfilerStep*' "$traces"/param__worker*.json
# the table of the classes is the document's
f=$traces/hta__nccl_data.json.gz
"$bin" critical-path -q -d host --step 'ProfilerStep*' "$f" |
	jq -r '.windows[] | .summary.window as $w | .classes[] | "\($w),\(.class),\(.critical_ns)"' >"$tmp/doc.txt"
"$bin" critical-path -q -d host --step 'ProfilerStep*' --table classes -f csv "$f" | sed 1d | cut -d, -f1-3 >"$tmp/table.txt"
[ -s "$tmp/doc.txt" ] && cmp -s "$tmp/doc.txt" "$tmp/table.txt" && ok || bad "the classes table differs from the document"
echo "classes: $pass passed, $fail failed"
[ "$fail" = 0 ]
