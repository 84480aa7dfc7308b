#!/bin/sh
# --device auto's rule (man gputrace: --device): auto takes a GPU only for
# the work where the GPU path measured faster end to end, which is none
# today, so every command that can run on a device takes the host path, says
# why with -v and nothing without it, whatever devices the machine has; gpu
# is the old choice (a GPU, else the host path); auto's output is host's.
. tests/lib/preamble.sh
unset GPUTRACE_DEVICE
T=testdata/demo/kineto_resnet50.json.gz
"$bin" pack -q "$T" -o "$tmp/t.gtx" >/dev/null || bad "pack"
auto_host() { # WHAT ARGS...: auto (three ways) names the host path for WHAT with -v
	what=$1; shift
	for how in "" "--device auto" "env"; do
		if [ "$how" = env ]; then
			GPUTRACE_DEVICE=AUTO "$bin" "$@" -v >/dev/null 2>"$tmp/e"
		else
			"$bin" "$@" $how -v >/dev/null 2>"$tmp/e"
		fi
		grep -qxF "gputrace: device: host (plain C; auto: the host path is faster end to end for $what)" "$tmp/e" &&
			ok || bad "$* ($how): $(cat "$tmp/e")"
	done
	"$bin" "$@" >/dev/null 2>"$tmp/e" && ! grep -q 'device' "$tmp/e" && ok || bad "$* without -v: $(cat "$tmp/e")"
}
auto_host "the causal critical path" critical-path "$T"
auto_host "the causal critical path" critical-path --step 'ProfilerStep#*' testdata/stats/steps.json
auto_host "the forest critical path" critical-path --model forest "$T"
auto_host "the forest critical path" compare --model forest "$T" "$T"
auto_host "the causal critical path" compare "$T" "$T"
auto_host "viewport queries" query "$tmp/t.gtx" --time 0:1ms
auto_host "a picture's query" render "$tmp/t.gtx" -o "$tmp/t.svg"
# verify names its device in the report
"$bin" verify "$tmp/t.gtx" | jq -e '.device == "host"' >/dev/null && ok || bad "verify under auto"
# the same bytes as --device host
for args in "critical-path --rows $T" "critical-path --model forest $T" "query $tmp/t.gtx --time 0:5ms"; do
	"$bin" $args >"$tmp/auto" 2>/dev/null
	"$bin" $args --device host >"$tmp/host" 2>/dev/null
	cmp -s "$tmp/auto" "$tmp/host" && ok || bad "auto and host differ: $args"
done
# gpu: a GPU if there is one, else the host path with the reason
if ! "$bin" devices -f csv | awk -F, 'NR > 1' | grep -q ',gpu,'; then
	"$bin" critical-path "$T" -d gpu -v >/dev/null 2>"$tmp/e"
	grep -Eq 'device: host \(plain C; no (GPU among the OpenCL devices|OpenCL platform)\)' "$tmp/e" &&
		ok || bad "gpu without a GPU: $(cat "$tmp/e")"
fi
echo "device_auto: $pass passed, $fail failed"
[ "$fail" = 0 ]
