#!/bin/sh
# Several traces as one distributed job: 8 generated ranks, one a straggler.
# The job's spans are the files' spans with their rank; stragglers names the
# late rank with exactly its delay, from the traces and from per-rank Arrow
# summaries alike; the causal path crosses into the late rank (the same on
# the host and the device); duplicate ranks fail; a truncated rank's extra
# collectives are counted, never paired; a messy rank's notice and --strict
# name its file; GNU parallel runs the per-rank step;
# the real 8-rank job in ../shared/traces reads as one job.
. tests/lib/preamble.sh
need_gen distributed
check() { python3 tests/distributed_check.py "$@" > "$tmp/check.out" 2>&1 && ok || { cat "$tmp/check.out"; bad "check $1"; }; }

N=8 R=5 DELAY=123457
mkdir -p "$tmp/job" "$tmp/big"
for r in 0 1 2 3 4 5 6 7; do
	"$gen" --spans 6000 --seed 11 --ranks $N --rank $r --straggler $R:$DELAY -o "$tmp/job/rank$r.json" 2>/dev/null \
		|| bad "gen_trace --rank $r"
	# a delay long enough that the late collective bounds its step
	"$gen" --spans 6000 --seed 11 --ranks $N --rank $r --straggler $R:30000000 -o "$tmp/big/rank$r.json.gz" 2>/dev/null \
		|| bad "gen_trace --rank $r (big delay)"
done

# one job: ranks from distributedInfo, per-rank counts
"$bin" info -q "$tmp/job" > "$tmp/info.json" || bad "info on a directory"
[ "$(jq -c '[.ranks[].rank]' "$tmp/info.json")" = "[0,1,2,3,4,5,6,7]" ] && ok || bad "info ranks: $(jq -c '[.ranks[].rank]' "$tmp/info.json")"
[ "$(jq '.world_size' "$tmp/info.json")" = 8 ] && ok || bad "info world_size"
[ "$(jq '[.ranks[].spans] | add' "$tmp/info.json")" = "$(jq '.spans' "$tmp/info.json")" ] && ok || bad "info: per-rank spans do not add up"

# the job's spans: the files' spans one after the other, plus rank
"$bin" spans -q -f ndjson "$tmp/job" > "$tmp/job.ndjson" || bad "spans on a directory"
singles=""
for r in 0 1 2 3 4 5 6 7; do
	"$bin" spans -q -f ndjson "$tmp/job/rank$r.json" > "$tmp/s$r.ndjson" || bad "spans rank $r"
	singles="$singles $tmp/s$r.ndjson"
done
# shellcheck disable=SC2086
check concat "$tmp/job.ndjson" $singles
# files in any order, -j 1 or more: the same job
# shellcheck disable=SC2046
"$bin" spans -q -f ndjson -j 1 $(ls "$tmp"/job/*.json | sort -r) | cmp -s - "$tmp/job.ndjson" && ok || bad "spans: file order or -j changed the job"
# index files in the job, alone or beside traces (the first, whose tables
# grow, one too): the same job
mkdir -p "$tmp/gtx"
for r in 0 1 2 3 4 5 6 7; do
	"$bin" pack -q -o "$tmp/gtx/rank$r.gtx" "$tmp/job/rank$r.json" > /dev/null || bad "pack rank $r"
done
"$bin" spans -q -f ndjson "$tmp"/gtx/*.gtx | cmp -s - "$tmp/job.ndjson" && ok || bad "spans: a job of index files"
"$bin" spans -q -f ndjson "$tmp/gtx/rank0.gtx" "$tmp/job/rank1.json" "$tmp/gtx/rank2.gtx" "$tmp"/job/rank[3-7].json |
	cmp -s - "$tmp/job.ndjson" && ok || bad "spans: a job of index files and traces"

# the straggler, exactly
"$bin" stragglers -q "$tmp/job" > "$tmp/st.json" || bad "stragglers"
"$bin" stragglers -q --by rank "$tmp/job" > "$tmp/st_rank.json" || bad "stragglers --by rank"
check straggler "$tmp/st.json" "$tmp/st_rank.json" $R $DELAY $N
# per step: the straggler's step, and only it, names rank R with exactly DELAY
"$bin" stragglers -q --step 'ProfilerStep#*' --by step -f csv "$tmp/job" > "$tmp/steps.csv" || bad "stragglers --by step"
[ "$(awk -F, 'NR > 1 && $5 != 0 { print $1 ":" $3 ":" $4 }' "$tmp/steps.csv")" = "1:$R:123.457" ] \
	&& ok || bad "stragglers --by step: $(cat "$tmp/steps.csv" | head -5)"
for f in csv ndjson; do
	"$bin" stragglers -q -f $f "$tmp/job" > "$tmp/st.$f" && [ -s "$tmp/st.$f" ] && ok || bad "stragglers -f $f"
done

# the same from per-rank Arrow summaries (the map step, then the reduce)
for r in 0 1 2 3 4 5 6 7; do
	"$bin" collectives -q "$tmp/job/rank$r.json" -f arrow -o "$tmp/rank$r.arrow" || bad "collectives rank $r"
done
"$bin" stragglers -q -f csv "$tmp"/rank*.arrow > "$tmp/st_arrow.csv" || bad "stragglers on Arrow summaries"
cmp -s "$tmp/st.csv" "$tmp/st_arrow.csv" && ok || bad "stragglers: Arrow summaries differ from the traces"
"$bin" stragglers -q -f csv --by rank "$tmp"/rank*.arrow | cmp -s - "$(
	"$bin" stragglers -q -f csv --by rank "$tmp/job" > "$tmp/r.csv"; echo "$tmp/r.csv")" && ok || bad "stragglers --by rank: Arrow differs"
# a summary of a rank given twice, or an Arrow file that is not a summary: exit 1
"$bin" stragglers -q "$tmp/rank0.arrow" "$tmp/rank0.arrow" > /dev/null 2>&1; [ $? = 1 ] && ok || bad "a rank summarised twice must exit 1"
"$bin" spans -q -f arrow -o "$tmp/spans.arrow" "$tmp/job/rank0.json" && "$bin" stragglers -q "$tmp/spans.arrow" > /dev/null 2> "$tmp/err"
[ $? = 1 ] && grep -q "not a gputrace collectives summary" "$tmp/err" && ok || bad "a spans table read as a summary"

# GNU parallel: the per-rank map as a batch job over the directory
if command -v parallel > /dev/null 2>&1; then
	mkdir -p "$tmp/par"
	ls "$tmp"/job/*.json | parallel -j 2 --halt now,fail=1 "$bin" collectives -q {} -f arrow -o "$tmp/par/{/.}.arrow" \
		&& ok || bad "GNU parallel map"
	"$bin" stragglers -q -f csv "$tmp"/par/*.arrow | cmp -s - "$tmp/st.csv" && ok || bad "GNU parallel: the reduce differs"
	# the summaries in DuckDB (docs/scale-out.md): the same late rank and delay
	if .venv/bin/python -c 'import duckdb' 2> /dev/null; then
		.venv/bin/python scripts/scale-out/duckdb-query.py "$tmp/par" > "$tmp/duck.txt" 2>&1 \
			&& grep -E "│ +1 │ +$R │ +$DELAY │" "$tmp/duck.txt" > /dev/null && ok || { cat "$tmp/duck.txt"; bad "DuckDB query"; }
	fi
else
	echo "distributed: GNU parallel is not installed (scripts/install-deps installs it); its check is skipped"
fi

# the causal path crosses into the late rank, the same bytes on host and device
"$bin" spans -q -f ndjson "$tmp/big" > "$tmp/big.ndjson" || bad "spans big"
win=$(python3 tests/distributed_check.py window "$tmp/big.ndjson" 0 2) || bad "window"
"$bin" critical-path --path --top 0 -q -d host --window "$win" "$tmp/big" > "$tmp/cp_host.json" || bad "critical-path host"
check crosses "$tmp/cp_host.json" "$tmp/big.ndjson" $R
ce=$(jq '.windows[0].summary.edges.collective' "$tmp/cp_host.json")
[ "$ce" -gt 0 ] && [ $((ce % (N * (N - 1)))) = 0 ] && ok || bad "collective edges: $ce, not N(N-1) per collective"
if "$bin" devices > /dev/null 2>&1; then
	"$bin" critical-path --path --top 0 -q --window "$win" --rows "$tmp/big" | jq -S 'del(.device)' > "$tmp/cp_dev.json" || bad "critical-path device"
	"$bin" critical-path --path --top 0 -q -d host --window "$win" --rows "$tmp/big" | jq -S 'del(.device)' | cmp -s - "$tmp/cp_dev.json" \
		&& ok || bad "critical-path: host and device differ on a job"
fi

# the viewport commands read a job too: its lanes, rank after rank
"$bin" render -q -d host "$tmp/job" -o "$tmp/job.svg" && grep -q "<svg" "$tmp/job.svg" && ok || bad "render a job"
lanes=$("$bin" info -q "$tmp/job" | jq .lanes)
"$bin" query -q -d host "$tmp/job" --time 0:1s --lanes "$((lanes - 1)):$((lanes - 1))" -f csv > "$tmp/q.csv" && [ "$(wc -l < "$tmp/q.csv")" -gt 1 ] \
	&& ok || bad "query the last rank's last lane of a job"

# two files of one rank: exit 1, one line
cp "$tmp/job/rank3.json" "$tmp/dup.json"
"$bin" info -q "$tmp/job/rank3.json" "$tmp/dup.json" > /dev/null 2> "$tmp/err"
[ $? = 1 ] && grep -q "both are rank 3" "$tmp/err" && [ "$(wc -l < "$tmp/err")" = 1 ] && ok || bad "duplicate rank"

# a messy rank (cut short; an event with a negative dur): one notice line
# naming its file, -q silences it, --strict exits 4 naming the file and
# writes nothing
mkdir -p "$tmp/cut" "$tmp/neg"
cp "$tmp"/job/rank*.json "$tmp/cut/"
cp "$tmp"/job/rank*.json "$tmp/neg/"
head -c $(($(wc -c < "$tmp/job/rank2.json") / 2)) "$tmp/job/rank2.json" > "$tmp/cut/rank2.json"
awk '!done && sub(/"dur": /, "\"dur\": -") { done = 1 } { print }' "$tmp/job/rank4.json" > "$tmp/neg/rank4.json"
"$bin" info "$tmp/cut/rank2.json" > /dev/null 2> "$tmp/err1"
at=$(sed -n 's/.*cut short at byte \([0-9]*\);.*/\1/p' "$tmp/err1")
for c in "cut rank2 the input is cut short at byte $at;" "neg rank4 1 event skipped (negative_dur 1);"; do
	# shellcheck disable=SC2086
	set -- $c
	d=$1 f=$2
	shift 2
	"$bin" spans -f ndjson "$tmp/$d" > "$tmp/out" 2> "$tmp/err"
	[ $? = 0 ] && [ -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -qF "gputrace: $tmp/$d/$f.json: $*" "$tmp/err" \
		&& ok || bad "$d: the notice ($(cat "$tmp/err"))"
	"$bin" spans -q -f ndjson "$tmp/$d" > /dev/null 2> "$tmp/err"
	[ $? = 0 ] && [ ! -s "$tmp/err" ] && ok || bad "$d: -q must silence the notice"
	"$bin" spans -q --strict -f ndjson "$tmp/$d" > "$tmp/out" 2> "$tmp/err"
	[ $? = 4 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] \
		&& grep -q "^gputrace: $tmp/$d/$f.json: the trace has [a-z_]* warnings and --strict was given$" "$tmp/err" \
		&& ok || bad "$d: --strict must exit 4 naming $f ($(cat "$tmp/err"))"
done
"$bin" info -q --strict "$tmp/job" > /dev/null && ok || bad "--strict on a clean job must exit 0"
# where: each rank lists its own examples (offsets in its file); the job's
# name the rank, here rank 4's negative dur, at the offset info reads alone
one=$("$bin" info -q "$tmp/neg/rank4.json" | jq -c '.warning_examples.negative_dur[0] | [.offset, .event]')
"$bin" info -q "$tmp/neg" > "$tmp/info.json"
[ "$(jq -c '.warning_examples.negative_dur | map([.rank, .offset, .event])' "$tmp/info.json")" = \
	"[[4,$(echo "$one" | tr -d '[]')]]" ] &&
	[ "$(jq -c '.ranks[] | select(.rank == 4) | .warning_examples.negative_dur[0] | [.offset, .event]' \
		"$tmp/info.json")" = "$one" ] &&
	[ "$(jq '[.ranks[] | select(.rank != 4) | .warning_examples | length] | add' "$tmp/info.json")" = 0 ] &&
	ok || bad "a job's warning examples must name rank 4 ($(jq -c .warning_examples "$tmp/info.json"))"

# a truncated rank: its missing collectives leave the others unmatched, counted
mkdir -p "$tmp/trunc"
cp "$tmp"/job/rank*.json "$tmp/trunc/"
"$gen" --spans 3000 --seed 11 --ranks $N --rank 2 -o "$tmp/trunc/rank2.json" 2>/dev/null
"$bin" stragglers "$tmp/trunc" > "$tmp/tr.json" 2> "$tmp/err" || bad "stragglers on a truncated job"
m2=$(jq '[.[]] | length' "$tmp/tr.json"); c2=$("$bin" collectives -q -f ndjson "$tmp/trunc/rank2.json" | wc -l)
call=$("$bin" collectives -q -f ndjson "$tmp/trunc" | wc -l)
[ "$m2" = "$c2" ] && ok || bad "truncated: $m2 matched collectives, rank 2 has $c2"
grep -q "unmatched_collectives: $((call - N * c2)) " "$tmp/err" && ok || bad "truncated: unmatched count ($(cat "$tmp/err"))"
"$bin" stragglers -q --strict "$tmp/trunc" > /dev/null; [ $? = 4 ] && ok || bad "--strict with unmatched collectives must exit 4"

# the real multi-rank job: 8 ranks of one DLRM step (param's dlrm_kineto)
real=../shared/traces
if ls $real/param__worker*_step_12.*.json > /dev/null 2>&1; then
	# shellcheck disable=SC2046
	"$bin" info -q $(ls $real/param__worker*_step_12.*.json) > "$tmp/real.json" || bad "info on the real job"
	[ "$(jq -c '[.ranks[].rank]' "$tmp/real.json")" = "[0,1,2,3,4,5,6,7]" ] && ok || bad "real job ranks"
	[ "$(jq '.world_size' "$tmp/real.json")" = 8 ] && ok || bad "real job world_size"
	# shellcheck disable=SC2046
	"$bin" stragglers $(ls $real/param__worker*_step_12.*.json) > "$tmp/real_st.json" 2> "$tmp/err" || bad "stragglers on the real job"
	[ "$(jq length "$tmp/real_st.json")" -gt 0 ] && ! grep -q unmatched "$tmp/err" && ok || bad "real job: no matched collectives"
fi

echo "distributed: $pass passed, $fail failed"
[ "$fail" = 0 ]
