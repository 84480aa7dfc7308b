#!/bin/sh
# --step on a job of several ranks (man gputrace: Windows): one window per
# step name over every rank's span of it; each rank's spans go to its own
# step (the ranks' own walls are their files' walls); the collective edges
# stay inside, so the path of the step a late rank held back runs through
# that rank; a step a rank lacks is counted.
. tests/lib/preamble.sh
need_gen job_steps
N=3 R=1 STEP=2 DELAY=4000000
mkdir -p "$tmp/job" "$tmp/lack"
for r in 0 1 2; do
	"$gen" --spans 6000 --seed 5 --ranks $N --rank $r --straggler $R:$DELAY:$STEP -o "$tmp/job/rank$r.json" 2>/dev/null ||
		bad "gen_trace --rank $r"
done
"$bin" critical-path --path --top 0 -q -d host --step 'ProfilerStep#*' "$tmp/job" >"$tmp/job.json" || bad "critical-path --step on the job"
solo_steps=$("$bin" critical-path -q -d host --step 'ProfilerStep#*' "$tmp/job/rank0.json" | jq '.aggregate.windows')
[ "$(jq '.aggregate.windows' "$tmp/job.json")" = "$solo_steps" ] && ok ||
	bad "$(jq '.aggregate.windows' "$tmp/job.json") windows for $solo_steps step names"
jq -e '[.windows[].summary | .ranks == 3 and .ranks_missing == 0] | all' "$tmp/job.json" >/dev/null && ok ||
	bad "every window should hold 3 ranks"
# each rank's wall is its own file's: the windows' min, median and max
# are those of the three files' walls of that step
for r in 0 1 2; do
	"$bin" critical-path --path --top 0 -q -d host --step 'ProfilerStep#*' "$tmp/job/rank$r.json" |
		jq -c '[.windows[].summary.wall_ns]' >"$tmp/wall$r"
done
python3 - "$tmp" <<'PY' && ok || bad "the ranks' walls differ from their files'"
import json, sys
d = sys.argv[1]
walls = [json.load(open("%s/wall%d" % (d, r))) for r in range(3)]
job = json.load(open(d + "/job.json"))
for i, w in enumerate(job["windows"]):
    got = w["summary"]["rank_wall"]
    want = sorted(x[i] for x in walls)
    assert [got["min_ns"], got["median_ns"], got["max_ns"]] == [want[0], want[1], want[2]], (i, got, want)
    assert w["summary"]["wall_ns"] >= want[2]
PY
# a hand-built job: 3 ranks, two steps; in step 2 rank 1 launches its
# all-reduce 50 us late and the others' kernels wait inside it. The step's
# path runs from rank 1 into the others by the collective edges; step 1's
# stays on one rank's own work
python3 - "$tmp/hand" <<'PY' || bad "writing the hand-built job"
import json, os, sys
d = sys.argv[1]
os.makedirs(d)
for r in range(3):
    ev, late = [], 50 if r == 1 else 0
    for k, (b, e) in enumerate([(0, 100), (200, 400)], 1):
        ev.append({"ph": "X", "name": "ProfilerStep#%d" % k, "cat": "user_annotation", "pid": 1, "tid": 1,
                   "ts": b, "dur": e - b})
        at = b + 10 + (late if k == 2 else 0)
        ev.append({"ph": "X", "name": "cudaLaunchKernel", "cat": "cuda_runtime", "pid": 1, "tid": 1, "ts": at, "dur": 5})
        ev.append({"ph": "s", "id": k, "pid": 1, "tid": 1, "ts": at, "cat": "ac2g", "name": "ac2g"})
        kb = at + 6
        ke = b + 80 + (60 if k == 2 else 0)  # every rank's kernel ends together
        ev.append({"ph": "X", "name": "ncclKernel_AllReduce", "cat": "kernel", "pid": 0, "tid": 7, "ts": kb, "dur": ke - kb})
        ev.append({"ph": "f", "id": k, "pid": 0, "tid": 7, "ts": kb, "cat": "ac2g", "name": "ac2g", "bp": "e"})
        ev.append({"ph": "X", "name": "cudaDeviceSynchronize", "cat": "cuda_runtime", "pid": 1, "tid": 1,
                   "ts": at + 10, "dur": ke - at - 10 + 2})
    json.dump({"distributedInfo": {"rank": r, "world_size": 3}, "traceEvents": ev},
              open("%s/rank%d.json" % (d, r), "w"))
PY
"$bin" critical-path --path --top 0 -q -d host --step 'ProfilerStep#*' "$tmp/hand" >"$tmp/hand.json" || bad "critical-path on the hand-built job"
"$bin" spans -q -f csv "$tmp/hand" | awk -F, 'NR > 1 && $1 == 1 { print $2 }' >"$tmp/rank1.ids"
python3 - "$tmp/hand.json" "$tmp/rank1.ids" <<'PY' && ok || bad "the held step's path"
import json, sys
doc = json.load(open(sys.argv[1]))
rank1 = {int(x) for x in open(sys.argv[2]).read().split()}
w1, w2 = doc["windows"]
assert w2["summary"]["edges"]["collective"] == 6, w2["summary"]["edges"]
# step 2: a collective wait hop leaves rank 1's kernel (its B) for another rank's E
hops = [h for h in w2["path"] if h["kind"] == "wait" and h["from"]["span"] in rank1 and h["to"]["span"] not in rank1]
assert hops and hops[0]["from"]["which"] == "B", w2["path"]
# and the path starts on rank 1
assert w2["path"][0]["from"]["span"] in rank1, w2["path"][0]
assert w1["summary"]["ranks"] == 3 and w2["summary"]["ranks"] == 3
PY
# a rank without a step: counted, the others' window kept
for r in 0 1 2; do cp "$tmp/job/rank$r.json" "$tmp/lack/rank$r.json"; done
python3 - "$tmp/lack/rank2.json" <<'PY' || bad "editing rank 2"
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["traceEvents"] = [e for e in d["traceEvents"] if e.get("name") != "ProfilerStep#1"]
json.dump(d, open(p, "w"))
PY
"$bin" critical-path --path --top 0 -q -d host --step 'ProfilerStep#*' "$tmp/lack" >"$tmp/lack.json" || bad "critical-path on the job lacking a step"
[ "$(jq -c '.windows[] | .summary | select(.step_name == "ProfilerStep#1") | [.ranks, .ranks_missing]' "$tmp/lack.json")" = "[2,1]" ] &&
	ok || bad "a step rank 2 lacks: $(jq -c '[.windows[].summary | [.step_name, .ranks, .ranks_missing]]' "$tmp/lack.json")"
# the windows table carries the ranks
"$bin" critical-path -q -d host --step 'ProfilerStep#*' --table windows -f csv "$tmp/job" | head -1 |
	grep -q ',ranks,ranks_missing,rank_wall_min_ns,rank_wall_median_ns,rank_wall_max_ns$' && ok || bad "windows table columns"
# the 8-rank real job: one window of 8 ranks, whose path starts on the rank stragglers names
J=$(ls ../shared/traces/param__worker*.json 2>/dev/null)
if [ -n "$J" ]; then
	"$bin" critical-path --path --top 0 -q -d host --step 'ProfilerStep*' $J >"$tmp/p8.json" || bad "the 8-rank job"
	[ "$(jq -c '[.aggregate.windows, .windows[0].summary.ranks]' "$tmp/p8.json")" = "[1,8]" ] && ok || bad "8 ranks, one step"
	late=$("$bin" stragglers -q --by step --step 'ProfilerStep*' $J | jq -r '.[0].rank')
	[ "$(jq -r '.windows[0].path[0].track' "$tmp/p8.json" | cut -d: -f1)" = "rank $late" ] && ok ||
		bad "the path starts on $(jq -r '.windows[0].path[0].track' "$tmp/p8.json"), stragglers names rank $late"
fi
echo "job_steps: $pass passed, $fail failed"
[ "$fail" = 0 ]
