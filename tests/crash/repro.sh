#!/bin/bash
# repro.sh: run one crash case again, alone, keeping all its files.
#
#   tests/crash/repro.sh opcase NAME [METHOD [WRITER [REPLAYER]]]
#   tests/crash/repro.sh seed SEED [METHOD [WRITER [REPLAYER]]]
#   tests/crash/repro.sh cseed SEED [METHOD [WRITER [REPLAYER]]]
#
# NAME: a case of tests/crash/lib/opcases; SEED: an acegen seed (cseed:
# its concurrent workload, acegen -t).  METHOD: shutdown (default for
# opcase), flakey, logwrites, idem-logwrites, auto (default for seeds:
# what the seed picks).  WRITER ext4fc (default) or ext4; REPLAYER
# ext4fc (default), ext4 or e2fsck.  MOUNTOPT=OPTS: more mount options;
# CRASH_WRITER_OPTS=OPTS: more for an ext4fc writer (fsync_isolation).
# CRASH_TIMEOUT=S: the guest's time limit (default: estimated from the
# case; a long hand-written one, e.g. an fsx run converted, needs more).
# Prints the workload, the manifest check, the diff, fc_info; the files
# are in build/results/crash/repro/ID/.
set -euo pipefail
kind=${1:-}
what=${2:-}
if [[ "$kind" != opcase && "$kind" != seed && "$kind" != cseed || -z "$what" ]]; then
	sed -n '2,16s/^# \{0,1\}//p' "$0"
	exit 2
fi
if [[ "$kind" == seed || "$kind" == cseed ]]; then
	method=${3:-auto}
else
	method=${3:-shutdown}
fi
writer=${4:-ext4fc}
replayer=${5:-ext4fc}
top=$(cd "$(dirname "$0")/../.." && pwd)
export SEQ=crash/repro
export RESULTS=$top/build/results/crash/repro/$kind-$what-$method-$writer-$replayer
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
# shellcheck source=../lib/common.sh
. "$top/tests/lib/common.sh"
# shellcheck source=lib/host.sh
. "$top/tests/crash/lib/host.sh"
crash_need
if [[ "$kind" == seed ]]; then
	echo "--- workload of seed $what (build/bin/acegen $what):"
	"$top/build/bin/acegen" "$what" | sed 's/^/    /'
elif [[ "$kind" == cseed ]]; then
	echo "--- concurrent workload of seed $what (build/bin/acegen -t $what):"
	"$top/build/bin/acegen" -t "$what" | sed 's/^/    /'
else
	crash_opcases "" | grep -qx -- "$what" || { echo "no case '$what' in tests/crash/lib/opcases" >&2; exit 2; }
fi
{
	echo keep
	[[ -n "${MOUNTOPT:-}" ]] && echo "mountopt $MOUNTOPT"
	printf '%s %s %s %s %s\n' "$kind" "$what" "$method" "$writer" "$replayer"
} >"$RESULTS/plan"
crash_run "$RESULTS/plan"
rc=0
crash_report "repro" || rc=1
for d in "$RESULTS"/guest/cases/*/; do
	[[ -d "$d" ]] || continue
	echo "--- $(basename "$d"): log"
	sed 's/^/    /' "$d/log" 2>/dev/null || true
	for f in diff fc_info.before fc_info.after fcdump.txt e2fsck-fy.txt host-e2fsck.txt; do
		[[ -s "$d/$f" ]] || continue
		echo "--- $f"
		sed 's/^/    /' "$d/$f"
	done
	echo "    (all files: $d)"
done
exit $rc
