#!/bin/sh
# gzip through ISA-L (the default) and through zlib (GPUTRACE_INFLATE=zlib)
# gives the same bytes (man gputrace: ENVIRONMENT): every shared .gz trace and
# the plain twin of each give identical span tables; concatenated members, a
# stream cut short and a corrupt one read alike both ways; a bad value is a
# usage error.
. tests/lib/preamble.sh
traces=../shared/traces
spans() { "$bin" spans -q -f csv "$@" 2>&1; }
if [ -d "$traces" ]; then
	for f in "$traces"/*.gz; do
		gzip -dc "$f" >"$tmp/plain.json" 2>/dev/null || continue
		spans "$tmp/plain.json" | sed 1d >"$tmp/plain.csv"
		for w in isal zlib; do
			GPUTRACE_INFLATE=$w spans "$f" | sed 1d >"$tmp/$w.csv"
			cmp -s "$tmp/$w.csv" "$tmp/plain.csv" && ok || bad "$(basename "$f") through $w differs from its plain twin"
		done
	done
fi
# concatenated members; a member cut in the middle (kept: what came through)
printf '[{"ph":"X","name":"a","pid":1,"ts":1,"dur":1},' | gzip -c >"$tmp/cat.gz"
printf '{"ph":"X","name":"b","pid":1,"ts":2,"dur":1}]' | gzip -c >>"$tmp/cat.gz"
need_gen inflate
"$gen" --events 20000 --seed 5 -o "$tmp/g.json" >/dev/null 2>&1 && gzip -9 -c "$tmp/g.json" >"$tmp/g.gz"
size=$(wc -c <"$tmp/g.gz")
head -c $((size / 2)) "$tmp/g.gz" >"$tmp/cut.gz"
# a corrupt byte past the header
cp "$tmp/g.gz" "$tmp/bad.gz"
printf '\377\377\377\377' | dd of="$tmp/bad.gz" bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
for w in isal zlib; do
	[ "$(GPUTRACE_INFLATE=$w "$bin" info "$tmp/cat.gz" | jq .spans)" = 2 ] && ok || bad "$w: concatenated members"
	GPUTRACE_INFLATE=$w "$bin" info "$tmp/cut.gz" >"$tmp/cut.$w" 2>/dev/null
	echo $? >>"$tmp/cut.$w"
	GPUTRACE_INFLATE=$w "$bin" info -q "$tmp/bad.gz" >/dev/null 2>"$tmp/bad.$w"
	[ $? = 1 ] && grep -q "corrupt gzip data" "$tmp/bad.$w" && ok || bad "$w: a corrupt stream: $(cat "$tmp/bad.$w")"
done
cmp -s "$tmp/cut.isal" "$tmp/cut.zlib" && ok || bad "a stream cut short reads differently through isal and zlib"
GPUTRACE_INFLATE=fast "$bin" info "$tmp/cat.gz" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "GPUTRACE_INFLATE is isal or zlib" "$tmp/err" && ok || bad "GPUTRACE_INFLATE=fast: $(cat "$tmp/err")"
echo "inflate: $pass passed, $fail failed"
[ "$fail" = 0 ]
