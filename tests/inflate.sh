#!/bin/sh
# gzip through ISA-L (the default), through zlib (GPUTRACE_INFLATE=zlib) and in
# pieces on threads (GPUTRACE_INFLATE=pieces, small pieces through
# GPUTRACE_GZIP_PIECE) gives the same bytes (man gputrace: ENVIRONMENT): every
# shared .gz trace and the plain twin of each give identical span tables;
# concatenated members, a stream cut short and a corrupt one read alike every
# way; a bad value is a usage error.
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
		# pieces of 300 bytes (most hold no block start: empty pieces) and 64 KiB
		for p in 300 65536; do
			GPUTRACE_GZIP_PIECE=$p GPUTRACE_INFLATE=pieces spans -j2 "$f" | sed 1d >"$tmp/pieces.csv"
			cmp -s "$tmp/pieces.csv" "$tmp/plain.csv" && ok || bad "$(basename "$f") in pieces of $p differs from its plain twin"
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
# two large members (the pieces read the first, one thread the rest)
cat "$tmp/g.gz" "$tmp/g.gz" >"$tmp/two.gz"
# the member followed by bytes that are no member
cp "$tmp/g.gz" "$tmp/junk.gz" && printf 'junk after the member' >>"$tmp/junk.gz"
# a wrong CRC-32 in the trailer
cp "$tmp/g.gz" "$tmp/crc.gz"
printf '\000\000\000\000' | dd of="$tmp/crc.gz" bs=1 seek=$((size - 8)) conv=notrunc 2>/dev/null
export GPUTRACE_GZIP_PIECE=4096
for w in isal zlib pieces serial; do
	[ "$(GPUTRACE_INFLATE=$w "$bin" info -j2 "$tmp/cat.gz" | jq .spans)" = 2 ] && ok || bad "$w: concatenated members"
	for f in cut two junk crc bad; do
		GPUTRACE_INFLATE=$w "$bin" info -j2 "$tmp/$f.gz" >"$tmp/$f.$w" 2>&1
		echo $? >>"$tmp/$f.$w"
	done
	grep -q "corrupt gzip data" "$tmp/bad.$w" && [ "$(tail -1 "$tmp/bad.$w")" = 1 ] && ok || bad "$w: a corrupt stream: $(cat "$tmp/bad.$w")"
done
for f in cut two junk crc bad; do
	cmp -s "$tmp/$f.isal" "$tmp/$f.zlib" && ok || bad "$f.gz reads differently through isal and zlib"
	cmp -s "$tmp/$f.isal" "$tmp/$f.pieces" && ok || bad "$f.gz reads differently through isal and in pieces: $(diff "$tmp/$f.isal" "$tmp/$f.pieces" | head -5)"
	cmp -s "$tmp/$f.isal" "$tmp/$f.serial" && ok || bad "$f.gz reads differently through isal and serial"
done
unset GPUTRACE_GZIP_PIECE
GPUTRACE_INFLATE=fast "$bin" info "$tmp/cat.gz" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "GPUTRACE_INFLATE is isal, pieces, serial or zlib" "$tmp/err" && ok || bad "GPUTRACE_INFLATE=fast: $(cat "$tmp/err")"
echo "inflate: $pass passed, $fail failed"
[ "$fail" = 0 ]
