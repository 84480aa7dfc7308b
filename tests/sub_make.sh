#!/bin/sh
# The tests' sub-builds do not depend on the caller's environment:
# scripts/sub-make picks the folder its own arguments name, whatever
# SANITIZE, FAULTS, BUILD or MAKEFLAGS the caller exported; and no test
# script calls make any other way.
fail=0
bad() { echo "FAIL: $*"; fail=1; }
expect() { # expect FOLDER -- ENV... -- ARGS...
	want=$1; shift
	got=$(env "$@" 2>&1)
	[ "$got" = "$want" ] || bad "$* gave '$got', want '$want'"
}
expect build-faults SANITIZE=1 sh scripts/sub-make FAULTS=1 print-build
expect build-faults SANITIZE=1 BUILD=elsewhere MAKEFLAGS=SANITIZE=1 sh scripts/sub-make FAULTS=1 print-build
expect build-san-faults SANITIZE=0 FAULTS=0 sh scripts/sub-make FAULTS=1 SANITIZE=1 print-build
expect build FAULTS=1 SANITIZE=1 sh scripts/sub-make print-build
# the form the issue was found with: the variable in the environment
expect build-san-faults SANITIZE=1 make --no-print-directory -s FAULTS=1 print-build
for t in tests/*.sh scripts/valgrind-tests; do
	if grep -nE '(^|;|&&|\|\||then|if|!)[[:space:]]*make[[:space:]]' "$t" | grep -v 'sub-make' | grep -q .; then
		bad "$t calls make directly; use sh scripts/sub-make"
	fi
done
[ $fail = 0 ] && echo "sub_make: ok"
exit $fail
