#!/bin/bash
# run.sh: crash consistency under concurrent stress, ext4fc beside stock
# ext4 in the same boots ('make stress').
#
#   tests/stress/run.sh [-o DIR] [--seeds N] [--start S] [--mix M]
#                       [--fs "ext4fc ext4"] [--model M] [--oracle O]
#                       [--procs P] [--ops N] [--batch B] [--size MB]
#                       [--disk D]
#
# For every seed, op mix and file system: fstests' fsstress (P processes,
# N operations each, seeded) on dm-log-writes, then the log replayed to
# every FUA write, where a throw-away snapshot with that point's crash
# state is mounted (the kernel replays journal and fast commits),
# unmounted and e2fsck -fn'd: the method of fstests' generic/482
# (tests/stress/stress.guest has the details).  Crash models (--model):
# optimistic (the default; generic/482's: every write up to the point),
# pessimistic (what a flush or FUA made durable: every write up to the
# latest flush, then the FUA writes only; a volatile cache's loss), both
# (a pessimistic state that drops no write is the optimistic one and is
# mounted once).  tests/src/logreplay.c defines them and says why, on
# dm-log-writes' log, they drop the same: no write at all here.
# Mixes: fsync (fsync and fdatasync frequent, no sync),
# default (fsstress' write mix) and heavy (fsync=60 fdatasync=30
# write=30 over fsstress' whole op set, sync included); "both" (the
# default) runs fsync and default, "all" the three.  --fs
# also takes ext4fc+iso and ext4fc+sf: ext4fc written with the mount
# option fsync_isolation or fc_selective_flush, replayed by ext4fc; they
# count as ours.  --disk: virtio (the default; no FUA, the block layer
# turns FUA into a flush) or nvme (run-qemu.sh -n: FUA reaches the disk,
# what fc_selective_flush relies on).  B runs
# share a QEMU boot (default 4); file systems alternate within a seed so
# both see the same machine.
#
# --oracle data: bytes and names, not just fsck.  The workload is not
# fsstress but acegen's long concurrent one of the seed (acegen -t -n N
# -p P: P threads (at most 4), each on a tree of its own, N operations
# each (default 30, at most 64): writes, appends, truncates, fallocate
# modes, renames, links, unlinks, xattrs, O_TMPFILE files, files held
# open and unlinked...), run by the crash suite's code: after each fsync
# or fdatasync returns, its thread writes a dm-log-writes mark and the
# manifest records what is now durable (type, size, data hash, xattrs,
# names; tests/crash/README.md, "The oracle").  At every FUA point, under
# each model, the state is mounted and every promise due there (each
# thread's points whose marks precede the write) that no later operation
# revoked is checked, then e2fsck.  The mix sets how often a point
# follows an operation: fsync 75 %, default 30 %, heavy 100 %.
# (--oracle fsck, the default: fsstress and e2fsck, as above.)
#
# Prints a progress line per run and, at the end, one table row per file
# system and model (runs, flush points, points mounted, writes the model
# dropped, e2fsck failures, mount failures, fast commits; with the data
# oracle the promises made, checked (summed over the points mounted) and
# broken) and each failed point with its first complaint and the file
# with the rest.  Results: DIR
# (default build/results/stress): runs.tsv, table.md, fail/*.txt,
# points/*.txt (per point: the writes since the latest flush and what the
# pessimistic model drops of them), one directory per boot; with the data
# oracle fail/FS-MIX-SEED.workload, a failed run's workload.
# Exit status: 0 when ext4fc had no failure (stock ext4's failures are the
# reference, not ours; a broken promise is a failure); 1 when it had one,
# or a boot failed; 2 bad usage.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/results/stress
seeds=20 start=1 mix=both fslist="ext4fc ext4" model=optimistic procs=4 ops="" batch=4 size=256
disk=virtio oracle=fsck

usage() {
	# the header: the comment from line 2 on
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
	exit "${1:-2}"
}

while (($#)); do
	case $1 in
	-o) out=$2; shift 2 ;;
	--seeds) seeds=$2; shift 2 ;;
	--start) start=$2; shift 2 ;;
	--mix) mix=$2; shift 2 ;;
	--fs) fslist=$2; shift 2 ;;
	--model) model=$2; shift 2 ;;
	--oracle) oracle=$2; shift 2 ;;
	--procs) procs=$2; shift 2 ;;
	--ops) ops=$2; shift 2 ;;
	--batch) batch=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	-h | --help) usage 0 ;;
	*) echo "run.sh: unknown option $1" >&2; usage ;;
	esac
done
case $oracle in
fsck) ops=${ops:-300} ;;
data) ops=${ops:-30} ;;
*) echo "run.sh: --oracle wants fsck or data, not '$oracle'" >&2; exit 2 ;;
esac
for v in seeds start procs ops batch size; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --$v wants a positive number, not '${!v}'" >&2; exit 2; }
done
[[ $oracle == fsck ]] || ((procs <= 4 && ops <= 64)) ||
	{ echo "run.sh: --oracle data takes --procs 1-4 (threads) and --ops 1-64 (acegen -t -n)" >&2; exit 2; }
case $mix in
both) mixes=(fsync default) ;;
all) mixes=(fsync default heavy) ;;
fsync | default | heavy) mixes=("$mix") ;;
*) echo "run.sh: --mix wants fsync, default, heavy, both or all, not '$mix'" >&2; exit 2 ;;
esac
case $model in
both) models=(optimistic pessimistic) ;;
optimistic | pessimistic) models=("$model") ;;
*) echo "run.sh: --model wants optimistic, pessimistic or both, not '$model'" >&2; exit 2 ;;
esac
case $disk in
virtio) dflag=-d ;;
nvme) dflag=-n ;;
*) echo "run.sh: --disk wants virtio or nvme, not '$disk'" >&2; exit 2 ;;
esac
read -ra fss <<<"$fslist"
for f in "${fss[@]}"; do
	[[ $f == ext4fc || $f == ext4fc+iso || $f == ext4fc+sf || $f == ext4 ]] ||
		{ echo "run.sh: --fs takes ext4fc, ext4fc+iso, ext4fc+sf and/or ext4, not '$f'" >&2; exit 2; }
done
((${#fss[@]})) || { echo "run.sh: --fs is empty" >&2; exit 2; }
fsstress=()
if [[ $oracle == fsck ]]; then
	[[ -x $top/build/fstests-static/fsstress ]] ||
		{ echo "run.sh: build/fstests-static/fsstress missing: run 'make stress-helpers'" >&2; exit 2; }
	fsstress=(-f "$top/build/fstests-static/fsstress")
fi
[[ -f $top/build/initramfs.cpio.gz ]] || { echo "run.sh: no initramfs: run 'make'" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out"
plan_all=$out/plan
: >"$plan_all"
for ((s = start; s < start + seeds; s++)); do
	for m in "${mixes[@]}"; do
		for f in "${fss[@]}"; do
			printf '%s %s %s %s %s %s %s\n' "$f" "$m" "$s" "$procs" "$ops" "$model" "$oracle" >>"$plan_all"
		done
	done
done
nruns=$(wc -l <"$plan_all")
if [[ $oracle == data ]]; then
	work="data oracle: acegen -t -n $ops -p $procs"
else
	work="fsstress -p $procs -n $ops"
fi
echo "stress: $nruns run(s): seeds $start..$((start + seeds - 1)), mix ${mixes[*]}, fs ${fss[*]}, model $model, $work, ${size} MiB $disk disks, $batch run(s) a boot; results in ${out#"$top"/}/"

# the crash suite's guest side, crash.sh and its parts (crash-*.sh)
crash_lib=()
for f in "$top"/tests/crash/lib/crash*.sh; do
	crash_lib+=(-f "$f")
done

: >"$out/runs.tsv"
t0=$(date +%s)
boot=0 bad_boots=0 done_runs=0
while ((done_runs < nruns)); do
	boot=$((boot + 1))
	dir=$out/boot$boot
	mkdir -p "$dir"
	sed -n "$((done_runs + 1)),$((done_runs + batch))p" "$plan_all" >"$dir/plan"
	n=$(wc -l <"$dir/plan")
	# data: written + replay device; aux: log + COW
	truncate -s $((2 * size))M "$dir/data.img"
	truncate -s $((4 * size))M "$dir/aux.img"
	rc=0
	# ~10 minutes a run under TCG at the defaults (a model more: twice
	# that at most), and a boot; the data oracle's runs: 3-4 minutes at
	# 4 x 30 operations (~110 points), a fifth of the limit
	per_run=$((ops * procs * 3 / 2 + 300))
	[[ $oracle == data ]] && per_run=$((ops * procs * 8 + 300))
	"$top/run-qemu.sh" -q -t $((300 + n * ${#models[@]} * per_run)) -o "$dir/guest" \
		"$dflag" "$dir/data.img" "$dflag" "$dir/aux.img" \
		-f "$top/tests/harness/guest.sh" "${crash_lib[@]}" \
		-f "$top/tests/stress/point.sh" -f "$dir/plan" "${fsstress[@]}" \
		"$top/tests/stress/stress.guest" plan "$disk" >"$dir/run-qemu.log" 2>&1 || rc=$?
	rm -f "$dir/data.img" "$dir/aux.img"
	got=0
	if [[ -f $dir/guest/runs ]]; then
		cat "$dir/guest/runs" >>"$out/runs.tsv"
		# a line per run and model
		got=$(($(wc -l <"$dir/guest/runs") / ${#models[@]}))
		mkdir -p "$out/fail" "$out/points"
		cp "$dir"/guest/fail/* "$out/fail/" 2>/dev/null
		cp "$dir"/guest/points/* "$out/points/" 2>/dev/null
		# the disks' line (FUA, write cache) from the first boot only
		grep -a '^stress: ' "$dir/guest/console.log" | tr -d '\r' |
			{ if ((boot > 1)); then grep -v '^stress: disks '; else cat; fi } |
			sed "s|^stress: [0-9]*/[0-9]* |stress: |"
	fi
	if ((rc != 0 || got < n)); then
		bad_boots=$((bad_boots + 1))
		echo "stress: boot $boot ended with status $rc after $got of $n run(s): $(tail -n 1 "$dir/run-qemu.log")"
		echo "        (console: ${dir#"$top"/}/guest/console.log)"
	fi
	done_runs=$((done_runs + n))
	secs=$(($(date +%s) - t0))
	echo "stress: $done_runs/$nruns run(s) done, ${secs}s, ~$((secs * (nruns - done_runs) / done_runs))s to go"
done

# ORACLE=data for the reproduce line; the table's promise columns
ora=
[[ $oracle == data ]] && ora=" ORACLE=data STRESS_ARGS=\"--ops $ops --procs $procs\""
# the table: one row per file system and model (runs.tsv's columns:
# stress.guest's header)
# stress.guest's header; the data oracle's promises: 19-21)
{
	if [[ -n $ora ]]; then
		echo "| writer = replayer | crash model | runs | flush points | points mounted | writes dropped (at points) | e2fsck failures | mount failures | promises made | promises checked | promises broken | fast commits | full commits (fsync) |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	else
		echo "| writer = replayer | crash model | runs | flush points | points mounted | writes dropped (at points) | e2fsck failures | mount failures | fast commits | full commits (fsync) |"
		echo "|---|---|---|---|---|---|---|---|---|---|"
	fi
	for f in "${fss[@]}"; do
		for m in "${models[@]}"; do
			awk -F'\t' -v f="$f" -v m="$m" -v data="${ora:+1}" '$1 == f && $14 == m {
					r++; p += $6; e += $7; n += $8; c += $9; i += $10
					mo += $15; w += $16; wp += $17
					pm += $19; pc += $20; pb += $21
				}
				END {
					printf "| %s | %s | %d | %d | %d | %d (%d) | %d | %d |",
						f == "ext4" ? "stock ext4" : f, m, r, p, mo, w, wp, e, n
					if (data)
						printf " %d | %d | %d |", pm, pc, pb
					printf " %d | %d |\n", c, i
				}' "$out/runs.tsv"
		done
	done
} >"$out/table.md"
echo
echo "$work, mixes ${mixes[*]}, seeds $start..$((start + seeds - 1)), model $model, $disk disks; $(date -u +%Y-%m-%d), $(($(date +%s) - t0))s"
cat "$out/table.md"
[[ $model == both ]] &&
	echo "(pessimistic: a point where the model drops no write has the optimistic state, mounted once, as optimistic)"
if [[ -d $out/fail ]] && compgen -G "$out/fail/*.txt" >/dev/null; then
	echo
	echo "failed points (first complaint; the rest in the file):"
	for f in "$out"/fail/*.txt; do
		# the mount's complaint, or e2fsck's first finding, or the first
		# promise broken
		first=$(awk 'NR == 1 && / failed/ { print; exit }
			/^(e2fsck |Pass |\/dev\/|$)/ { next } NR > 1 { print; exit }' "$f")
		((${#first} > 200)) && first="${first:0:200}..."
		printf '  %s: %s\n' "$(basename "$f" .txt)" "${first:-see the file}"
	done | sort -V
	echo "  (files: ${out#"$top"/}/fail/; -pess-: the pessimistic model; one again: make stress FS=FS MIX=MIX START=SEED SEEDS=1 MODEL=$model DISK=$disk${ora})"
fi
# e2fsck and mount failures, promises broken
ours=$(awk -F'\t' '$1 ~ /^ext4fc/ { n += $7 + $8 + ($21 == "-" ? 0 : $21) } END { print n + 0 }' "$out/runs.tsv")
notok=$(awk -F'\t' '$13 != "ok"' "$out/runs.tsv" | wc -l)
((notok)) && echo "stress: $notok run(s) did not finish cleanly (last column of runs.tsv)"
if ((ours || bad_boots || notok)); then
	echo "stress: FAIL: ext4fc had $ours failure(s) (e2fsck, mount${ora:+, promises broken}); $bad_boots boot(s) failed"
	exit 1
fi
if [[ $oracle == data ]]; then
	echo "stress: ext4fc: every flush point mounted, e2fsck-clean, and kept every promise due there"
else
	echo "stress: ext4fc: every flush point mounted and e2fsck-clean"
fi
exit 0
