#!/bin/sh
# point.sh: one flush point of a stress run (stress.guest), run by
# replay-log --check fua once the log is replayed up to a FUA write.  A
# throw-away dm-snapshot of the replay device is mounted with $ST_FS (the
# kernel replays the journal and the fast commits), unmounted and checked
# with e2fsck -fn.  A failure adds "N mount" or "N fsck" to /tmp/st_fails
# and leaves what the mount or e2fsck said, with the kernel's lines, in
# $OUT/fail/$ST_ID-pN.txt; the first failed point of a run also leaves
# the image as it was before that mount, metadata only (e2image -Q:
# $OUT/fail/$ST_ID-pN.qcow2; e2image -r turns it into a raw image for
# debugfs, fcdump or run-qemu.sh -d).  Always exits 0: replay-log stops at a failing
# command, and the run goes on to the next point.
n=$(($(cat /tmp/st_points) + 1))
echo "$n" >/tmp/st_points
out=$OUT/fail/$ST_ID-p$n.txt
dmesg -c >/dev/null
snap=/dev/$(dmctl create st_snap 0 "$ST_SECTORS" snapshot "$RDEV" "$COW" N 8) || {
	echo "$n setup" >>/tmp/st_fails
	echo "dmctl create st_snap failed" >"$out"
	exit 0
}
# keep_image: the device as it was before the mount that failed (the
# mount wrote into the snapshot's COW only: a new snapshot has it back)
keep_image() {
	[ -s /tmp/st_fails ] && return 0
	dmctl remove st_snap &&
		snap=/dev/$(dmctl create st_snap 0 "$ST_SECTORS" snapshot "$RDEV" "$COW" N 8) &&
		e2image -Q "$snap" "$OUT/fail/$ST_ID-p$n.qcow2" >/dev/null 2>&1
}

if ! mount -t "$ST_FS" "$snap" "$MNT" >/tmp/st_mount 2>&1; then
	keep_image
	echo "$n mount" >>/tmp/st_fails
	{
		echo "point $n: mount -t $ST_FS failed: $(cat /tmp/st_mount)"
		dmesg
	} >"$out"
	dmctl remove st_snap
	exit 0
fi
umount "$MNT"
if ! e2fsck -fn "$snap" >/tmp/st_fsck 2>&1; then
	keep_image
	echo "$n fsck" >>/tmp/st_fails
	{
		echo "point $n: e2fsck -fn after the $ST_FS replay:"
		cat /tmp/st_fsck
		echo "--- kernel, at the mount:"
		dmesg
	} >"$out"
fi
dmctl remove st_snap
exit 0
