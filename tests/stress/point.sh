#!/bin/sh
# point.sh: one flush point of a stress run (stress.guest) under one crash
# model, run by logreplay check at every FUA write of the log, once per
# model ($LOGREPLAY_MODEL).  The replay device holds the log up to the
# latest flush; a throw-away dm-snapshot of it gets the rest of the point
# as the model has it (logreplay replay -m MODEL LOG SNAP $LOGREPLAY_FROM
# $LOGREPLAY_ENTRY: optimistic, every write; pessimistic, the FUA writes
# only), is mounted with $ST_FS (the kernel replays the journal and the
# fast commits), unmounted and checked with e2fsck -fn.  Each point adds
# "N MODEL ok|mount|fsck|setup" to /tmp/st_checked; a failure leaves what
# the mount or e2fsck said, with the kernel's lines, in
# $OUT/fail/$ST_ID-pN.txt ($ST_ID-pess-pN.txt under the pessimistic
# model); the first failed point of a run and model also leaves the image
# as it was before that mount, metadata only (e2image -Q: the same name,
# .qcow2; e2image -r turns it into a raw image for debugfs, fcdump or
# run-qemu.sh -d).  Always exits 0: logreplay stops at a failing command,
# and the run goes on to the next point.
n=$LOGREPLAY_POINT
model=$LOGREPLAY_MODEL
case $model in
pessimistic) tag=$ST_ID-pess-p$n ;;
*) tag=$ST_ID-p$n ;;
esac
out=$OUT/fail/$tag.txt
dmesg -c >/dev/null

# make_snap: a new snapshot of the replay device, the point's state on it
make_snap() {
	snap=/dev/$(dmctl create st_snap 0 "$ST_SECTORS" snapshot "$RDEV" "$COW" N 8) || return 1
	logreplay replay -m "$model" "$ST_LOG" "$snap" "$LOGREPLAY_FROM" "$LOGREPLAY_ENTRY" \
		>/tmp/st_replay 2>&1 && return 0
	dmctl remove st_snap
	return 1
}
# keep_image: the device as it was before the mount that failed (the
# mount wrote into the snapshot's COW only: a new snapshot has it back)
keep_image() {
	grep -qE " $model (mount|fsck)\$" /tmp/st_checked && return 0
	dmctl remove st_snap && make_snap &&
		e2image -Q "$snap" "$OUT/fail/$tag.qcow2" >/dev/null 2>&1
}

if ! make_snap; then
	echo "$n $model setup" >>/tmp/st_checked
	{
		echo "point $n ($model model): the snapshot with the point's state failed"
		cat /tmp/st_replay
	} >"$out"
	exit 0
fi
if ! mount -t "$ST_FS" "$snap" "$MNT" >/tmp/st_mount 2>&1; then
	keep_image
	echo "$n $model mount" >>/tmp/st_checked
	{
		echo "point $n ($model model): mount -t $ST_FS failed: $(cat /tmp/st_mount)"
		dmesg
	} >"$out"
	dmctl remove st_snap
	exit 0
fi
umount "$MNT"
if ! e2fsck -fn "$snap" >/tmp/st_fsck 2>&1; then
	keep_image
	echo "$n $model fsck" >>/tmp/st_checked
	{
		echo "point $n ($model model): e2fsck -fn after the $ST_FS replay:"
		cat /tmp/st_fsck
		echo "--- kernel, at the mount:"
		dmesg
	} >"$out"
else
	echo "$n $model ok" >>/tmp/st_checked
fi
dmctl remove st_snap
exit 0
