# shellcheck shell=bash
# host.sh: host side of the crash-consistency suite (tests/crash).  Sourced
# by tests/crash/NNN after tests/lib/common.sh, and by repro.sh and
# long.sh.
#
# crash_run PLAN runs PLAN (lines of crash.guest's plan language) in one
# QEMU boot (two for e2fsck cells: boot, host e2fsck -fy, boot), runs host
# e2fsck -fn on every file system a case left behind, and turns the
# results into verdicts in $RESULTS/verdicts (tab separated: id, method,
# writer, replayer, verdict, message), verdict one of
#   pass     the oracle held, e2fsck -fn clean, no kernel complaint
#   fail     it did not
#   known    a failure listed in tests/crash/known-failures (not ours);
#            never for a cell replayed by ext4fc (crash_known)
#   peer     an e2fsck cell whose outcome is the one
#            tests/crash/e2fsck-expected lists for it, a failure of
#            e2fsprogs' replay (an outcome that differs from the listed
#            one is a fail; a cell not listed is a peer, said so)
# crash_report prints them fstests style, the failures with their
# workload, diff and reproducer, writes $RESULTS/junit.xml and returns 1
# if anything failed.

CRASH_DIR=$TOP/tests/crash
CRASH_REGION_BYTES=$((65536 * 512))	# 32 MiB: crash.sh's CR_REGION_SECTORS
CRASH_KNOWN=$CRASH_DIR/known-failures
CRASH_E2FSCK_EXPECTED=$CRASH_DIR/e2fsck-expected
# The guest side's library for run-qemu.sh: crash.sh and its parts
# (crash-*.sh), which crash.sh sources from $TESTDIR.
CRASH_GUEST_LIB=()
for _f in "$CRASH_DIR"/lib/crash*.sh; do
	CRASH_GUEST_LIB+=(-f "$_f")
done
unset _f

crash_need() {
	local b
	for b in fsop acegen logreplay; do
		[[ -x "$TOP/build/bin/$b" ]] || _notrun "build/bin/$b missing (run make)"
	done
	[[ -f "$TOP/build/initramfs.cpio.gz" ]] || _notrun "no initramfs (run make)"
	command -v e2fsck >/dev/null || _notrun "e2fsck not installed (e2fsprogs)"
}

# crash_boot OUTDIR PLAN [FILES...]: one boot running PLAN; 0 if the guest
# script ran to its end (case failures are in OUTDIR/results).
crash_boot() {
	local out=$1 plan=$2 n regions rc=0 t
	shift 2
	n=$(grep -c . "$plan")
	# a case uses up to three regions (data, copy, crashed image)
	regions=$((3 * n + 2))
	rm -f "$out.data.img" "$out.aux.img"
	truncate -s $((regions * CRASH_REGION_BYTES)) "$out.data.img"
	truncate -s 192M "$out.aux.img"
	# boot, then ~4 s a case under TCG, twice that on a busy host;
	# log-writes cases check many points, idem-logwrites ones mount a
	# dozen times, concurrent seeds run more steps (a seed's auto
	# method is one of those in 1 of 8)
	t=$((120 + 10 * n + 30 * $(grep -c ' logwrites ' "$plan") +
		60 * $(grep -c ' idem-logwrites ' "$plan") + 5 * $(grep -c ' auto ' "$plan") +
		20 * $(grep -c '^cseed ' "$plan")))
	# a long hand-written case (a converted fsx run): CRASH_TIMEOUT=S
	t=${CRASH_TIMEOUT:-$t}
	local files=(-f "$TOP/tests/harness/guest.sh" "${CRASH_GUEST_LIB[@]}"
		-f "$CRASH_DIR/lib/opcases" -f "$plan")
	local f
	for f in "$@"; do
		files+=(-f "$f")
	done
	"$TOP/run-qemu.sh" -q -t "$t" -o "$out" -d "$out.data.img" -d "$out.aux.img" \
		"${files[@]}" "$CRASH_DIR/lib/crash.guest" "$(basename "$plan")" || rc=$?
	rm -f "$out.aux.img"
	return $rc
}

# crash_fsck OUT: host e2fsck -fn of every file system left in OUT's data
# image (the regions the guest listed, roles data and replay); failures
# go to OUT/fsck (id, message).
crash_fsck() {
	local out=$1 idx id role res msg
	: >"$out/fsck"
	[[ -f "$out/regions" ]] || return 0
	while IFS=$'\t' read -r idx id role; do
		[[ "$role" == data || "$role" == replay ]] || continue
		# e2fsck cells are checked by crash_e2fsck_cells
		[[ "$id" == *.e2fsck ]] && continue
		# a case that failed in the guest may have left it mid-way
		grep -q "^$id	.*	fail	" "$out/results" && continue
		res=$(e2fsck -fn "$out.data.img?offset=$((idx * CRASH_REGION_BYTES))" 2>&1) && continue
		msg=$(grep -v '^e2fsck \|^Pass \|^$\|^Warning: skipping' <<<"$res" | head -n 2 | tr '\n' ' ')
		printf '%s\thost e2fsck -fn (%s): %s\n' "$id" "$role" "$msg" >>"$out/fsck"
		mkdir -p "$out/cases/$id"
		echo "$res" >"$out/cases/$id/host-e2fsck.txt"
	done <"$out/regions"
}

# crash_e2fsck_cells OUT PLAN2: for every case the first boot left
# pending (replayer e2fsck): host e2fsck -fy on its image, then a plan
# line for the second boot that mounts and checks it.
crash_e2fsck_cells() {
	local out=$1 plan2=$2 id method writer replayer verdict idx rc
	: >"$plan2"
	while IFS=$'\t' read -r id method writer replayer verdict idx; do
		[[ "$verdict" == pending ]] || continue
		rc=0
		# on a file of its own: after replaying a journal e2fsck re-opens
		# the device by name, without the ?offset= of the first open
		dd if="$out.data.img" of="$out/cell.img" bs=1M skip=$((idx * 32)) count=32 status=none
		e2fsck -fy "$out/cell.img" >"$out/cases/$id/e2fsck-fy.txt" 2>&1 || rc=$?
		echo "exit status $rc" >>"$out/cases/$id/e2fsck-fy.txt"
		dd if="$out/cell.img" of="$out.data.img" bs=1M seek=$((idx * 32)) conv=notrunc status=none
		rm -f "$out/cell.img"
		cp "$out/cases/$id/manifest" "$out/$id.manifest"
		cp "$out/cases/$id/workload" "$out/$id.workload"
		echo "check $id $method $writer $idx" >>"$plan2"
	done <"$out/results"
}

# crash_workload ID: the workload of a case (from acegen or opcases).
crash_workload() {
	local name
	IFS=. read -r name _ <<<"$1"
	if [[ "$name" == seed* ]]; then
		"$TOP/build/bin/acegen" "${name#seed}"
	elif [[ "$name" == cseed* ]]; then
		"$TOP/build/bin/acegen" -t "${name#cseed}"
	else
		awk -v n="$name" '/^= / { c = $2; sub(/:$/, "", c); on = (c == n); next } on' \
			"$CRASH_DIR/lib/opcases"
	fi
}

# crash_known ID MESSAGE: the reason, when tests/crash/known-failures
# lists this failure (lines: ID-GLOB <tab> MESSAGE-GLOB <tab> reason
# [<tab> STEP-REGEX: a step after the setup's sync must match it]).
# Upstream's failures are known in the cells stock ext4 replays; a cell
# replayed by ext4fc (ID ending .ext4fc) is where we claim the fixes, and
# its failures are never "known".
crash_known() {
	local idg msgg why step
	[[ -f "$CRASH_KNOWN" ]] || return 1
	[[ "$1" == *.ext4fc ]] && return 1
	while IFS=$'\t' read -r idg msgg why step; do
		[[ -z "$idg" || "$idg" == \#* ]] && continue
		# shellcheck disable=SC2053 # globs on purpose
		[[ "$1" == $idg && "$2" == $msgg ]] || continue
		if [[ -n "$step" ]] &&
			! crash_workload "$1" | awk 'done { print } $1 == "sync" { done = 1 }' | grep -Eq -- "$step"; then
			continue
		fi
		echo "$why"
		return 0
	done <"$CRASH_KNOWN"
	return 1
}

# crash_known_lint: a known-failures line whose ID-GLOB matches a cell
# replayed by ext4fc would hide a regression there (crash_known ignores
# it): say which, once per run.
crash_known_lint() {
	local idg msgg why step n=0 id
	[[ -f "$CRASH_KNOWN" ]] || return 0
	while IFS=$'\t' read -r idg msgg why step; do
		n=$((n + 1))
		[[ -z "$idg" || "$idg" == \#* ]] && continue
		for id in mkdir.shutdown.ext4fc.ext4fc mkdir.shutdown.ext4.ext4fc seed1.flakey.ext4fc.ext4fc; do
			# shellcheck disable=SC2053 # globs on purpose
			if [[ "$id" == $idg ]]; then
				echo "WARNING: $CRASH_KNOWN line $n: ID-GLOB '$idg' matches cells replayed by ext4fc ($id), where upstream's failures are fixed: ignored there; restrict it (e.g. '*.ext4')"
				break
			fi
		done
	done <"$CRASH_KNOWN"
}

# crash_run PLAN: run it; verdicts in $RESULTS/verdicts.
crash_run() {
	local plan=$1 out=$RESULTS/guest rc=0 plan2 id method writer replayer verdict msg why
	rm -rf "$out" "$out.data.img" "$out"2 "$out"2.data.img
	crash_known_lint
	if [[ -n ${CRASH_WRITER_OPTS:-} ]]; then
		# every case's ext4fc writer mounts with these too
		sed -i "1i writeropt $CRASH_WRITER_OPTS" "$plan"
		echo "crash: ext4fc writers mount with $CRASH_WRITER_OPTS (CRASH_WRITER_OPTS)"
	fi
	crash_boot "$out" "$plan" || rc=$?
	cp "$out/console.log" "$RESULTS/console.log" 2>/dev/null || true
	case $rc in
	0) ;;
	124) echo "FAIL: guest timed out (console: $RESULTS/console.log)" ;;
	125) echo "FAIL: kernel failure on the console ($("$TOP/run-qemu.sh" --scan-console "$out/console.log" 2>&1 | head -n 3 | tr '\n' ' '))" ;;
	*) echo "FAIL: guest exited with status $rc (console: $RESULTS/console.log)" ;;
	esac
	[[ -f "$out/results" ]] || { echo "FAIL: no results from the guest"; return 1; }
	crash_fsck "$out"
	plan2=$RESULTS/plan2
	crash_e2fsck_cells "$out" "$plan2"
	: >"$out"2.results
	if [[ -s "$plan2" ]]; then
		local files=() f
		for f in "$out"/*.manifest "$out"/*.workload; do
			files+=(-f "$f")
		done
		# the second boot uses the first one's data image
		mkdir -p "$out"2
		truncate -s 192M "$out"2.aux.img
		"$TOP/run-qemu.sh" -q -t 300 -o "$out"2 -d "$out.data.img" -d "$out"2.aux.img \
			-f "$TOP/tests/harness/guest.sh" "${CRASH_GUEST_LIB[@]}" -f "$CRASH_DIR/lib/opcases" \
			-f "$plan2" "${files[@]}" "$CRASH_DIR/lib/crash.guest" plan2 ||
			echo "FAIL: second boot (e2fsck cells) exited with status $?"
		rm -f "$out"2.aux.img
		cp "$out"2/results "$out"2.results 2>/dev/null || true
		cp -r "$out"2/cases/. "$out/cases/" 2>/dev/null || true
	fi
	: >"$RESULTS/verdicts"
	: >"$RESULTS/e2fsck-outcomes"
	while IFS=$'\t' read -r id method writer replayer verdict msg; do
		if [[ "$verdict" == pending ]]; then
			crash_e2fsck_verdict "$out" "$id" "$method" "$writer"
			continue
		fi
		if [[ "$verdict" == pass ]] && grep -q "^$id	" "$out/fsck"; then
			verdict=fail
			msg=$(grep "^$id	" "$out/fsck" | head -n 1 | cut -f2)
		fi
		if [[ "$verdict" == fail ]] && why=$(crash_known "$id" "$msg"); then
			verdict=known
			msg="$msg [known: $why]"
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$method" "$writer" "$replayer" "$verdict" "$msg" >>"$RESULTS/verdicts"
	done <"$out/results"
	# a case the guest never got to (timeout, crash) is a failure too
	local want got
	want=$(grep -cE '^(opcase|seed|cseed) ' "$plan")
	got=$(grep -c . "$RESULTS/verdicts")
	if ((got < want)); then
		printf 'unfinished\t-\t-\t-\tfail\t%s of %s case(s) did not run (guest status %s)\n' \
			$((want - got)) "$want" "$rc" >>"$RESULTS/verdicts"
	fi
	rm -f "$out.data.img" "$out"2.data.img
	return 0
}

# crash_e2fsck_outcome OUT ID: what happened to an e2fsck cell, as one
# line that does not depend on the run (numbers are N): how e2fsck -fy's
# replay went, then what the oracle found after it:
#   pass; oracle holds          replayed, nothing but the summary counts
#                               (free blocks/inodes, directories) fixed,
#                               the fsync'd state there, e2fsck -fn clean
#   recover: MSG; ...           "MSG while recovering journal"
#   reopen: MSG; ...            "MSG while trying to re-open" after replay
#   fixed: QUESTION; ...        e2fsck -fy had to fix more than the counts
#   exit N: LINE; ...           e2fsck -fy exit status 4 or more
#   ...; lost: PATH (KIND at point K)   the oracle's first difference
#   ...; no mount after it      the writer's type refused to mount it
#   ...; unclean: LINE          host e2fsck -fn after it not clean
crash_e2fsck_outcome() {
	local out=$1 id=$2 fy line v m idx res rc first oracle q
	fy=$out/cases/$id/e2fsck-fy.txt
	line=$(grep "^$id	" "$out"2.results | head -n 1)
	v=$(cut -f5 <<<"$line")
	m=$(cut -f6 <<<"$line")
	idx=$(grep "^$id	" "$out/results" | cut -f6)
	rc=$(sed -n 's/^exit status //p' "$fy")
	if grep -q 'while recovering journal' "$fy"; then
		first="recover: $(sed -n 's/^e2fsck: \(.*\) while recovering journal.*/\1/p' "$fy" | head -n 1)"
	elif grep -q 'while trying to re-open' "$fy"; then
		first="reopen: $(sed -n 's/^e2fsck: \(.*\) while trying to re-open.*/\1/p' "$fy" | head -n 1)"
	elif ((${rc:-8} >= 4)); then
		first="exit $rc: $(grep -v '^e2fsck \|^Pass \|^$\|^exit' "$fy" | head -n 1)"
	elif q=$(awk '/\? yes/ { q = $0; sub(/ *[A-Za-z]+\? yes.*$/, "", q); if (q == "") q = prev
			if (q !~ /count wrong/) { print q; exit } next } NF { prev = $0 }' "$fy") && [[ -n "$q" ]]; then
		# the first thing e2fsck fixed that is not a summary count
		first="fixed: $q"
	else
		first=pass
	fi
	if [[ -z "$line" ]]; then
		oracle="no check (the second boot did not report it)"
	elif [[ "$m" == "mount after e2fsck -fy failed"* ]]; then
		oracle="no mount after it"
	elif [[ "$v" != pass ]]; then
		# "replayed by e2fsck -fy: PATH (KIND at point K): ..."
		oracle="lost: $(sed -n 's/^replayed by e2fsck -fy: \([^ ]* ([^)]*)\).*/\1/p' <<<"$m")"
		[[ "$oracle" == "lost: " ]] && oracle="check failed: $m"
	elif ! res=$(e2fsck -fn "$out.data.img?offset=$((idx * CRASH_REGION_BYTES))" 2>&1); then
		oracle="unclean: $(grep -v '^e2fsck \|^Pass \|^$' <<<"$res" | head -n 1)"
	else
		oracle="oracle holds"
	fi
	# no numbers: inode numbers, counts and paths of the image vary
	sed -e 's|/[^ ]*/cell\.img|IMAGE|g' -e 's/\<[0-9][0-9]*\>/N/g' <<<"$first; $oracle"
}

# crash_e2fsck_expected NAME WRITER: the outcome tests/crash/e2fsck-expected
# lists for the cell (lines: NAME <tab> WRITER <tab> OUTCOME-GLOB <tab>
# why), or nothing.
crash_e2fsck_expected() {
	[[ -f "$CRASH_E2FSCK_EXPECTED" ]] || return 0
	awk -F'\t' -v n="$1" -v w="$2" '$1 == n && $2 == w { print $3; exit }' "$CRASH_E2FSCK_EXPECTED"
}

# crash_e2fsck_verdict OUT ID METHOD WRITER: an e2fsck cell: its outcome
# (crash_e2fsck_outcome) against the one tests/crash/e2fsck-expected
# lists: the same and "pass; oracle holds": pass; the same otherwise:
# peer (e2fsprogs' known failure); another outcome: fail, either way (a
# regression, or e2fsprogs or the writer now do better: update the
# list); a cell the list does not have: peer, said so (crash/005 counts
# them).
crash_e2fsck_verdict() {
	local out=$1 id=$2 method=$3 writer=$4 got want name v m
	got=$(crash_e2fsck_outcome "$out" "$id")
	name=${id%%.*}
	want=$(crash_e2fsck_expected "$name" "$writer")
	# shellcheck disable=SC2053 # the expectation is a glob
	if [[ -z "$want" ]]; then
		v=peer
		m="unlisted: no line for $name $writer in tests/crash/e2fsck-expected, not judged: got '$got'"
	elif [[ "$got" != $want ]]; then
		v=fail
		m="e2fsck cell changed: want '$want', got '$got' (tests/crash/e2fsck-expected; e2fsck -fy output in the case files)"
	elif [[ "$got" == "pass; oracle holds" ]]; then
		v=pass
		m="e2fsck -fy replayed it, as expected"
	else
		v=peer
		m="as expected for e2fsprogs 1.47.0: $got"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$method" "$writer" e2fsck "$v" "$m" >>"$RESULTS/verdicts"
	printf '%s\t%s\t%s\n' "$name" "$writer" "$got" >>"$RESULTS/e2fsck-outcomes"
}

# crash_repro_cmd ID: the one command that runs this case again (with
# the CRASH_WRITER_OPTS it ran with).
crash_repro_cmd() {
	local id=$1 name method writer replayer env=${CRASH_WRITER_OPTS:+CRASH_WRITER_OPTS=$CRASH_WRITER_OPTS }
	IFS=. read -r name method writer replayer <<<"$id"
	if [[ "$name" == seed* ]]; then
		echo "${env}tests/crash/repro.sh seed ${name#seed} $method $writer $replayer"
	elif [[ "$name" == cseed* ]]; then
		echo "${env}tests/crash/repro.sh cseed ${name#cseed} $method $writer $replayer"
	else
		echo "${env}tests/crash/repro.sh opcase $name $method $writer $replayer"
	fi
}

# crash_report TITLE: the verdicts, fstests style; JUnit XML; 1 on failure.
crash_report() {
	local title=$1 id method writer replayer verdict msg nfail=0 npass=0 nknown=0 npeer=0 d
	local xml=$RESULTS/junit.xml cases=()
	while IFS=$'\t' read -r id method writer replayer verdict msg; do
		printf '%s %s ... %s%s\n' "$SEQ" "$id" "$verdict" "${msg:+: $msg}"
		case $verdict in
		pass) npass=$((npass + 1)) ;;
		known) nknown=$((nknown + 1)) ;;
		peer) npeer=$((npeer + 1)) ;;
		*) nfail=$((nfail + 1)) ;;
		esac
		cases+=("$(crash_xml_case "$id" "$method" "$verdict" "$msg")")
	done <"$RESULTS/verdicts"
	# the failures in full
	while IFS=$'\t' read -r id method writer replayer verdict msg; do
		[[ "$verdict" == fail ]] || continue
		d=$RESULTS/guest/cases/$id
		echo
		echo "=== FAIL $id: $msg"
		if [[ "$id" != unfinished ]]; then
			echo "--- operations:"
			if [[ -f "$d/workload" ]]; then
				grep -v '^#' "$d/workload"
			else
				crash_workload "$id" | grep -v '^#'
			fi | sed 's/^/    /'
		fi
		if [[ -s "$d/diff" ]]; then
			echo "--- diff (want = at the fsync, got = after the replay):"
			sed 's/^/    /' "$d/diff" | head -n 40
		fi
		[[ -f "$d/host-e2fsck.txt" ]] && sed 's/^/    /' "$d/host-e2fsck.txt" | head -n 20
		[[ "$id" != unfinished ]] && echo "--- reproduce: $(crash_repro_cmd "$id")"
		echo "    (case files: $d)"
	done <"$RESULTS/verdicts"
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		echo "<testsuite name=\"$SEQ\" tests=\"${#cases[@]}\" failures=\"$nfail\" skipped=\"$((nknown + npeer))\">"
		printf '%s\n' "${cases[@]}"
		echo "</testsuite>"
	} >"$xml"
	mkdir -p "$TOP/build/results/crash"
	cp "$xml" "$TOP/build/results/crash/${SEQ//\//-}.xml"
	cp "$RESULTS/verdicts" "$TOP/build/results/crash/${SEQ//\//-}.verdicts"
	echo
	echo "$title: $npass passed, $nfail failed, $nknown known failure(s), $npeer known peer failure(s)"
	((nfail == 0))
}

crash_xml_escape() {
	sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' <<<"$1"
}

crash_xml_case() {
	local id=$1 method=$2 verdict=$3 msg
	msg=$(crash_xml_escape "$4")
	case $verdict in
	pass) echo "<testcase classname=\"$SEQ.$method\" name=\"$id\"/>" ;;
	known) echo "<testcase classname=\"$SEQ.$method\" name=\"$id\"><skipped message=\"known failure: $msg\"/></testcase>" ;;
	peer) echo "<testcase classname=\"$SEQ.$method\" name=\"$id\"><skipped message=\"known peer failure: $msg\"/></testcase>" ;;
	*) echo "<testcase classname=\"$SEQ.$method\" name=\"$id\"><failure message=\"$msg\">$(crash_xml_escape "$(crash_repro_cmd "$id")")</failure></testcase>" ;;
	esac
}

# crash_opcases [METHOD]: the case names in tests/crash/lib/opcases;
# with METHOD, those that run with it (a case with a "methods" line runs
# with those only).
crash_opcases() {
	awk -v m="${1:-}" '
		function out() { if (n != "" && (m == "" || !only || (" " only " ") ~ (" " m " "))) print n }
		/^= / { out(); n = $2; sub(/:$/, "", n); only = ""; next }
		$1 == "methods" { only = $0; sub(/^methods */, "", only) }
		END { out() }' "$CRASH_DIR/lib/opcases"
}

# crash_opcases_not METHOD: "NAME (for METHODS only)" for each case that
# does not run with METHOD: a test prints them, nothing is left out
# unsaid.
crash_opcases_not() {
	awk -v m="$1" '
		function out() { if (n != "" && only && (" " only " ") !~ (" " m " ")) print n " (for " only " only)" }
		/^= / { out(); n = $2; sub(/:$/, "", n); only = ""; next }
		$1 == "methods" { only = $0; sub(/^methods */, "", only) }
		END { out() }' "$CRASH_DIR/lib/opcases"
}
