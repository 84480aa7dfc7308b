#!/bin/sh
# gputrace stats against HTA (Holistic Trace Analysis 0.5.0, PyPI
# HolisticTraceAnalysis): every shared PyTorch trace (hta__*, kineto__*) and
# the 8-rank job (param__worker*.json, one folder for HTA, the 8 files for
# gputrace) through tests/hta_check.py: HTA's temporal breakdown, kernel
# breakdown and communication/computation overlap against the gpu-time,
# kernels and overlap reports, exactly or within HTA's microsecond rounding,
# every definition the two differ by named (the module's docstring lists
# them). A trace HTA fails on says why and counts as skipped, not failed.
# make check-hta runs it (GPUTRACE_HTA=1) after scripts/install-deps hta;
# make check's round of tests/*.sh skips it: HTA and its Jupyter stack are
# not make check's dependencies.
. tests/lib/preamble.sh
[ "${GPUTRACE_HTA:-}" = 1 ] || { echo "hta: skipped (make check-hta runs it)"; exit 0; }
py=${GPUTRACE_VENV:-.venv}/bin/python
traces=${GPUTRACE_SHARED:-../shared}/traces
[ -x "$py" ] || { echo "FAIL: $py is missing (scripts/install-deps hta)"; exit 1; }
[ -x "$bin" ] || { echo "FAIL: $bin is missing"; exit 1; }
[ -d "$traces" ] || { echo "FAIL: $traces is missing (GPUTRACE_SHARED: the folder holding traces/)"; exit 1; }
skipped=0
# the job as HTA reads it: a folder of rank files (hta_check.py hands gputrace the files)
job=$tmp/param__worker_8_ranks
mkdir "$job"
for f in "$traces"/param__worker*.json; do
	[ -f "$f" ] && ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$job/"
done
set -- "$traces"/hta__* "$traces"/kineto__*
[ -n "$(ls "$job")" ] && set -- "$@" "$job"
for t in "$@"; do
	[ -e "$t" ] || continue
	"$py" tests/hta_check.py "$bin" "$t" >"$tmp/out" 2>&1
	rc=$?
	cat "$tmp/out"
	case $rc in
	0) ok ;;
	3) skipped=$((skipped + 1)) ;;
	*) bad "$(basename "$t"): hta_check.py exit $rc" ;;
	esac
done
echo "hta: $pass passed, $fail failed, $skipped skipped (HTA fails on them)"
[ "$fail" = 0 ]
