#!/bin/sh
# The include graph follows README.md's layout table (tests/include_graph.py),
# and the checker fails on each kind of crossing, planted in a copy.
. tests/lib/preamble.sh

check() { python3 tests/include_graph.py "$@" >"$tmp/out" 2>&1; }

if check .; then ok; else bad "include graph:"; cat "$tmp/out"; fi

# copy: README, src, cli, kernels
plant() { # NAME: a fresh copy in $tmp/t
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t"
	cp -R README.md src cli kernels "$tmp/t/"
}
expect() { # WHAT PATTERN
	if check "$tmp/t"; then bad "$1: passed"
	elif grep -q "$2" "$tmp/out"; then ok
	else bad "$1: no '$2' in:"; cat "$tmp/out"; fi
}

plant
printf '#include "causal/causal.h"\n' >>"$tmp/t/src/forest/forest.c"
expect "a room using one not in its row" "src/forest/ may not use causal/"

plant
printf '#include "causal/causal_internal.h"\n' >>"$tmp/t/src/compare/compare.c"
expect "a private header from outside" "private to src/causal/"

plant
printf '#include "causal/cpm.h"\n' >>"$tmp/t/cli/main.c"
expect "cli including a private header" "not a public header"

plant
sed 's#^| `src/base/` \(.*\)| nothing |$#| `src/base/` \1| `model/` |#' README.md >"$tmp/t/README.md"
expect "a cycle in the table" "cycle"

plant
mkdir "$tmp/t/src/extra" && : >"$tmp/t/src/extra/extra.h"
expect "a room without a row" "src/extra/: no row"

plant
: >"$tmp/t/kernels/orphan.cl"
expect "a kernel no room names" "kernels/orphan.cl: named by 0"

echo "include_graph: $pass passed, $fail failed"
[ "$fail" = 0 ]
