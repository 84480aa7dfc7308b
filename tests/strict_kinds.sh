#!/bin/sh
# --strict exits 4 on every warning kind, repairs included: each kind that
# `info` lists gets a one-event case here that must raise it, and the walk
# fails on a kind with no case (a new kind must come with one).
. tests/lib/preamble.sh

X='"ph":"X","pid":1,"tid":1,"name":"a"'
case_for() { # KIND: prints the trace that raises it
	case $1 in
	unmatched_end) echo '[{"ph":"E","ts":1,"pid":1,"tid":1}]' ;;
	unclosed_begin) echo '[{"ph":"B","ts":1,"pid":1,"tid":1,"name":"a"}]' ;;
	improper_nesting) echo "[{$X,\"ts\":0,\"dur\":10},{$X,\"ts\":5,\"dur\":10}]" ;;
	trailing_comma) echo "[{$X,\"ts\":0,\"dur\":10},]" ;;
	control_character) printf '[{"ph":"X","ts":0,"dur":1,"pid":1,"tid":1,"name":"a\tb"}]\n' ;;
	unmatched_async_end) echo '[{"ph":"e","ts":1,"pid":1,"tid":1,"id":7,"cat":"c","name":"a"}]' ;;
	unclosed_async) echo '[{"ph":"b","ts":1,"pid":1,"tid":1,"id":7,"cat":"c","name":"a"}]' ;;
	unbound_flow) echo "[{$X,\"ts\":0,\"dur\":10},{\"ph\":\"f\",\"ts\":5,\"pid\":1,\"tid\":1,\"id\":9,\"cat\":\"c\",\"bp\":\"e\"}]" ;;
	missing_ts) echo "[{$X,\"dur\":10}]" ;;
	missing_phase) echo '[{"ts":0,"dur":10,"pid":1,"tid":1,"name":"a"}]' ;;
	invalid_ts) echo "[{$X,\"ts\":\"x\",\"dur\":10}]" ;;
	invalid_dur) echo "[{$X,\"ts\":0,\"dur\":\"x\"}]" ;;
	negative_dur) echo "[{$X,\"ts\":0,\"dur\":-5}]" ;;
	invalid_id) echo '[{"ph":"X","ts":0,"dur":5,"pid":1.5,"tid":1,"name":"a"}]' ;;
	invalid_field) echo '[{"ph":"X","ts":0,"dur":5,"pid":1,"tid":1,"name":5}]' ;;
	invalid_args) echo '[{"ph":"M","ts":0,"pid":1,"tid":1,"name":"thread_sort_index","args":{"sort_index":1e300}}]' ;;
	unknown_phase) echo '[{"ph":"XXX","ts":0,"pid":1,"tid":1,"name":"a"}]' ;;
	nonstandard_number) echo "[{$X,\"ts\":0,\"dur\":5,\"args\":{\"v\":NaN}}]" ;;
	invalid_utf8) printf '[{"ph":"X","ts":0,"dur":5,"pid":1,"tid":1,"name":"a\377"}]\n' ;;
	truncated_input) echo "[{$X,\"ts\":0,\"dur\":5},{\"ph\":\"X\",\"ts\":0," ;;
	unfinished_complete) echo "[{$X,\"ts\":0}]" ;;
	mismatched_end_name) echo '[{"ph":"B","ts":0,"pid":1,"tid":1,"name":"a"},{"ph":"E","ts":3,"pid":1,"tid":1,"name":"b"}]' ;;
	*) return 1 ;;
	esac
}

echo '[{"ph":"X","ts":0,"dur":1,"pid":1,"tid":1,"name":"a"}]' >"$tmp/clean.json"
kinds=$("$bin" info -q "$tmp/clean.json" | jq -r '.warnings | keys_unsorted[]')
[ "$(echo "$kinds" | wc -l)" -ge 22 ] && ok || bad "info lists $(echo "$kinds" | wc -l) warning kinds"
"$bin" spans -q --strict "$tmp/clean.json" >/dev/null && ok || bad "--strict on a clean trace: exit $?"
for k in $kinds; do
	if ! case_for "$k" >"$tmp/$k.json"; then
		bad "warning kind $k has no case here: add one"
		continue
	fi
	n=$("$bin" info -q "$tmp/$k.json" 2>/dev/null | jq ".warnings.$k")
	[ "${n:-0}" -ge 1 ] 2>/dev/null && ok || bad "$k: its case raises it ${n:-no} times"
	"$bin" spans -q --strict "$tmp/$k.json" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 4 ] && [ ! -s "$tmp/out" ] && grep -q "warnings and --strict was given" "$tmp/err" && ok ||
		bad "$k: --strict exit $rc, $(wc -c <"$tmp/out") bytes out: $(cat "$tmp/err")"
	# the same from an index file (version 5 keeps every count)
	if "$bin" pack -q "$tmp/$k.json" -o "$tmp/$k.gtx" >/dev/null 2>&1; then
		"$bin" spans -q --strict "$tmp/$k.gtx" >/dev/null 2>&1
		[ $? = 4 ] && ok || bad "$k: --strict on its index file does not exit 4"
	fi
done
echo "strict_kinds: $pass passed, $fail failed"
[ "$fail" = 0 ]
