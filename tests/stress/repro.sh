#!/bin/bash
# repro.sh IMAGE.qcow2 [FS]: mount a stress run's failed flush point again.
#
# tests/stress/run.sh keeps, for the first failed point of each run, the
# image as it was before the mount that failed (metadata only, e2image -Q:
# build/results/stress/fail/FS-MIX-SEED-pN.qcow2).  This turns it into a
# raw image (IMAGE.img next to it, kept for debugfs or fcdump), boots
# QEMU, mounts it with FS (default: ext4fc; the kernel replays journal and
# fast commits), unmounts and runs e2fsck -fn, and prints e2fsck's
# verdict and the kernel's lines.  The image is not changed: the guest
# works on a copy.  Exit status: 0 clean, 1 e2fsck found problems, 2 the
# mount failed or bad usage.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
img=${1:-}
fs=${2:-ext4fc}
if [[ -z $img || ! -f $img ]]; then
	sed -n '2,14s/^# \{0,1\}//p' "$0"
	exit 2
fi
case $fs in ext4fc | ext4) ;; *) echo "repro.sh: FS is ext4fc or ext4, not '$fs'" >&2; exit 2 ;; esac
raw=${img%.qcow2}.img
[[ -f $raw ]] || e2image -r "$img" "$raw"
work=$(mktemp -d "${TMPDIR:-/tmp}/stress-repro.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp --sparse=always "$raw" "$work/point.img"
rc=0
"$top/run-qemu.sh" -q -o "$work/out" -f "$top/tests/harness/guest.sh" -d "$work/point.img" \
	"$top/tests/stress/point.guest" "$fs" || rc=$?
grep -av '^\[ *[0-9]*\.[0-9]*\]' "$work/out/console.log" | grep -av '^ext4fc-harness' || true
echo "raw image (unchanged): $raw"
exit "$rc"
