#!/bin/sh
# gputrace stats, the kernels report (man gputrace: stats): a hand-built
# trace with the answer worked by hand (overlapping streams, a zero-length
# kernel, a memcpy, two processes), then every shared trace against an
# independent reading from the span table (tests/stats_check.py), by name
# and by stream, and the 8-rank job by rank; errors.
. tests/lib/preamble.sh
traces=../shared/traces
cat >"$tmp/hand.json" <<'J'
[{"ph":"X","name":"gemm","cat":"kernel","pid":1,"tid":7,"ts":0,"dur":10},
 {"ph":"X","name":"gemm","cat":"kernel","pid":1,"tid":7,"ts":20,"dur":30},
 {"ph":"X","name":"gemm","cat":"kernel","pid":1,"tid":8,"ts":5,"dur":20},
 {"ph":"X","name":"copy","cat":"gpu_memcpy","pid":1,"tid":9,"ts":60,"dur":0},
 {"ph":"X","name":"gemm","cat":"Kernel","pid":2,"tid":7,"ts":0,"dur":40},
 {"ph":"X","name":"op","cat":"cpu_op","pid":3,"tid":1,"ts":0,"dur":100}]
J
# gemm: 10, 20, 30, 40 us: total 100, mean 25, lower median 20, p95 40 (the
# 4th), min 10, max 40, stddev sqrt(125) = 11.18 -> 11 us; busy: process 1
# [0,50] (10+20 overlap, then 20..50) = 50 us, the memcpy adds nothing,
# process 2 40 us: 90 us; gemm's share 100/90 = 1.111111; copy: 1 of 0 ns
"$bin" stats -q "$tmp/hand.json" >"$tmp/hand.out" || bad "stats on the hand-built trace"
[ "$(jq -c '.[0] | [.name, .count, .total_ns, .mean_ns, .median_ns, .p95_ns, .min_ns, .max_ns, .stddev_ns, .share]' "$tmp/hand.out")" = \
	'["gemm",4,100000,25000,20000,40000,10000,40000,11180,1.111111]' ] && ok ||
	bad "hand-built gemm: $(jq -c '.[0]' "$tmp/hand.out")"
[ "$(jq -c '.[1] | [.name, .count, .total_ns, .stddev_ns, .share]' "$tmp/hand.out")" = '["copy",1,0,0,0]' ] && ok ||
	bad "hand-built copy: $(jq -c '.[1]' "$tmp/hand.out")"
"$bin" stats -q --by stream -f csv "$tmp/hand.json" | sed 1d | cut -d, -f1-4 >"$tmp/streams.csv"
[ "$(head -1 "$tmp/streams.csv")" = "1/7,gemm,2,40" ] && [ "$(wc -l <"$tmp/streams.csv")" = 4 ] && ok ||
	bad "by stream: $(cat "$tmp/streams.csv")"
# every shared trace with device spans, against the span table
if [ -d "$traces" ]; then
	for f in "$traces"/*.json "$traces"/*.gz; do
		"$bin" stats -q "$f" >"$tmp/s.json" 2>"$tmp/err"
		rc=$?
		if [ $rc = 1 ] && grep -q "no device spans" "$tmp/err"; then
			continue
		fi
		[ $rc = 0 ] || { bad "$(basename "$f"): exit $rc: $(head -c 200 "$tmp/err")"; continue; }
		"$bin" spans -q -f csv "$f" >"$tmp/spans.csv"
		python3 tests/stats_check.py "$tmp/s.json" "$tmp/spans.csv" >"$tmp/out" 2>&1 && ok ||
			bad "$(basename "$f"): $(head -3 "$tmp/out")"
		"$bin" stats -q --report gpu-time --format json "$f" >"$tmp/g.json" &&
			python3 tests/gpu_time_check.py "$tmp/g.json" "$tmp/spans.csv" >"$tmp/out" 2>&1 && ok ||
			bad "$(basename "$f") gpu-time: $(head -3 "$tmp/out")"
		case "$f" in *nccl_data*|*resnet50*)
			"$bin" stats -q --by stream "$f" >"$tmp/s.json" &&
				python3 tests/stats_check.py "$tmp/s.json" "$tmp/spans.csv" stream >"$tmp/out" 2>&1 && ok ||
				bad "$(basename "$f") by stream: $(head -3 "$tmp/out")" ;;
		esac
	done
	"$bin" stats -q --by rank "$traces"/param__worker*.json >"$tmp/s.json" &&
		"$bin" spans -q -f csv "$traces"/param__worker*.json >"$tmp/spans.csv" &&
		python3 tests/stats_check.py "$tmp/s.json" "$tmp/spans.csv" rank >"$tmp/out" 2>&1 && ok ||
		bad "the 8-rank job by rank: $(head -3 "$tmp/out")"
fi
# gpu-time by hand: process 1's wall [0, 60] us: compute [0, 50] = 50 (the
# streams overlap), memcpy's zero length adds nothing, idle 10; process 2:
# 40 of compute; a job's ranks too
"$bin" stats -q --report gpu-time "$tmp/hand.json" >"$tmp/g.json" || bad "gpu-time on the hand-built trace"
[ "$(jq -c '[.[] | [.device, .wall_ns, .compute_ns, .communication_ns, .memcpy_ns, .idle_ns, .idle_share]]' "$tmp/g.json")" = \
	'[["1",60000,50000,0,0,10000,0.166667],["2",40000,40000,0,0,0,0]]' ] && ok || bad "hand-built gpu-time: $(cat "$tmp/g.json")"
if [ -d "$traces" ]; then
	"$bin" stats -q --report gpu-time "$traces"/param__worker*.json >"$tmp/g.json" &&
		"$bin" spans -q -f csv "$traces"/param__worker*.json >"$tmp/spans.csv" &&
		python3 tests/gpu_time_check.py "$tmp/g.json" "$tmp/spans.csv" >"$tmp/out" 2>&1 && [ "$(jq length "$tmp/g.json")" = 8 ] && ok ||
		bad "the 8-rank job's gpu-time: $(head -3 "$tmp/out")"
fi
# no device spans: exit 1 with a line; an unknown report or key: exit 2
printf '[{"ph":"X","name":"op","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":5}]' >"$tmp/cpu.json"
"$bin" stats -q "$tmp/cpu.json" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "no device spans" "$tmp/err" && ok || bad "no device spans: $(cat "$tmp/err")"
for args in "--report nope" "--by nope" "--report gpu-time --by stream" "--report gpu-time --collective-name ("; do
	"$bin" stats -q $args "$tmp/hand.json" >/dev/null 2>"$tmp/err"
	[ $? = 2 ] && ok || bad "stats $args: not a usage error"
done
"$bin" stats -q --report nope "$tmp/hand.json" 2>&1 | grep -q "(kernels, ops, runtime, gpu-time, overlap, launches, idle, all)" && ok ||
	bad "the unknown report's error does not list the reports"
echo "stats: $pass passed, $fail failed"
[ "$fail" = 0 ]
