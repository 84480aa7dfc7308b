# shellcheck shell=sh
# Sourced by the shell tests (from the repository root, as scripts/run-tests
# runs them; in tests/lib/ so that it is not run as a test itself): the
# binary under test, a scratch folder removed on exit, pass/fail counters.
set -u
bin=${GPUTRACE_BIN:-build/gputrace}
build=$(dirname "$bin")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
# The trace generator beside the binary: need_gen NAME exits 1 (NAME
# saying so) when it has not been built.
gen=$build/tools/gen_trace
need_gen() { [ -x "$gen" ] || { echo "$1: $gen is missing (run make)"; exit 1; }; }
