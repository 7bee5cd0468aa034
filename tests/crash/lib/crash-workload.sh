# shellcheck shell=sh
# crash-workload.sh: the crash suite's workload language (crash.sh's
# header describes it): each step run on the mounted file system, the
# persistence points recorded in the manifest, the case's knobs, the
# threads.  Sourced by crash.sh.
#
# The case's variables (cr_dir, cr_wl, cr_method, ...) are crash.sh's:
# cr_case sets them, the parts read and set them.
# shellcheck disable=SC2034,SC2154

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
