#!/bin/bash
# demo.sh ('make run'): boot QEMU, mount a fresh fast_commit image as
# ext4fc, write and fsync, cut power, mount again and show the replay.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${DEMO_OUT:-$top/build/results/demo}
mkdir -p "$out"
img=$out/demo.img
rm -f "$img"
truncate -s 128M "$img"
mkfs.ext4 -q -F -O fast_commit "$img"
echo "demo: made $img (mkfs.ext4 -O fast_commit, 128 MiB); booting QEMU"
exec "$top/run-qemu.sh" -o "$out" -f "$top/tests/lib/guest.sh" -d "$img" "$top/tests/demo.guest"
