#!/bin/sh
# A zstd file of several frames decodes them on threads (src/ingest/
# zstd_frames.c) and reads exactly as the one-thread decoder (-j1) and as
# the plain JSON: pzstd's output (a skippable frame before each frame),
# frames concatenated, many small frames; a file cut inside a frame keeps
# what came through and warns alike; a corrupt frame in the middle fails
# with the same line (located where its frame starts, in decoded bytes), also
# for bytes changed inside frames and through a pipe;
# a decompression bomb is refused both ways.
. tests/lib/preamble.sh
need_gen zstd_frames
command -v zstd >/dev/null && command -v pzstd >/dev/null || { echo "zstd_frames: zstd and pzstd are needed"; exit 1; }
"$gen" --spans 200000 --seed 7 -o "$tmp/g.json" >/dev/null 2>&1 || bad "gen_trace"
spans() { "$bin" spans -q -f csv "$@" 2>&1; }
spans "$tmp/g.json" >"$tmp/plain.csv"
pzstd -q -p 2 "$tmp/g.json" -o "$tmp/p.zst"
mkdir "$tmp/parts"
split -b 2000000 "$tmp/g.json" "$tmp/parts/a."
for f in "$tmp"/parts/a.*; do zstd -q -c "$f"; done >"$tmp/cat.zst"
rm "$tmp"/parts/a.*
split -b 150000 "$tmp/g.json" "$tmp/parts/b."
for f in "$tmp"/parts/b.*; do zstd -q -3 -c "$f"; done >"$tmp/small.zst"
rm -r "$tmp/parts"
for f in p cat small; do
	[ "$(wc -c <"$tmp/$f.zst")" -gt 3000000 ] || bad "$f.zst is too small to be read on threads"
	for j in 1 2 4; do
		spans -j$j "$tmp/$f.zst" | cmp -s - "$tmp/plain.csv" && ok || bad "$f.zst -j$j differs from the plain JSON"
	done
done
# cut inside a frame past the middle: the same spans and warnings as -j1
size=$(wc -c <"$tmp/cat.zst")
head -c $((size * 2 / 3)) "$tmp/cat.zst" >"$tmp/cut.zst"
"$bin" info -j1 "$tmp/cut.zst" >"$tmp/cut1" 2>&1; echo $? >>"$tmp/cut1"
"$bin" info -j4 "$tmp/cut.zst" >"$tmp/cut4" 2>&1; echo $? >>"$tmp/cut4"
grep -q 'cut short' "$tmp/cut1" && cmp -s "$tmp/cut1" "$tmp/cut4" && ok || bad "a cut file: $(diff "$tmp/cut1" "$tmp/cut4" | head -5)"
# a corrupt byte in a frame past the middle (a frame's header: the third
# frame's magic number, so that the error is the frame's, not a checksum's)
off=$(python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
i = d.find(b"\x28\xb5\x2f\xfd", len(d) // 2)
print(i)' "$tmp/cat.zst")
cp "$tmp/cat.zst" "$tmp/bad.zst"
printf '\000' | dd of="$tmp/bad.zst" bs=1 seek="$off" conv=notrunc 2>/dev/null
"$bin" info -q -j1 "$tmp/bad.zst" >/dev/null 2>"$tmp/bad1"; s1=$?
"$bin" info -q -j4 "$tmp/bad.zst" >/dev/null 2>"$tmp/bad4"; s4=$?
[ $s1 = 1 ] && [ $s4 = 1 ] && grep -q 'corrupt zstd data' "$tmp/bad1" && cmp -s "$tmp/bad1" "$tmp/bad4" && ok ||
	bad "a corrupt frame ($s1, $s4): $(cat "$tmp/bad1" "$tmp/bad4")"
# corrupt bytes inside frames (a checksum or a block's data): the same line
# with 1 and 4 threads and through a pipe, located at the frame's start
for at in 7 31 52 68 89; do
	cp "$tmp/cat.zst" "$tmp/flip.zst"
	printf '\125' | dd of="$tmp/flip.zst" bs=1 seek=$((size * at / 100)) conv=notrunc 2>/dev/null
	"$bin" info -q -j1 "$tmp/flip.zst" >/dev/null 2>"$tmp/f1"; echo $? >>"$tmp/f1"
	"$bin" info -q -j4 "$tmp/flip.zst" >/dev/null 2>"$tmp/f4"; echo $? >>"$tmp/f4"
	"$bin" info -q -j1 - <"$tmp/flip.zst" >/dev/null 2>"$tmp/fp"; echo $? >>"$tmp/fp"
	sed -i 's|<stdin>|'"$tmp/flip.zst"'|' "$tmp/fp"
	cmp -s "$tmp/f1" "$tmp/f4" && cmp -s "$tmp/f1" "$tmp/fp" && ok ||
		bad "a byte changed at $at%: $(cat "$tmp/f1" "$tmp/f4" "$tmp/fp")"
done
# the corrupt offset counts the decoded bytes of the frames before it (the
# frames before the cut are 2,000,000 bytes each)
grep -q "byte $((2000000 * $(head -c "$off" "$tmp/cat.zst" | zstd -dc 2>/dev/null | wc -c) / 2000000)):" "$tmp/bad1" &&
	ok || bad "the corrupt frame's offset: $(cat "$tmp/bad1")"
# past the cap on expansion (the trace expands about tenfold)
for j in 1 4; do
	"$bin" info -q -j$j --max-expansion 3 "$tmp/cat.zst" >/dev/null 2>"$tmp/e"
	[ $? = 1 ] && grep -q 'decompression bomb' "$tmp/e" && ok || bad "bomb -j$j: $(cat "$tmp/e")"
done
# the cap is the whole file's, as with one thread: a frame of one event
# repeated (over 10,000 times smaller compressed) after a varied one reads
python3 -c '
import random, sys
r = random.Random(3)
with open(sys.argv[1], "w") as f:
    f.write("[")
    for i in range(200000):
        f.write("{\"ph\":\"X\",\"name\":\"k%x\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d},"
                % (r.getrandbits(64), r.randrange(9), i * 10, r.randrange(9)))
with open(sys.argv[2], "w") as f:
    f.write("{\"ph\":\"i\",\"name\":\"same\",\"pid\":1,\"tid\":1,\"ts\":5}," * 2000000)
    f.write("{\"ph\":\"i\",\"name\":\"last\",\"pid\":1,\"tid\":1,\"ts\":6}]")
' "$tmp/varied.part" "$tmp/same.part"
{ zstd -q -c "$tmp/varied.part"; zstd -q -19 -c "$tmp/same.part"; } >"$tmp/mixed.zst"
n1=$("$bin" info -q -j1 "$tmp/mixed.zst" 2>&1 | jq .spans)
n4=$("$bin" info -q -j4 "$tmp/mixed.zst" 2>&1 | jq .spans)
[ "$n1" = 2200001 ] && [ "$n4" = "$n1" ] && ok || bad "a frame far smaller than the rest: -j1 $n1, -j4 $n4"
echo "zstd_frames: $pass passed, $fail failed"
[ "$fail" = 0 ]
