#!/bin/bash
# demo.sh ('make run'): boot QEMU, mount a fresh fast_commit image as
# ext4fc, write and fsync, cut power, mount again and show the replay.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${DEMO_OUT:-$top/build/results/demo}
rm -rf "$out"
mkdir -p "$out"
img=$out/demo.img
rm -f "$img"
truncate -s 128M "$img"
mkfs.ext4 -q -F -O fast_commit "$img"
echo "demo: made $img (mkfs.ext4 -O fast_commit, 128 MiB); booting QEMU"
rc=0
"$top/run-qemu.sh" -q -o "$out/run" -f "$top/tests/harness/guest.sh" -d "$img" \
	"$top/tests/demo.guest" || rc=$?
# The guest's own lines (the kernel's are in console.log, with timestamps).
grep -av -e '^\[ *[0-9]*\.[0-9]*\]' -e '^ext4fc-harness' "$out/run/console.log" |
	sed -n '/^=== /,$p'
echo "demo: full console in $out/run/console.log"
exit $rc
