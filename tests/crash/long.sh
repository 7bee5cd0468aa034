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
: >"$base/verdicts"
t0=$(date +%s)
done_n=0
s=$start
end=$((start + nseeds - 1))
while ((s <= end)); do
	e=$((s + batch - 1))
	((e > end)) && e=$end
	dir=$base/$s-$e
	mkdir -p "$dir"
	seq "$s" "$e" | sed "s/.*/$kind & $method $writer $replayer/" >"$dir/plan"
	(
		export SEQ=crash/long RESULTS=$dir
		# shellcheck source=../lib/common.sh
		. "$top/tests/lib/common.sh"
		set +e
		# shellcheck source=lib/host.sh
		. "$top/tests/crash/lib/host.sh"
		crash_need
		crash_run "$dir/plan"
		crash_report "seeds $s..$e"
	) >"$dir/out.log" 2>&1
	cat "$dir/verdicts" >>"$base/verdicts" 2>/dev/null
	done_n=$((e - start + 1))
	secs=$(($(date +%s) - t0))
	nf=$(awk -F'\t' '$5 == "fail"' "$base/verdicts" | wc -l)
	np=$(awk -F'\t' '$5 == "pass"' "$base/verdicts" | wc -l)
	eta=$((secs * (nseeds - done_n) / done_n))
	echo "crash-long: $done_n/$nseeds seeds ($s..$e done): $np passed, $nf failed; ${secs}s, ~${eta}s to go"
	s=$((e + 1))
done
secs=$(($(date +%s) - t0))
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
