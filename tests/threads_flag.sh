#!/bin/sh
# -j1 means one thread: every command run with it starts no thread at all
# (the checksums' parts, the index's sorts, unmapping, a job's files), but
# for the one that inflates a compressed trace beside the parse (the man
# page's -j), and gives the bytes it gives on more threads. The threads are counted by a
# preloaded pthread_create (tests/thread_count.c); the same run with -j4
# must count some, or the count proves nothing.
. tests/lib/preamble.sh
need_gen threads_flag
case "$build" in
build-san*) echo "threads_flag: skipped under the sanitizers (they must come first in the preload order)"; exit 0 ;;
esac
${CC:-cc} -shared -fPIC -O1 -o "$tmp/count.so" tests/thread_count.c -ldl || { echo "FAIL: cannot build the counter"; exit 1; }

# 200K spans: 86 MB of JSON, past the size where the CRC reads in parts
"$gen" --spans 200000 --seed 4 -o "$tmp/t.json" 2>/dev/null || { echo "FAIL: gen_trace"; exit 1; }
mkdir "$tmp/job"
for r in 0 1; do "$gen" --spans 20000 --seed 5 --ranks 2 --rank $r -o "$tmp/job/rank$r.json" 2>/dev/null; done

# threads J NAME ARGS...: runs gputrace (J: -jN or "" for the default),
# its stdout to $tmp/NAME.J.out, and prints the threads it started
threads() {
	j=$1 name=$2
	shift 2
	rm -f "$tmp/count"
	# shellcheck disable=SC2086
	if ! THREAD_COUNT_OUT="$tmp/count" LD_PRELOAD="$tmp/count.so" "$bin" "$@" $j >"$tmp/$name.$j.out" 2>"$tmp/err"; then
		bad "$name $j failed: $(head -2 "$tmp/err")"
		echo x
		return
	fi
	cat "$tmp/count" 2>/dev/null || echo missing
}

n=$(threads -j4 pack-4 pack "$tmp/t.json" -o "$tmp/four.gtx")
case $n in x|missing|0) bad "the counter saw no thread where pack runs on 4 ($n)" ;; *) ok ;; esac
n=$(threads -j1 pack pack "$tmp/t.json" -o "$tmp/t.gtx")
[ "$n" = 0 ] && ok || bad "pack -j1 started $n threads"
cmp -s "$tmp/four.gtx" "$tmp/t.gtx" && ok || bad "pack -j1 wrote other bytes than on 4 threads"

check() { # NAME ARGS...: -j1 starts nothing and prints what -j2 prints
	name=$1
	shift
	n=$(threads -j1 "$name" "$@")
	[ "$n" = 0 ] && ok || bad "$name -j1 started $n threads"
	threads -j2 "$name" "$@" >/dev/null
	cmp -s "$tmp/$name.-j1.out" "$tmp/$name.-j2.out" && ok || bad "$name: -j1 and -j2 print different output"
}
check info info "$tmp/t.json"
check repack pack "$tmp/t.gtx" -o "$tmp/re.gtx"
check spans spans -f csv "$tmp/t.gtx"
check causal critical-path --device host "$tmp/t.gtx"
check causal-step critical-path --device host --step 'ProfilerStep#*' --rows -f csv "$tmp/t.gtx"
check forest critical-path --model forest --device host "$tmp/t.gtx"
check stats stats --report all "$tmp/t.gtx"
check compare compare "$tmp/t.gtx" "$tmp/re.gtx"
check render render -o - "$tmp/t.gtx"
check job info "$tmp/job"
check job-causal critical-path --device host "$tmp/job"

# a compressed trace: its one reader thread, and nothing else
gzip -c "$tmp/t.json" >"$tmp/t.json.gz"
zstd -q -c "$tmp/t.json" >"$tmp/t.json.zst"
for z in gz zst; do
	n=$(threads -j1 "info-$z" info "$tmp/t.json.$z")
	[ "$n" = 1 ] && ok || bad "info -j1 on a .$z started $n threads, not its one reader"
	# all but the file's name, compression and size
	same=$(jq -n --slurpfile a "$tmp/info-$z.-j1.out" --slurpfile b "$tmp/info.-j1.out" \
		'[$a[0], $b[0]] | map(del(.source, .compression, .file_bytes)) | .[0] == .[1]')
	[ "$same" = true ] && ok || bad "info -j1 on a .$z summarises the trace otherwise than plain"
done

echo "threads_flag: $pass passed, $fail failed"
[ "$fail" = 0 ]
