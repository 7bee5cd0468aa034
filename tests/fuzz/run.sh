#!/bin/bash
# run.sh SECONDS: fuzz the fast-commit record parser for SECONDS with the
# harness 'make fuzz' builds (build/fuzz/fc_parse_fuzz), starting from the
# seeds in tests/fuzz/corpus plus what earlier runs found (build/fuzz/corpus).
# Prints one line "fuzz: N executions in S s, C crash(es), corpus K inputs"
# and exits 0 only with no crash; a crash's input is kept in
# build/fuzz/artifacts/ (replay it: build/fuzz/fc_parse_fuzz FILE).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
fuzzer=$build/fuzz/fc_parse_fuzz
secs=${1:-60}
[[ "$secs" =~ ^[0-9]+$ && "$secs" -gt 0 ]] || {
	echo "run.sh: SECONDS must be a positive number, not '$secs'" >&2
	exit 2
}
[[ -x "$fuzzer" ]] || {
	echo "run.sh: $fuzzer missing: run 'make fuzz' (needs clang)" >&2
	exit 2
}
corpus=$build/fuzz/corpus
artifacts=$build/fuzz/artifacts
mkdir -p "$corpus" "$artifacts"
cp -n "$top"/tests/fuzz/corpus/* "$corpus/"
log=$build/fuzz/last.log
rc=0
"$fuzzer" -max_total_time="$secs" -print_final_stats=1 -max_len=8224 \
	-artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || rc=$?
execs=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$log")
took=$(awk '/stat::.*total_time|Done [0-9]+ runs in/ { for (i = 1; i <= NF; i++) if ($i == "in") print $(i + 1) }' "$log" | tail -n 1)
crashes=0
if [[ $rc != 0 ]]; then
	crashes=1
	grep -E 'ERROR|SUMMARY|contract|Test unit written' "$log" | head -n 10 >&2 || true
fi
echo "fuzz: ${execs:-?} executions in ${took:-$secs} s, $crashes crash(es), corpus $(find "$corpus" -type f | wc -l) inputs (log: $log)"
exit $((crashes ? 1 : 0))
