#!/bin/bash
# campaign.sh [N [START]]: the corrupted-image campaign at length: images
# START..START+N-1 (default 500 from 0), BATCH (default 100) per QEMU
# boot, a progress line per batch, a summary per mutation, the failures
# with one command each, JUnit XML in build/results/corrupt/junit.xml and
# "N passed, N failed" at the end.  'make corrupt-images N=500' runs it.
# Environment: BATCH, CORRUPT_MUTATIONS (blank separated: only these).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-500}
start=${2:-0}
batch=${BATCH:-100}
[[ $n =~ ^[1-9][0-9]*$ && $start =~ ^[0-9]+$ && $batch =~ ^[1-9][0-9]*$ ]] || {
	echo "usage: tests/corrupt/campaign.sh [N [START]] (N, START and BATCH are numbers)" >&2
	exit 2
}
base=$top/build/results/corrupt
rm -rf "$base"
mkdir -p "$base"
export SEQ=corrupt/campaign RESULTS=$base
# shellcheck source=../lib/common.sh
. "$top/tests/lib/common.sh"
set +e
# shellcheck source=lib/host.sh
. "$top/tests/corrupt/lib/host.sh"
corrupt_need
(set -e; corrupt_bases) || exit 1
: >"$base/verdicts"
t0=$(date +%s)
s=$start
end=$((start + n - 1))
while ((s <= end)); do
	e=$((s + batch - 1))
	((e > end)) && e=$end
	dir=$base/$s-$e
	mkdir -p "$dir"
	(
		export RESULTS=$dir
		set -e
		corrupt_plan "$dir/plan" $((e - s + 1)) "$s"
		corrupt_run "$dir/plan"
		set +e
		corrupt_report "images $s..$e"
	) >"$dir/out.log" 2>&1
	cat "$dir/verdicts" >>"$base/verdicts" 2>/dev/null
	done_n=$((e - start + 1))
	secs=$(($(date +%s) - t0))
	np=$(awk -F'\t' '$5 == "pass"' "$base/verdicts" | wc -l)
	nf=$(awk -F'\t' '$5 == "fail"' "$base/verdicts" | wc -l)
	echo "corrupt: $done_n/$n images ($s..$e done): $np passed, $nf failed; ${secs}s, ~$((secs * (n - done_n) / done_n))s to go"
	s=$((e + 1))
done
secs=$(($(date +%s) - t0))
echo
corrupt_report "corrupt: $n image(s) in ${secs}s" "$base/verdicts"
mkdir -p "$top/build/results/corrupt"
np=$(awk -F'\t' '$5 == "pass"' "$base/verdicts" | wc -l)
nf=$(awk -F'\t' '$5 != "pass"' "$base/verdicts" | wc -l)
echo "per-batch logs and per-image files in ${base#"$top"/}/"
echo "$np passed, $nf failed"
((nf == 0))
