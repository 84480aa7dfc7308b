#!/bin/sh
# Every libFuzzer harness in fuzz/ still builds and links (scripts/fuzz with
# 0 seconds: build only). Twice a harness silently stopped building while
# nothing built it; this is what builds it now. Skipped in the sanitizer
# pass, which builds the same code.
. tests/lib/preamble.sh
case "$build" in build-san*) echo "fuzz_build: skipped under $build (same code as the plain pass)"; exit 0 ;; esac
if sh scripts/fuzz 0 >"$tmp/log" 2>&1; then
	n=$(grep -c '^== .*: building$' "$tmp/log")
	h=$(ls fuzz/fuzz_*.c | wc -l)
	if [ "$n" = "$h" ] && [ "$h" -gt 0 ]; then ok; else bad "built $n of $h harnesses"; cat "$tmp/log"; fi
	for f in fuzz/fuzz_*.c; do
		[ -x "build-fuzz/$(basename "$f" .c)" ] && ok || bad "no build-fuzz/$(basename "$f" .c)"
	done
else
	bad "scripts/fuzz 0 failed:"; tail -20 "$tmp/log"
fi
echo "fuzz_build: $pass passed, $fail failed"
[ "$fail" = 0 ]
