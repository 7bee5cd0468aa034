# shellcheck shell=sh
# crash-cuts.sh: the crash suite's power cuts: the shutdown ioctl and
# dm-flakey (cr_cut), dm-log-writes replayed to every flush, FUA and mark
# (cr_run_logwrites), and a second cut during the replay
# (cr_replay_idem_logwrites).  Sourced by crash.sh.
#
# The case's variables (cr_dir, cr_wl, cr_method, ...) are crash.sh's:
# cr_case sets them, the parts read and set them.
# shellcheck disable=SC2034,SC2154

# --- power cuts ------------------------------------------------------------

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
	_rs=/dev/$(dmctl create cr_rsnap 0 "$CR_REGION_SECTORS" snapshot "$cr_dev" "$CR_COW" N 8) ||
		{ cr_why="dm-snapshot of the crashed image"; return 1; }
	_lw=/dev/$(dmctl create cr_lw 0 "$CR_REGION_SECTORS" log-writes "$_rs" "$CR_LOG") ||
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
		_snap=/dev/$(dmctl create cr_snap 0 "$CR_REGION_SECTORS" snapshot "$cr_dev" "$CR_COW" N 8) ||
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
	_snap=/dev/$(dmctl create cr_snap 0 "$CR_REGION_SECTORS" snapshot "$1" "$CR_COW" N 8) ||
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
