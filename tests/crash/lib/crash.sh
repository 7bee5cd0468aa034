# shellcheck shell=sh
# crash.sh: guest side of the crash-consistency suite (tests/crash).
# Sourced after guest.sh by the tests/crash/NNN.guest scripts.  It holds
# the setup and one case (cr_case); its parts, beside it in $TESTDIR (the
# host passes lib/crash*.sh), hold the rest: crash-workload.sh runs the
# workload language below, crash-oracle.sh checks what a power cut left,
# crash-cuts.sh cuts the power.
#
# A workload is a text, one step a line (tests/src/acegen.c makes them
# from a seed, tests/crash/lib/opcases has the hand-written ones):
#
#   bs N                      mkfs block size (first line, optional)
#   fcsize KIB                mkfs fast_commit_size (default 1024)
#   mkfs OPTS...              more mke2fs options (e.g. -O ^extent)
#   mount OPTS                more mount options, every mount of the case
#                             (e.g. commit=600: no periodic full commit)
#   fcdelay MS                every fast commit of the workload waits MS
#                             ms between its snapshot and its I/O (the
#                             writer ext4fc's fc_debug_send_delay_ms; a
#                             stock writer has no such knob and the case
#                             says so in its log), so that threads can
#                             change an inode in that window on purpose
#   fcfullat PCT              the writer ext4fc's fc_full_commit_at: a
#                             fast commit that leaves the area PCT % full
#                             starts a full commit; 0 never (cases that
#                             fill the area); a stock writer has none
#   fcbatch US                the writer ext4fc's fc_batch_max_us: fsyncs
#                             of several threads wait for each other in a
#                             batching window as long as an average fast
#                             commit, at most US; a stock writer has none
#   isolate                   the writer ext4fc mounts with fsync_isolation
#                             (an fsync commits its file and what that
#                             depends on); a stock writer has no such
#                             option and the case says so in its log
#   selflush                  the writer ext4fc mounts with
#                             fc_selective_flush (a fast commit with
#                             nothing to order takes no cache flush);
#                             a stock writer has no such option
#   dirmoves                  the writer ext4fc mounts with fc_dir_moves
#                             (a directory that changes parent is a fast
#                             commit; stock ext4 refuses the journal, so
#                             only ext4fc replays such a case)
#   recover ro                the first mount after the power cut is
#                             read-only (ext4 enables write access for the
#                             recovery, as fstests' generic/388 does it);
#                             the checks follow on a read-write mount
#   methods M...              the power cuts the case is for (host side:
#                             tests/crash/lib/host.sh crash_opcases)
#   mkdir D | rmdir D | creat F | unlink F | link A B | rename A B | xchg A B
#   mkdirs D N                D/d1..D/dN (fsop mkdirs)
#   write F OFF LEN SEED      pwrite the fsop pattern of SEED
#   swrite F OFF LEN SEED sync|dsync    the same through O_SYNC / O_DSYNC
#   writeback F               F's dirty pages written as the flusher
#                             writes them (no FUA, no flush), waited for
#   trunc F SIZE | falloc F MODE OFF LEN (fsop fallocate modes)
#   frag F N SEED             N one-block extents (every other block)
#   chmod P MODE | chown P UID GID | utimes P ATIME MTIME
#   setx F NAME VALUE | rmx F NAME | jflag F +j|-j
#   verity F                  enable fs-verity on F (mkfs -O verity): its
#                             Merkle tree goes past i_size
#   symlink TARGET NAME | mknod NAME fifo|chr|blk [MAJ MIN]
#   tmpfile DIR NAME LEN SEED [fsync] [syncfs]   O_TMPFILE, written
#                             (fsync'd while nameless; a full commit with
#                             it on the orphan list), then linkat(2) to NAME
#   remount                   remount read-only and back (the log on disk
#                             is empty until the next full commit)
#   hold N F                  open F (created if missing) and keep it open
#                             across the steps that follow, as descriptor
#                             N (1-4); the file may be unlinked meanwhile
#   release N                 close descriptor N (the last close of an
#                             unlinked file deletes it)
#   evict                     drop the dentry and inode caches: inodes no
#                             one holds leave memory (ext4_fc_del())
#   (the power cut keeps what is held open: the descriptors are closed
#   only after it, before the unmount)
#   fill F                    fallocate F until the file system is full
#   resv N                    the writer's reserved_clusters (sysfs)
#   pause MS                  sleep MS milliseconds (threads: to order
#                             steps across threads, with fcdelay)
#   fsync P | fdatasync F     persistence points
#   left P [K]                P is left queued: never fsync'd, and no full
#                             commit after the setup's (up to point K, or
#                             to the end), so after the cut it must be
#                             exactly as the setup's sync left it (or
#                             missing if it was); not in threads
#   also P                    P (a directory: its names) is durable with
#                             the last point too: ext4 commits every queued
#                             change with any fsync (hand-written cases)
#   many D N                  N small files in D, each written and fsync'd
#                             (fsop burst: in one process, unless each
#                             point needs its dm-log-writes mark)
#   sync                      end of the setup: syncfs (a full commit)
#   fc WHAT [REASON]          fc_info outcome expected (checked before the
#                             power cut; fc.ext4fc, fc.ext4: for that
#                             writer only): eligible, ineligible REASON,
#                             reason REASON, first, none, overflow (fast
#                             commits, and failed ones that fell back to
#                             a full commit: the area was full),
#                             background (fast commits, and a full commit
#                             started as the area filled; none forced),
#                             isolated N [REASON] (fast commits, at least
#                             one that left queued inodes behind for
#                             fsync_isolation, exactly N ineligible ones,
#                             none failed; REASON, if given, counted),
#                             batched (fast commits, a batching window
#                             two fsyncs or more waited in, one answered
#                             by another's commit; fcbatch), grouped
#                             (fast commits, and the data of two fsyncs
#                             or more written as one group: fc_group_data)
#   fcarea full               at the power cut the last valid fast commit
#                             ends in the area's last block (fcdump of the
#                             crashed image; not a full area: the case
#                             fails, it no longer tests what it says)
#   replay-error              the replay must stop at a record it cannot
#                             apply: the mount succeeds, the kernel says
#                             "cannot be applied ... run e2fsck" (nothing
#                             else), the state after the next to last
#                             point is there, and e2fsck -fy repairs the
#                             file system (e2fsck -fn clean after it)
#   thread N                  the steps up to the next "thread" or "join"
#   join                      are thread N's (after the setup only): the
#                             threads run at once, each with its own
#                             points (1, 2, ...), manifest (manifest.tN)
#                             and dm-log-writes marks (tNpK); threads
#                             must work in their own subtrees
#
# Paths are relative to the mount point.  Everything before "sync" is
# setup; from there on every persistence point K (1, 2, ...) is recorded
# in the manifest:
#
#   pre K STATE    at point K, before its record (after its own write for
#                  an O_SYNC write), the state of every path recorded so
#                  far: what a power cut between points K-1 and K may find
#   rec K KIND STATE   after point K, the state of what it made durable
#                  (KIND fsync, fdatasync, osync, odsync, dirsync (a
#                  directory fsync'd) or dir (one "also" names); osync
#                  and odsync, an O_SYNC / O_DSYNC write, add
#                  range=OFF:LEN:SEED)
#
#   mid K STATE    with CR_STEP_STATES=1 (make stress's data oracle),
#                  after every step between points K and K+1, the state
#                  of every path recorded so far
#
# and after the last one "pre N+1" (the state at the power cut).  STATE is
# an fsop state line.  After a cut that followed point K, a path whose
# last record R is from a point <= K and whose every state recorded since
# (pre R+1 .. pre K+1, mid R .. mid K) is still R (so it was not changed
# after it was made durable: its ctime too, which every change moves on;
# a change undone by a later one counts, as a cut in between may find
# it) must have R's
# fields after the replay: all but atime for fsync, size and data for
# fdatasync, the entries (names) and link count for a directory ("also"),
# and for a directory fsync'd its mode, owner and xattrs too; for an
# O_SYNC (O_DSYNC) write, fsync's (fdatasync's) fields but, instead of
# the whole file's data, the written range: the rest of the file's dirty
# data is not made durable by it, nor the size past the range.  An
# fdatasync'd path that is a new name (link, rename) of an inode older
# than the setup's sync may be missing or be another inode: fdatasync
# does not make a name durable (the data of the inode it names, if
# there, must match).  A path changed after
# its last point is not checked: POSIX gives it no single answer.
#
# With threads, the check after a cut takes each thread's last point
# (for dm-log-writes: the last of its marks in the log replayed) and
# checks each thread's manifest against it.
#
# Results: one line per case in $OUT/results (tab separated: id, method,
# writer, replayer, verdict, message) and, for a failed case, its files in
# $OUT/cases/ID/ (workload, manifest, after, diff, fc_info, log).

# The lines of a workload that say something about the case, not a step
# to run (see the top): every reader of a workload skips them.  In awk:
# caseline(word) after "$CR_AWK_CASELINE", with -v cw="$CR_CASE_WORDS".
CR_CASE_WORDS="bs fc fcsize mkfs mount methods fcarea replay-error recover fcdelay fcfullat fcbatch isolate dirmoves selflush left"
CR_AWK_CASELINE='function caseline(v) { return v ~ /^#/ || v == "=" || v ~ /^fc\./ || index(" " cw " ", " " v " ") > 0 }'

CR_REGION_SECTORS=65536		# 32 MiB per file system
CR_MNT=/mnt/cr
CR_DATA=/dev/vda		# regions of CR_REGION_SECTORS, region 0 unused
CR_AUX=/dev/vdb			# the dm-log-writes log, then a COW area
CR_LOG_SECTORS=262144		# 128 MiB of log
CR_NEXT_REGION=1
CR_DM_SEQ=0
CR_KEEP_PASSED=${CR_KEEP_PASSED:-0}

# shellcheck source=crash-workload.sh
. "$TESTDIR/crash-workload.sh"
# shellcheck source=crash-oracle.sh
. "$TESTDIR/crash-oracle.sh"
# shellcheck source=crash-cuts.sh
. "$TESTDIR/crash-cuts.sh"

cr_init() {
	set -f
	for m in ext4 ext4fc dm-flakey dm-log-writes dm-snapshot; do
		modprobe "$m" || fail "modprobe $m"
	done
	mkdir -p "$CR_MNT" "$OUT/cases"
	: >"$OUT/results"
	: >"$OUT/regions"
	cr_data_regions=$(($(blockdev --getsz "$CR_DATA") / CR_REGION_SECTORS))
	# device-mapper through dmctl (static: dmsetup costs ~0.2 s a call
	# under TCG); devices are used as /dev/dm-N
	CR_LOG=/dev/$(dmctl create cr_log 0 $CR_LOG_SECTORS linear $CR_AUX 0) ||
		fail "dmctl create cr_log"
	CR_COW=/dev/$(dmctl create cr_cow 0 $CR_REGION_SECTORS linear $CR_AUX $CR_LOG_SECTORS) ||
		fail "dmctl create cr_cow"
}

# cr_now: seconds since boot, hundredths.
cr_now() {
	read -r _t _ </proc/uptime
	echo "$_t"
}

# cr_region ROLE: a fresh (all zero) region of the data disk as a new dm
# device, in $cr_region_dev; records "INDEX CASE ROLE" for the host's
# fsck.  Returns 1 when the disk is full.
cr_region() {
	cr_region_dev=
	[ "$CR_NEXT_REGION" -lt "$cr_data_regions" ] || {
		cr_why="out of regions ($cr_data_regions): attach a bigger data disk"
		return 1
	}
	CR_DM_SEQ=$((CR_DM_SEQ + 1))
	_name=cr$CR_DM_SEQ
	# the region itself (crNr), and above it the device the file system
	# lives on (crN), whose table the power cuts swap
	if ! _raw=$(dmctl create "${_name}r" 0 $CR_REGION_SECTORS linear $CR_DATA $((CR_NEXT_REGION * CR_REGION_SECTORS))) ||
		! _top=$(dmctl create "$_name" 0 $CR_REGION_SECTORS linear "/dev/$_raw" 0); then
		cr_why="dmctl create $_name"
		return 1
	fi
	cr_case_dms="$cr_case_dms $_name ${_name}r"
	printf '%s\t%s\t%s\n' "$CR_NEXT_REGION" "$cr_id" "$1" >>"$OUT/regions"
	cr_region_idx=$CR_NEXT_REGION
	CR_NEXT_REGION=$((CR_NEXT_REGION + 1))
	cr_region_name=$_name
	cr_region_raw=/dev/$_raw
	cr_region_dev=/dev/$_top
}

# cr_swap_suspended NAME TABLE: load TABLE into a suspended device, resume.
cr_swap_suspended() {
	# shellcheck disable=SC2086 # the table's words
	dmctl swap "$1" $2
}

# cr_swap NAME TABLE: replace a live dm device's table (no fs freeze).
cr_swap() {
	# shellcheck disable=SC2086 # the table's words
	dmctl swap "$1" $2
}

cr_fcinfo() {
	cat "/proc/fs/$cr_fs_writer/$cr_dev_name/fc_info" 2>/dev/null
}

# cr_mkfs DEV BS: a fresh file system on DEV (which reads as zeroes): a
# copy of the one made per block size (and fcsize, mkfs options) at the
# first use (mkfs.ext4 costs ~0.3 s under TCG, the copy a tenth of it;
# all cases share the UUID).
cr_mkfs() {
	_fcs=${cr_fcsize:-1024}
	_tpl=/tmp/cr_mkfs.$2.$_fcs$(printf '%s' "$cr_mkfs_opts" | tr -c 'A-Za-z0-9' '_')
	if [ ! -f "$_tpl" ]; then
		truncate -s $((CR_REGION_SECTORS * 512)) "$_tpl.new" || return 1
		# a 4 MiB journal and 1 MiB of fast-commit area (mke2fs would
		# give a file system this small 1/64 of the journal: 16 blocks)
		# shellcheck disable=SC2086 # the case's mkfs options
		mkfs.ext4 -q -F -b "$2" -O fast_commit -J size=4,fast_commit_size="$_fcs" $cr_mkfs_opts \
			-E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$_tpl.new" >"$cr_dir/mkfs.err" 2>&1 ||
			return 1
		mv "$_tpl.new" "$_tpl"
	fi
	cr_log "mkfs: a copy of $_tpl (-b $2, fast_commit_size=$_fcs${cr_mkfs_opts:+, $cr_mkfs_opts})"
	fsop sparse-copy "$_tpl" "$1" 2>"$cr_dir/mkfs.err"
}

# cr_mount TYPE DEV [OPTS]: noatime, the plan's (mountopt), the case's
# (mount) options and OPTS.
cr_mount() {
	mount -t "$1" -o "noatime${CR_MOUNT_OPTS:+,$CR_MOUNT_OPTS}${cr_mount_opts:+,$cr_mount_opts}${3:+,$3}" \
		"$2" "$CR_MNT" 2>>"$cr_dir/log"
}

# cr_writer_opts: the writer's own mount options: the plan's (writeropt)
# and the case's (isolate, dirmoves, selflush), for an ext4fc writer; a stock writer has none
# of them, and the case's log says so.
cr_writer_opts() {
	_o=${CR_WRITER_OPTS:-}
	if grep -q '^isolate$' "$cr_wl"; then
		_o=${_o:+$_o,}fsync_isolation
	fi
	if grep -q '^dirmoves$' "$cr_wl"; then
		_o=${_o:+$_o,}fc_dir_moves
	fi
	if grep -q '^selflush$' "$cr_wl"; then
		_o=${_o:+$_o,}fc_selective_flush
	fi
	[ -n "$_o" ] || return 0
	if [ "$cr_fs_writer" != ext4fc ]; then
		cr_log "writer options $_o: the writer is $cr_fs_writer, which has none of them: not set"
		return 0
	fi
	echo "$_o"
}

# cr_umount: close what 'hold' left open, then unmount
cr_umount() {
	cd / || return 1
	exec 5<&- 6<&- 7<&- 8<&-
	umount "$CR_MNT" 2>>"$cr_dir/log"
}

# cr_hold_fd N: the shell descriptor of 'hold N' (5-8), or fail
cr_hold_fd() {
	case $1 in
	[1-4]) echo $(($1 + 4)) ;;
	*)
		echo "hold/release: N is 1-4, not '$1'" >&2
		return 1
		;;
	esac
}

cr_log() {
	echo "$*" >>"$cr_dir/log"
}

# --- one case ------------------------------------------------------------

# cr_cleanup: whatever a failed case left: the mount, suspended or
# extra dm devices.
cr_cleanup() {
	cd / || true
	if grep -q " $CR_MNT " /proc/mounts; then
		umount "$CR_MNT" 2>/dev/null || umount -l "$CR_MNT" 2>/dev/null
	fi
	if [ "$1" != pass ]; then
		# scratch devices a failed case may have left
		for _d in cr_lw cr_rsnap cr_snap; do
			dmctl remove "$_d" 2>/dev/null
		done
	fi
	for _d in $cr_case_dms; do
		dmctl remove "$_d" 2>/dev/null && continue
		# a failed case may have left it suspended, or a snapshot on it
		dmctl remove cr_snap 2>/dev/null
		dmctl resume "$_d" 2>/dev/null
		dmctl remove "$_d" 2>/dev/null ||
			echo "crash: could not remove dm device $_d" >>"$cr_dir/log"
	done
	cr_case_dms=
}

# cr_result VERDICT MESSAGE
cr_result() {
	cr_cleanup "$1"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$cr_id" "$cr_method" "$cr_fs_writer" \
		"$cr_fs_replayer" "$1" "$2" >>"$OUT/results"
	if [ "$1" = pass ] && [ "$CR_KEEP_PASSED" != 1 ]; then
		rm -rf "$cr_dir"
	else
		cp "$cr_wl" "$cr_dir/workload"
	fi
}

# cr_case ID WORKLOAD METHOD WRITER REPLAYER: run one case; its verdict
# goes to $OUT/results.  METHOD: shutdown, flakey, logwrites, or
# idem-logwrites (a second power cut during the replay).  REPLAYER
# e2fsck: only write and cut; the host replays with e2fsck -fy and a
# second boot checks (cr_case_check).
cr_case() {
	cr_id=$1 cr_wl=$2 cr_method=$3 cr_fs_writer=$4 cr_fs_replayer=$5
	cr_dir=$OUT/cases/$cr_id
	cr_why=
	cr_at_mark=
	cr_markdev=
	cr_fc_got=
	cr_points=
	cr_case_dms=
	cr_threads=
	rm -rf "$cr_dir"
	mkdir -p "$cr_dir"
	# the kernel log from here on is this case's (the console keeps all)
	dmesg -c >/dev/null
	echo "ext4fc-harness: start $cr_id" >/dev/kmsg
	_bs=$(awk '$1 == "bs" { print $2; exit }' "$cr_wl")
	cr_bs=${_bs:-4096}
	cr_fcsize=$(awk '$1 == "fcsize" { print $2; exit }' "$cr_wl")
	cr_mkfs_opts=$(awk '$1 == "mkfs" { $1 = ""; sub(/^ /, ""); print; exit }' "$cr_wl")
	cr_mount_opts=$(awk '$1 == "mount" { print $2; exit }' "$cr_wl")
	cr_recover=$(awk '$1 == "recover" { print $2; exit }' "$cr_wl")
	cr_replay_error=
	grep -q '^replay-error' "$cr_wl" && cr_replay_error=1
	cr_fcarea=$(awk '$1 == "fcarea" { print $2; exit }' "$cr_wl")
	case $cr_method in
	idem-flakey)
		# its first replay dropped every write: the second could not
		# differ from it (tests/crash/README.md)
		cr_result fail "method idem-flakey was removed (its second replay could not differ from the first): use idem-logwrites"
		return
		;;
	esac
	case $cr_recover:$cr_method:$cr_fs_replayer in
	:*:* | ro:shutdown:ext4* | ro:flakey:ext4*) ;;
	*)
		cr_result fail "'recover $cr_recover' runs with method shutdown or flakey and a kernel replayer only (recover takes 'ro'; not $cr_method, $cr_fs_replayer): fix the case's recover or methods line"
		return
		;;
	esac
	if [ -n "$cr_replay_error" ]; then
		case $cr_method:$cr_fs_replayer in
		shutdown:ext4fc | flakey:ext4fc) ;;
		*)
			cr_result fail "a replay-error case runs with method shutdown or flakey, replayed by ext4fc (not $cr_method, $cr_fs_replayer): fix the plan or the case's methods line"
			return
			;;
		esac
	fi
	if [ "$cr_fs_replayer" = e2fsck ] && grep -q '^thread ' "$cr_wl"; then
		cr_result fail "a threaded workload cannot be an e2fsck cell (one manifest per cell): fix the plan"
		return
	fi
	cr_region data || { cr_result fail "$cr_why"; return; }
	cr_dev=$cr_region_dev cr_data_idx=$cr_region_idx
	cr_dev_name=${cr_dev#/dev/}
	cr_dm=$cr_region_name
	cr_size=$CR_REGION_SECTORS
	cr_target=$cr_region_raw
	cr_base="0 $cr_size linear $cr_target 0"
	if [ "$cr_method" = logwrites ]; then
		# logged from the mkfs on; the replay starts from zeroes
		dd if=/dev/zero of="$CR_LOG" bs=4096 count=1 2>/dev/null
		cr_swap "$cr_dm" "0 $cr_size log-writes $cr_target $CR_LOG" ||
			{ cr_result fail "dm-log-writes table"; return; }
	fi
	if ! cr_mkfs "$cr_dev" "$cr_bs"; then
		cr_result fail "mkfs: $(head -n 1 "$cr_dir/mkfs.err")"
		return
	fi
	case $cr_method in
	flakey)
		cr_swap "$cr_dm" "0 $cr_size flakey $cr_target 0 180 0" ||
			{ cr_result fail "dm-flakey table"; return; }
		;;
	esac
	if ! cr_mount "$cr_fs_writer" "$cr_dev" "$(cr_writer_opts)"; then
		cr_result fail "mount -t $cr_fs_writer failed$(cr_kernel_said)"
		return
	fi
	if [ "$cr_method" = logwrites ]; then
		cr_run_logwrites
		return
	fi
	if ! cr_workload "$cr_wl"; then
		cr_umount
		cr_result fail "$cr_why"
		return
	fi
	cr_fc_expect || { cr_cut_and_forget; cr_result fail "$cr_why"; return; }
	if ! cr_cut; then
		cr_result fail "$cr_why"
		return
	fi
	cr_fcarea_check "$cr_dev" || { cr_result fail "$cr_why"; return; }
	# repro.sh keeps the case: the fast-commit area as the cut left it
	[ "$CR_KEEP_PASSED" = 1 ] && [ ! -s "$cr_dir/fcdump.txt" ] && fcdump "$cr_dev" >"$cr_dir/fcdump.txt" 2>&1
	if [ "$cr_fs_replayer" = e2fsck ]; then
		# the host replays it; cr_case_check finishes the case
		cp "$cr_wl" "$cr_dir/workload"
		cr_cleanup pass
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$cr_id" "$cr_method" "$cr_fs_writer" \
			"$cr_fs_replayer" pending "$cr_data_idx" >>"$OUT/results"
		return
	fi
	case $cr_method in
	idem-logwrites) cr_replay_idem_logwrites || { cr_result fail "$cr_why"; return; } ;;
	esac
	if [ "$cr_recover" = ro ]; then
		if ! cr_mount "$cr_fs_replayer" "$cr_dev" ro; then
			cr_result fail "read-only mount -t $cr_fs_replayer after the power cut (recover ro) failed$(cr_kernel_said)"
			return
		fi
		cr_log "recovered by a read-only mount: $(dmesg | grep -c 'fast commit replay') fast commit replay line(s)"
		cr_umount || { cr_result fail "umount after the read-only recovery"; return; }
	fi
	if ! cr_mount "$cr_fs_replayer" "$cr_dev"; then
		cr_result fail "mount -t $cr_fs_replayer after the power cut failed$(cr_kernel_said)"
		return
	fi
	if [ -n "$cr_replay_error" ]; then
		cr_replay_error_check || { cr_result fail "$cr_why"; return; }
		cr_result pass "$cr_k point(s), $cr_points${cr_fc_got:+; $cr_fc_got}"
		return
	fi
	cr_check "$cr_kfinal" "replayed by $cr_fs_replayer" || { cr_umount; cr_result fail "$cr_why"; return; }
	cr_umount || { cr_result fail "umount after the check"; return; }
	cr_dmesg_ok || { cr_result fail "$cr_why"; return; }
	cr_result pass "$cr_k point(s)${cr_points:+, $cr_points}${cr_fc_got:+; $cr_fc_got}"
}

# cr_case_check ID WORKLOAD METHOD WRITER REGION: the second boot of an
# e2fsck cell: the host ran e2fsck -fy on the region; mount it (as the
# writer's type) and check the manifest kept from the first boot.
cr_case_check() {
	cr_id=$1 cr_wl=$2 cr_method=$3 cr_fs_writer=$4 cr_fs_replayer=e2fsck
	cr_dir=$OUT/cases/$cr_id
	cr_why=
	cr_threads="" cr_replay_error=""
	cr_mount_opts=$(awk '$1 == "mount" { print $2; exit }' "$cr_wl")
	mkdir -p "$cr_dir"
	cp "$TESTDIR/$cr_id.manifest" "$cr_dir/manifest"
	dmesg -c >/dev/null
	echo "ext4fc-harness: start $cr_id" >/dev/kmsg
	cr_case_dms="cr_chk$5"
	_chk=/dev/$(dmctl create "cr_chk$5" 0 $CR_REGION_SECTORS linear $CR_DATA $(($5 * CR_REGION_SECTORS))) ||
		{ cr_result fail "dmctl create"; return; }
	_k=$(awk '$1 == "rec" { k = $2 } END { print k + 0 }' "$cr_dir/manifest")
	if ! cr_mount "$cr_fs_writer" "$_chk"; then
		cr_result fail "mount after e2fsck -fy failed$(cr_kernel_said)"
		return
	fi
	cr_check "$_k" "replayed by e2fsck -fy" || { cr_umount; cr_result fail "$cr_why"; return; }
	cr_umount
	cr_dmesg_ok || { cr_result fail "$cr_why"; return; }
	cr_result pass "$_k point(s)"
}
