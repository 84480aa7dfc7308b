#!/bin/sh
# The map step of a straggler analysis on one machine with GNU parallel:
# one `gputrace collectives` per rank's trace, then the reduce.
#   scripts/scale-out/map-parallel.sh TRACE_DIR OUT_DIR [JOBS]
# Writes OUT_DIR/<trace name>.arrow per trace and OUT_DIR/stragglers.json.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 TRACE_DIR OUT_DIR [JOBS]" >&2; exit 2; }
in=$1 out=$2 jobs=${3:-0}   # 0: one job per core
gputrace=${GPUTRACE:-gputrace}
mkdir -p "$out"
# -j1 inside each job: the files run side by side, one thread each
find "$in" -maxdepth 1 -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.json.zst' -o -name '*.gtx' \) |
	sort | parallel -j "$jobs" --halt now,fail=1 \
		"$gputrace" collectives -q -j 1 {} -f arrow -o "$out"/{/.}.arrow
"$gputrace" stragglers "$out"/*.arrow -o "$out/stragglers.json"
