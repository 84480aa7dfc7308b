#!/bin/sh
# Golden command-line tests stored as data: each tests/cli/CASE/ holds
#   args    the arguments after `gputrace`, one shell-quoted line
#   stdin   optional: fed to standard input (else /dev/null)
#   status  the exit status
#   stdout  optional: the exact standard output
#   stderr  optional: the exact standard error
# Run from the repository root. UPDATE=1 rewrites status/stdout/stderr from
# the current binary (review the diff before committing it).
set -u
bin=${GPUTRACE_BIN:-build/gputrace}
if [ ! -x "$bin" ]; then
	echo "cli_golden: skipped: $bin is missing (run make)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for d in tests/cli/*/; do
	d=${d%/}
	name=${d##*/}
	[ -f "$d/args" ] || { echo "FAIL: $name: no args file"; fail=$((fail + 1)); continue; }
	input=/dev/null
	[ -f "$d/stdin" ] && input=$d/stdin
	(eval "set -- $(cat "$d/args")"; exec "$bin" "$@") <"$input" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "${UPDATE:-0}" = 1 ]; then
		echo "$rc" >"$d/status"
		[ -f "$d/stdout" ] && cp "$tmp/out" "$d/stdout"
		[ -f "$d/stderr" ] && cp "$tmp/err" "$d/stderr"
		continue
	fi
	ok=1
	want=$(cat "$d/status")
	[ "$rc" = "$want" ] || { echo "FAIL: $name: exit status $rc, want $want"; ok=0; }
	if [ -f "$d/stdout" ] && ! cmp -s "$tmp/out" "$d/stdout"; then
		echo "FAIL: $name: stdout differs:"; diff "$d/stdout" "$tmp/out" | head -20; ok=0
	fi
	if [ -f "$d/stderr" ] && ! cmp -s "$tmp/err" "$d/stderr"; then
		echo "FAIL: $name: stderr differs:"; diff "$d/stderr" "$tmp/err" | head -20; ok=0
	fi
	# a usage error or a failure prints nothing on stdout
	if [ "$rc" != 0 ] && [ -s "$tmp/out" ]; then echo "FAIL: $name: failed but wrote stdout"; ok=0; fi
	if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
# conventions that are not fixed text: `help CMD` prints what `CMD --help`
# does, to stdout, with status 0; --version prints one "gputrace X.Y.Z" line
for cmd in $("$bin" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'); do
	"$bin" help "$cmd" >"$tmp/a" 2>&1 && "$bin" "$cmd" --help >"$tmp/b" 2>&1 && cmp -s "$tmp/a" "$tmp/b" &&
		grep -q "^usage: gputrace $cmd " "$tmp/a" && pass=$((pass + 1)) ||
		{ echo "FAIL: 'help $cmd' and '$cmd --help' differ or fail"; fail=$((fail + 1)); }
done
if "$bin" --version | grep -qE '^gputrace [0-9]+\.[0-9]+\.[0-9]+$'; then pass=$((pass + 1)); else
	echo "FAIL: --version prints '$("$bin" --version)'"; fail=$((fail + 1))
fi
"$bin" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -q '^usage: gputrace COMMAND' "$tmp/err"; then pass=$((pass + 1)); else
	echo "FAIL: no arguments: exit $rc, want 2 with the usage on stderr"; fail=$((fail + 1))
fi
# binary formats are refused on a terminal (status 2), with -o they are not
if command -v script >/dev/null 2>&1 && "$bin" spans --help >/dev/null 2>&1; then
	script -qec "$bin spans -f arrow testdata/ingest/async.json" /dev/null >"$tmp/tty" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && grep -q "refusing to write a binary format to a terminal" "$tmp/tty"; then pass=$((pass + 1)); else
		echo "FAIL: arrow to a terminal: exit $rc: $(cat "$tmp/tty")"; fail=$((fail + 1))
	fi
	script -qec "$bin spans -f arrow -o $tmp/t.arrow testdata/ingest/async.json" /dev/null >/dev/null 2>&1
	rc=$?
	if [ "$rc" = 0 ] && [ -s "$tmp/t.arrow" ]; then pass=$((pass + 1)); else
		echo "FAIL: arrow with -o from a terminal: exit $rc"; fail=$((fail + 1))
	fi
fi

echo "cli_golden: $pass passed, $fail failed"
[ "$fail" = 0 ]
