#!/bin/sh
# Keeps --help and the man page from drifting apart: every command listed by
# `gputrace --help` must have a `.It Cm NAME` entry in man/gputrace.1, and
# every --long option in `gputrace NAME --help` must appear there as
# `Fl -long` or `\-\-long`. Skips only when the binary is missing.
set -u
bin=${GPUTRACE_BIN:-build/gputrace}
man=man/gputrace.1
if [ ! -x "$bin" ]; then
	echo "man_drift: skipped: $bin is missing (run make)"
	exit 0
fi
[ -f "$man" ] || { echo "man_drift: $man is missing"; exit 1; }
cmds=$("$bin" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
pass=0
fail=0
for cmd in $cmds; do
	if grep -qE "^\.It Cm $cmd( |\$)" "$man"; then
		pass=$((pass + 1))
	else
		echo "man_drift: command '$cmd' is not documented in $man (.It Cm $cmd)"
		fail=$((fail + 1))
	fi
	help=$("$bin" "$cmd" --help) || { echo "man_drift: '$cmd --help' failed"; fail=$((fail + 1)); continue; }
	for opt in $(printf '%s\n' "$help" | grep -oE -- '--[a-z0-9][a-z0-9-]*' | sed 's/^--//' | sort -u); do
		if grep -qE "Fl -$opt([^a-z0-9-]|\$)" "$man" || grep -qF -- "\\-\\-$opt" "$man"; then
			pass=$((pass + 1))
		else
			echo "man_drift: option '--$opt' of '$cmd' is not documented in $man"
			fail=$((fail + 1))
		fi
	done
done
echo "man_drift: $(printf '%s\n' $cmds | grep -c .) commands; $pass passed, $fail failed"
[ "$fail" = 0 ]
