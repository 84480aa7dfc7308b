#!/bin/sh
# A streamed input (a pipe, .json.gz) on threads reads each window's
# successor ahead while the workers parse it (ingest.c: stream_ahead). With
# tiny pieces (GPUTRACE_INGEST_PIECE) so that every trace makes many windows,
# the span tables through a pipe and from a .json.gz on 3 threads are those
# of one thread reading the file, for every shared trace and for traces made
# to stress the edges: end cuts inside nested arrays of objects (wrong
# guesses), an event larger than the window (the window grows while bytes
# read ahead wait), an array without its ']' whose last event holds a wrong
# guess, a syntax error in plain text through a pipe, and corrupt streams
# whose failure the read ahead meets (the same error as one thread's, and
# no output).
. tests/lib/preamble.sh
traces=../shared/traces
spans() { "$bin" spans -q -f csv "$@" 2>&1; echo "exit $?"; }
# an error message without its "gputrace: NAME:" start, to compare one
# thread's read of the file with a pipe's (whose name differs)
unnamed_error() { sed 's/^gputrace: [^:]*://' "$1"; }
# same NAME FILE: one thread from the file against 3 threads through a pipe
# and, for a .gz, from the file
same() {
	spans -j1 "$2" >"$tmp/ref"
	cat "$2" | GPUTRACE_INGEST_PIECE=2048 spans -j3 - >"$tmp/pipe" # a pipe: a file on stdin is mapped
	cmp -s "$tmp/ref" "$tmp/pipe" && ok || bad "$1 through a pipe differs from one thread's read"
	case $2 in *.gz)
		GPUTRACE_INGEST_PIECE=2048 spans -j3 "$2" >"$tmp/gz"
		cmp -s "$tmp/ref" "$tmp/gz" && ok || bad "$1 read from its .gz on threads differs" ;;
	esac
}
if [ -d "$traces" ]; then
	for f in "$traces"/*.json "$traces"/*.gz; do
		same "$(basename "$f")" "$f"
	done
fi

# nested arrays of objects: "}, {" inside events, where cuts guess wrong
{
	printf '{"traceEvents": ['
	i=0
	while [ $i -lt 400 ]; do
		printf '{"ph":"X","name":"op%d","pid":1,"tid":%d,"ts":%d,"dur":5,"args":{"l":[' $i $((i % 3)) $((i * 10))
		j=0
		while [ $j -lt 40 ]; do printf '{"k": %d}, ' $j; j=$((j + 1)); done
		printf '{"k": -1}]}},\n'
		i=$((i + 1))
	done
	printf '{"ph":"X","name":"last","pid":1,"tid":0,"ts":9000,"dur":1}]}'
} >"$tmp/nested.json"
gzip -c "$tmp/nested.json" >"$tmp/nested.json.gz"
same "nested arrays" "$tmp/nested.json"
same "nested arrays" "$tmp/nested.json.gz"

# an event of 300 KB among small ones: larger than the 24 KiB window
{
	printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},'
	printf '{"ph":"X","name":"big","pid":1,"tid":1,"ts":2,"dur":1,"args":{"s":"'
	head -c 300000 /dev/zero | tr '\0' x
	printf '"}},'
	i=0
	while [ $i -lt 2000 ]; do
		printf '{"ph":"X","name":"e%d","pid":1,"tid":2,"ts":%d,"dur":1},\n' $((i % 7)) $((i + 10))
		i=$((i + 1))
	done
	printf '{"ph":"X","name":"z","pid":1,"tid":1,"ts":9,"dur":1}]'
} >"$tmp/big.json"
gzip -c "$tmp/big.json" >"$tmp/big.json.gz"
same "an event larger than the window" "$tmp/big.json"
same "an event larger than the window" "$tmp/big.json.gz"

# an array without its ']' whose last event holds "}, {": a cut guessed
# inside that event, at the input's end, must not stitch the piece after it
# (its events were counted twice: "unexpected data after the end")
{
	printf '['
	i=0
	while [ $i -lt 300 ]; do
		printf '{"ph":"X","name":"e%d","pid":1,"tid":1,"ts":%d,"dur":1},\n' $((i % 5)) $((i * 10))
		i=$((i + 1))
	done
	printf '{"ph":"X","name":"last","pid":1,"tid":1,"ts":9000,"dur":1,"args":{"l":[{"a":1}, {"b":2}, {"c":3}]}}\n'
} >"$tmp/open.json"
for p in 16 64 256; do
	spans -j1 "$tmp/open.json" >"$tmp/ref"
	GPUTRACE_INGEST_PIECE=$p spans -j2 "$tmp/open.json" >"$tmp/got"
	cmp -s "$tmp/ref" "$tmp/got" && ok || bad "no ']', a cut inside the last event, pieces of $p bytes: $(tail -1 "$tmp/got")"
done

# a syntax error deep in plain text through a pipe: one thread's error
sed 's/"name":"op333"/"name" "op333"/' "$tmp/nested.json" >"$tmp/syntax.json"
"$bin" info -q -j1 "$tmp/syntax.json" >/dev/null 2>"$tmp/err1"
cat "$tmp/syntax.json" | GPUTRACE_INGEST_PIECE=2048 "$bin" info -q -j3 - >/dev/null 2>"$tmp/err3"
grep -q "expected" "$tmp/err1" && [ "$(unnamed_error "$tmp/err1")" = "$(unnamed_error "$tmp/err3")" ] && ok ||
	bad "a syntax error through a pipe on threads: $(cat "$tmp/err3") (one thread: $(cat "$tmp/err1"))"

# corrupt streams, met by a read ahead many windows in: garbage that
# decodes until the trailer's check fails (the parse fails first, and the
# stream's own error is looked for past it), and a bad member header in the
# middle (the read ahead fails where the refill would have)
need_gen stream_ahead
"$gen" --events 20000 --seed 5 -o "$tmp/g.json" >/dev/null 2>&1
same "a generated trace" "$tmp/g.json"
gzip -9 -c "$tmp/g.json" >"$tmp/crc.gz"
size=$(wc -c <"$tmp/crc.gz")
printf '\377\377\377\377' | dd of="$tmp/crc.gz" bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
{
	head -c 3000000 "$tmp/g.json" | gzip -c
	printf '\037\213\010\340\0\0\0\0\0\377'
	tail -c +3000001 "$tmp/g.json" | gzip -c
} >"$tmp/header.gz"
for c in "crc:incorrect data check" "header:invalid block type"; do
	name=${c%%:*} want=${c#*:}
	"$bin" info -q -j1 "$tmp/$name.gz" >/dev/null 2>"$tmp/err1"
	rc1=$?
	cat "$tmp/$name.gz" | { GPUTRACE_INGEST_PIECE=2048 "$bin" info -q -j3 -o "$tmp/out.json" - 2>"$tmp/err3"; echo $? >"$tmp/rc3"; }
	rc3=$(cat "$tmp/rc3")
	[ $rc1 = 1 ] && grep -q "$want" "$tmp/err1" && ok || bad "$name: one thread: $(cat "$tmp/err1")"
	# the same message but for the file's name
	[ $rc3 = $rc1 ] && [ "$(unnamed_error "$tmp/err1")" = "$(unnamed_error "$tmp/err3")" ] && ok ||
		bad "$name: through a pipe on threads: exit $rc3, $(cat "$tmp/err3") (one thread: $(cat "$tmp/err1"))"
	[ ! -e "$tmp/out.json" ] && ok || bad "$name: a corrupt stream left an output file"
done
echo "stream_ahead: $pass passed, $fail failed"
[ "$fail" = 0 ]
