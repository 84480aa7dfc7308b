#!/bin/sh
# Loading an index file checks every span's and flow's references, also when
# the file's checksums are right (a buggy writer, an edited file). From
# version 4 those checks run inside the checksum pass, a chunk at a time;
# a span that straddles two 1 MiB chunks, the last span, a lane past the
# lane count and a flow's end are each caught, in version 4 and in the
# CRC-32 version 3, with the same message. A string table whose strings
# overlap, or that holds one twice, is refused too.
. tests/lib/preamble.sh
need_gen gtx_refs
py=python3
[ -x .venv/bin/python ] && py=.venv/bin/python
"$gen" --spans 30000 --seed 3 --sync-markers -o "$tmp/t.json" 2>/dev/null || { bad "gen_trace"; exit 1; }
"$bin" pack -q "$tmp/t.json" -o "$tmp/t.gtx" >/dev/null || { bad "pack"; exit 1; }
PYTHONPATH=tests/lib $py - "$tmp" <<'PY' || bad "writing the edited files"
import struct, sys
from gtx_file import read, write
d = sys.argv[1]
ver, secs = read(d + "/t.gtx")
SPANS, FLOWS, SPAN, FLOW = 4, 7, 48, 40
spans = [s for s in secs if s[0] == SPANS][0]
flows = [s for s in secs if s[0] == FLOWS][0]
n = spans[2]
assert n * SPAN > 1 << 20 and flows[2] > 0, "the trace is too small for the cases"
straddling = (1 << 20) // SPAN  # starts in the first chunk, ends in the second
cases = {
    "parent_straddling": (SPANS, straddling * SPAN + 28, "<I", n),
    "parent_last": (SPANS, (n - 1) * SPAN + 28, "<I", n + 7),
    "lane": (SPANS, 5 * SPAN + 32, "<I", 0xfffffff0),
    "name": (SPANS, 9 * SPAN + 16, "<I", 0xfffffff0),
    "flow_dst": (FLOWS, (flows[2] - 1) * FLOW + 4, "<I", n),
}
SYNCS = 30  # version 6 on: a version 3 file has no such section
old = [s for s in secs if s[0] != SYNCS]
for name, (sid, at, fmt, value) in cases.items():
    for version in (3, ver):
        edited = [list(s) for s in (old if version < 6 else secs)]
        for s in edited:
            if s[0] == sid:
                s[3] = bytearray(s[3])
                struct.pack_into(fmt, s[3], at, value)
        write("%s/%s.v%d.gtx" % (d, name, version), version, edited)
write(d + "/same.v3.gtx", 3, old)
# a sync args record (version 6) naming a span past the table
syncs = [s for s in secs if s[0] == SYNCS][0]
assert syncs[2] > 0, "the trace has no sync args"
edited = [list(s) for s in secs]
for s in edited:
    if s[0] == SYNCS:
        s[3] = bytearray(s[3])
        struct.pack_into("<I", s[3], 0, n)
write("%s/sync_span.v%d.gtx" % (d, ver), ver, edited)
# the string table: strings that overlap (as many offsets at the longest
# string as outgrow the data: every suffix of one long string would make
# the pool grow without bound), and two equal strings side by side
STR_OFFSETS, STR_DATA = 2, 3
offs = [s for s in secs if s[0] == STR_OFFSETS][0]
data = bytes([s for s in secs if s[0] == STR_DATA][0][3])
at = list(struct.unpack_from("<%dQ" % offs[2], offs[3]))
lens = [data.index(b"\0", a) - a for a in at]
longest = max(range(len(at)), key=lambda i: lens[i])
k = len(data) // (lens[longest] + 1) + 1
assert k <= len(at), "too few strings to outgrow the data"
over = [list(s) for s in secs]
for s in over:
    if s[0] == STR_OFFSETS:
        s[3] = bytearray(s[3])
        for i in range(k):
            struct.pack_into("<Q", s[3], 8 * i, at[longest])
write("%s/str_overlap.v%d.gtx" % (d, ver), ver, over)
pair = next((i, j) for i in range(len(at)) for j in range(i + 1, len(at)) if lens[i] == lens[j])
dup = [list(s) for s in secs]
for s in dup:
    if s[0] == STR_DATA:
        s[3] = bytearray(s[3])
        s[3][at[pair[1]]:at[pair[1]] + lens[pair[1]]] = data[at[pair[0]]:at[pair[0]] + lens[pair[0]]]
write("%s/str_duplicate.v%d.gtx" % (d, ver), ver, dup)
open(d + "/version", "w").write(str(ver))
PY
for f in "$tmp"/*.v*.gtx; do
	case "$f" in
	*/same.*)
		"$bin" info -q "$f" >/dev/null && ok || bad "an unedited version 3 copy does not load" ;;
	*/sync_*)
		"$bin" info -q "$f" >/dev/null 2>"$tmp/err"
		[ $? = 1 ] && grep -q "a sync args record refers past the spans" "$tmp/err" && ok ||
			bad "$(basename "$f"): $(cat "$tmp/err")" ;;
	*/str_overlap.*)
		"$bin" info -q "$f" >/dev/null 2>"$tmp/err"
		[ $? = 1 ] && grep -q "the string table's strings overlap" "$tmp/err" && ok ||
			bad "$(basename "$f"): $(cat "$tmp/err")" ;;
	*/str_duplicate.*)
		"$bin" info -q "$f" >/dev/null 2>"$tmp/err"
		[ $? = 1 ] && grep -q "the string table holds a duplicate" "$tmp/err" && ok ||
			bad "$(basename "$f"): $(cat "$tmp/err")" ;;
	*/flow_*)
		"$bin" info -q "$f" >/dev/null 2>"$tmp/err"
		[ $? = 1 ] && grep -q "a flow refers past its tables" "$tmp/err" && ok ||
			bad "$(basename "$f"): $(cat "$tmp/err")" ;;
	*)
		"$bin" info -q "$f" >/dev/null 2>"$tmp/err"
		[ $? = 1 ] && grep -q "a span refers past its tables" "$tmp/err" && ok ||
			bad "$(basename "$f"): $(cat "$tmp/err")" ;;
	esac
done
v=$(cat "$tmp/version")
[ -f "$tmp/parent_straddling.v$v.gtx" ] || bad "no version $v file"
"$bin" critical-path -q --model forest "$tmp/parent_straddling.v$v.gtx" >/dev/null 2>&1
[ $? = 1 ] && ok || bad "critical-path ran on an index with a span's parent past the span table"
echo "gtx_refs: $pass passed, $fail failed"
[ "$fail" = 0 ]
