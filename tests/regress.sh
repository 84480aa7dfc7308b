#!/bin/sh
# Inputs that once crashed or tripped a sanitizer (most found by the fuzz
# harnesses in fuzz/): each must now give exit 0, or exit 1 with exactly one
# stderr line starting "gputrace: " -- never a crash, a hang or a sanitizer
# report. Names say which reader: trace-* go through `info` (and `spans`);
# other prefixes name the reader's command once it exists.
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
	*) ;; # readers of other branches add their cases here
	esac
done
[ $fail = 0 ] && echo "regress: $n runs ok"
exit $fail
