#!/bin/sh
# gputrace stats, every report (man gputrace: STATS): testdata/stats/steps.json
# worked by hand (two steps, two streams that overlap, communication beside
# compute, a kernel that runs past its step, a zero-length memcpy), a job of
# 3 ranks made of it, then every shared trace, whole and per step, and the
# 8-rank job against an independent reading from the span and flow tables
# (tests/stats_reports_check.py); formats, --top, --rows, CPU-only traces
# and the errors.
. tests/lib/preamble.sh
traces=../shared/traces
hand=testdata/stats/steps.json
# Host: ProfilerStep#1 [0,100]: aten::mm [10,50] launching gemm [30,50] (s7),
# gemm [52,60] (s7) and ncclAllReduce [40,65] (s8); aten::add [60,70]
# launching add_kernel [64,70] (s7); cudaDeviceSynchronize [80,95].
# ProfilerStep#2 [100,150]: aten::mm [110,130] launching gemm [140,170] (s7,
# past the step) and a memcpy [126,126] (s8). Times in us.
"$bin" stats -q --report all "$hand" >"$tmp/all.json" || bad "stats --report all on $hand"
j() { jq -c "$1" "$tmp/all.json"; }
# wall [30,170] = 140: compute 10+10+8+1+5+30 = 64, communication alone
# [50,52]+[60,64] = 6, idle [70,140] = 70 (the memcpy has no length)
[ "$(j '.gpu_time[0] | [.wall_ns, .compute_ns, .communication_ns, .memcpy_ns, .idle_ns, .idle_share]')" = \
	'[140000,64000,6000,0,70000,0.5]' ] && ok || bad "gpu-time: $(j '.gpu_time')"
# compute union 20+8+6+30 = 64, communication 25, both [40,50]+[52,60]+[64,65] = 19: 0.76
[ "$(j '.overlap[0] | [.communication_ns, .compute_ns, .overlap_ns, .overlap_share]')" = '[25000,64000,19000,0.76]' ] &&
	ok || bad "overlap: $(j '.overlap')"
# gemm 20, 8, 30: mean 19.333, median 20, p95 30, stddev sqrt(80888889) = 8994 ns;
# busy [30,70] + [140,170] = 70: share 58/70
[ "$(j '.kernels[0] | [.name, .count, .total_ns, .mean_ns, .median_ns, .p95_ns, .min_ns, .stddev_ns, .share]')" = \
	'["gemm",3,58000,19333,20000,30000,8000,8994,0.828571]' ] && ok || bad "kernels: $(j '.kernels[0]')"
# aten::mm: 40 + 20; self 40-12 + 20-8 = 40; gpu 20+8+25 + 30+0 = 83, 5 launched
[ "$(j '[.ops[] | [.name, .count, .total_ns, .self_ns, .gpu_ns, .launched]]')" = \
	'[["aten::mm",2,60000,40000,83000,5],["aten::add",1,10000,6000,6000,1]]' ] && ok || bad "ops: $(j '.ops')"
# five launches of 5, 2, 5, 4, 3 us: mean 3.8, lower median 4, p95 5; gpu 89
[ "$(j '[.runtime[] | [.name, .kind, .count, .total_ns, .mean_ns, .median_ns, .p95_ns, .gpu_ns]]')" = \
	'[["cudaLaunchKernel","launch",5,19000,3800,4000,5000,89000],["cudaDeviceSynchronize","sync",1,15000,15000,15000,15000,0],["cudaMemcpyAsync","memory",1,5000,5000,5000,5000,0]]' ] &&
	ok || bad "runtime: $(j '.runtime')"
# stream 7: latencies 10, 26, 2, 28; queues 1, 2 (the second gemm joins the
# first, not started until 30), 1, 1
[ "$(j '.launches[0] | [.stream, .launches, .latency_median_ns, .latency_p95_ns, .latency_mean_ns, .queue_median, .queue_p95, .queue_max]')" = \
	'["2/7",4,10000,28000,16500,1,2,2]' ] && ok || bad "launches: $(j '.launches')"
# stream 7's gaps: 2 us before the second gemm (launched at 26: not the
# host; 2 us is not under 30 ns: other), 4 before add_kernel (launched at
# 62 > 60: host), 70 before the last gemm (host)
[ "$(j '.idle[0] | [.stream, .gaps, .idle_ns, .host_wait_ns, .kernel_wait_ns, .other_ns]')" = '["2/7",3,76000,74000,0,2000]' ] &&
	ok || bad "idle: $(j '.idle')"
[ "$("$bin" stats -q --report idle --kernel-wait 5000 "$hand" | jq -c '.[0] | [.kernel_wait_ns, .other_ns]')" = '[2000,0]' ] &&
	ok || bad "idle --kernel-wait 5000"
# per step: the last gemm goes with step 2, which launched it, whole (wall
# [126,170] = 44: compute 30, idle 14)
"$bin" stats -q --report gpu-time,ops --step 'ProfilerStep#*' "$hand" >"$tmp/step.json" || bad "stats --step"
[ "$(jq -c '[.gpu_time[] | [.step, .wall_ns, .compute_ns, .communication_ns, .idle_ns]]' "$tmp/step.json")" = \
	'[["ProfilerStep#1",40000,34000,6000,0],["ProfilerStep#2",44000,30000,0,14000]]' ] && ok ||
	bad "gpu-time per step: $(jq -c .gpu_time "$tmp/step.json")"
[ "$(jq -c '[.ops[] | [.step, .name, .self_ns, .gpu_ns]]' "$tmp/step.json")" = \
	'[["ProfilerStep#1","aten::mm",28000,53000],["ProfilerStep#1","aten::add",6000,6000],["ProfilerStep#2","aten::mm",12000,30000]]' ] &&
	ok || bad "ops per step: $(jq -c .ops "$tmp/step.json")"
[ "$("$bin" stats -q --by step "$hand" | jq -c '[.[] | [.step, .name, .count]][0:2]')" = \
	'[["ProfilerStep#1","gemm",2],["ProfilerStep#1","ncclAllReduce",1]]' ] && ok || bad "--by step"
[ "$("$bin" stats -q --group class "$hand" | jq -c '[.[] | [.class, .total_ns]]')" = \
	'[["compute",64000],["communication",25000],["memcpy",0]]' ] && ok || bad "--group class"
# a job of 3 ranks: each rank's rows, shares of its own GPU
for r in 0 1 2; do
	jq --argjson r $r '. + {distributedInfo: {rank: $r, world_size: 3}}' "$hand" >"$tmp/rank$r.json"
done
[ "$("$bin" stats -q --by rank "$tmp"/rank*.json | jq -c '[.[] | select(.name == "gemm") | [.rank, .share]]')" = \
	'[[0,0.828571],[1,0.828571],[2,0.828571]]' ] && ok || bad "the 3-rank job by rank"
[ "$("$bin" stats -q --report gpu-time --step 'ProfilerStep#*' "$tmp"/rank*.json | jq -c '[.[] | [.step, .rank, .wall_ns]] | .[2:4]')" = \
	'[["ProfilerStep#1",2,40000],["ProfilerStep#2",0,44000]]' ] && ok || bad "the 3-rank job per step"
# every format of every report; --rows; --top; the text report fits 100 columns
for r in kernels ops runtime gpu-time overlap launches idle; do
	"$bin" stats -q --report $r -f csv "$hand" >"$tmp/r.csv" && [ "$(wc -l <"$tmp/r.csv")" -ge 2 ] && ok || bad "$r -f csv"
	"$bin" stats -q --report $r -f arrow -o "$tmp/r.arrow" "$hand" && [ -s "$tmp/r.arrow" ] && ok || bad "$r -f arrow"
	"$bin" stats -q --report $r -f text "$hand" >"$tmp/r.txt" && [ "$(awk 'length > 100' "$tmp/r.txt" | wc -l)" = 0 ] &&
		ok || bad "$r -f text: a line past 100 columns"
done
"$bin" stats -q --report launches --rows "$hand" | jq -e 'length == 6 and (.[1] | .queue == 2 and .latency_ns == 26000)' >/dev/null &&
	ok || bad "launches --rows"
[ "$("$bin" stats -q --top 1 --step 'ProfilerStep#*' "$hand" | jq -c '[.[] | .name]')" = '["gemm","gemm"]' ] && ok ||
	bad "--top 1 per step"
# a trace without device spans: the CPU reports, exit 0; a GPU report: exit 1
printf '[{"ph":"X","name":"aten::mm","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":5}]' >"$tmp/cpu.json"
"$bin" stats --report all "$tmp/cpu.json" >"$tmp/cpu.out" 2>"$tmp/err" && grep -q "only the CPU reports" "$tmp/err" &&
	[ "$(jq -c 'keys' "$tmp/cpu.out")" = '["ops","runtime"]' ] && ok || bad "CPU only, all: $(cat "$tmp/err")"
"$bin" stats -q --report overlap "$tmp/cpu.json" >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] && grep -q "the overlap report needs them" "$tmp/err" && [ ! -s "$tmp/out" ] && ok || bad "CPU only, overlap: $(cat "$tmp/err")"
# usage errors: several reports in a table format, --rows elsewhere, a bad --group
for args in "--report kernels,ops -f csv" "--rows" "--group stream" "--report ops --by stream" "--kernel-wait x"; do
	"$bin" stats -q $args "$hand" >/dev/null 2>&1
	[ $? = 2 ] && ok || bad "stats $args: not a usage error"
done
"$bin" stats -q --step 'Nope*' "$hand" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "matches no span" "$tmp/err" && ok || bad "a step glob matching nothing: $(cat "$tmp/err")"
# every shared trace, whole and per step, and the 8-rank job, independently
check() { # NAME TRACE... (STEP env: a glob)
	name=$1
	shift
	"$bin" spans -q -f csv "$@" >"$tmp/s.csv" && "$bin" spans -q -f csv --parents nesting "$@" >"$tmp/n.csv" &&
		"$bin" spans -q --flows -f csv "$@" >"$tmp/f.csv" || { bad "$name: the span tables"; return; }
	if [ -n "${STEP:-}" ]; then
		"$bin" stats -q --report all --group class --step "$STEP" "$@" >"$tmp/doc.json"
	else
		"$bin" stats -q --report all --group class "$@" >"$tmp/doc.json"
	fi || { bad "$name: stats exit $?"; return; }
	python3 tests/stats_reports_check.py "$tmp/doc.json" "$tmp/s.csv" "$tmp/n.csv" "$tmp/f.csv" ${STEP:+"$STEP"} \
		>"$tmp/out" 2>&1 && ok || bad "$name${STEP:+ per step}: $(head -3 "$tmp/out")"
}
check steps.json "$hand"
STEP='ProfilerStep#*' check steps.json "$hand"
if [ -d "$traces" ]; then
	for f in "$traces"/*.json "$traces"/*.gz; do
		case "$f" in *param__worker*) continue ;; esac
		STEP= check "$(basename "$f")" "$f"
		if zcat -f "$f" | grep -q '"ProfilerStep#'; then
			STEP='ProfilerStep#*' check "$(basename "$f")" "$f"
		fi
	done
	STEP= check "the 8-rank job" "$traces"/param__worker*.json
fi
echo "stats_reports: $pass passed, $fail failed"
[ "$fail" = 0 ]
