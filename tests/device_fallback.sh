#!/bin/sh
# Out of device memory, critical-path and query fall back to the host with
# one notice and print exactly the host's result (exit 0). The fault build
# makes the Nth checked OpenCL call fail with an out-of-memory code.
bin=${GPUTRACE_BIN:-build/gputrace}
case "$bin" in
build-san*) san=1 fbin=build-san-faults/gputrace ;;
*) san=0 fbin=build-faults/gputrace ;;
esac
sh scripts/sub-make FAULTS=1 SANITIZE=$san "$fbin" >/dev/null || { echo "FAIL: cannot build $fbin"; exit 1; }
"$fbin" devices | grep -q '"index"' || { echo "skipped: no OpenCL device"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
t=testdata/demo/kineto_resnet50.json.gz
fail=0
"$fbin" critical-path -q --rows -f csv --device host "$t" >"$tmp/host.csv" || fail=1
"$fbin" pack -q "$t" -o "$tmp/i.gtx" >/dev/null || fail=1
"$fbin" query -q --device host --time 0:1000ms --expand "$tmp/i.gtx" >"$tmp/qhost.json" || fail=1
hits=0 chits=0
for n in 1 2 3 4 5 6 8 10 15 20 30 40 50 60 80; do
	GPUTRACE_FAULT=cl:$n "$fbin" critical-path --rows -f csv --device 0 "$t" >"$tmp/d.csv" 2>"$tmp/err"
	rc=$?
	if grep -q "computing on the host instead" "$tmp/err"; then
		hits=$((hits + 1)) chits=$((chits + 1))
		[ $rc = 0 ] && cmp -s "$tmp/host.csv" "$tmp/d.csv" ||
			{ echo "FAIL: critical-path fallback at cl:$n: exit $rc"; fail=1; }
	elif [ $rc != 0 ] && [ $rc != 3 ]; then
		echo "FAIL: critical-path at cl:$n: exit $rc: $(cat "$tmp/err")"; fail=1
	elif [ $rc = 3 ] && grep -q "MEM_OBJECT_ALLOCATION\|OUT_OF_RESOURCES\|OUT_OF_HOST_MEMORY" "$tmp/err" &&
		! grep -q "clCreateContext\|clCreateCommandQueue" "$tmp/err"; then
		# out of memory once the device is open (the causal steps run on a
		# thread of their own too) is the host's to finish
		echo "FAIL: critical-path at cl:$n did not fall back: $(cat "$tmp/err")"; fail=1
	fi
	GPUTRACE_FAULT=cl:$n "$fbin" query --device 0 --time 0:1000ms --expand "$tmp/i.gtx" >"$tmp/q.json" 2>"$tmp/err"
	rc=$?
	if grep -q "on the host" "$tmp/err"; then
		hits=$((hits + 1))
		[ $rc = 0 ] && cmp -s "$tmp/qhost.json" "$tmp/q.json" ||
			{ echo "FAIL: query fallback at cl:$n: exit $rc"; fail=1; }
	elif [ $rc != 0 ] && [ $rc != 3 ]; then
		echo "FAIL: query at cl:$n: exit $rc: $(cat "$tmp/err")"; fail=1
	fi
done
[ $hits -gt 0 ] || { echo "FAIL: no fault point reached the host fallback"; fail=1; }
[ $chits -gt 0 ] || { echo "FAIL: no fault point reached critical-path's host fallback"; fail=1; }
[ $fail = 0 ] && echo "device fallback: ok ($hits fallbacks, each equal to the host result)"
exit $fail
