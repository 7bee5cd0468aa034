#!/bin/bash
# tests/fstests/run.sh: fstests (xfstests) in QEMU, ext4fc beside stock ext4.
# 'make fstests' runs it; see --help.
#
# Each selected test runs on each file system in a host-root guest
# (run-qemu.sh --host-root: the host's userland read-only under a tmpfs
# overlay) with FSTYP=ext4 and MKFS_OPTIONS="-O fast_commit" on three
# fresh sparse virtio disks (TEST, SCRATCH, LOGWRITES); ext4fc registers as
# "ext4" there (fs_name=ext4) and stock ext4 is never loaded in its boots.
# The list is cut into parts of CHUNK tests, one guest each (results come
# back as each part ends); up to JOBS guests run at once, the file systems'
# parts interleaved so that both columns fill at the same pace.  Results (fstests' own, with -R xunit) land
# in OUT/<fs>/part-K/guest/results (JUnit: OUT/<fs>/result-part-K.xml);
# OUT/report.md is the side-by-side table (tests/fstests/report.py).
set -euo pipefail

prog=fstests
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD:-$top/build}

usage() {
	cat <<'EOF'
usage: tests/fstests/run.sh [--fs "ext4fc ext4"] [--tests "T..."] [--groups "G..."]
                            [--shard K/N] [--jobs N] [--chunk N] [--smp N] [--per-test S]
                            [--limit S] [--exclude FILE] [--modules DIR] [--fstests DIR]
                            [--ext4fc-opts OPTS] [-o OUT]

  --fs LIST       file systems, blank- or comma-separated: ext4fc (ours, as
                  "ext4") and/or ext4 (stock); default both
  --tests LIST    tests by name (generic/455 ext4/001 ...)
  --groups LIST   fstests groups (log quick ...), expanded from the built
                  tree's group.list files; a directory prefix limits a group
                  to it (ext4/quick: the quick tests under tests/ext4)
                  Neither --tests nor --groups: the default set, the log
                  group, generic/455 457 482 and ext4/quick.
  --shard K/N     keep the K-th of N interleaved slices of the list (1-based):
                  N machines each run one shard, report.py merges them
  --jobs N        guests at once (default 1)
  --chunk N       tests per guest (default 10)
  --smp N         CPUs per guest (default 1)
  --per-test S    a test still running after S seconds is killed and
                  reported as "timeout" (default 600; 0: no limit, and the
                  guest's own limit is 900 s per test); when fstests has
                  not gone on 120 s after the kill (a task blocked in the
                  kernel), the test is "stalled" and its guest stops there
  --limit S       seconds one guest may run in all (default: 300 plus the
                  per-test budget and 60 s for each of its tests); a guest
                  still running then is stopped with its blocked tasks
                  dumped, its remaining tests "lost"
  --exclude FILE  tests not to run, one per line, '#' starts the reason
                  (default tests/fstests/exclude); they are listed in the
                  report with that reason
  --modules DIR   where jbd2fc.ko and ext4fc.ko are (default build/)
  --fstests DIR   the built fstests tree (default build/fstests)
  --ext4fc-opts OPTS
                  more mount options for ext4fc's TEST and SCRATCH mounts
                  (fstests' MOUNT_OPTIONS and TEST_FS_MOUNT_OPTS), e.g.
                  fc_dir_moves or fsync_isolation; stock ext4 runs without
                  them (it has none of them)
  -o OUT          results (default build/results/fstests); must be new or
                  empty unless it is the default, which is replaced

Exit status: 0 when no test failed on ext4fc that did not fail on stock ext4
in this run, and every ext4fc guest reported back; 1 otherwise; 2 bad usage
or a missing prerequisite (the message says which).
EOF
}

die() {
	echo "$prog: $*" >&2
	exit 2
}

say() {
	echo "$prog: $*"
}

fs_list="ext4fc ext4"
tests=""
groups=""
shard=""
jobs=1
chunk=10
smp=1
per_test=600
limit=
exclude=$top/tests/fstests/exclude
modules=$build
fstests=$build/fstests
ext4fc_opts=""
out=""
while [[ $# -gt 0 ]]; do
	[[ $1 == -h || $1 == --help ]] && { usage; exit 0; }
	[[ $# -ge 2 ]] || die "$1 needs a value (see --help)"
	case $1 in
	--fs) fs_list=$2 ;;
	--tests) tests=$2 ;;
	--groups) groups=$2 ;;
	--shard) shard=$2 ;;
	--jobs) jobs=$2 ;;
	--chunk) chunk=$2 ;;
	--smp) smp=$2 ;;
	--per-test) per_test=$2 ;;
	--limit) limit=$2 ;;
	--exclude) exclude=$2 ;;
	--modules) modules=$2 ;;
	--fstests) fstests=$2 ;;
	--ext4fc-opts) ext4fc_opts=$2 ;;
	-o) out=$2 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift 2
done
fs_list=${fs_list//,/ }
tests=${tests//,/ }
groups=${groups//,/ }
for f in $fs_list; do
	[[ $f == ext4fc || $f == ext4 ]] || die "--fs: ext4fc or ext4, not '$f'"
done
[[ -n ${fs_list// /} ]] || die "--fs is empty"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs wants a number >= 1, not '$jobs'"
[[ $smp =~ ^[1-9][0-9]*$ ]] || die "--smp wants a number >= 1, not '$smp'"
[[ $chunk =~ ^[1-9][0-9]*$ ]] || die "--chunk wants a number >= 1, not '$chunk'"
[[ $per_test =~ ^[0-9]+$ ]] || die "--per-test wants seconds, not '$per_test'"
[[ -z $limit || $limit =~ ^[1-9][0-9]*$ ]] || die "--limit wants seconds, not '$limit'"
shard_k=1 shard_n=1
if [[ -n $shard ]]; then
	[[ $shard =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] || die "--shard wants K/N, like 2/4, not '$shard'"
	shard_k=${BASH_REMATCH[1]} shard_n=${BASH_REMATCH[2]}
	((shard_k <= shard_n)) || die "--shard $shard: K must be at most N"
fi
[[ -f $exclude ]] || die "exclude file $exclude not found"
[[ $ext4fc_opts =~ ^[A-Za-z0-9_=,.]*$ ]] ||
	die "--ext4fc-opts wants mount options like fc_dir_moves,fsync_isolation, not '$ext4fc_opts'"

[[ -x $fstests/check && -x $fstests/ltp/fsstress ]] ||
	die "fstests is not built in $fstests: run 'make fstests-build' (or 'make fstests')"
# The guest reaches it at the same path through the host's root, where
# /tmp, /run, /dev, /proc and /sys are the guest's own.
fstests=$(realpath "$fstests")
case $fstests/ in
/tmp/* | /run/* | /dev/* | /proc/* | /sys/*)
	die "fstests is built in $fstests: the guest has its own ${fstests#/}; choose a BUILD (or --fstests) outside /tmp, /run, /dev, /proc and /sys" ;;
esac
for k in jbd2fc ext4fc; do
	[[ -f $modules/$k.ko ]] || die "$modules/$k.ko is missing: run 'make'"
done
for c in xfs_io:xfsprogs dmsetup:dmsetup udevadm:udev mkfs.ext4:e2fsprogs \
	getfattr:attr setfacl:acl bc:bc fio:fio python3:python3 gawk:gawk; do
	command -v "${c%%:*}" >/dev/null 2>&1 || PATH=$PATH:/sbin:/usr/sbin command -v "${c%%:*}" >/dev/null 2>&1 ||
		die "${c%%:*} not found: fstests needs it in the guest (the host's userland): install ${c#*:} (or run 'make deps')"
done

# --- the list ----------------------------------------------------------------

# expand_group [DIR/]GROUP: the tests of a group, from the group.list files
# make writes into the tree: those under DIR, else under generic, shared
# and ext4.
expand_group() {
	local g=$1 dirs d
	if [[ $g == */* ]]; then
		dirs=${g%%/*}
		g=${g#*/}
	else
		# as fstests' own -g does for FSTYP=ext4
		dirs="generic shared ext4"
	fi
	for d in $dirs; do
		[[ -f $fstests/tests/$d/group.list ]] || continue
		awk -v g="$g" -v d="$d" '!/^#/ { for (i = 2; i <= NF; i++) if ($i == g) { print d "/" $1; break } }' \
			"$fstests/tests/$d/group.list"
	done
}

if [[ -z $tests && -z $groups ]]; then
	tests="generic/455 generic/457 generic/482"
	groups="log ext4/quick"
fi
all=$(
	for t in $tests; do
		[[ -f $fstests/tests/$t ]] || { echo "$prog: no test $t in $fstests/tests" >&2; exit 2; }
		echo "$t"
	done
	for g in $groups; do
		n=$(expand_group "$g" | tee /dev/fd/3 | wc -l)
		((n > 0)) || { echo "$prog: group $g has no tests" >&2; exit 2; }
	done 3>&1
) || exit 2
# read_list FILE NAME: the test list FILE (a test per line, then '#' and
# why; '#' lines are comments) into the associative array NAME, test ->
# why.  tests/fstests/exclude and tests/fstests/slow are such lists.
read_list() {
	local -n into=$2
	local t why
	while read -r t why; do
		[[ -z $t || $t == \#* ]] && continue
		why=${why#\#}
		why=${why# }
		# shellcheck disable=SC2034 # into is a nameref: the caller's array
		into["$t"]=${why:-"(no reason given in ${1##*/})"}
	done <"$1"
}

# In the order given, each test once; the tests tests/fstests/slow names
# (the slowest under TCG) last.
declare -A slow=()
read_list "$top/tests/fstests/slow" slow
mapfile -t all < <(awk '!seen[$0]++' <<<"$all")
first=() last=()
for t in "${all[@]}"; do
	if [[ -n ${slow[$t]:-} ]]; then last+=("$t"); else first+=("$t"); fi
done
all=("${first[@]}" "${last[@]}")

declare -A excluded=()
read_list "$exclude" excluded
run=()
skipped=()
i=0
for t in "${all[@]}"; do
	i=$((i + 1))
	(((i - 1) % shard_n == shard_k - 1)) || continue
	if [[ -n ${excluded[$t]:-} ]]; then
		skipped+=("$t")
	else
		run+=("$t")
	fi
done
((${#run[@]} > 0)) || die "nothing to run (${#all[@]} selected, shard $shard_k/$shard_n, ${#skipped[@]} excluded)"

# --- output ------------------------------------------------------------------

if [[ -z $out ]]; then
	out=$build/results/fstests
	rm -rf "$out"
elif [[ -e $out && -n $(ls -A "$out") ]]; then
	die "-o $out is not empty: remove it or choose another"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
for t in "${skipped[@]}"; do
	printf '%s\t%s\n' "$t" "${excluded[$t]}"
done >"$out/excluded.tsv"
{
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host=$(hostname)"
	echo "kernel=$("$top/scripts/kver.sh")"
	echo "fstests=$("$top/scripts/fstests-src.sh" --print)"
	echo "ext4fc=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown) modules=$modules"
	echo "fs=$fs_list"
	echo "shard=$shard_k/$shard_n jobs=$jobs chunk=$chunk smp=$smp per_test=$per_test limit=${limit:-default}"
	echo "selected=${#all[@]} run=${#run[@]} excluded=${#skipped[@]}"
	echo "mkfs_options=-O fast_commit"
	echo "ext4fc_mount_options=${ext4fc_opts:-none}"
} >"$out/settings"

nfs=$(wc -w <<<"$fs_list")
if [[ -n $ext4fc_opts ]]; then
	msg="ext4fc mounts with $ext4fc_opts"
	[[ " $fs_list " == *" ext4 "* ]] && msg+="; stock ext4 without them (it has none of them)"
	say "$msg"
fi
say "${#run[@]} test(s) on ${fs_list// /, } (${#skipped[@]} excluded, shard $shard_k/$shard_n), $jobs guest(s) at once, results in ${out#"$top"/}/"

# --- the guests --------------------------------------------------------------

# part FS K: boot one guest for the K-th part of FS's tests.
part() {
	local fs=$1 k=$2 dir list=() rc=0 tmo gopt=()
	[[ $fs == ext4fc && -n $ext4fc_opts ]] && gopt=(-o "$ext4fc_opts")
	dir=$out/$fs/part-$(printf %03d "$k")
	mkdir -p "$dir"
	list=("${run[@]:$(((k - 1) * chunk)):chunk}")
	printf '%s\n' "${list[@]}" >"$dir/tests.list"
	mkdir -p "$dir/disks"
	truncate -s 3G "$dir/disks/test.img" "$dir/disks/scratch.img" "$dir/disks/log.img"
	tmo=${limit:-$((300 + (per_test > 0 ? per_test + 60 : 900) * ${#list[@]}))}
	QEMU_SMP=$smp QEMU_APPEND="sysctl.kernel.hung_task_timeout_secs=600 ${QEMU_APPEND:-}" \
		RESULTS_SIZE=1G "$top/run-qemu.sh" --host-root -q -m 2048M -t "$tmo" -o "$dir/guest" \
		-d "$dir/disks/test.img" -d "$dir/disks/scratch.img" -d "$dir/disks/log.img" \
		-f "$modules/jbd2fc.ko" -f "$modules/ext4fc.ko" \
		"$top/tests/fstests/fstests.guest" "${gopt[@]}" "$fs" "$fstests" "$per_test" "${list[@]}" \
		>"$dir/run-qemu.log" 2>&1 || rc=$?
	rm -rf "$dir/disks"
	echo "$rc" >"$dir/harness.rc"
	# fstests' JUnit file, one per part, where CI tools look for it
	cp -f "$dir/guest/results/result.xml" "$out/$fs/result-${dir##*/}.xml" 2>/dev/null || true
	say "$fs part $k of $n_parts (${list[0]} .. ${list[-1]}): exit $rc, $(grep -c . "$dir/guest/timeouts" 2>/dev/null || echo 0) timeout(s) ($(tail -n 1 "$dir/run-qemu.log"))"
}

# progress: every minute, how many tests have started (fstests writes
# "run fstests TEST at DATE" to the kernel log as each begins).
progress() {
	local f started total
	total=$((${#run[@]} * nfs))
	while sleep 60; do
		started=0
		for f in "$out"/*/part-*/guest/console.log; do
			[[ -f $f ]] || continue
			started=$((started + $(grep -ac 'run fstests [a-z0-9]*/[0-9]* at ' "$f" || true)))
		done
		say "progress: $started of $total test runs started, $(((SECONDS - start) / 60)) min ($(date +%H:%M))"
	done
}

start=$SECONDS
progress &
ppid=$!
# shellcheck disable=SC2317 # called from the EXIT trap
stop_all() {
	kill "$ppid" 2>/dev/null || true
	jobs -p | xargs -r kill 2>/dev/null || true
}
trap stop_all EXIT
n_parts=$(((${#run[@]} + chunk - 1) / chunk))
running=0
for ((k = 1; k <= n_parts; k++)); do
	for fs in $fs_list; do
		if ((running >= jobs)); then
			wait -n || true
			running=$((running - 1))
		fi
		part "$fs" "$k" &
		running=$((running + 1))
	done
done
while ((running > 0)); do
	wait -n || true
	running=$((running - 1))
done
kill "$ppid" 2>/dev/null || true
echo "minutes=$(((SECONDS - start + 30) / 60))" >>"$out/settings"

rc=0
python3 "$top/tests/fstests/report.py" "$out" || rc=$?
say "report: ${out#"$top"/}/report.md"
exit "$rc"
