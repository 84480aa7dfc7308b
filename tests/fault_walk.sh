#!/bin/sh
# Fault walk: with a `make FAULTS=1` build, makes the Nth allocation, read,
# write or checked OpenCL call fail, for N = 1, 2, ... up to the number of calls the command makes
# (counted by a first run), over a few commands. At every failure point:
# exit status 1 (or 3 for a device error), exactly one stderr line starting
# "gputrace: " that is a real message, the -o target still holding its
# previous contents (no partial file) and no temporary file left, no crash;
# under the SANITIZE=1 build LeakSanitizer turns any leak into a failure
# too, and otherwise a sample of points runs under valgrind. A point where the
# command still succeeds must give exactly the unfaulted output.
bin=${GPUTRACE_BIN:-build/gputrace}
case "$bin" in
build-san*) san=1 ;;
*) san=0 ;;
esac
if [ $san = 1 ]; then fbin=build-san-faults/gputrace; else fbin=build-faults/gputrace; fi
sh scripts/sub-make FAULTS=1 SANITIZE=$san "$fbin" >/dev/null || { echo "FAIL: cannot build $fbin"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gzip -c testdata/ingest/async.json >"$tmp/async.json.gz"
zstd -q -c testdata/ingest/begin_end.json >"$tmp/begin_end.json.zst"
"$bin" pack -q -o "$tmp/lanes.gtx" testdata/ingest/lanes.json >/dev/null
printf '%s\n' '{"id":"a","time":"0:1000"}' '{"id":"b","time":"5:20","lanes":"0:2","level":1}' >"$tmp/vp.jsonl"
# a small two-rank job with matched collectives, and its summaries
gen=$(dirname "$bin")/tools/gen_trace
mkdir -p "$tmp/job"
for r in 0 1; do
	"$gen" --spans 800 --seed 3 --ranks 2 --rank $r --straggler 1:5000:1 -o "$tmp/job/r$r.json" 2>/dev/null
	"$bin" collectives -q -f arrow -o "$tmp/r$r.arrow" "$tmp/job/r$r.json"
done
# steps of one rank, for the causal path's batches side by side and its
# passes in ranges (small ones, through the test knobs below)
"$gen" --spans 3000 --seed 3 -o "$tmp/steps.json" 2>/dev/null
# enough steps (64 windows and more) for the step document's summaries to
# be written into the output file in place, on threads
"$gen" --spans 60000 --seed 5 -o "$tmp/manysteps.json" 2>/dev/null
"$bin" pack -q -o "$tmp/manysteps.gtx" "$tmp/manysteps.json" >/dev/null
mkdir -p "$tmp/gtxjob"
"$bin" pack -q -o "$tmp/gtxjob/r0.gtx" "$tmp/job/r0.json" >/dev/null
vg=""
if [ $san = 0 ] && command -v valgrind >/dev/null; then
	vg="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99"
fi
fail=0; points=0; vgruns=0
out="$tmp/out"

# each command: its arguments, with OUT standing for the -o target
cmds="info -j1 testdata/ingest/flows.json
info -j2 -o OUT $tmp/async.json.gz
info -j1 -o OUT $tmp/async.json.gz
spans -j1 -f csv -o OUT $tmp/begin_end.json.zst
spans -j1 -f arrow -o OUT testdata/ingest/flows.json
spans -j1 -f ndjson -o OUT testdata/ingest/nesting.json
spans -j2 -f csv -o OUT -
critical-path -q --device host -o OUT testdata/ingest/flows.json
critical-path -q --device 0 -f csv --rows -o OUT testdata/ingest/nesting.json
critical-path -q --device host -o /dev/null --overlay OUT testdata/ingest/flows.json
pack -q -o OUT testdata/ingest/flows.json
query -q --device host --time 0:1000 --expand -o OUT $tmp/lanes.gtx
query -q --device host --viewports $tmp/vp.jsonl -o OUT $tmp/lanes.gtx
spans -j1 -f csv -o OUT $tmp/job
info -j2 -o OUT $tmp/job/r0.json $tmp/job/r1.json
collectives -j1 -q -f arrow -o OUT $tmp/job/r1.json
stragglers -j1 -q -o OUT $tmp/job
stragglers -q -f arrow -o OUT $tmp/r0.arrow $tmp/r1.arrow
critical-path -j1 -q --device host -o OUT $tmp/job
critical-path -j3 -q --device host --step ProfilerStep#* --rows -o OUT $tmp/steps.json
critical-path -j3 -q --device host --path -o OUT $tmp/steps.json
spans -j1 -f csv --parents nesting -o OUT $tmp/lanes.gtx
spans -j1 -f csv -o OUT $tmp/gtxjob/r0.gtx $tmp/job/r1.json
stats -j1 -q --report all -o OUT testdata/stats/steps.json
stats -j2 -q --report all --by step -o OUT $tmp/job
[write] critical-path -j3 -q --device host --step ProfilerStep#* -o OUT $tmp/manysteps.gtx"

# the causal path's batches of a few windows, its passes over spans and
# flows in ranges of 16: threads on these small traces
export GPUTRACE_CAUSAL_BATCH=1500 GPUTRACE_CAUSAL_RANGE=16
# a gzip member in pieces of 64 bytes from two threads (-j1: one inflate)
export GPUTRACE_INFLATE=pieces GPUTRACE_GZIP_PIECE=64

# Under the sanitizers, commands on an OpenCL device run without the exit-time
# leak check: LeakSanitizer's thread tracer itself crashes now and then
# (SIGSEGV in its stop-the-world, "Tracer caught signal 11") after PoCL has
# rebuilt a program, which reads as a failure of gputrace. Address errors
# are still caught, and the device tests outside this walk keep the leak check.
run() { # fault-spec wrapper args...
	spec=$1; shift
	wrap=$1; shift
	printf 'previous\n' >"$out"
	leaks=1
	case " $* " in *" --device 0 "*) [ $san = 1 ] && leaks=0 ;; esac
	# standard input is always a pipe (the "-" command reads it)
	cat testdata/ingest/lanes.json | ASAN_OPTIONS="detect_leaks=$leaks${ASAN_OPTIONS:+:$ASAN_OPTIONS}" GPUTRACE_FAULT="$spec" \
		timeout 60 $wrap "$fbin" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
}

echo "$cmds" | while IFS= read -r line; do
	# "[SITE] command": that site alone (a command of many allocations)
	only=""
	case "$line" in "["*"] "*) only=${line%%]*}; only=${only#[}; line=${line#*] } ;; esac
	args=$(echo "$line" | sed "s|OUT|$out|")
	uses_out=0; case "$line" in *OUT*) uses_out=1 ;; esac
	# reference output, unfaulted
	case "$line" in
	*--device\ 0*) # an OpenCL device, when there is one
		"$fbin" devices -f csv 2>/dev/null | grep -q "^0," || { echo "  skipped (no OpenCL device): $line"; continue; } ;;
	esac
	run "" "" $args || { echo "FAIL: reference run: $line: $(head -3 "$tmp/stderr")"; exit 1; }
	if [ $uses_out = 1 ]; then cp "$out" "$tmp/ref"; else cp "$tmp/stdout" "$tmp/ref"; fi
	sites="alloc read write"
	case "$line" in *--device\ 0*) sites="alloc cl write" ;; esac
	[ -n "$only" ] && sites=$only
	for site in $sites; do
		rm -f "$tmp/counts"
		GPUTRACE_FAULT_COUNTS="$tmp/counts" run "$site:999999999" "" $args
		k=$(awk -v s="$site" '$1 == s { print $2 }' "$tmp/counts")
		[ -n "$k" ] || { echo "FAIL: no call count for $site: $line"; exit 1; }
		# on threads too the count must not depend on the schedule: a second
		# count says so here rather than as a point past the end now and then
		case "$line" in *-j[2-9]*)
			rm -f "$tmp/counts"
			GPUTRACE_FAULT_COUNTS="$tmp/counts" run "$site:999999999" "" $args
			k2=$(awk -v s="$site" '$1 == s { print $2 }' "$tmp/counts")
			[ "$k2" = "$k" ] || { echo "FAIL: $site calls $k then $k2 (the schedule's doing): $line"; exit 1; } ;;
		esac
		n=1; failed_points=0; st3=0
		while [ "$n" -le $((k + 1)) ]; do
			wrap=""
			# (valgrind reports PoCL's own loader and JIT: host-path commands only)
			if [ -n "$vg" ] && [ $((n % 12)) = 1 ] && [ "$site" != cl ] && [ "${line#*--device 0}" = "$line" ]; then wrap=$vg; fi
			run "$site:$n" "$wrap" $args
			rc=$?
			what="$site:$n ($line)"
			if [ $rc = 0 ]; then
				got="$tmp/stdout"; [ $uses_out = 1 ] && got="$out"
				cmp -s "$got" "$tmp/ref" || { echo "FAIL: $what succeeded with a different output"; exit 1; }
				[ -s "$tmp/stderr" ] && { echo "FAIL: $what succeeded with stderr: $(head -3 "$tmp/stderr")"; exit 1; }
			elif [ $rc = 1 ] || [ $rc = 3 ]; then
				failed_points=$((failed_points + 1))
				[ $rc = 3 ] && st3=$((st3 + 1))
				if [ "$(wc -l <"$tmp/stderr")" != 1 ] || ! grep -q '^gputrace: ' "$tmp/stderr" ||
				   grep -q 'unknown error' "$tmp/stderr"; then
					echo "FAIL: $what: exit $rc, stderr:"; head -20 "$tmp/stderr"; exit 1
				fi
				if [ $uses_out = 1 ] && [ "$(cat "$out")" != previous ]; then
					echo "FAIL: $what: exit $rc but the -o target changed"; exit 1
				fi
			else
				echo "FAIL: $what: exit $rc (crash, leak or timeout), stderr:"; head -30 "$tmp/stderr"; exit 1
			fi
			# the writer's temporary file is ".out.XXXXXX" beside the target
			if ls -A "$tmp" | grep -q '^\.out\.'; then echo "FAIL: $what left a temporary file"; exit 1; fi
			[ -n "$wrap" ] && vgruns=$((vgruns + 1))
			n=$((n + 1))
		done
		[ $rc = 0 ] || { echo "FAIL: $site:$((k + 1)) is past the last call yet failed: $line"; exit 1; }
		echo "  $site: $k points, $failed_points failed cleanly ($st3 of them with exit 3), the rest succeeded with the right output: $line"
	done
done || fail=1
[ $fail = 0 ] && echo "fault walk: ok"
exit $fail
