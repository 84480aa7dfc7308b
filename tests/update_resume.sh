#!/bin/sh
# pack --update resumes the parse after the last packed event: the updated
# index file is byte-identical to a full pack of the grown trace, for
# traces grown in every way (tests/resume_cases.py), with one and several
# parsing threads, and for real traces cut at an event boundary. Where it
# cannot resume (gzip, a version 1 index, a rewritten last event) it says
# so and reads the whole trace again, still byte-identical.
. tests/lib/preamble.sh
traces=${GPUTRACE_TRACES:-../shared/traces}
# .venv: xxhash, to write version 4 section sums (scripts/install-deps)
py=python3
[ -x .venv/bin/python ] && py=.venv/bin/python
params="--batch-spans 4 --partition-batches 4 --fanout 2 --epoch-spans 64"

# check NAME OLD NEW RESUMED [pack options...]: packs OLD as the trace, grows
# it into NEW, updates, and compares with a full pack of NEW
check() {
	_name=$1 _old=$2 _new=$3 _want=$4
	shift 4
	cp "$_old" "$tmp/trace.json"
	# shellcheck disable=SC2086
	"$bin" pack "$@" $params "$tmp/trace.json" -o "$tmp/u.gtx" >/dev/null || { bad "$_name: pack old"; return; }
	cp "$_new" "$tmp/trace.json"
	"$bin" pack "$@" --update "$tmp/u.gtx" "$tmp/trace.json" >"$tmp/upd.json" 2>"$tmp/upd.err" ||
		{ bad "$_name: update: $(cat "$tmp/upd.err")"; return; }
	# shellcheck disable=SC2086
	"$bin" pack "$@" $params "$tmp/trace.json" -o "$tmp/f.gtx" >/dev/null || { bad "$_name: pack new"; return; }
	cmp -s "$tmp/u.gtx" "$tmp/f.gtx" && ok || bad "$_name: the updated index differs from a full pack"
	got=$(jq -r 'if .resumed then 1 else 0 end' "$tmp/upd.json")
	[ "$got" = "$_want" ] && ok || bad "$_name: resumed is $got, expected $_want"
	size=$(wc -c <"$tmp/trace.json")
	parsed=$(jq .parsed_bytes "$tmp/upd.json")
	if [ "$_want" = 1 ]; then
		[ "$parsed" -lt "$size" ] || [ "$size" -lt 4 ] && ok || bad "$_name: resumed but parsed $parsed of $size bytes"
	else
		[ "$parsed" = "$size" ] && ok || bad "$_name: parsed $parsed bytes, the trace has $size"
		grep -q "gputrace: reading all of" "$tmp/upd.err" && ok || bad "$_name: no notice for the full reread"
	fi
}

for seed in 1 2; do
	mkdir -p "$tmp/c$seed"
	$py tests/resume_cases.py gen "$tmp/c$seed" "$seed" || { bad "generating cases"; continue; }
	while read -r name want; do
		check "seed $seed $name" "$tmp/c$seed/$name.old.json" "$tmp/c$seed/$name.new.json" "$want"
	done <"$tmp/c$seed/cases.txt"
done
# the same growth parsed by one thread, and with flow parents off
for name in close_123 object_after_57 open_comma_200; do
	check "threads 1 $name" "$tmp/c1/$name.old.json" "$tmp/c1/$name.new.json" 1 --threads 1
	check "nesting $name" "$tmp/c1/$name.old.json" "$tmp/c1/$name.new.json" 1 --parents nesting
done
# several updates in a row, each resuming the last
c=$tmp/c2
cp "$c/open_comma_1.old.json" "$tmp/trace.json"
"$bin" pack $params "$tmp/trace.json" -o "$tmp/chain.gtx" >/dev/null
for k in 57 123 200 333; do
	cp "$c/open_comma_$k.old.json" "$tmp/trace.json"
	"$bin" pack -q --update "$tmp/chain.gtx" "$tmp/trace.json" | jq -e .resumed >/dev/null && ok ||
		bad "chained update to $k did not resume"
	"$bin" pack $params "$tmp/trace.json" -o "$tmp/f.gtx" >/dev/null
	cmp -s "$tmp/chain.gtx" "$tmp/f.gtx" && ok || bad "chained update to $k differs from a full pack"
done

# growing the events of an Object Format trace with keys after them changes
# its stable prefix: refused
cp "$tmp/c1/keys_after.old.json" "$tmp/trace.json"
"$bin" pack "$tmp/trace.json" -o "$tmp/x.gtx" >/dev/null
cp "$tmp/c1/keys_after.new.json" "$tmp/trace.json"
"$bin" pack -q --update "$tmp/x.gtx" "$tmp/trace.json" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "changed within its first [1-9]" "$tmp/err" && ok || bad "growth before trailing keys is not refused"
# a trace that changed before its stable prefix's end is still refused
cp "$c/close_123.new.json" "$tmp/trace.json"
"$bin" pack "$tmp/trace.json" -o "$tmp/x.gtx" >/dev/null
sed '0,/"x1"/s//"y1"/' "$c/close_123.new.json" >"$tmp/trace.json" # same length, one byte changed
"$bin" pack -q --update "$tmp/x.gtx" "$tmp/trace.json" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "changed within its first" "$tmp/err" && ok || bad "a changed trace is not refused"

# gzip input: no resume state; the update reads it all, with a notice
gzip -c "$c/close_57.old.json" >"$tmp/trace.json.gz"
"$bin" pack $params "$tmp/trace.json.gz" -o "$tmp/z.gtx" >/dev/null
gzip -c "$c/close_57.new.json" >"$tmp/trace.json.gz"
"$bin" pack --update "$tmp/z.gtx" "$tmp/trace.json.gz" >"$tmp/upd.json" 2>"$tmp/upd.err"
# a gzip stream's prefix changes as it grows: refused, or reread when it held
if grep -q "changed within its first" "$tmp/upd.err"; then ok; else
	grep -q "gputrace: reading all of.*compressed" "$tmp/upd.err" && ok || bad "gzip: no notice"
	"$bin" pack $params "$tmp/trace.json.gz" -o "$tmp/f.gtx" >/dev/null
	cmp -s "$tmp/z.gtx" "$tmp/f.gtx" && ok || bad "gzip update differs from a full pack"
fi
# the same gzip trace unchanged: a full reread with the notice, identical
"$bin" pack $params "$tmp/trace.json.gz" -o "$tmp/z.gtx" >/dev/null
cp "$tmp/z.gtx" "$tmp/z2.gtx"
"$bin" pack --update "$tmp/z2.gtx" "$tmp/trace.json.gz" >"$tmp/upd.json" 2>"$tmp/upd.err" || bad "gzip update failed"
jq -e '.resumed == false' "$tmp/upd.json" >/dev/null && ok || bad "gzip update resumed"
grep -q "gputrace: reading all of.*compressed" "$tmp/upd.err" && ok || bad "gzip: no notice"
cmp -s "$tmp/z.gtx" "$tmp/z2.gtx" && ok || bad "unchanged gzip update differs"

# a version 3 index (CRC-32 section checksums, packed by gputrace before
# XXH3 section sums; testdata/gtx): loads and verifies with its CRC-32s, reads
# as today's pack of its source does (version 5: section sums as version 4),
# and a corrupt byte is caught
"$bin" pack -q testdata/gtx/v1-source.json -o "$tmp/v4.gtx" >/dev/null
[ "$("$bin" verify --device host testdata/gtx/v3.gtx | jq -r '[.version, .ok, ([.checksums[].checksum_kind] | unique)[]] | join(" ")')" = "3 true crc32" ] &&
	ok || bad "a version 3 index does not verify with its CRC-32s"
[ "$("$bin" verify --device host "$tmp/v4.gtx" | jq -r '[.version, .ok, ([.checksums[] | .checksum | length] | unique)[]] | join(" ")')" = "6 true 16" ] &&
	ok || bad "a version 6 index does not list 64-bit section sums"
"$bin" spans -f csv testdata/gtx/v3.gtx >"$tmp/v3.csv" && "$bin" spans -f csv "$tmp/v4.gtx" >"$tmp/v4.csv" &&
	cmp -s "$tmp/v3.csv" "$tmp/v4.csv" && ok || bad "a version 3 index reads differently from a version 5 pack"
for f in testdata/gtx/v3.gtx "$tmp/v4.gtx"; do
	cp "$f" "$tmp/flip.gtx"
	# the last byte of the string data (a NUL, inside a section)
	at=$(jq -r '.checksums[] | select(.section == "string data") | .offset + .bytes - 1' \
		"$("$bin" verify --device host "$f" >"$tmp/flip.json"; echo "$tmp/flip.json")")
	printf 'x' | dd of="$tmp/flip.gtx" bs=1 seek="$at" conv=notrunc 2>/dev/null
	"$bin" info "$tmp/flip.gtx" >/dev/null 2>"$tmp/flip.err"
	[ $? = 1 ] && grep -q "checksum mismatch in section 'string data'" "$tmp/flip.err" && ok ||
		bad "a flipped byte in $f: $(cat "$tmp/flip.err")"
done

# a version 1 index (packed before resume state existed; testdata/gtx):
# loads, and --update rereads the trace into a version 2 file
"$bin" info testdata/gtx/v1.gtx >/dev/null && ok || bad "a version 1 index does not load"
"$bin" verify -q --device host testdata/gtx/v1.gtx >/dev/null && ok || bad "a version 1 index does not verify"
cp testdata/gtx/v1.gtx "$tmp/v1.gtx"
head -c -2 testdata/gtx/v1-source.json >"$tmp/trace.json"
printf ',\n{"ph":"X","name":"new","cat":"kernel","pid":2,"tid":7,"ts":400,"dur":5}]\n' >>"$tmp/trace.json"
"$bin" pack --update "$tmp/v1.gtx" "$tmp/trace.json" >"$tmp/upd.json" 2>"$tmp/upd.err" || bad "update of a version 1 index"
grep -q "gputrace: reading all of.*predates" "$tmp/upd.err" && ok || bad "version 1: no notice"
"$bin" pack "$tmp/trace.json" -o "$tmp/f.gtx" >/dev/null
cmp -s "$tmp/v1.gtx" "$tmp/f.gtx" && ok || bad "update of a version 1 index differs from a full pack"
# a version 3 index (resumable, but packed by the reading rules before
# version 5): --update rereads the whole trace, saying why
cp testdata/gtx/v3.gtx "$tmp/v3u.gtx"
"$bin" pack --update "$tmp/v3u.gtx" "$tmp/trace.json" >/dev/null 2>"$tmp/upd.err" || bad "update of a version 3 index"
grep -q "gputrace: reading all of.*earlier reading rules" "$tmp/upd.err" && ok || bad "version 3: no notice ($(cat "$tmp/upd.err"))"
cmp -s "$tmp/v3u.gtx" "$tmp/f.gtx" && ok || bad "update of a version 3 index differs from a full pack"

# a version 5 index (before the sync args; testdata/gtx): loads and reads
# as today's pack, and --update rereads the whole trace, saying why
"$bin" spans -f csv testdata/gtx/v5.gtx >"$tmp/v5.csv" && cmp -s "$tmp/v5.csv" "$tmp/v4.csv" && ok ||
	bad "a version 5 index reads differently from a version 6 pack"
cp testdata/gtx/v5.gtx "$tmp/v5u.gtx"
"$bin" pack --update "$tmp/v5u.gtx" "$tmp/trace.json" >/dev/null 2>"$tmp/upd.err" || bad "update of a version 5 index"
grep -q "gputrace: reading all of.*predates the sync args" "$tmp/upd.err" && ok || bad "version 5: no notice ($(cat "$tmp/upd.err"))"
cmp -s "$tmp/v5u.gtx" "$tmp/f.gtx" && ok || bad "update of a version 5 index differs from a full pack"

# real traces: cut after the Nth event (closers added back), pack, put the
# rest back, update
if [ -d "$traces" ]; then
	for t in catapult__big_trace.json catapult__flow.json catapult__main_thread_has_unclosed_slices.json \
		 catapult__nestable_async.json catapult__x_event_trace.json catapult__v8_runtime_call_stats.json \
		 hta__nccl_data.json.gz catapult__webview.json.gz; do
		[ -f "$traces/$t" ] || continue
		case $t in
		*.gz) gzip -dc "$traces/$t" >"$tmp/real.json" ;;
		*) cp "$traces/$t" "$tmp/real.json" ;;
		esac
		n=$($py tests/resume_cases.py count "$tmp/real.json") || { bad "count $t"; continue; }
		for k in 1 $((n / 2)) $((n * 9 / 10)) $n; do
			[ "$k" -ge 1 ] || continue
			$py tests/resume_cases.py split "$tmp/real.json" "$k" "$tmp/real.old.json"
			check "$t cut at $k of $n" "$tmp/real.old.json" "$tmp/real.json" 1
		done
		# an Array Format trace cut with its ']' dropped, as a live producer leaves it
		if $py tests/resume_cases.py split "$tmp/real.json" $(((n + 1) / 2)) "$tmp/real.old.json" open; then
			check "$t cut open at $(((n + 1) / 2)) of $n" "$tmp/real.old.json" "$tmp/real.json" 1
		fi
	done
fi

# strict readers: the resume sections are required in version 2, refused in
# version 1, cross-checked against the model, and their references checked
cp "$c/close_123.new.json" "$tmp/trace.json"
"$bin" pack "$tmp/trace.json" -o "$tmp/s.gtx" >/dev/null
PYTHONPATH=tests/lib $py - "$tmp" testdata/gtx/v1.gtx <<'PY'
import struct, sys
from gtx_file import read, write
d, v1 = sys.argv[1], sys.argv[2]
ver, secs = read(d + "/s.gtx")
write(d + "/same.gtx", ver, secs)  # gtx_file reproduces a packed file
write(d + "/no_resume.gtx", ver, [s for s in secs if s[0] < 25])
_, old = read(v1)
write(d + "/v1_extra.gtx", 1, old + [s for s in secs if s[0] == 25])
info = [s for s in secs if s[0] == 25][0]
bad = [list(s) for s in secs]
for s in bad:
    if s[0] == 25:
        s[3] = bytearray(s[3]); struct.pack_into("<Q", s[3], 8 * 9, 0)  # track count 0
write(d + "/bad_count.gtx", ver, bad)
bad = [list(s) for s in secs]
for s in bad:
    if s[0] == 26:
        s[3] = bytearray(s[3]); struct.pack_into("<I", s[3], 20, 0xfffffff0)  # a point's kind
write(d + "/bad_point.gtx", ver, bad)
PY
cmp -s "$tmp/s.gtx" "$tmp/same.gtx" && ok || bad "the test's .gtx writer does not reproduce a packed file"
"$bin" info "$tmp/no_resume.gtx" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "section 'resume state' is missing" "$tmp/err" && ok || bad "version 2 without resume sections: $(cat "$tmp/err")"
"$bin" info "$tmp/v1_extra.gtx" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "unknown or repeated section 25" "$tmp/err" && ok || bad "version 1 with a resume section: $(cat "$tmp/err")"
"$bin" info "$tmp/bad_count.gtx" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "resume state does not match" "$tmp/err" && ok || bad "resume counts not checked: $(cat "$tmp/err")"
"$bin" info "$tmp/bad_point.gtx" >/dev/null && ok || bad "a bad resume point stops the model from loading"
"$bin" pack -q --update "$tmp/bad_point.gtx" "$tmp/trace.json" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "resume flow point refers past its tables" "$tmp/err" && ok || bad "bad resume point: $(cat "$tmp/err")"

# fault walk over a resumed update: each allocation or write that fails
# exits 1 with one message line and leaves the index file as it was; past
# the last one the update gives the full pack's bytes
case "$bin" in
build-san*) fbin=build-san-faults/gputrace san=1 ;;
*) fbin=build-faults/gputrace san=0 ;;
esac
if sh scripts/sub-make FAULTS=1 SANITIZE=$san "$fbin" >/dev/null 2>&1; then
	cp "$c/close_123.old.json" "$tmp/trace.json"
	"$bin" pack $params "$tmp/trace.json" -o "$tmp/w.gtx" >/dev/null
	cp "$c/close_123.new.json" "$tmp/trace.json"
	"$bin" pack $params "$tmp/trace.json" -o "$tmp/ref.gtx" >/dev/null
	for site in alloc write; do
		cp "$tmp/w.gtx" "$tmp/t.gtx"
		rm -f "$tmp/counts"
		GPUTRACE_FAULT_COUNTS="$tmp/counts" GPUTRACE_FAULT="$site:999999999" \
			"$fbin" pack -q --update "$tmp/t.gtx" "$tmp/trace.json" >/dev/null 2>&1
		k=$(awk -v s="$site" '$1 == s { print $2 }' "$tmp/counts")
		[ -n "$k" ] || { bad "fault walk: no call count for $site"; continue; }
		n=1 walked=0
		while [ "$n" -le $((k + 1)) ]; do
			cp "$tmp/w.gtx" "$tmp/t.gtx"
			GPUTRACE_FAULT="$site:$n" "$fbin" pack -q --update "$tmp/t.gtx" "$tmp/trace.json" >"$tmp/out" 2>"$tmp/err"
			rc=$?
			if [ $rc = 0 ]; then
				cmp -s "$tmp/t.gtx" "$tmp/ref.gtx" || { bad "fault $site:$n: succeeded with other bytes"; break; }
			elif [ $rc = 1 ]; then
				[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q '^gputrace: ' "$tmp/err" ||
					{ bad "fault $site:$n: stderr $(head -3 "$tmp/err")"; break; }
				cmp -s "$tmp/t.gtx" "$tmp/w.gtx" || { bad "fault $site:$n: the index changed"; break; }
			else
				bad "fault $site:$n: exit $rc: $(head -5 "$tmp/err")"
				break
			fi
			walked=$((walked + 1))
			n=$((n + 1))
		done
		[ "$walked" = $((k + 1)) ] && ok
		[ "$rc" = 0 ] && ok || bad "fault $site:$((k + 1)) is past the last call yet failed: $(cat "$tmp/err")"
	done
else
	echo "update_resume: fault walk skipped: cannot build $fbin"
fi

echo "update_resume: $pass passed, $fail failed"
[ "$fail" = 0 ]
