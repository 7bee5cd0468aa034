# shellcheck shell=sh
# crash.sh: guest side of the crash-consistency suite (tests/crash).
# Sourced after guest.sh by the tests/crash/NNN.guest scripts.
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

# --- running a workload ------------------------------------------------

# cr_track PATH: remember PATH for the "pre" snapshots.
cr_track() {
	case " $cr_tracked " in
	*" $1 "*) ;;
	*) cr_tracked="$cr_tracked $1" ;;
	esac
}

cr_pre() {
	[ -n "$cr_tracked" ] || return 0
	# shellcheck disable=SC2086 # a list of paths
	fsop state $cr_tracked | sed "s/^/pre $1 /" >>"$cr_manifest"
}

# cr_mid: with CR_STEP_STATES=1, "mid K" (a state after a step that was
# not a point, between points K and K+1) of everything tracked.
cr_mid() {
	[ "${CR_STEP_STATES:-0}" = 1 ] && [ -n "$cr_tracked" ] || return 0
	# shellcheck disable=SC2086 # a list of paths
	fsop state $cr_tracked | sed "s/^/mid $cr_k /" >>"$cr_manifest"
}

# cr_point_record KIND PATH: one more record at the last point.
cr_point_record() {
	cr_track "$2"
	cr_rec "$1" "$(fsop state "$2")"
}

# cr_rec KIND STATE: the "rec" line of the point cr_k.
cr_rec() {
	_st=$2
	_kind=$1
	case $_kind in
	osync | odsync)
		# O_SYNC / O_DSYNC make the written range durable, not the
		# rest of the file's dirty data: the check verifies the range
		_st="$_st range=$cr_range"
		;;
	esac
	if { [ "$_kind" = fdatasync ] || [ "$_kind" = odsync ]; } && [ -s "$cr_dir/base_inos" ]; then
		# fdatasync makes a new file's name durable with its data (ext4
		# updates i_datasync_tid at creation), not a new name (link,
		# rename) of an old inode: for those, "fdatasync-old".  Old: from
		# before the setup's sync, or recorded at an earlier point under
		# another name (made durable there, renamed since)
		_ino=${_st#* ino=}
		_ino=${_ino%% *}
		if grep -qx "$_ino" "$cr_dir/base_inos" ||
			awk -v i=" ino=$_ino " -v p="${_st%% *}" '$1 == "rec" && index($0, i) && $4 != p { f = 1 } END { exit !f }' "$cr_manifest"; then
			_kind=$_kind-old
		fi
	fi
	echo "rec $cr_k $_kind $_st" >>"$cr_manifest"
}

# cr_point KIND PATH: persistence point done: record "pre" (everything
# tracked) and "rec" (PATH) with one fsop, mark the log (pK, or tNpK in
# thread N).
cr_point() {
	cr_track "$2"
	# shellcheck disable=SC2086 # a list of paths
	fsop state $cr_tracked >"/tmp/cr_state$cr_thr" || return 1
	_st=
	while IFS= read -r _l; do
		echo "pre $cr_k $_l"
		case $_l in
		"$2 "*) _st=$_l ;;
		esac
	done <"/tmp/cr_state$cr_thr" >>"$cr_manifest"
	cr_rec "$1" "$_st"
	if [ -n "$cr_markdev" ]; then
		dmctl message "$cr_markdev" mark "${cr_thr:+t$cr_thr}p$cr_k" || return 1
	fi
	return 0
}

# cr_many_burst D N: "many D N" by fsop burst, then its N points in the
# manifest: at point K the burst's files 1..K as each was after its
# fsync (none changed after it), and every other tracked path as it is
# after the burst (a directory the burst grew counts as changed after its
# point, as it is).
cr_many_burst() {
	_others=$cr_tracked
	fsop burst "$1" "$2" >"/tmp/cr_burst$cr_thr" || return 1
	: >"/tmp/cr_others$cr_thr"
	if [ -n "$_others" ]; then
		# shellcheck disable=SC2086 # a list of paths
		fsop state $_others >"/tmp/cr_others$cr_thr" || return 1
	fi
	_i=0
	# shellcheck disable=SC2094 # the burst's lines are read twice, not written
	while IFS= read -r _l; do
		_i=$((_i + 1))
		cr_k=$((cr_k + 1))
		cr_track "$1/s$_i"
		{
			sed "s/^/pre $cr_k /" "/tmp/cr_others$cr_thr"
			sed -n "1,${_i}s/^/pre $cr_k /p" "/tmp/cr_burst$cr_thr"
		} >>"$cr_manifest"
		cr_rec fsync "$_l"
	done <"/tmp/cr_burst$cr_thr"
	[ "$_i" = "$2" ] || { echo "fsop burst $1 $2: $_i state line(s)"; return 1; }
}

# cr_case_word WORD: is WORD a case-level line's (CR_CASE_WORDS)?
cr_case_word() {
	case $1 in \#* | = | fc.*) return 0 ;; esac
	case " $CR_CASE_WORDS " in *" $1 "*) return 0 ;; esac
	return 1
}

# cr_step LINE: run one workload step in $CR_MNT (the cwd).
cr_step() {
	# shellcheck disable=SC2086 # the step's words
	set -- $1
	[ $# -gt 0 ] || return 0
	_verb=$1
	shift
	cr_case_word "$_verb" && return 0
	case $_verb in
	thread | join)
		echo "'$_verb' outside a threaded part (after the setup's sync only)"
		return 2
		;;
	sync)
		if [ -n "$cr_thr" ]; then
			echo "sync in thread $cr_thr: a thread has no full commit of its own"
			return 2
		fi
		fsop syncfs . || return 1
		# the inodes made durable by this full commit (fdatasync below)
		find . -xdev -exec fsop state {} + | tr ' ' '\n' | sed -n 's/^ino=//p' >"$cr_dir/base_inos"
		# what the case leaves queued: as this full commit has it
		awk '$1 == "left" { print $2, ($3 == "" ? "-" : $3) }' "$cr_wl" |
			while read -r _p _upto; do
				echo "left $_upto $(fsop state "$_p")"
			done >>"$cr_manifest"
		cr_fcinfo >"$cr_dir/fc_info.before"
		return 0
		;;
	fsync | fdatasync)
		cr_k=$((cr_k + 1))
		fsop "$_verb" "$1" || return 1
		if [ -d "$1" ]; then
			cr_point dirsync "$1"
		else
			cr_point "$_verb" "$1"
		fi
		return
		;;
	swrite)
		cr_k=$((cr_k + 1))
		fsop pwrite "$1" "$2" "$3" "$4" "$5" || return 1
		cr_range=$2:$3:$4
		if [ "$5" = sync ]; then
			cr_point osync "$1"
		else
			cr_point odsync "$1"
		fi
		return
		;;
	also)
		# ext4 commits every queued change with an fsync (fast or full
		# commit alike): PATH is durable with the last point too
		[ "$cr_k" -gt 0 ] || return 2
		if [ -d "$1" ]; then
			cr_point_record dir "$1"
		else
			cr_point_record fsync "$1"
		fi
		return
		;;
	many)
		if [ -z "$cr_markdev" ]; then
			# no marks to send: the whole burst in one process,
			# fsyncs back to back (threads race each other's)
			cr_many_burst "$1" "$2"
			return
		fi
		_i=1
		while [ "$_i" -le "$2" ]; do
			cr_k=$((cr_k + 1))
			fsop pwrite "$1/s$_i" 0 $((_i * 100)) "$_i" &&
				fsop fsync "$1/s$_i" || return 1
			cr_point fsync "$1/s$_i" || return 1
			_i=$((_i + 1))
		done
		return 0
		;;
	pause) sleep "$(awk -v ms="$1" 'BEGIN { printf "%.3f", ms / 1000 }')" ;;
	remount)
		# read-only and back: jbd2 empties the log (JBD2_FLUSHED)
		mount -o remount,ro "$CR_MNT" && mount -o remount,rw "$CR_MNT"
		;;
	mkdir) mkdir "$1" ;;
	mkdirs) fsop mkdirs "$1" "$2" ;;
	rmdir) rmdir "$1" ;;
	creat) : >"$1" ;;
	unlink) rm -f "$1" ;;
	link) fsop link "$1" "$2" ;;
	rename) fsop rename "$1" "$2" ;;
	xchg) fsop rename "$1" "$2" exchange ;;
	write) fsop pwrite "$1" "$2" "$3" "$4" ;;
	writeback) fsop writeback "$1" ;;
	trunc) fsop truncate "$1" "$2" ;;
	falloc) fsop fallocate "$1" "$2" "$3" "$4" ;;
	frag) fsop fragment "$1" "$2" "$3" ;;
	chmod) chmod "$2" "$1" ;;
	chown) fsop chown "$1" "$2" "$3" ;;
	utimes) fsop utimes "$1" "$2" "$3" ;;
	setx) fsop setxattr "$1" "$2" "$3" ;;
	rmx) fsop removexattr "$1" "$2" ;;
	jflag) fsop setflags "$1" "$2" ;;
	verity) fsop verity "$1" ;;
	symlink) fsop symlink "$1" "$2" ;;
	mknod) fsop mknod "$@" ;;
	tmpfile) fsop tmpfile "$@" ;;
	fill) echo "fill $1: $(fsop fill "$1") bytes" ;;
	hold)
		_fd=$(cr_hold_fd "$1") || return 2
		eval "exec $_fd<>\"\$2\"" || return 1
		;;
	release)
		_fd=$(cr_hold_fd "$1") || return 2
		eval "exec $_fd<&-"
		;;
	evict) echo 3 >/proc/sys/vm/drop_caches ;;
	resv)
		echo "$1" >"/sys/fs/$cr_fs_writer/$cr_dev_name/reserved_clusters" ||
			{ echo "cannot set /sys/fs/$cr_fs_writer/$cr_dev_name/reserved_clusters to $1"; return 1; }
		;;
	*)
		echo "unknown step '$_verb'"
		return 2
		;;
	esac
}

# cr_workload FILE: run FILE's steps in $CR_MNT, writing the manifest.
cr_workload() {
	cr_k=0
	cr_kfinal=0
	cr_tracked=
	cr_thr=
	cr_threads=
	cr_manifest=$cr_dir/manifest
	: >"$cr_manifest"
	# the baseline: at the mount, or (usually) after the setup's sync
	cr_fcinfo >"$cr_dir/fc_info.before"
	cd "$CR_MNT" || return 1
	_wl=$1
	if cr_setup_batch "$1" >/tmp/cr_batch; then
		# the setup in one fsop process, then the rest step by step
		if ! fsop batch </tmp/cr_batch >>"$cr_dir/log" 2>&1; then
			cr_why="setup failed (fsop batch): $(tail -n 1 "$cr_dir/log")"
			cd / || true
			return 1
		fi
		cr_step sync || { cd / || true; cr_why="setup sync"; return 1; }
		_wl=/tmp/cr_after_setup
		awk 'done { print } $1 == "sync" { done = 1 }' "$1" >"$_wl"
	fi
	cr_knobs "$1" || { cd / || true; return 1; }
	cr_run_steps "$_wl"
	_rc=$?
	cr_knobs ""
	return $_rc
}

# cr_knobs WORKLOAD: set the writer's module parameters the case names
# (fcdelay, fcfullat, fcbatch: see the top); cr_knobs "": all back as
# loaded.
cr_knobs() {
	cr_knob fcdelay fc_debug_send_delay_ms "$1" &&
		cr_knob fcfullat fc_full_commit_at "$1" &&
		cr_knob fcbatch fc_batch_max_us "$1"
}

# cr_knob STEP PARAM WORKLOAD: one of them.  The value the module was
# loaded with is kept in /tmp/cr_knob.PARAM the first time.
CR_PARAMS=/sys/module/ext4fc/parameters
cr_knob() {
	_v=
	[ -z "$3" ] || _v=$(awk -v s="$1" '$1 == s { print $2; exit }' "$3")
	if [ "$cr_fs_writer" != ext4fc ]; then
		[ -z "$_v" ] || cr_log "$1 $_v: the writer is $cr_fs_writer, which has no such knob: not set"
		return 0
	fi
	if [ ! -w "$CR_PARAMS/$2" ]; then
		[ -z "$_v" ] && return 0
		cr_why="$1 $_v: no $CR_PARAMS/$2 (ext4fc.ko older than the case?): rebuild the modules"
		return 1
	fi
	[ -f "/tmp/cr_knob.$2" ] || cat "$CR_PARAMS/$2" >"/tmp/cr_knob.$2"
	if [ -n "$_v" ]; then
		echo "$_v" >"$CR_PARAMS/$2"
	else
		cat "/tmp/cr_knob.$2" >"$CR_PARAMS/$2"
	fi
}

# cr_setup_batch WORKLOAD: the steps before "sync" as fsop batch lines;
# 1 if there is no sync, or a setup step fsop cannot do.
cr_setup_batch() {
	awk -v cw="$CR_CASE_WORDS" "$CR_AWK_CASELINE"'
	$1 == "sync" { found = 1; exit }
	NF == 0 || caseline($1) { next }
	$1 == "mkdir" || $1 == "mkdirs" || $1 == "creat" || $1 == "link" || $1 == "chmod" || $1 == "chown" { print; next }
	$1 == "symlink" || $1 == "mknod" || $1 == "tmpfile" || $1 == "fill" { print; next }
	$1 == "write" { $1 = "pwrite"; print; next }
	$1 == "setx" { $1 = "setxattr"; print; next }
	$1 == "jflag" { $1 = "setflags"; print; next }
	$1 == "trunc" { $1 = "truncate"; print; next }
	$1 == "falloc" { $1 = "fallocate"; print; next }
	{ bad = 1; exit }
	END { exit (found && !bad) ? 0 : 1 }' "$1"
}

# --- checking --------------------------------------------------------------

# cr_compare K AFTER MANIFEST: the diff lines (none: pass) between the
# manifest's expectations after point K and AFTER (fsop state of the same
# paths).
cr_compare() {
	awk -v k="$1" -v fields_fsync="type ino size mode nlink uid gid mtime ctime data xattr" \
		-v fields_fdatasync="type ino size data" \
		-v fields_osync="type ino size mode nlink uid gid mtime ctime xattr range" \
		-v fields_odsync="type ino size range" \
		-v fields_dir="type ino nlink entries" \
		-v fields_dirsync="type ino mode nlink uid gid entries xattr" '
	function parse(line, arr,    n, i, w, kv) {
		split("", arr)
		n = split(line, w, " ")
		arr["path"] = w[1]
		arr["type"] = w[2]
		for (i = 3; i <= n; i++) {
			kv = index(w[i], "=")
			if (kv)
				arr[substr(w[i], 1, kv - 1)] = substr(w[i], kv + 1)
		}
	}
	function fields(kind) {
		return kind == "fsync" ? fields_fsync : kind ~ /^fdatasync/ ? fields_fdatasync : \
			kind == "osync" ? fields_osync : kind ~ /^odsync/ ? fields_odsync : \
			kind == "dirsync" ? fields_dirsync : fields_dir
	}
	# what must not change after the point for it to be checked: for an
	# O_SYNC range, the whole file; and the ctime, which every change
	# moves on, so that a change undone before K+1 (a name renamed away
	# and linked back, between points or not) counts as one: a cut in
	# between may find it
	function stable(kind,    f) {
		f = fields(kind)
		sub(/ range$/, " data", f)
		if (f !~ / ctime/)
			f = f " ctime"
		return f
	}
	function same(a, b, kind, flist,    f, n, i) {
		n = split(flist == "" ? fields(kind) : flist, f, " ")
		for (i = 1; i <= n; i++)
			if (a[f[i]] != b[f[i]])
				return 0
		return 1
	}
	FILENAME == ARGV[1] {
		# the manifest
		if ($1 == "rec" && $2 <= k) {
			kind[$4] = $3
			at[$4] = $2
			line = $0
			sub(/^rec [0-9]+ [a-z-]+ /, "", line)
			rec[$4] = line
		}
		# the states up to pre K+1: "pre J" at point J, "mid J" after a
		# step between J and J+1 (as if at J + 1/2)
		if (($1 == "pre" && $2 <= k + 1) || ($1 == "mid" && $2 <= k)) {
			line = $0
			sub(/^[a-z]+ [0-9]+ /, "", line)
			ns[$3]++
			st[$3, ns[$3]] = line
			stat[$3, ns[$3]] = $1 == "mid" ? $2 + 0.5 : $2
			if ($1 == "pre" && $2 == k + 1)
				last[$3] = 1
		}
		next
	}
	{ after[$1] = $0 }
	END {
		bad = 0
		for (p in rec) {
			parse(rec[p], r)
			# no state at K+1: not known to be unchanged
			changed = !(p in last)
			for (i = 1; i <= ns[p] && !changed; i++) {
				if (stat[p, i] <= at[p])
					continue
				parse(st[p, i], c)
				changed = !same(r, c, kind[p], stable(kind[p]))
			}
			if (changed) {
				nstable++
				continue
			}
			nchecked++
			parse(after[p], a)
			if (same(r, a, kind[p]))
				continue
			# an O_SYNC or O_DSYNC write syncs its range: the size may
			# fall short of the recorded one, down to the range end,
			# when the file had dirty data past the range (ext4 writes
			# the size its written blocks cover, i_disksize)
			if (kind[p] ~ /^o/ && a["size"] != r["size"] && split(r["range"], rg, ":") == 3 &&
			    a["size"] + 0 >= rg[1] + rg[2] && a["size"] + 0 < r["size"] + 0) {
				a["size"] = r["size"]
				if (same(r, a, kind[p]))
					continue
			}
			# an old inode under a new name, fdatasync: the name need
			# not be there, the old one (or nothing) may be
			if (kind[p] ~ /-old$/ && a["ino"] != r["ino"]) {
				nname++
				continue
			}
			bad++
			n = split(fields(kind[p]), f, " ")
			printf "%s (%s at point %s):", p, kind[p], k
			for (i = 1; i <= n; i++)
				if (r[f[i]] != a[f[i]])
					printf " %s want %s got %s", f[i], r[f[i]], (f[i] in a) ? a[f[i]] : "-"
			printf "\n"
		}
		printf "# checked %d path(s), %d changed after their point (not checked), %d new name(s) of old inodes not durable under fdatasync (allowed), %d differ\n", nchecked, nstable, nname, bad >"/dev/stderr"
	}' "$3" "$2"
}

# cr_ranges K MANIFEST: for the paths whose last record up to point K is
# an O_SYNC or O_DSYNC write, add to their "after" line whether the range
# holds what was written ("range=OFF:LEN:SEED", as recorded) or not
# ("range=bad").
cr_ranges() {
	awk -v k="$1" '$1 == "rec" && $2 <= k { r[$4] = ""; if (match($0, / range=[^ ]*/)) r[$4] = substr($0, RSTART + 7, RLENGTH - 7) }
		END { for (p in r) if (r[p] != "") print p, r[p] }' "$2" >/tmp/cr_ranges
	[ -s /tmp/cr_ranges ] || return 0
	while read -r _p _r; do
		_o=${_r%%:*}
		_s=${_r##*:}
		_l=${_r#*:}
		_l=${_l%:*}
		if (cd "$CR_MNT" && fsop verify "$_p" "$_o" "$_l" "$_s") >/dev/null 2>&1; then
			_v=$_r
		else
			_v=bad
		fi
		awk -v p="$_p" -v v="$_v" '$1 == p { $0 = $0 " range=" v } { print }' "$cr_dir/after" >/tmp/cr_after &&
			mv /tmp/cr_after "$cr_dir/after"
	done </tmp/cr_ranges
}

# cr_check K WHAT: check the mounted file system against the manifest
# after point K (with threads, K is "K1,K2,...": each thread's last point,
# in the order of cr_threads); on a difference set cr_why and return 1.
cr_check() {
	: >"$cr_dir/diff.now"
	: >"$cr_dir/checked.now"
	if [ -z "$cr_threads" ]; then
		cr_check_one "$cr_dir/manifest" "$1" ""
	else
		_ks=$1,
		for _t in $cr_threads; do
			cr_check_one "$cr_dir/manifest.t$_t" "${_ks%%,*}" "thread $_t: "
			_ks=${_ks#*,}
		done
	fi
	cr_log "$2: $(tr '\n' ' ' <"$cr_dir/checked.now")"
	if [ -s "$cr_dir/diff.now" ]; then
		{
			echo "--- $2: after point $1"
			cat "$cr_dir/diff.now"
		} >>"$cr_dir/diff"
		cr_why="$2: $(head -n 1 "$cr_dir/diff.now")"
		return 1
	fi
	return 0
}

# cr_check_counts: "CHECKED BROKEN" of the last cr_check: the promises
# (paths recorded at a point) it checked, and those that differ.
cr_check_counts() {
	awk 'FILENAME == ARGV[1] { if (match($0, /# checked [0-9]+/)) c += substr($0, RSTART + 10, RLENGTH - 10); next }
		NF { b++ }
		END { print c + 0, b + 0 }' "$cr_dir/checked.now" "$cr_dir/diff.now"
}

# cr_left_check MANIFEST K: each path the case leaves queued ("left P
# [K]": never fsync'd, no full commit after the setup's, up to point K
# or to the end) must be as that full commit left it after point K,
# every field, or missing if it was; a line per difference, and on
# stderr how many were checked.  "Up to point K" is checked before point
# K and at K's own mark (cr_at_mark, logwrites), where nothing that
# followed the point is on the device yet.
cr_left_check() {
	_nleft=0
	_bad=0
	while read -r _w _upto _p _want; do
		[ "$_w" = left ] || continue
		# up to point K: before it, or at its mark (dm-log-writes'), not
		# after anything that followed it
		case $_upto in
		-) ;;
		*) [ "$2" -lt "$_upto" ] || { [ "$2" = "$_upto" ] && [ -n "$cr_at_mark" ]; } || continue ;;
		esac
		_nleft=$((_nleft + 1))
		_got=$(cd "$CR_MNT" && fsop state "$_p" 2>&1)
		_got=${_got#"$_p "}
		[ "$_got" = "$_want" ] && continue
		_bad=$((_bad + 1))
		echo "$_p (left queued, never fsync'd): want $_want got $_got"
	done <"$1"
	[ "$_nleft" -eq 0 ] || echo "# left queued: $_nleft path(s) checked, $_bad differ" >&2
}

# cr_check_one MANIFEST K PREFIX: one manifest's check after its point K,
# appended (lines prefixed) to diff.now and checked.now.
cr_check_one() {
	_paths=$(awk -v k="$2" '$1 == "rec" && $2 <= k { print $4 }' "$1" | sort -u | tr '\n' ' ')
	: >"$cr_dir/after"
	if [ -n "$_paths" ]; then
		# shellcheck disable=SC2086 # a list of paths
		(cd "$CR_MNT" && fsop state $_paths) >"$cr_dir/after" 2>>"$cr_dir/log"
		cr_ranges "$2" "$1"
	fi
	cr_compare "$2" "$cr_dir/after" "$1" >"$cr_dir/diff.one" 2>"$cr_dir/checked.one"
	cr_left_check "$1" "$2" >>"$cr_dir/diff.one" 2>>"$cr_dir/checked.one"
	sed "s/^/$3/" "$cr_dir/diff.one" >>"$cr_dir/diff.now"
	sed "s/^/$3/" "$cr_dir/checked.one" >>"$cr_dir/checked.now"
}

# cr_fc_expect: the fc_info outcome the workload's "fc" lines ask for.
cr_fc_expect() {
	[ -s "$cr_dir/fc_info.before" ] || return 0
	_msg=$(awk -F'\t' -v writer="$cr_fs_writer" '
	FILENAME == ARGV[1] { split($0, w, " "); if (w[1] == "fc" || w[1] == "fc." writer) { n++; want[n] = $0; sub(/^fc(\.[a-z0-9]+)? +/, "", want[n]) }; next }
	function key(w) { return w[2] == "commits" || w[2] == "ineligible" || w[2] == "failed" || w[2] == "area" || w[2] == "background" || w[2] == "isolated" || w[2] == "skipped" || w[2] == "batching" }
	# "N batching windows, M fsyncs waited in them, ...": M as "waited"
	# "N data groups, M fsyncs wrote their data in them": N as "groups", M as "grouped"
	FILENAME == ARGV[2] { split($0, w, " "); if (key(w)) b[w[2]] = w[1]; else if ($1 ~ /^"/) b[$1] = $2; if (w[2] == "batching") b["waited"] = w[4]; if (w[2] == "data" && w[3] == "groups,") { b["groups"] = w[1]; b["grouped"] = w[4] }; next }
	{ split($0, w, " "); if (key(w)) a[w[2]] = w[1]; else if ($1 ~ /^"/) a[$1] = $2; if (w[2] == "batching") a["waited"] = w[4]; if (w[2] == "data" && w[3] == "groups,") { a["groups"] = w[1]; a["grouped"] = w[4] } }
	END {
		dc = a["commits"] - b["commits"]; di = a["ineligible"] - b["ineligible"]
		df = a["failed"] - b["failed"]
		# stock ext4 has no such lines: 0
		dfull = a["area"] - b["area"]; dbg = a["background"] - b["background"]
		diso = a["isolated"] - b["isolated"]
		for (r in a)
			if (r ~ /^"/ && a[r] != b[r])
				reasons = reasons sprintf(" %s+%d", r, a[r] - b[r])
		got = sprintf("commits +%d, ineligible +%d (failed +%d, area full +%d), background full commits +%d, isolated +%d, reasons%s", dc, di, df, dfull, dbg, diso, reasons ? reasons : " none")
		for (i = 1; i <= n; i++) {
			split(want[i], w, " ")
			what = w[1]
			reason = want[i]; sub(/^[a-z]+ */, "", reason)
			key = "\"" reason "\":"
			if (what == "eligible") {
				if (dc < 1 || di != 0 || reasons != "")
					bad = bad "want eligible (commits +>=1, ineligible +0, no reason); "
			} else if (what == "ineligible") {
				if (di < 1 || a[key] - b[key] < 1 || dc != 0)
					bad = bad "want ineligible with \"" reason "\" (no fast commit); "
			} else if (what == "reason") {
				if (a[key] - b[key] < 1)
					bad = bad "want reason \"" reason "\" counted; "
			} else if (what == "first") {
				if (di != 1 || dc != 0 || reasons != "")
					bad = bad "want the first fsync after mount to be one ineligible commit without reason; "
			} else if (what == "none") {
				if (dc != 0 || di != 0 || reasons != "")
					bad = bad "want no fast commit activity; "
			} else if (what == "overflow") {
				if (dc < 1 || df < 1 || di != df || reasons != "" || (("area" in a) && dfull != df))
					bad = bad "want fast commits and failed ones that fell back to a full commit (area full), nothing else ineligible; "
			} else if (what == "background") {
				if (dc < 1 || di != 0 || dfull != 0 || dbg < 1 || reasons != "")
					bad = bad "want fast commits, a full commit started in the background as the area filled, none forced by a full area, nothing ineligible; "
			} else if (what == "batched") {
				dbw = a["batching"] - b["batching"]; dbf = a["waited"] - b["waited"]
				dsk = a["skipped"] - b["skipped"]
				if (dc < 1 || di != 0 || dbw < 1 || dbf < 2 || dsk < 1)
					bad = bad "want fast commits, a batching window that two fsyncs or more waited in, one of them answered by another\047s commit (skipped), nothing ineligible (got windows +" dbw ", fsyncs waited +" dbf ", skipped +" dsk "); "
			} else if (what == "grouped") {
				dg = a["groups"] - b["groups"]; dgf = a["grouped"] - b["grouped"]
				if (dc < 1 || di != 0 || dg < 1 || dgf < 2)
					bad = bad "want fast commits, the data of two fsyncs or more written as one group, nothing ineligible (got groups +" dg ", fsyncs in them +" dgf "); "
			} else if (what == "isolated") {
				# "isolated N [REASON]"
				ni = w[2]; sub(/^[0-9]+ */, "", reason); key = "\"" reason "\":"
				if (dc < 1 || diso < 1 || di != ni || df != 0 || (reason != "" && a[key] - b[key] < 1))
					bad = bad "want fast commits, one at least isolated (queued inodes left behind), " ni " ineligible, none failed" (reason != "" ? ", reason \"" reason "\" counted" : "") "; "
			} else
				bad = bad "unknown fc expectation " what "; "
		}
		if (bad)
			print "fc_info: " bad "got " got
		else
			print "ok: " got
	}' "$cr_wl" "$cr_dir/fc_info.before" "$cr_dir/fc_info.after")
	cr_log "$_msg"
	cr_fc_got=${_msg#ok: }
	case $_msg in
	ok:*) return 0 ;;
	esac
	cr_why=$_msg
	return 1
}

# cr_dmesg_ok: nothing at warning level or worse since the case started,
# other than what the shutdown ioctl says where the method used it.
cr_dmesg_ok() {
	case $cr_method in
	flakey | logwrites) _sd=0 ;;
	*) _sd=1 ;;
	esac
	_bad=$(dmesg -r | awk -v sd="$_sd" -v rerr="$cr_replay_error" '
		{
			p = $0; sub(/^</, "", p); sub(/>.*/, "", p)
			if (p % 8 > 4 || int(p / 8) != 0)
				next
		}
		# TCG noise, and ext4 rate-limiting its own unmount messages
		/hrtimer: interrupt took/ { next }
		/callbacks suppressed/ { next }
		# what EXT4_IOC_SHUTDOWN itself says, where we used it
		sd && /shut down requested/ { next }
		sd && /Aborting journal on device/ { next }
		# jbd2 failing to write data after the shut-down cut it off
		sd && /Detected IO errors while flushing file data/ { next }
		/loading out-of-tree module taints kernel/ { next }
		/module verification failed/ { next }
		# a replay-error case: what the stopped replay must say
		rerr && /fast commit replay: .* cannot be applied .*: replay stops there, the file system is marked with errors: run e2fsck/ { next }
		rerr && /warning: mounting fs with errors, running e2fsck is recommended/ { next }
		{ print }')
	[ -z "$_bad" ] && return 0
	echo "$_bad" >>"$cr_dir/log"
	cr_why="kernel said: $(echo "$_bad" | head -n 1 | sed 's/^<[0-9]*>\[[^]]*\] //')"
	return 1
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

# cr_kernel_said: ": kernel: LINE", the last thing the kernel said at
# error level or worse since the case started (or nothing).
cr_kernel_said() {
	_l=$(dmesg -r | awk '{ p = $0; sub(/^</, "", p); sub(/>.*/, "", p) } p % 8 <= 3 && int(p / 8) == 0' |
		tail -n 1 | sed 's/^<[0-9]*>\[[^]]*\] //')
	[ -n "$_l" ] && echo ": kernel: $_l"
}

# cr_replay_error_check: a replay-error case, mounted after the cut: the
# replay stopped at a record it could not apply and said so (and nothing
# else), the file system is marked with errors, the state after the next
# to last point is there; then e2fsck -fy repairs it and e2fsck -fn is
# clean.  Leaves it unmounted.
cr_replay_error_check() {
	_stop=$(dmesg | grep -m1 'fast commit replay: .* cannot be applied')
	if [ -z "$_stop" ]; then
		cr_umount
		cr_why="want the replay to stop at a record it cannot apply (replay-error), but the kernel did not say 'cannot be applied'$(cr_kernel_said)"
		return 1
	fi
	cr_log "replay stopped: $_stop"
	if [ "$cr_k" -lt 1 ] || ! cr_check $((cr_k - 1)) "replay stopped, state after point $((cr_k - 1))"; then
		[ "$cr_k" -lt 1 ] && cr_why="a replay-error case needs a point before the one that cannot be replayed"
		cr_umount
		return 1
	fi
	cr_umount || { cr_why="umount after the stopped replay"; return 1; }
	cr_dmesg_ok || return 1
	_state=$(dumpe2fs -h "$cr_dev" 2>/dev/null | sed -n 's/^Filesystem state: *//p')
	case $_state in
	*error*) ;;
	*)
		cr_why="the replay stopped but the file system is not marked with errors (state: '$_state')"
		return 1
		;;
	esac
	_rc=0
	e2fsck -fy "$cr_dev" >"$cr_dir/e2fsck-fy.txt" 2>&1 || _rc=$?
	if [ "$_rc" -ge 4 ]; then
		cr_why="e2fsck -fy after the stopped replay: exit $_rc: $(grep -v '^e2fsck \|^Pass \|^$' "$cr_dir/e2fsck-fy.txt" | head -n 1)"
		return 1
	fi
	if ! e2fsck -fn "$cr_dev" >"$cr_dir/fsck.now" 2>&1; then
		cr_why="e2fsck -fn after e2fsck -fy: $(grep -v '^e2fsck \|^Pass \|^$' "$cr_dir/fsck.now" | head -n 1)"
		return 1
	fi
	cr_points="replay stopped at $(echo "$_stop" | sed 's/.*fast commit replay: //; s/ cannot be applied.*//'), e2fsck -fy repaired it (exit $_rc)"
	return 0
}

# cr_fcarea_check DEV: a case that says "fcarea full": the crashed image
# on DEV has its last valid fast commit ending in the area's last block.
cr_fcarea_check() {
	[ "$cr_fcarea" = full ] || return 0
	fcdump "$1" >"$cr_dir/fcdump.txt" 2>&1 || { cr_why="fcdump of the crashed image failed: $(tail -n 1 "$cr_dir/fcdump.txt")"; return 1; }
	_n=$(sed -n 's/^fc area: .*(\([0-9]*\) blocks.*/\1/p' "$cr_dir/fcdump.txt")
	_last=$(sed -n 's/.*last valid tail is record [0-9]* in fc block \([0-9]*\) .*/\1/p' "$cr_dir/fcdump.txt")
	if [ -z "$_n" ] || [ "$_last" != $((_n - 1)) ]; then
		cr_why="fcarea full: the fast-commit area is not full at the power cut (last valid tail in fc block ${_last:-none} of $_n; see fcdump.txt): the case no longer tests a full area, adjust it"
		return 1
	fi
	cr_log "fcarea full: last valid tail in fc block $_last of $_n"
	return 0
}

# cr_cut: the power cut of cr_method, after the last point; leaves the
# file system unmounted and the device back to its plain mapping.
cr_cut() {
	case $cr_method in
	shutdown | idem-logwrites)
		fsop shutdown "$CR_MNT" nologflush || { cr_why="shutdown ioctl"; return 1; }
		cr_umount || { cr_why="umount after shutdown"; return 1; }
		;;
	flakey)
		cr_swap "$cr_dm" "0 $cr_size flakey $cr_target 0 0 180 1 drop_writes" ||
			{ cr_why="dm-flakey drop_writes"; return 1; }
		cr_umount || { cr_why="umount on dm-flakey"; return 1; }
		cr_swap "$cr_dm" "$cr_base" || { cr_why="dm-flakey restore"; return 1; }
		;;
	*)
		cr_why="unknown method $cr_method"
		return 1
		;;
	esac
	return 0
}

cr_cut_and_forget() {
	_w=$cr_why
	cr_cut >/dev/null 2>&1
	cr_why=$_w
}

# Idempotence: the first replay mount runs on a throw-away snapshot of
# the crashed image, through dm-log-writes, so its writes are recorded;
# then the replay is cut after its write entries: for each cut a new
# snapshot of the crashed image gets the replay's writes up to there (a
# power cut during the first replay) and is mounted (the second replay
# meets the first one's half-done work), checked and e2fsck'd.  Replay
# writes with sync_dirty_buffer and flushes once at its end, so every
# write entry is a state a power cut can leave (dm-log-writes logs them
# in completion order).  All of them up to cr_idem_cuts (else
# CR_IDEM_CUTS, 12; crash.guest's plan sets them), else that many spread
# evenly, always with the last one; then the whole first
# replay with a second on top.  The crashed image itself is left as it
# was, for the caller to replay normally.
cr_replay_idem_logwrites() {
	dd if=/dev/zero of="$CR_LOG" bs=4096 count=1 2>/dev/null
	_rs=/dev/$(dmctl create cr_rsnap 0 $CR_REGION_SECTORS snapshot "$cr_dev" "$CR_COW" N 8) ||
		{ cr_why="dm-snapshot of the crashed image"; return 1; }
	_lw=/dev/$(dmctl create cr_lw 0 $CR_REGION_SECTORS log-writes "$_rs" "$CR_LOG") ||
		{ cr_why="dm-log-writes over the snapshot"; return 1; }
	dmctl message cr_lw mark crashed
	cr_mount "$cr_fs_replayer" "$_lw" || { cr_why="replay mount on dm-log-writes$(cr_kernel_said)"; return 1; }
	dmctl message cr_lw mark replayed
	cr_check "$cr_kfinal" "first replay (recorded)" || { cr_umount; return 1; }
	fsop shutdown "$CR_MNT" nologflush
	cr_umount || { cr_why="umount after the recorded replay"; return 1; }
	if ! dmctl remove cr_lw || ! dmctl remove cr_rsnap; then
		cr_why="dmctl remove"
		return 1
	fi
	_from=$(logreplay find "$CR_LOG" crashed) || { cr_why="no 'crashed' mark in the log"; return 1; }
	_to=$(logreplay find "$CR_LOG" replayed) || { cr_why="no 'replayed' mark in the log"; return 1; }
	# the write entries of the first replay (a list line: INDEX FLAGS
	# SECTOR LEN), an even sample of them
	logreplay list "$CR_LOG" |
		awk -v a="$_from" -v b="$_to" '$1 !~ /^#/ && $1 > a && $1 < b && $4 > 0 { print $1 }' >"$cr_dir/writes"
	_nw=$(grep -c . "$cr_dir/writes")
	awk -v n="$_nw" -v max="${cr_idem_cuts:-${CR_IDEM_CUTS:-12}}" '
		{ w[NR] = $1 }
		END {
			if (n <= max) { for (i = 1; i <= n; i++) print w[i]; exit }
			for (i = 1; i <= max; i++) print w[int(i * n / max)]
		}' "$cr_dir/writes" >"$cr_dir/points"
	# the last one: the whole first replay, then a second on top of it
	echo "$_to" >>"$cr_dir/points"
	_n=0
	while read -r _p; do
		_n=$((_n + 1))
		_what="power cut during the replay, after entry $_p"
		[ "$_p" = "$_to" ] && _what="second replay after a whole first one"
		_snap=/dev/$(dmctl create cr_snap 0 $CR_REGION_SECTORS snapshot "$cr_dev" "$CR_COW" N 8) ||
			{ cr_why="$_what: dm-snapshot"; return 1; }
		logreplay replay "$CR_LOG" "$_snap" $((_from + 1)) "$_p" ||
			{ dmctl remove cr_snap; cr_why="$_what: logreplay"; return 1; }
		if ! cr_mount "$cr_fs_replayer" "$_snap"; then
			cr_why="$_what: mount -t $cr_fs_replayer failed$(cr_kernel_said)"
			dmctl remove cr_snap
			return 1
		fi
		if ! cr_check "$cr_kfinal" "$_what"; then
			cr_umount
			dmctl remove cr_snap
			return 1
		fi
		cr_point_close "$_what" || return 1
		# the kernel must not have complained about the half-done replay
		cr_dmesg_ok || { cr_why="$_what: $cr_why"; return 1; }
	done <"$cr_dir/points"
	cr_points="replay cut at $((_n - 1)) of its $_nw write(s), and replayed twice"
	return 0
}

# cr_point_open DEV WHAT: mount a throw-away snapshot of DEV (the
# replayer replays into it).
cr_point_open() {
	_snap=/dev/$(dmctl create cr_snap 0 $CR_REGION_SECTORS snapshot "$1" "$CR_COW" N 8) ||
		{ cr_why="$2: dm-snapshot"; return 1; }
	if ! cr_mount "$cr_fs_replayer" "$_snap"; then
		dmctl remove cr_snap
		cr_why="$2: mount -t $cr_fs_replayer failed$(cr_kernel_said)"
		return 1
	fi
	return 0
}

# cr_point_close WHAT: unmount the snapshot, e2fsck -fn it, drop it.
cr_point_close() {
	cr_umount || { cr_why="$1: umount"; return 1; }
	if ! e2fsck -fn "$_snap" >"$cr_dir/fsck.now" 2>&1; then
		{
			echo "--- $1: e2fsck -fn"
			cat "$cr_dir/fsck.now"
		} >>"$cr_dir/diff"
		dmctl remove cr_snap
		cr_why="$1: e2fsck -fn: $(grep -v '^e2fsck\|^Pass\|^$' "$cr_dir/fsck.now" | head -n 1)"
		return 1
	fi
	dmctl remove cr_snap || { cr_why="$1: dmctl remove"; return 1; }
	return 0
}

# cr_point_check DEV K WHAT: mount a throw-away snapshot of DEV, let the
# replayer replay, check the manifest after point K, unmount, e2fsck -fn.
cr_point_check() {
	cr_point_open "$1" "$3" || return 1
	if ! cr_check "$2" "$3"; then
		cr_umount
		dmctl remove cr_snap
		return 1
	fi
	cr_point_close "$3"
}

# dm-log-writes: everything from the mkfs on is logged; the setup ends
# with a mark "start", every point K with a mark pK (tNpK: thread N's),
# the workload with "end".  After a clean unmount the log is replayed onto a fresh region:
# up to "start" in one go, then to every flush, FUA and mark, each
# checked on a throw-away snapshot.
cr_run_logwrites() {
	if ! cr_logwrites_workload "$cr_dm"; then
		cr_umount
		cr_result fail "$cr_why"
		return
	fi
	_k0=$cr_k0
	cr_umount || { cr_result fail "umount on dm-log-writes"; return; }
	cr_swap "$cr_dm" "$cr_base" || { cr_result fail "linear table back"; return; }
	if ! _from=$(logreplay find "$CR_LOG" start) || ! _to=$(logreplay find "$CR_LOG" end); then
		cr_result fail "marks start/end not in the log"
		return
	fi
	logreplay points "$CR_LOG" |
		awk -v a="$_from" -v b="$_to" '$1 > a && $1 <= b { print }' >"$cr_dir/points"
	# a fresh region, the log up to "start" (mkfs, setup) in one go
	cr_region replay || { cr_result fail "$cr_why"; return; }
	cr_copy=$cr_region_dev
	logreplay replay "$CR_LOG" "$cr_copy" 0 "$_from" || { cr_result fail "logreplay to the start"; return; }
	_prev=$_from _n=0 _kk=$_k0
	# with threads, each one's last point so far (_kt_N) and the vector
	for _t in $cr_threads; do
		eval "_kt_$_t=0"
		[ "$_t" = "${cr_threads%% *}" ] && _kk=0 || _kk=$_kk,0
	done
	# points that leave the device as it was (a mark right after the
	# FUA that ended an fsync) are checked on the same mount
	_open=0
	while read -r _p _kind _chg _name; do
		_what="log replayed to entry $_p ($_kind${_name:+ $_name}"
		if [ "$_chg" = 1 ] || [ "$_open" = 0 ]; then
			if [ "$_open" = 1 ]; then
				_open=0
				cr_point_close "$_last" || { cr_result fail "$cr_why"; return; }
			fi
			logreplay replay "$CR_LOG" "$cr_copy" $((_prev + 1)) "$_p" ||
				{ cr_result fail "logreplay to entry $_p"; return; }
		fi
		_prev=$_p
		# the state at a point's own mark: nothing after the point yet
		cr_at_mark=
		case $_kind:$_name in
		mark:p*) _kk=${_name#p} cr_at_mark=1 ;;
		mark:t*p*)
			_t=${_name#t}
			eval "_kt_${_t%%p*}=${_t#*p}"
			;;
		mark:end) _kk=$cr_kfinal ;;
		esac
		if [ -n "$cr_threads" ] && [ "$_kind:$_name" != mark:end ]; then
			_kk=
			for _t in $cr_threads; do
				eval "_kk=\${_kk:+\$_kk,}\$_kt_$_t"
			done
		fi
		_n=$((_n + 1))
		_what="$_what, after point $_kk)"
		if [ "$_open" = 0 ]; then
			cr_point_open "$cr_copy" "$_what" || { cr_result fail "$cr_why"; return; }
			_open=1
		fi
		_last=$_what
		cr_check "$_kk" "$_what" || { cr_result fail "$cr_why"; return; }
	done <"$cr_dir/points"
	if [ "$_open" = 1 ]; then
		cr_point_close "$_last" || { cr_result fail "$cr_why"; return; }
	fi
	# the copy, replayed to the end and mounted once, for the host's fsck
	cr_fcarea_check "$cr_copy" || { cr_result fail "$cr_why"; return; }
	if ! cr_mount "$cr_fs_replayer" "$cr_copy"; then
		cr_result fail "mount -t $cr_fs_replayer of the log replayed to the end$(cr_kernel_said)"
		return
	fi
	if ! cr_check "$cr_kfinal" "log replayed to the end"; then
		cr_result fail "$cr_why"
		return
	fi
	cr_umount || { cr_result fail "umount of the log replayed to the end"; return; }
	cr_dmesg_ok || { cr_result fail "$cr_why"; return; }
	cr_result pass "$cr_k point(s), log replayed to $_n flush/FUA/mark point(s)${cr_fc_got:+; $cr_fc_got}"
}

# cr_logwrites_workload DM: cr_wl on the file system mounted on
# dm-log-writes device DM (dmctl's name), with its marks: "start" after
# the setup's sync, "pK" (thread N's "tNpK") after every point K, "end"
# after the last; the manifest as cr_workload writes it, cr_k0 the points
# of the setup, fc_info as the case's "fc" lines ask.  1 with cr_why set
# when a step (or the fc_info check) fails; the file system stays mounted.
# cr_run_logwrites and make stress's data oracle (tests/stress) use it.
cr_logwrites_workload() {
	_setup=/tmp/cr_setup.$$ _ops=/tmp/cr_ops.$$
	awk -v s="$_setup" -v o="$_ops" '
		!done { print > s } !done && $1 == "sync" { done = 1; next } done { print > o }
		END { if (!done) { close(o); printf "" > o } }' "$cr_wl"
	[ -f "$_ops" ] || : >"$_ops"
	cr_k=0
	cr_workload "$_setup" || return 1
	dmctl message "$1" mark start
	cr_markdev=$1
	# the rest of the workload, continuing the manifest, with the case's
	# knobs (cr_workload set them for the setup only)
	cr_k0=$cr_k
	cr_knobs "$cr_wl" || return 1
	if ! cr_workload_continue "$_ops"; then
		cr_knobs ""
		return 1
	fi
	cr_knobs ""
	cr_fc_expect || return 1
	dmctl message "$1" mark end
	cr_markdev=
}

# cr_workload_continue FILE: more steps, keeping cr_k and the manifest.
cr_workload_continue() {
	cd "$CR_MNT" || return 1
	cr_fcinfo >"$cr_dir/fc_info.before"
	cr_run_steps "$1"
}

# cr_run_steps FILE: run FILE's steps (cwd: the mount), then the point
# after the last one and fc_info.after; 1 with cr_why set if a step fails.
# A FILE with "thread" steps runs them at once (cr_run_threads).
cr_run_steps() {
	if grep -q '^thread ' "$1"; then
		cr_run_threads "$1" || { cd / || true; return 1; }
	else
		while IFS= read -r _line; do
			_k=$cr_k
			if ! cr_step "$_line" >>"$cr_dir/log" 2>&1; then
				cr_log "step failed: $_line"
				cd / || true
				cr_why="step failed: $_line"
				return 1
			fi
			[ "$cr_k" != "$_k" ] || cr_mid
		done <"$1"
		cr_pre $((cr_k + 1))
		cr_kfinal=$cr_k
	fi
	cd / || return 1
	cr_fcinfo >"$cr_dir/fc_info.after"
	return 0
}

# cr_run_threads FILE: FILE's "thread N" parts, all at once, each in a
# subshell with its own points, manifest (manifest.tN), state file and
# marks; waits for all.  Sets cr_threads (the thread numbers), cr_kfinal
# ("K1,K2,...": each one's last point) and cr_k (the points of all).
cr_run_threads() {
	cr_threads=$(awk '$1 == "thread" { print $2 }' "$1" | sort -un | tr '\n' ' ')
	rm -f "$cr_dir"/steps.t* "$cr_dir"/status.t* "$cr_dir"/k.t* "$cr_dir"/log.t* "$cr_dir/steps.stray"
	awk -v d="$cr_dir" -v cw="$CR_CASE_WORDS" "$CR_AWK_CASELINE"'
		$1 == "thread" { t = $2; next }
		$1 == "join" { t = ""; next }
		t != "" { print > (d "/steps.t" t); next }
		NF && !caseline($1) { print > (d "/steps.stray") }' "$1"
	if [ -s "$cr_dir/steps.stray" ]; then
		cr_why="a step outside the threads of a threaded workload: $(head -n 1 "$cr_dir/steps.stray")"
		return 1
	fi
	for _t in $cr_threads; do
		cr_thread "$_t" &
	done
	wait
	cr_k=0 cr_kfinal=
	for _t in $cr_threads; do
		cat "$cr_dir/log.t$_t" >>"$cr_dir/log" 2>/dev/null
		_st=$(cat "$cr_dir/status.t$_t" 2>/dev/null)
		if [ "$_st" != ok ]; then
			cr_why="thread $_t: ${_st:-ended without a status}"
			return 1
		fi
		read -r _kt <"$cr_dir/k.t$_t"
		cr_k=$((cr_k + _kt))
		cr_kfinal=${cr_kfinal:+$cr_kfinal,}$_kt
	done
	return 0
}

# cr_thread N: thread N's steps (run in the background by cr_run_threads).
cr_thread() {
	cr_thr=$1 cr_k=0 cr_tracked="" cr_manifest=$cr_dir/manifest.t$1
	: >"$cr_manifest"
	cd "$CR_MNT" || { echo "cd $CR_MNT" >"$cr_dir/status.t$1"; exit 1; }
	while IFS= read -r _line; do
		_k=$cr_k
		if ! cr_step "$_line" >>"$cr_dir/log.t$1" 2>&1; then
			echo "step failed: $_line" >"$cr_dir/status.t$1"
			exit 1
		fi
		[ "$cr_k" != "$_k" ] || cr_mid
	done <"$cr_dir/steps.t$1"
	cr_pre $((cr_k + 1))
	echo "$cr_k" >"$cr_dir/k.t$1"
	echo ok >"$cr_dir/status.t$1"
	exit 0
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
