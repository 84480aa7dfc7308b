#!/bin/sh
# Concurrency and interruption of `-o` (atomic output):
# - two gputrace processes writing the same target at once: each succeeds or
#   fails cleanly, the target ends as one complete output of one of them,
#   and no temporary file is left;
# - a process killed with SIGKILL while writing: the target is the previous
#   complete file. SIGKILL cannot be caught, so the dead process's temporary
#   file (".NAME.XXXXXX" beside the target) stays: gputrace does not remove
#   other processes' temporaries (a live writer's looks the same); the test
#   checks it is the only thing left and that a later run is unaffected;
# - two processes building the same OpenCL program-cache entry;
# - -o through a link to a pipe.
bin=${GPUTRACE_BIN:-build/gputrace}
gen=$(dirname "$bin")/tools/gen_trace
[ -x "$gen" ] || { echo "FAIL: $gen not built"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
"$gen" --events 200000 --seed 3 -o "$tmp/big.json" 2>/dev/null || { echo "FAIL: gen_trace"; exit 1; }
"$bin" spans -f csv -o "$tmp/ref.csv" "$tmp/big.json" || bad "reference csv"
"$bin" spans -f ndjson -o "$tmp/ref.ndjson" "$tmp/big.json" || bad "reference ndjson"
mkdir "$tmp/o"
out="$tmp/o/spans.out"
leftovers() { ls -A "$tmp/o" | grep -v '^spans\.out$'; }

# two writers of one target, different formats so the winner is visible
for round in 1 2 3 4 5; do
	printf 'previous\n' >"$out"
	"$bin" spans -f csv -o "$out" "$tmp/big.json" 2>"$tmp/err1" & p1=$!
	"$bin" spans -f ndjson -o "$out" "$tmp/big.json" 2>"$tmp/err2" & p2=$!
	wait $p1; rc1=$?
	wait $p2; rc2=$?
	for r in "$rc1:$tmp/err1" "$rc2:$tmp/err2"; do
		rc=${r%%:*}; e=${r#*:}
		if [ "$rc" != 0 ] && { [ "$rc" != 1 ] || [ "$(wc -l <"$e")" != 1 ]; }; then
			bad "round $round: a writer exited $rc: $(head -3 "$e")"
		fi
	done
	if cmp -s "$out" "$tmp/ref.csv"; then winner=csv
	elif cmp -s "$out" "$tmp/ref.ndjson"; then winner=ndjson
	else winner=""; bad "round $round: the target is neither complete output ($(wc -c <"$out") bytes)"; fi
	[ -z "$(leftovers)" ] || bad "round $round: left $(leftovers)"
	echo "ok: two writers, round $round: exits $rc1/$rc2, target is the complete $winner output"
done

# SIGKILL while writing: wait until the temporary file exists, then kill
for round in 1 2 3; do
	rm -f "$tmp"/o/.spans.out.*
	printf 'previous\n' >"$out"
	"$bin" spans -f json -o "$out" "$tmp/big.json" 2>/dev/null & p=$!
	i=0
	while [ -z "$(leftovers)" ] && [ $i -lt 2000 ] && kill -0 $p 2>/dev/null; do
		sleep 0.01; i=$((i + 1))
	done
	# round 1 kills at once, the others a little into the write
	[ $round -gt 1 ] && sleep 0.0$((round * 3))
	kill -9 $p 2>/dev/null
	wait $p 2>/dev/null
	if [ "$(cat "$out")" = previous ]; then
		state="previous file intact"
	elif "$bin" spans -f json "$tmp/big.json" | cmp -s - "$out"; then
		state="the write had finished: complete new file"
	else
		state=""; bad "SIGKILL round $round: target damaged ($(wc -c <"$out") bytes)"
	fi
	n=$(leftovers | wc -l)
	[ "$n" -le 1 ] || bad "SIGKILL round $round: $n leftovers"
	[ -n "$state" ] && echo "ok: SIGKILL round $round: $state, $n stale temporary file(s)"
done
# a later run replaces the target normally beside the stale temporary
"$bin" spans -f csv -o "$out" "$tmp/big.json" && cmp -s "$out" "$tmp/ref.csv" ||
	bad "a run after SIGKILL did not write the target"

# two processes building the same OpenCL program-cache entry at once (a
# fresh XDG_CACHE_HOME, so both compile): both results equal the host's, the
# cache holds whole entries and no temporary (gputrace/ only: PoCL keeps its
# own kernel cache beside it); a later run reads the entry;
# a damaged entry is rebuilt, not trusted
if "$bin" devices -f csv 2>/dev/null | grep -q '^0,'; then
	python3 -c 'import random
random.seed(11)
print("parent,duration")
for i in range(5000): print("%d,%d" % (random.randrange(-1, i) if i else -1, random.randrange(0, 10**6)))' >"$tmp/forest.csv"
	"$bin" critical-path -q --device host --rows -f csv --forest "$tmp/forest.csv" >"$tmp/cp.host" || bad "host critical path"
	export XDG_CACHE_HOME="$tmp/cache"
	"$bin" critical-path -q --device 0 --rows -f csv --forest "$tmp/forest.csv" >"$tmp/cp.1" 2>"$tmp/cperr1" & p1=$!
	"$bin" critical-path -q --device 0 --rows -f csv --forest "$tmp/forest.csv" >"$tmp/cp.2" 2>"$tmp/cperr2" & p2=$!
	wait $p1; rc1=$?; wait $p2; rc2=$?
	[ $rc1 = 0 ] && [ $rc2 = 0 ] || bad "cache race: exits $rc1/$rc2: $(cat "$tmp/cperr1" "$tmp/cperr2")"
	cmp -s "$tmp/cp.1" "$tmp/cp.host" && cmp -s "$tmp/cp.2" "$tmp/cp.host" || bad "cache race: a device result differs from the host's"
	entries=$(find "$tmp/cache/gputrace" -type f -name '*.bin' | wc -l)
	temps=$(find "$tmp/cache/gputrace" -type f ! -name '*.bin' | wc -l)
	[ "$entries" -ge 1 ] && [ "$temps" = 0 ] || bad "cache race: $entries entries, $temps other files"
	for e in $(find "$tmp/cache/gputrace" -type f -name '*.bin'); do
		[ "$(head -c 8 "$e")" = GTCLBIN1 ] || bad "cache race: $e is not a whole entry"
	done
	"$bin" critical-path -q --device 0 --rows -f csv --forest "$tmp/forest.csv" | cmp -s - "$tmp/cp.host" ||
		bad "a run from the cache differs from the host"
	echo "ok: two processes building one program-cache entry: both right, $entries whole entries, no temporaries"
	for e in $(find "$tmp/cache/gputrace" -type f -name '*.bin'); do
		size=$(wc -c <"$e")
		head -c $((size / 2)) "$e" >"$e.cut" && mv "$e.cut" "$e"
	done
	"$bin" critical-path -q --device 0 --rows -f csv --forest "$tmp/forest.csv" | cmp -s - "$tmp/cp.host" ||
		bad "a run over a truncated cache entry differs from the host"
	for e in $(find "$tmp/cache/gputrace" -type f -name '*.bin'); do
		[ "$(wc -c <"$e")" -gt "$size" ] || bad "a truncated cache entry was not rebuilt"
	done
	echo "ok: a truncated cache entry is rebuilt"
	unset XDG_CACHE_HOME
else
	echo "skipped: no OpenCL device for the program-cache race"
fi

# -o through a link realpath cannot follow (/dev/stdout when stdout is a
# pipe: "pipe:[N]"): written into the pipe, the link left as it is
ln -s /proc/self/fd/1 "$tmp/stdout-link"
"$bin" spans -f csv -o "$tmp/stdout-link" "$tmp/big.json" | cmp -s - "$tmp/ref.csv" &&
	[ -L "$tmp/stdout-link" ] && echo "ok: -o a link to a pipe writes into the pipe" ||
	bad "-o a link to a pipe: $(ls -l "$tmp/stdout-link")"

[ $fail = 0 ] && echo "concurrency: ok"
exit $fail
