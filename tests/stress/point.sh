#!/bin/sh
# point.sh: one flush point of a stress run (stress.guest) under one crash
# model, run by logreplay check at every FUA write of the log, once per
# model ($LOGREPLAY_MODEL).  The replay device holds the log up to the
# latest flush; a throw-away dm-snapshot of it gets the rest of the point
# as the model has it (logreplay replay -m MODEL LOG SNAP $LOGREPLAY_FROM
# $LOGREPLAY_ENTRY: optimistic, every write; pessimistic, the FUA writes
# only), is mounted with $ST_FS (the kernel replays the journal and the
# fast commits), unmounted and checked with e2fsck -fn.  With
# ST_ORACLE=data, before the unmount, every promise due at the point is
# checked (crash.sh's cr_check on the manifests in $ST_CASE): each thread
# ($ST_THREADS) has made durable what its points up to the last one whose
# mark (tNpK, in $ST_MARKS) precedes this FUA write recorded.  Each point
# adds "N MODEL ok|data|fsck|mount|setup CHECKED BROKEN" to
# /tmp/st_checked (data: promises broken, e2fsck clean; CHECKED and
# BROKEN: the promises checked and broken, 0 0 without the data oracle); a
# failure leaves what the mount or e2fsck said, the promises broken, with
# the kernel's lines, in $OUT/fail/$ST_ID-pN.txt ($ST_ID-pess-pN.txt under
# the pessimistic model); the first failed point of a run and model also
# leaves the image as it was before that mount (e2image -Q: the same
# name, .qcow2; metadata only, with the data oracle the files' data too;
# e2image -r turns it into a raw image for debugfs, fcdump or run-qemu.sh
# -d).  Always exits 0: logreplay stops at a failing command, and the run
# goes on to the next point.
n=$LOGREPLAY_POINT
model=$LOGREPLAY_MODEL
case $model in
pessimistic) tag=$ST_ID-pess-p$n ;;
*) tag=$ST_ID-p$n ;;
esac
out=$OUT/fail/$tag.txt
dmesg -c >/dev/null
if [ "$ST_ORACLE" = data ]; then
	# shellcheck source=../crash/lib/crash.sh source-path=SCRIPTDIR/../crash/lib
	. "$TESTDIR/crash.sh"
	set -f
	CR_MNT=$MNT cr_dir=$ST_CASE cr_threads=$ST_THREADS
fi

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
	grep -qE " $model (mount|fsck|data) " /tmp/st_checked && return 0
	_a=
	[ "$ST_ORACLE" = data ] && _a=-a
	dmctl remove st_snap && make_snap &&
		e2image -Q $_a "$snap" "$OUT/fail/$tag.qcow2" >/dev/null 2>&1
}

# promises: the data oracle on the mounted state: ks, each thread's last
# point whose mark precedes this FUA write (0: none yet), in the order of
# ST_THREADS; counts, "CHECKED BROKEN"; the broken ones in
# $ST_CASE/diff.now
promises() {
	ks=$(awk -v e="$LOGREPLAY_ENTRY" -v thr="$ST_THREADS" '
		$1 < e && $4 ~ /^t[0-9]+p[0-9]+$/ { split(substr($4, 2), a, "p"); k[a[1]] = a[2] }
		END { n = split(thr, t, " "); for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? "," : ""), k[t[i]] }' "$ST_MARKS")
	cr_at_mark=
	cr_check "$ks" "point $n ($model model)" || :
	counts=$(cr_check_counts)
}

if ! make_snap; then
	echo "$n $model setup 0 0" >>/tmp/st_checked
	{
		echo "point $n ($model model): the snapshot with the point's state failed"
		cat /tmp/st_replay
	} >"$out"
	exit 0
fi
if ! mount -t "$ST_FS" "$snap" "$MNT" >/tmp/st_mount 2>&1; then
	keep_image
	echo "$n $model mount 0 0" >>/tmp/st_checked
	{
		echo "point $n ($model model): mount -t $ST_FS failed: $(cat /tmp/st_mount)"
		dmesg
	} >"$out"
	dmctl remove st_snap
	exit 0
fi
counts="0 0"
[ "$ST_ORACLE" = data ] && [ -n "$ST_THREADS" ] && promises
umount "$MNT"
verdict=ok
e2fsck -fn "$snap" >/tmp/st_fsck 2>&1 || verdict=fsck
broken=${counts#* }
[ "$verdict" = ok ] && [ "$broken" != 0 ] && verdict=data
if [ "$verdict" != ok ]; then
	keep_image
	{
		if [ "$broken" != 0 ]; then
			echo "point $n ($model model): $broken promise(s) broken after the $ST_FS replay (each thread's last point before this FUA write: $ks; want = at the point, got = after the replay):"
			cat "$ST_CASE/diff.now"
		fi
		if [ "$verdict" = fsck ]; then
			echo "point $n ($model model): e2fsck -fn after the $ST_FS replay:"
			cat /tmp/st_fsck
		fi
		echo "--- kernel, at the mount:"
		dmesg
	} >"$out"
fi
echo "$n $model $verdict $counts" >>/tmp/st_checked
dmctl remove st_snap
exit 0
