#!/bin/bash
# long.sh [SEEDS [START]]: the randomized crash workloads at length:
# seeds START .. START+SEEDS-1 (default 1000 from 1), BATCH (default 100)
# per QEMU boot, a progress line per batch, the failures with one command
# each at the end.  'make crash-long SEEDS=N START=M' runs it.
# Environment: BATCH, WRITER (ext4fc), REPLAYER (ext4fc), METHOD (auto:
# by the seed), KIND (seed; cseed: acegen -t, the concurrent workloads),
# CRASH_WRITER_OPTS (more mount options for every ext4fc writer, e.g.
# fc_dir_moves; the reproduce lines carry it).
# Results: build/results/crash-long/.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
nseeds=${1:-1000}
start=${2:-1}
batch=${BATCH:-100}
writer=${WRITER:-ext4fc}
replayer=${REPLAYER:-ext4fc}
method=${METHOD:-auto}
kind=${KIND:-seed}
case $kind in
seed | cseed) ;;
*)
	echo "long.sh: KIND is seed or cseed, not '$kind'" >&2
	exit 2
	;;
esac
base=$top/build/results/crash-long
rm -rf "$base"
mkdir -p "$base"
# shellcheck source=../lib/batches.sh
. "$top/tests/lib/batches.sh"

# one_batch DIR S E: seeds S..E, one boot
one_batch() {
	seq "$2" "$3" | sed "s/.*/$kind & $method $writer $replayer/" >"$1/plan"
	(
		export SEQ=crash/long RESULTS=$1
		# shellcheck source=../lib/common.sh
		. "$top/tests/lib/common.sh"
		set +e
		# shellcheck source=lib/host.sh
		. "$top/tests/crash/lib/host.sh"
		crash_need
		crash_run "$1/plan"
		crash_report "seeds $2..$3"
	)
}
run_batches crash-long seeds "$nseeds" "$start" "$batch" "$base" one_batch
secs=$batches_secs
echo
awk -F'\t' '{ m[$2]++; if ($5 != "pass") f[$2]++ }
	END { for (k in m) printf "  method %-15s %5d seed(s), %d not passed\n", k, m[k], f[k] }' "$base/verdicts" | sort
nf=0
while IFS=$'\t' read -r id _ _ _ verdict msg; do
	[[ "$verdict" == fail ]] || continue
	nf=$((nf + 1))
	IFS=. read -r name m w r <<<"$id"
	echo "FAIL $id: $msg"
	k=${name%%[0-9]*}	# seed or cseed
	echo "  reproduce: ${CRASH_WRITER_OPTS:+CRASH_WRITER_OPTS=$CRASH_WRITER_OPTS }tests/crash/repro.sh $k ${name#"$k"} $m $w $r"
done <"$base/verdicts"
np=$(awk -F'\t' '$5 == "pass"' "$base/verdicts" | wc -l)
nall=$(grep -c . "$base/verdicts")
echo "crash-long: $nseeds seed(s) in ${secs}s: $np passed, $nf failed, $((nall - np - nf)) other (known/peer); per-batch logs in $base/"
echo "$np passed, $nf failed"
((nf == 0))
