#!/bin/sh
# critical-path -f text and -f markdown: golden reports (testdata/reports,
# hand-checked against the JSON documents once), every line within 100
# columns, no two rows of a table alike; on a terminal text is the default,
# in a pipe JSON; report options with table options are usage errors.
. tests/lib/preamble.sh
traces=../shared/traces
golden() { # NAME COMMAND ARGS...
	name=$1
	shift
	"$bin" "$@" >"$tmp/$name" 2>"$tmp/err" || { bad "$name: exit $?: $(cat "$tmp/err")"; return; }
	cmp -s "$tmp/$name" "testdata/reports/$name" && ok ||
		bad "$name differs from testdata/reports/$name: $(diff "testdata/reports/$name" "$tmp/$name" | head -5)"
	python3 - "$tmp/$name" <<'PY' && ok || bad "$name: $(cat "$tmp/why")"
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
why = open(sys.argv[1].rsplit("/", 1)[0] + "/why", "w")
wide = [l for l in lines if len(l) > 100]
if wide:
    why.write("a line of %d columns: %s" % (len(wide[0]), wide[0][:60]))
    sys.exit(1)
# the rows of each table: text tables start at a header "  kind" or "  hop",
# Markdown ones at "| kind" or "| hop"; a blank line ends them
rows, seen = None, None
for l in lines + [""]:
    if re.match(r"^(  |\| )(kind|hop|window) ", l):
        rows, seen = [], set()
        continue
    if rows is None or l.startswith("|---"):
        continue
    if not l.strip():
        rows = None
        continue
    cells = tuple(c.strip() for c in (l.strip("| ").split(" | ") if l.startswith("|") else re.split(r"\s{2,}", l.strip())))
    key = cells[:2]
    if key in seen and cells[0] not in ("work", "idle", "wait", "flow", "handoff", "queue", "stream_wait") or \
            (key in seen and len(cells) > 5):  # breakdown rows: kind and key print once
        why.write("two rows alike: %s" % (key,))
        sys.exit(1)
    seen.add(key)
PY
}
cp="critical-path -q -d host"
golden resnet50-by-name.txt $cp -f text --by name testdata/demo/kineto_resnet50.json.gz
golden resnet50.md $cp -f markdown testdata/demo/kineto_resnet50.json.gz
golden resnet50-info.txt info -q -f text testdata/demo/kineto_resnet50.json.gz
if [ -d "$traces" ]; then
	golden nccl_data-steps.txt $cp -f text --step 'ProfilerStep*' "$traces/hta__nccl_data.json.gz"
	golden param-job-steps.md $cp -f markdown --step 'ProfilerStep*' "$traces"/param__worker*.json
	golden param-job-info.md info -q -f markdown "$traces"/param__worker*.json
	golden param-job-stragglers.txt stragglers -q -f text "$traces"/param__worker*.json
	golden param-job-stragglers-ranks.md stragglers -q -f markdown --by rank "$traces"/param__worker*.json
	golden param-job-collectives.txt collectives -q -f text "$traces"/param__worker*.json
fi
# the commands without a report say so
"$bin" spans -q -f text testdata/compare/base.json >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "is for critical-path, compare, info, stragglers and collectives" "$tmp/err" && ok ||
	bad "spans -f text: $(cat "$tmp/err")"
# a terminal gets the report, a pipe the JSON (script gives the command a pty)
if command -v script >/dev/null 2>&1; then
	script -qec "$bin critical-path -q -d host testdata/compare/base.json" /dev/null >"$tmp/tty" 2>&1
	grep -q "^critical path of testdata/compare/base.json" "$tmp/tty" && ok || bad "no report on a terminal: $(head -c 200 "$tmp/tty")"
fi
"$bin" critical-path -d host testdata/compare/base.json | jq -e .aggregate >/dev/null && ok || bad "no JSON in a pipe"
for args in "-f text --rows" "-f markdown --table path" "-f text --path" "-f text --model forest"; do
	"$bin" critical-path -q $args testdata/compare/base.json >/dev/null 2>&1
	[ $? = 2 ] && ok || bad "critical-path $args: not a usage error"
done
echo "reports: $pass passed, $fail failed"
[ "$fail" = 0 ]
