# shellcheck shell=bash
# host.sh: host side of the corrupted-image campaign (tests/corrupt).
# Sourced after tests/lib/common.sh by tests/corrupt/NNN, campaign.sh and
# repro.sh.
#
# corrupt_bases       make the crashed base images when missing or stale
# corrupt_plan F N S  the plan of images S..S+N-1 (or of the mutations in
#                     CORRUPT_MUTATIONS), with the oracle's expectations
# corrupt_run F       one boot over plan F, then verdicts in $RESULTS/verdicts
#                     (tab separated: id, mutation, base, seed, verdict,
#                     outcome, fsck, message), verdict pass, fail or notrun
# corrupt_report T    fstests-like lines, a summary per mutation, JUnit
#                     XML ($RESULTS/junit.xml), returns 1 on failures

CORRUPT_DIR=$TOP/tests/corrupt
CORRUPT_BASE=${CORRUPT_BASE:-$TOP/build/corrupt/base}
FCC=$TOP/build/bin/fccorrupt
# name, size, mkfs.ext4 options (all with fast commits)
CORRUPT_BASES=(
	"b4k 32M -b 4096 -I 256 -J size=4,fast_commit_size=256"
	"b1k 16M -b 1024 -I 256 -J size=1,fast_commit_size=128"
	"b4k128 32M -b 4096 -I 128 -O ^64bit,^metadata_csum -J size=4,fast_commit_size=256"
)

corrupt_need() {
	[[ -x "$FCC" && -x "$TOP/build/bin/fsop" ]] || _notrun "build/bin/fccorrupt or fsop missing (run make)"
	[[ -f "$TOP/build/initramfs.cpio.gz" ]] || _notrun "no initramfs (run make)"
	command -v mkfs.ext4 >/dev/null || _notrun "mkfs.ext4 not installed (e2fsprogs)"
}

# corrupt_disk I: the guest's name of disk I (0: vda).
corrupt_disk() {
	local l=abcdefghijklmnop
	echo "vd${l:$1:1}"
}

corrupt_base_names() {
	local b
	for b in "${CORRUPT_BASES[@]}"; do
		echo "${b%% *}"
	done
}

# corrupt_bases: build/corrupt/base/NAME.img (crashed, with fast commits)
# and NAME.manifests; remade when the modules, base.guest or this file
# are newer, or one is missing.
corrupt_bases() {
	local b name size opts stale=0 out rc=0 n want args=() names
	local stamp=$CORRUPT_BASE/stamp
	if [[ ! -f "$stamp" ]]; then
		stale=1
	else
		for f in "$TOP/build/ext4fc.ko" "$TOP/build/jbd2fc.ko" \
			"$CORRUPT_DIR/lib/base.guest" "$CORRUPT_DIR/lib/host.sh"; do
			[[ "$f" -nt "$stamp" ]] && stale=1
		done
		for name in $(corrupt_base_names); do
			[[ -f "$CORRUPT_BASE/$name.img" && -s "$CORRUPT_BASE/$name.manifests" ]] || stale=1
		done
	fi
	((stale)) || return 0
	echo "corrupt: making the crashed base images in $CORRUPT_BASE (one boot)"
	rm -rf "$CORRUPT_BASE"
	mkdir -p "$CORRUPT_BASE"
	for b in "${CORRUPT_BASES[@]}"; do
		read -r name size opts <<<"$b"
		truncate -s "$size" "$CORRUPT_BASE/$name.img"
		# shellcheck disable=SC2086 # options split on purpose
		mkfs.ext4 -q -F -O fast_commit $opts "$CORRUPT_BASE/$name.img" >/dev/null ||
			_fail "mkfs.ext4 $opts $CORRUPT_BASE/$name.img failed"
		args+=(-d "$CORRUPT_BASE/$name.img")
	done
	out=$CORRUPT_BASE/guest
	mapfile -t names < <(corrupt_base_names)
	"$TOP/run-qemu.sh" -q -t 300 -o "$out" "${args[@]}" -f "$TOP/tests/harness/guest.sh" \
		-f "$CORRUPT_DIR/lib/manifest.sh" "$CORRUPT_DIR/lib/base.guest" \
		"${names[@]}" || rc=$?
	if ((rc)); then
		grep -av '^\[ *[0-9]*\.[0-9]*\]' "$out/console.log" | tail -n 20
		_fail "making the base images failed (status $rc; console: $out/console.log)"
	fi
	for name in $(corrupt_base_names); do
		cp "$out/$name.manifests" "$out/$name.steps" "$CORRUPT_BASE/"
		want=$(awk -F'\t' '{ k = $1 } END { print k }' "$CORRUPT_BASE/$name.manifests")
		n=$("$FCC" list "$CORRUPT_BASE/$name.img" | sed -n 's/.*: \([0-9]*\) fast commit(s) valid.*/\1/p')
		[[ "$n" == "$want" ]] ||
			_fail "base $name: fccorrupt list finds ${n:-no} valid fast commits, the workload made $want (run: build/bin/fccorrupt list $CORRUPT_BASE/$name.img)"
		echo "  base $name: $n fast commits ($("$FCC" list "$CORRUPT_BASE/$name.img" | grep -c '^commit ') records)"
	done
	touch "$stamp"
}

# corrupt_expect BASE MUTATION SEED: fccorrupt's line for it (dry run), or
# nothing when the mutation has no target in BASE.
corrupt_expect() {
	"$FCC" apply -n "$CORRUPT_BASE/$1.img" "$2" "$3" 2>&1 | grep -v 'skip=no-target' || true
}

# corrupt_plan FILE N START: images START..START+N-1; image k gets
# mutation k mod (number of mutations), the first base (from k's turn on)
# the mutation has a target in, seed k.  CORRUPT_MUTATIONS (blank
# separated) limits the mutations.  FILE: "ID BASE DISK MUTATION SEED";
# FILE.expect: "ID <tab> fccorrupt's line".
corrupt_plan() {
	local file=$1 n=$2 start=$3 k muts bases nb j b line id disk
	read -r -a muts <<<"${CORRUPT_MUTATIONS:-$("$FCC" mutations | tr '\n' ' ')}"
	mapfile -t bases < <(corrupt_base_names)
	nb=${#bases[@]}
	: >"$file"
	: >"$file.expect"
	for ((k = start; k < start + n; k++)); do
		local mut=${muts[k % ${#muts[@]}]}
		line=
		for ((j = 0; j < nb; j++)); do
			b=$(((k + k / ${#muts[@]} + j) % nb))
			line=$(corrupt_expect "${bases[b]}" "$mut" "$k")
			[[ -n "$line" ]] && break
		done
		if [[ -z "$line" ]]; then
			echo "corrupt: note: mutation $mut has no target in any base image (image $k skipped)" >&2
			continue
		fi
		[[ "$line" == mutation=* ]] || _fail "fccorrupt apply -n ${bases[b]} $mut $k: $line"
		id=$k-$mut-${bases[b]}
		disk=$(corrupt_disk "$b")
		echo "$id ${bases[b]} $disk $mut $k" >>"$file"
		printf '%s\t%s\n' "$id" "$line" >>"$file.expect"
	done
}

# corrupt_boot OUT PLAN: one boot over PLAN; returns run-qemu.sh's status.
corrupt_boot() {
	local out=$1 plan=$2 n rc=0 name args=() q=(-q)
	[[ -n "${CORRUPT_VERBOSE:-}" ]] && q=()
	n=$(grep -c . "$plan")
	for name in $(corrupt_base_names); do
		args+=(-d "$CORRUPT_BASE/$name.img")
	done
	rm -f "$out.scratch.img"
	truncate -s 32M "$out.scratch.img"
	args+=(-d "$out.scratch.img")
	# the bases are read only: a copy goes onto the scratch disk each time
	"$TOP/run-qemu.sh" "${q[@]}" -t $((90 + 6 * n)) -o "$out" "${args[@]}" \
		-f "$TOP/tests/harness/guest.sh" -f "$CORRUPT_DIR/lib/manifest.sh" -f "$plan" \
		"$CORRUPT_DIR/lib/corrupt.guest" "$(basename "$plan")" \
		"$(corrupt_disk ${#CORRUPT_BASES[@]})" || rc=$?
	rm -f "$out.scratch.img"
	return $rc
}

# kv LINE KEY: the value of KEY=value in LINE.
kv() {
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $1"
}

# corrupt_judge_one ID: one image's verdict line (see the top).
corrupt_judge_one() {
	local id=$1 out=$RESULTS/guest d base mut seed exp got_apply res mnt fsck
	local keep at ncommits want stop sb scount rep replayed bad msg=() outcome
	local skipped skipline='' expected
	d=$out/img/$id
	read -r _ base _ mut seed < <(grep "^$id " "$RESULTS/plan")
	exp=$(awk -F'\t' -v i="$id" '$1 == i { print $2 }' "$RESULTS/plan.expect")
	res=$(awk -F'\t' -v i="$id" '$1 == i' "$out/results" 2>/dev/null)
	if [[ -z "$res" ]]; then
		printf '%s\t%s\t%s\t%s\tnotrun\t-\t-\t%s\n' "$id" "$mut" "$base" "$seed" \
			"no result: the boot ended before this image" >>"$RESULTS/verdicts"
		return
	fi
	mnt=$(kv "$(tr '\t' ' ' <<<"$res")" mount)
	fsck=$(kv "$(tr '\t' ' ' <<<"$res")" fsck)
	got_apply=$(cat "$d/apply" 2>/dev/null)
	if [[ "$mnt" == none ]]; then
		printf '%s\t%s\t%s\t%s\tfail\t-\t-\tfccorrupt in the guest failed: %s\n' "$id" "$mut" \
			"$base" "$seed" "$(head -n 1 <<<"$got_apply")" >>"$RESULTS/verdicts"
		return
	fi
	[[ "$got_apply" == "$exp" ]] ||
		msg+=("the guest's fccorrupt line differs from the host's: '$got_apply' vs '$exp'")
	keep=$(kv "$exp" keep)
	at=$(kv "$exp" at)
	ncommits=$(kv "$exp" commits)
	skipped=$(kv "$exp" skipped)
	[[ -n "$skipped" ]] || skipped=-
	want=$((keep < ncommits ? keep : ncommits))
	# the scan's one line: where it stopped and how many it kept ("the
	# log ends at" where it simply ends, "stops at" on damage)
	stop=$(grep -aE 'fast commit scan(: the log ends| stops) at fc block' "$d/dmesg" | head -n 1 || true)
	rep=$(grep -a 'fast commit replay: tid [0-9]*: [0-9]* fast commit(s)' "$d/dmesg" | head -n 1 || true)
	replayed=0
	[[ "$rep" =~ fast\ commit\ replay:\ tid\ [0-9]+:\ ([0-9]+)\ fast ]] && replayed=${BASH_REMATCH[1]}
	if [[ "$mnt" == refused ]]; then
		outcome=refused
		grep -aqE '<[0-3]>.*(EXT4FC-fs|JBD2FC)' "$d/dmesg" ||
			msg+=("the mount failed without an error message in the kernel log ($(head -n 1 "$d/mount.err"))")
	else
		if ((keep >= ncommits)); then
			outcome="full $replayed/$ncommits"
		else
			outcome="prefix $replayed/$ncommits"
		fi
		if [[ -z "$stop" ]]; then
			msg+=("no 'fast commit scan stops at' or 'fast commit scan: the log ends at' line in the kernel log")
		else
			sb=- scount=-
			[[ "$stop" =~ \ at\ fc\ block\ ([0-9]+)\ byte\ ([0-9]+)[\ ,] ]] &&
				sb=${BASH_REMATCH[1]}:${BASH_REMATCH[2]}
			[[ "$stop" =~ \;\ tid\ [0-9]+:\ ([0-9]+)\ fast\ commit ]] && scount=${BASH_REMATCH[1]}
			[[ "$scount" == "$keep" ]] ||
				msg+=("the scan kept $scount fast commit(s), the oracle $keep: '${stop#*: }'")
			[[ "$at" == - || "$sb" == "$at" ]] ||
				msg+=("the scan stopped at fc block/byte $sb, the target is $at: '${stop#*: }'")
			grep -aq 'tag [0-9]*, len [0-9]*' <<<"$stop" ||
				msg+=("the stop line names no tag: '$stop'")
		fi
		[[ "$replayed" == "$keep" ]] ||
			msg+=("replay applied $replayed fast commit(s), the oracle says $keep")
		if [[ "$skipped" != - ]]; then
			# a record replay cannot apply: one line says which and
			# where; the tree lacks its name, so it matches no step
			skipline="fast commit replay: [A-Z_]+ record at fc block ${skipped%:*} byte ${skipped#*:} skipped: "
			grep -aqE "$skipline" "$d/dmesg" ||
				msg+=("replay did not say it skipped the record at fc block/byte $skipped")
		elif ! diff <(awk -F'\t' -v k="$want" '$1 == k { sub(/^[^\t]*\t/, ""); print }' \
			"$CORRUPT_BASE/$base.manifests") "$d/got" >"$d/manifest.diff" 2>&1; then
			msg+=("the replayed tree is not the state after fast commit $want: $(grep -c '^[<>]' "$d/manifest.diff" || true) line(s) differ (diff in $d/manifest.diff)")
		fi
	fi
	# warnings or worse other than the stop line (and the skip line the
	# mutation asked for), the 2038 note of
	# 128-byte inodes, and the global ratelimit that super.c's "mounted
	# filesystem" and "unmounting filesystem" lines share (many mounts a
	# second: "EXT4FC-fs mount: 2 callbacks suppressed", or "unmount")
	expected=(-e 'fast commit scan stops at fc block' -e 'supports timestamps until 2038'
		-e 'EXT4FC-fs (mount|unmount): [0-9]+ callbacks suppressed')
	[[ -z "$skipline" ]] || expected+=(-e "$skipline")
	bad=$(grep -a '^<[0-4]>' "$d/dmesg" | grep -avE "${expected[@]}" | head -n 2 || true)
	[[ -z "$bad" ]] || msg+=("kernel said: $(tr '\n' ' ' <<<"$bad")")
	# a log nobody corrupted must replay to a clean file system
	if [[ "$fsck" == repairable && ( "$mut" == none || "$mut" == dup-commit ) ]]; then
		msg+=("e2fsck -fn after replaying an uncorrupted log: not clean ($(grep -v '^e2fsck \|^Pass \|^$' "$d/fsck" | head -n 2 | tr '\n' ' ' || true))")
	fi
	case $fsck in
	clean | repairable) ;;
	*) msg+=("e2fsck -fn after the mount: $fsck ($(grep -v '^e2fsck \|^Pass \|^$' "$d/fsck" | head -n 2 | tr '\n' ' ' || true))") ;;
	esac
	if ((${#msg[@]})); then
		printf '%s\t%s\t%s\t%s\tfail\t%s\t%s\t%s\n' "$id" "$mut" "$base" "$seed" "$outcome" \
			"$fsck" "$(IFS='; '; echo "${msg[*]}")" >>"$RESULTS/verdicts"
	else
		printf '%s\t%s\t%s\t%s\tpass\t%s\t%s\t%s\n' "$id" "$mut" "$base" "$seed" "$outcome" \
			"$fsck" "${stop#*: }" >>"$RESULTS/verdicts"
	fi
}

# corrupt_run PLAN: boot, judge; verdicts in $RESULTS/verdicts.
corrupt_run() {
	local plan=$1 out=$RESULTS/guest rc=0 id sec scan
	[[ "$plan" == "$RESULTS/plan" ]] || { cp "$plan" "$RESULTS/plan"; cp "$plan.expect" "$RESULTS/plan.expect"; }
	rm -rf "$out"
	: >"$RESULTS/verdicts"
	corrupt_boot "$out" "$RESULTS/plan" || rc=$?
	cp "$out/console.log" "$RESULTS/console.log" 2>/dev/null || true
	scan=
	case $rc in
	0) ;;
	124) echo "FAIL: guest timed out (console: $RESULTS/console.log)" ;;
	125) scan=$("$TOP/run-qemu.sh" --scan-console "$out/console.log" 2>&1 || true)
		echo "FAIL: kernel failure on the console: $(head -n 2 <<<"$scan")" ;;
	*) echo "FAIL: guest exited with status $rc (console: $RESULTS/console.log)" ;;
	esac
	while read -r id _; do
		corrupt_judge_one "$id"
	done <"$RESULTS/plan"
	# an image whose section saw a kernel failure, or the boot's end (a
	# hang), fails whatever its result said
	if ((rc)); then
		sec=$(awk '{ gsub(/\r/, "") } /ext4fc-harness: start corrupt\// {
			s = $0; sub(/.*start corrupt\//, "", s) } END { print s }' "$out/console.log" 2>/dev/null)
		if [[ -n "$sec" ]]; then
			awk -F'\t' -v OFS='\t' -v i="$sec" -v why="boot ended with status $rc in this image (124 timeout/hang, 125 kernel failure): ${scan//$'\n'/ }" \
				'$1 == i { $5 = "fail"; $8 = why } { print }' "$RESULTS/verdicts" >"$RESULTS/verdicts.new"
			mv "$RESULTS/verdicts.new" "$RESULTS/verdicts"
		fi
	fi
	return 0
}

corrupt_repro_cmd() {
	echo "tests/corrupt/repro.sh $1 $2 $3"
}

corrupt_xml_escape() {
	sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'
}

# corrupt_summary VERDICTS: the table per mutation.
corrupt_summary() {
	awk -F'\t' '
		{
			m = $2; n[m]++; v[m, $5]++
			if ($6 == "refused") r[m]++
			else if ($6 ~ /^prefix/) p[m]++
			else if ($6 ~ /^full/) f[m]++
			fs[m, $7]++
			T["n"]++; T[$5]++; if ($6 == "refused") T["r"]++
			else if ($6 ~ /^prefix/) T["p"]++; else if ($6 ~ /^full/) T["f"]++
			T["fs" $7]++
		}
		END {
			printf "  %-28s %6s %6s %6s %7s %7s %6s %6s %6s %6s\n", "mutation", "images",
			       "passed", "failed", "refused", "prefix", "full", "clean", "repair", "worse"
			for (m in n)
				printf "  %-28s %6d %6d %6d %7d %7d %6d %6d %6d %6d\n", m, n[m],
				       v[m, "pass"], v[m, "fail"], r[m], p[m], f[m],
				       fs[m, "clean"], fs[m, "repairable"], fs[m, "worse"] | "sort"
			close("sort")
			printf "  %-28s %6d %6d %6d %7d %7d %6d %6d %6d %6d\n", "total", T["n"],
			       T["pass"], T["fail"], T["r"], T["p"], T["f"],
			       T["fsclean"], T["fsrepairable"], T["fsworse"]
		}' "$1"
}

# corrupt_report TITLE [VERDICTS]: print, write JUnit XML; 1 on failures.
corrupt_report() {
	local title=$1 v=${2:-$RESULTS/verdicts} xml=$RESULTS/junit.xml
	local id mut base seed verdict outcome fsck msg np nf nn cases=()
	while IFS=$'\t' read -r id mut base seed verdict outcome fsck msg; do
		case $verdict in
		pass) cases+=("<testcase classname=\"corrupt.$mut\" name=\"$id\"/>") ;;
		notrun) cases+=("<testcase classname=\"corrupt.$mut\" name=\"$id\"><skipped message=\"$(corrupt_xml_escape <<<"$msg")\"/></testcase>") ;;
		*) cases+=("<testcase classname=\"corrupt.$mut\" name=\"$id\"><failure message=\"$(corrupt_xml_escape <<<"$msg")\">$(corrupt_repro_cmd "$base" "$mut" "$seed")</failure></testcase>") ;;
		esac
	done <"$v"
	np=$(awk -F'\t' '$5 == "pass"' "$v" | wc -l)
	nf=$(awk -F'\t' '$5 == "fail"' "$v" | wc -l)
	nn=$(awk -F'\t' '$5 == "notrun"' "$v" | wc -l)
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		echo "<testsuite name=\"corrupt\" tests=\"${#cases[@]}\" failures=\"$nf\" skipped=\"$nn\">"
		printf '%s\n' "${cases[@]}"
		echo '</testsuite>'
	} >"$xml"
	echo "$title: $np passed, $nf failed, $nn not run (JUnit: ${xml#"$TOP"/})"
	corrupt_summary "$v"
	while IFS=$'\t' read -r id mut base seed verdict outcome fsck msg; do
		[[ "$verdict" == fail ]] || continue
		echo "FAIL $id ($outcome, e2fsck $fsck): $msg"
		echo "  reproduce: $(corrupt_repro_cmd "$base" "$mut" "$seed")"
	done <"$v"
	((nf == 0))
}
