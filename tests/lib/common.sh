# shellcheck shell=bash
# common.sh: sourced by every host test (tests/ext4fc/NNN).
#
# A test prints what it does, exits 0 on pass, 1 on failure and 77 when it
# could not run (the last line saying why).  tests/check.sh runs them.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SEQ=${SEQ:-$(basename "$(dirname "$0")")/$(basename "$0")}
RESULTS=${RESULTS:-$TOP/build/results/check/$SEQ}
mkdir -p "$RESULTS"

_fail() {
	echo "FAIL: $*"
	exit 1
}

_notrun() {
	echo "NOTRUN: $*"
	exit 77
}

# mkimg NAME SIZE [mkfs.ext4 options...]: a fresh image, prints its path.
mkimg() {
	local name=$1 size=$2 img
	shift 2
	img=$RESULTS/$name.img
	rm -f "$img"
	truncate -s "$size" "$img"
	mkfs.ext4 -q -F "$@" "$img" >/dev/null
	echo "$img"
}

# guest GUEST_SCRIPT [run-qemu.sh options...] [-- ARGS]: boot and run a
# guest script next to tests/harness/guest.sh; returns its status.
guest() {
	local script=$1 rc=0 opts=()
	shift
	while (($#)) && [[ "$1" != -- ]]; do
		opts+=("$1")
		shift
	done
	(($#)) && shift
	"$TOP/run-qemu.sh" -q -o "$RESULTS/guest" -f "$TOP/tests/harness/guest.sh" \
		"${opts[@]}" "$script" "$@" || rc=$?
	if [[ -f "$RESULTS/guest/console.log" ]]; then
		cp "$RESULTS/guest/console.log" "$RESULTS/console.log"
	fi
	return $rc
}

# expect_guest_ok GUEST_SCRIPT [options...]: fail the test unless the guest
# script passed and the harness saw no kernel failure.
expect_guest_ok() {
	local rc=0
	guest "$@" || rc=$?
	if [[ $rc -ne 0 && -f "$RESULTS/console.log" ]]; then
		echo "--- guest output (console lines without a kernel timestamp):"
		grep -av '^\[ *[0-9]*\.[0-9]*\]' "$RESULTS/console.log" | tail -n 30 || true
		echo "---"
	fi
	case $rc in
	0) ;;
	124) _fail "guest timed out (console: $RESULTS/console.log)" ;;
	125) _fail "kernel failure on the console (see $RESULTS/console.log)" ;;
	255) _fail "guest never reported back (console: $RESULTS/console.log)" ;;
	*) _fail "guest script failed with status $rc (console: $RESULTS/console.log)" ;;
	esac
}

# fsck_clean IMG: host e2fsck -fn finds nothing.
fsck_clean() {
	local out rc=0
	out=$(e2fsck -fn "$1" 2>&1) || rc=$?
	if [[ $rc -ne 0 ]]; then
		echo "$out"
		_fail "e2fsck -fn $1: status $rc"
	fi
	echo "  e2fsck -fn $(basename "$1"): clean"
}
