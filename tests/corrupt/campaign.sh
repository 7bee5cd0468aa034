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
# shellcheck source=../lib/batches.sh
. "$top/tests/lib/batches.sh"
corrupt_need
(set -e; corrupt_bases) || exit 1

# one_batch DIR S E: images S..E, one boot
one_batch() (
	export RESULTS=$1
	set -e
	corrupt_plan "$1/plan" $(($3 - $2 + 1)) "$2"
	corrupt_run "$1/plan"
	set +e
	corrupt_report "images $2..$3"
)
run_batches corrupt images "$n" "$start" "$batch" "$base" one_batch
secs=$batches_secs
echo
corrupt_report "corrupt: $n image(s) in ${secs}s" "$base/verdicts"
mkdir -p "$top/build/results/corrupt"
np=$(awk -F'\t' '$5 == "pass"' "$base/verdicts" | wc -l)
nf=$(awk -F'\t' '$5 != "pass"' "$base/verdicts" | wc -l)
echo "per-batch logs and per-image files in ${base#"$top"/}/"
echo "$np passed, $nf failed"
((nf == 0))
