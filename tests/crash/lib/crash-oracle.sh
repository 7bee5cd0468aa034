# shellcheck shell=sh
# crash-oracle.sh: the crash suite's oracle (crash.sh's header says what
# it promises): the state after a power cut against the manifest, the
# fc_info outcome a case asks for, the kernel log, a stopped replay, a
# full fast-commit area.  Sourced by crash.sh.
#
# The case's variables (cr_dir, cr_wl, cr_method, ...) are crash.sh's:
# cr_case sets them, the parts read and set them.
# shellcheck disable=SC2034,SC2154

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
	_msg=$({
		fc_info_kv "$cr_dir/fc_info.before" | sed 's/^/before\t/'
		fc_info_kv "$cr_dir/fc_info.after" | sed 's/^/after\t/'
	} | awk -F'\t' -v writer="$cr_fs_writer" '
	FILENAME == ARGV[1] { split($0, w, " "); if (w[1] == "fc" || w[1] == "fc." writer) { n++; want[n] = $0; sub(/^fc(\.[a-z0-9]+)? +/, "", want[n]) }; next }
	# fc_info_kv KEY -> the short names below; "N batching windows, M
	# fsyncs waited in them, ...": M as "waited"; "N data groups, M fsyncs
	# wrote their data in them": N as "groups", M as "grouped"
	function short(k) {
		if (k == "commits" || k == "ineligible" || k == "failed" || k == "skipped")
			return k
		if (k == "area full") return "area"
		if (k == "background full commits") return "background"
		if (k == "isolated fast commits") return "isolated"
		if (k == "batching windows") return "batching"
		if (k == "batching windows: fsyncs waited in them") return "waited"
		if (k == "data groups") return "groups"
		if (k == "data groups: fsyncs wrote their data in them") return "grouped"
		return k ~ /^"/ ? k : ""
	}
	$1 == "before" && short($2) != "" { b[short($2)] = $3; next }
	$1 == "after" && short($2) != "" { a[short($2)] = $3 }
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
	}' "$cr_wl" -)
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
	# TCG noise, and ext4 rate-limiting its own unmount messages
	_ign='hrtimer: interrupt took|callbacks suppressed'
	# what EXT4_IOC_SHUTDOWN itself says, where we used it, and jbd2
	# failing to write data after the shut-down cut it off
	[ "$_sd" = 1 ] &&
		_ign="$_ign|shut down requested|Aborting journal on device|Detected IO errors while flushing file data"
	# a replay-error case: what the stopped replay must say
	[ -n "$cr_replay_error" ] &&
		_ign="$_ign|fast commit replay: .* cannot be applied .*: replay stops there, the file system is marked with errors: run e2fsck|warning: mounting fs with errors, running e2fsck is recommended"
	_bad=$(dmesg -r | kernel_warnings "$_ign")
	[ -z "$_bad" ] && return 0
	echo "$_bad" >>"$cr_dir/log"
	cr_why="kernel said: $(echo "$_bad" | head -n 1 | sed 's/^<[0-9]*>\[[^]]*\] //')"
	return 1
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
