#!/bin/bash
# bench/run.sh: ext4fc vs stock ext4, with and without fast commits, in one
# QEMU boot.  See bench/README.md for the protocol; --help for options.
#
# Writes a plan (one line per run: device, workload, configuration,
# repetition), boots once with the disks it needs -- the plain virtio disk,
# two throttled by QEMU, an NVMe disk (run-qemu.sh -n) -- and runs
# bench/bench.guest on it; then
# bench/report.sh turns the guest's runs.csv into results.csv, table.md
# and plot.png in OUTDIR.
set -euo pipefail

prog=bench/run.sh
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
	cat <<'EOF'
usage: bench/run.sh [--profile smoke|quick|full|nvme] [-o OUTDIR] [--reps N]
                    [--iops N] [--bps MIB] [--devices LIST]
                    [--workloads LIST] [--configs LIST] [--peers LIST]
                    [--size SIZE] [-t SECONDS] [--keep-images] [-q] [-n]

Boots QEMU once (./run-qemu.sh) and runs every workload of the profile in
four configurations on identical fresh file systems:
  ext4fc+fc     ext4fc.ko, mkfs -O fast_commit
  ext4fc-nofc   ext4fc.ko, mkfs -O fast_commit, mount -o no_fc
  ext4+fc       stock ext4.ko, mkfs -O fast_commit
  ext4-nofc     stock ext4.ko, mkfs -O ^fast_commit
The configurations of one workload run back to back, repetition 1, 2, 3,
4 in the orders ABCD, DCBA, BADC, CDAB (then again), so drift favours none
of them.  The peers follow them on the fsync-heavy workloads
(fsmark-1t, fsmark-8t, varmail, interfere, sqlite-wal, sqlite-delete,
metafsync, metafsync-dir), alternating their order from one repetition to
the next:
  ext4fc+iso    ext4fc.ko, mkfs -O fast_commit, mount -o fsync_isolation
  ext4fc+sf     ext4fc.ko, mkfs -O fast_commit, mount -o fc_selective_flush
  ext4fc+iso+sf ext4fc.ko, mkfs -O fast_commit, mount -o
                fsync_isolation,fc_selective_flush
                (issue 30; left out, with a note, while the ext4fc.ko in
                build/initramfs.cpio.gz does not know the option)
  ext4fc+batch  ext4fc.ko, group commit's window fc_batch_max_us=15000
  xfs, btrfs    mkfs.xfs, mkfs.btrfs (defaults)

Options:
  --profile P     smoke (seconds, for make check), quick (make bench, the
                  default, ~35 min under TCG), full (make bench-full) or
                  nvme (make bench-nvme, issue 30's table, ~17 min: the
                  NVMe disk only, ext4fc+fc, ext4fc+sf, ext4+fc and
                  ext4fc-nofc as the four alternating configurations, 3
                  repetitions, the peers ext4fc+iso and ext4fc+iso+sf)
  -o OUTDIR       results (default build/bench); an earlier bench output
                  there is replaced
  --reps N        repetitions (default: smoke 1, quick 2, full 4)
  --iops N        the throttled disk's limit: QEMU throttling.iops-total=N
                  (default 1000); 0 leaves that disk out
  --bps MIB       the disk throttled in bandwidth: QEMU
                  throttling.bps-total=MIB MiB/s (default 4), for the
                  randw and sqlite workloads only; 0 leaves it out
  --devices L     comma-separated subset of: plain,iops,bw,nvme (nvme:
                  QEMU's NVMe controller, run-qemu.sh -n, which has FUA;
                  not throttled).  Default: smoke all four, quick and
                  full plain,iops,bw, nvme nvme
  --workloads L   comma-separated subset of the profile's workloads:
                  fsmark-1t,fsmark-4t,fsmark-8t,dbench-2,dbench-10,
                  varmail,fsynclat,fsynclat+writer,interfere,
                  fsmark-sec,fsmark-sec512 (files that get a default ACL
                  and a security.selinux label: 256- and 512-byte inodes),
                  randw-4,randw-16 (4 or 16 random 4 KiB writes into a
                  preallocated file, then fdatasync),
                  sqlite-wal,sqlite-delete (Debian's sqlite3, WAL or
                  rollback journal, synchronous=FULL, one-row INSERT
                  transactions), metafsync,metafsync-dir (create,
                  rename, link, unlink, chmod, fsync the file; -dir:
                  then the directory)
  --configs L     the alternating configurations, at most four (default:
                  ext4fc+fc,ext4fc-nofc,ext4+fc,ext4-nofc; nvme:
                  ext4fc+fc,ext4fc+sf,ext4+fc,ext4fc-nofc); any of those
                  and the peers' ext4 configurations
  --peers L       comma-separated peers for the fsync-heavy small-file
                  workloads: ext4fc+iso,ext4fc+sf,xfs,btrfs (default for
                  quick and full), a subset, ext4fc+iso+sf, ext4fc+batch,
                  or none (default for smoke); nvme:
                  ext4fc+iso,ext4fc+iso+sf
  --size SIZE     size of each test disk (default 1G)
  --param N=V     set ext4fc's module parameter N to V for the whole boot
                  (repeatable; e.g. fc_group_data=0); every ext4fc
                  configuration runs with it
  -t SECONDS      limit for the boot (default: from the profile)
  --keep-images   keep the disk images in OUTDIR/images
  -q              no progress lines
  -n, --dry-run   print the plan (one line per run) and stop

Output in OUTDIR: table.md (tables with ratios), results.csv (one line per
device, workload and configuration), runs.csv (one line per run), plot.png,
settings.txt, plan.txt, guest/ (console.log, log/N.log per run).
Environment: QEMU_CACHE=writeback attaches every disk with QEMU's
writeback cache instead of cache=unsafe, so that the guest's cache
flushes cost a host fdatasync, as a flush costs time on a real disk.
Needs: qemu-system-x86, fsmark, dbench, and for the peers xfsprogs and
btrfs-progs (on the host, copied into the guest by 'make'), gnuplot-nox
for the plot ('make deps' installs them all).
EOF
}

die() {
	echo "$prog: $*" >&2
	exit 2
}

profile=quick
outdir=$top/build/bench
reps=
iops=1000
bps=4
devices=
workloads=
configs=
peers=
size=1G
params=()
tmo=
keep=0
quiet=0
dry_run=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--profile) profile=${2:?}; shift 2 ;;
	-o) outdir=${2:?}; shift 2 ;;
	--reps) reps=${2:?}; shift 2 ;;
	--iops) iops=${2:?}; shift 2 ;;
	--bps) bps=${2:?}; shift 2 ;;
	--devices) devices=${2:?}; shift 2 ;;
	--workloads) workloads=${2:?}; shift 2 ;;
	--configs) configs=${2:?}; shift 2 ;;
	--peers) peers=${2:?}; shift 2 ;;
	--size) size=${2:?}; shift 2 ;;
	--param)
		[[ ${2:-} =~ ^[a-z_]+=[0-9a-z_]+$ ]] ||
			die "--param: want NAME=VALUE, an ext4fc module parameter (/sys/module/ext4fc/parameters/NAME), got '${2:-}'"
		params+=("$2")
		shift 2
		;;
	-t) tmo=${2:?}; shift 2 ;;
	--keep-images) keep=1; shift ;;
	-q) quiet=1; shift ;;
	-n | --dry-run) dry_run=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument $1" ;;
	esac
done

# --- the profile: workload parameters (see bench.guest's run_workload) -------
#   fsmark THREADS FILES_PER_THREAD    (4 KiB files, fsync before close)
#   dbench CLIENTS SECONDS             (Debian's client.txt)
#   varmail THREADS NFILES LOOPS       (bench/src/varmail.c)
#   fsynclat COUNT BYTES INTERVAL_US WRITER_MIB   (bench/src/fsynclat.c)
#   interfere SECONDS                  (bench/src/interfere.c)
#   randw N SECONDS MIB                (bench/src/randw.c: N random 4 KiB
#                                      writes into a preallocated file of
#                                      MIB MiB, then fdatasync)
#   fsmarksec THREADS FILES_PER_THREAD INODE_SIZE   (bench/src/fsmarksec.c;
#                                      mkfs.ext4 -I INODE_SIZE)
#   sqlite MODE TRANSACTIONS           (Debian's sqlite3: journal_mode=MODE,
#                                      WAL or DELETE, synchronous=FULL,
#                                      one-row INSERT transactions)
#   metafsync ITERATIONS DIRSYNC       (bench/src/metafsync.c: create,
#                                      rename, link, unlink, chmod, fsync;
#                                      DIRSYNC 1: then fsync the directory)
declare -A wl=()
order=(fsmark-1t fsmark-4t fsmark-8t dbench-2 dbench-10 varmail fsynclat fsynclat+writer interfere
	fsmark-sec fsmark-sec512 randw-4 randw-16 sqlite-wal sqlite-delete metafsync metafsync-dir)
def_devices=plain,iops,bw
def_configs=ext4fc+fc,ext4fc-nofc,ext4+fc,ext4-nofc
case $profile in
smoke)
	def_reps=1 def_tmo=600 def_devices=plain,iops,bw,nvme
	wl=([fsmark-4t]="fsmark 4 20" [dbench-2]="dbench 2 2"
		[varmail]="varmail 4 200 40" [fsynclat+writer]="fsynclat 30 4096 1000 16"
		[interfere]="interfere 2" [fsmark-sec512]="fsmarksec 4 10 512"
		[randw-4]="randw 4 2 64" [sqlite-wal]="sqlite WAL 20"
		[metafsync]="metafsync 100 0")
	# The throttled disks only for one workload each: enough to
	# exercise them (a mkfs on the bw disk alone takes ~12 s).  The
	# NVMe disk: metafsync only, and only ext4fc+fc and ext4fc+sf
	# (selective flushing: no cache flush there; 001 checks it).
	smoke_iops=fsmark-4t smoke_bw=randw-4 smoke_nvme=metafsync
	smoke_nvme_configs="ext4fc+fc ext4fc+sf"
	;;
quick)
	# 416 runs at ~5 s each under TCG: about 35 minutes
	def_reps=2 def_tmo=3600
	wl=([fsmark-1t]="fsmark 1 400" [fsmark-4t]="fsmark 4 200"
		[fsmark-8t]="fsmark 8 100" [dbench-2]="dbench 2 8"
		[dbench-10]="dbench 10 8" [varmail]="varmail 8 1000 400"
		[fsynclat]="fsynclat 300 4096 1000 0"
		[fsynclat+writer]="fsynclat 300 4096 1000 128"
		[interfere]="interfere 10"
		[fsmark-sec]="fsmarksec 4 200 256" [fsmark-sec512]="fsmarksec 4 200 512"
		[randw-4]="randw 4 10 64" [randw-16]="randw 16 10 256"
		[sqlite-wal]="sqlite WAL 200" [sqlite-delete]="sqlite DELETE 200"
		[metafsync]="metafsync 400 0")
	;;
full)
	def_reps=4 def_tmo=7200
	wl=([fsmark-1t]="fsmark 1 1000" [fsmark-4t]="fsmark 4 500"
		[fsmark-8t]="fsmark 8 250" [dbench-2]="dbench 2 30"
		[dbench-10]="dbench 10 30" [varmail]="varmail 8 1000 2000"
		[fsynclat]="fsynclat 1000 4096 1000 0"
		[fsynclat+writer]="fsynclat 1000 4096 1000 256"
		[interfere]="interfere 30"
		[fsmark-sec]="fsmarksec 4 500 256" [fsmark-sec512]="fsmarksec 4 500 512"
		[randw-4]="randw 4 30 64" [randw-16]="randw 16 30 256"
		[sqlite-wal]="sqlite WAL 1000" [sqlite-delete]="sqlite DELETE 1000"
		[metafsync]="metafsync 1000 0" [metafsync-dir]="metafsync 1000 1")
	;;
nvme)
	# Issue 30's table: selective flushing on the disk with FUA.  The
	# sizes keep the boot near 20 minutes under TCG (bench/README.md).
	def_reps=3 def_tmo=2400 def_devices=nvme
	def_configs=ext4fc+fc,ext4fc+sf,ext4+fc,ext4fc-nofc
	wl=([metafsync]="metafsync 2000 0" [metafsync-dir]="metafsync 1000 1"
		[fsynclat]="fsynclat 1000 4096 1000 0" [fsmark-1t]="fsmark 1 1000"
		[sqlite-wal]="sqlite WAL 1000" [interfere]="interfere 20")
	;;
*) die "--profile wants smoke, quick, full or nvme, not '$profile'" ;;
esac
reps=${reps:-$def_reps}
tmo=${tmo:-$def_tmo}
devices=${devices:-$def_devices}
configs=${configs:-$def_configs}
if [[ -z $peers ]]; then
	case $profile in
	smoke) peers=none ;;
	# with isolation the interfere writer's file leaves the fsync's commit
	nvme) peers=ext4fc+iso,ext4fc+iso+sf ;;
	*) peers=ext4fc+iso,ext4fc+sf,xfs,btrfs ;;
	esac
fi
# The peers and the Debian package of their mkfs ("-": none of its own).
declare -A peer_pkg=([ext4fc+iso]=- [ext4fc+sf]=- [ext4fc+iso+sf]=- [ext4fc+batch]=- [xfs]=xfsprogs [btrfs]=btrfs-progs)
sel_peers=()
if [[ $peers != none ]]; then
	IFS=, read -r -a sel_peers <<<"$peers"
	for p in "${sel_peers[@]}"; do
		[[ -n ${peer_pkg[$p]:-} ]] || die "--peers: unknown peer '$p' (ext4fc+iso, ext4fc+sf, ext4fc+iso+sf, ext4fc+batch, xfs, btrfs, or none)"
	done
fi
# The alternating configurations (at most four: the orders below).
IFS=, read -r -a sel_cfg <<<"$configs"
((${#sel_cfg[@]} >= 1 && ${#sel_cfg[@]} <= 4)) || die "--configs wants one to four configurations, not '$configs'"
for c in "${sel_cfg[@]}"; do
	case $c in
	ext4fc+fc | ext4fc-nofc | ext4+fc | ext4-nofc | ext4fc+iso | ext4fc+sf | ext4fc+iso+sf | ext4fc+batch) ;;
	*) die "--configs: unknown configuration '$c' (ext4fc+fc, ext4fc-nofc, ext4+fc, ext4-nofc, ext4fc+iso, ext4fc+sf, ext4fc+iso+sf, ext4fc+batch)" ;;
	esac
done
# A peer that is also an alternating configuration runs once, as the latter.
mapfile -t sel_peers < <(for p in "${sel_peers[@]}"; do [[ ,$configs, == *",$p,"* ]] || echo "$p"; done)
# The workloads the peers run: fsync-heavy, small files.
peer_wl=" fsmark-1t fsmark-8t varmail interfere sqlite-wal sqlite-delete metafsync metafsync-dir "
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "--reps wants a positive number, not '$reps'"
[[ $iops =~ ^[0-9]+$ ]] || die "--iops wants a number, not '$iops'"
[[ $bps =~ ^[0-9]+$ ]] || die "--bps wants a number of MiB/s, not '$bps'"
[[ $tmo =~ ^[1-9][0-9]*$ ]] || die "-t wants a number of seconds, not '$tmo'"
[[ $size =~ ^[1-9][0-9]*[MG]$ ]] || die "--size wants e.g. 1G or 512M, not '$size'"

sel_wl=()
if [[ -n $workloads ]]; then
	IFS=, read -r -a sel_wl <<<"$workloads"
	for w in "${sel_wl[@]}"; do
		[[ -n ${wl[$w]:-} ]] || die "no workload '$w' in profile $profile (have: $(for o in "${order[@]}"; do [[ -n ${wl[$o]:-} ]] && printf '%s ' "$o"; done))"
	done
else
	for o in "${order[@]}"; do
		[[ -n ${wl[$o]:-} ]] && sel_wl+=("$o")
	done
fi
IFS=, read -r -a sel_dev <<<"$devices"
for d in "${sel_dev[@]}"; do
	case $d in plain | iops | bw | nvme) ;; *) die "--devices: unknown device '$d' (plain, iops, bw, nvme)" ;; esac
done
if ((iops == 0)); then
	mapfile -t sel_dev < <(printf '%s\n' "${sel_dev[@]}" | grep -vx iops || true)
fi
if ((bps == 0)); then
	mapfile -t sel_dev < <(printf '%s\n' "${sel_dev[@]}" | grep -vx bw || true)
fi
# The disk throttled in bandwidth runs the workloads whose journal bytes
# differ most: random writes and the databases.
bw_wl=" randw-4 randw-16 sqlite-wal sqlite-delete "
((${#sel_dev[@]})) || die "no device left to run on"

# --- prerequisites ------------------------------------------------------------

need_dbench=0 need_sqlite=()
for w in "${sel_wl[@]}"; do
	[[ ${wl[$w]} == dbench* ]] && need_dbench=1
	[[ ${wl[$w]} == sqlite* ]] && need_sqlite=(sqlite3)
done
missing=()
command -v fs_mark >/dev/null 2>&1 || missing+=("fs_mark (package fsmark)")
((${#need_sqlite[@]} == 0)) || command -v sqlite3 >/dev/null 2>&1 ||
	missing+=("sqlite3 (package sqlite3)")
command -v dbench >/dev/null 2>&1 || missing+=("dbench (package dbench)")
((!need_dbench)) || [[ -r /usr/share/dbench/client.txt ]] ||
	missing+=("/usr/share/dbench/client.txt (package dbench)")
mkfs_peers=()
for p in "${sel_peers[@]}"; do
	[[ ${peer_pkg[$p]} != - ]] || continue
	mkfs_peers+=("mkfs.$p")
	command -v "mkfs.$p" >/dev/null 2>&1 ||
		missing+=("mkfs.$p (package ${peer_pkg[$p]}; or --peers none)")
done
((${#missing[@]} == 0)) ||
	die "missing on the host: ${missing[*]}: run 'make deps' (or apt-get install fsmark dbench gnuplot-nox xfsprogs btrfs-progs sqlite3), then 'make'"
initramfs=$top/build/initramfs.cpio.gz
[[ -r $initramfs ]] || die "$initramfs not found: run 'make'"
# listed once: grep -q in the pipe would make zcat die of SIGPIPE (pipefail)
listing=$(zcat "$initramfs" | cpio -it --quiet 2>/dev/null)
for b in fs_mark dbench varmail fsynclat interfere fsmarksec randw metafsync "${need_sqlite[@]}" "${mkfs_peers[@]}"; do
	grep -q "/$b\$" <<<"$listing" ||
		die "$b is not in build/initramfs.cpio.gz: run 'make' (after 'make deps')"
done
[[ ,$devices, != *,nvme,* ]] || grep -q '/nvme\.ko$' <<<"$listing" ||
	die "no nvme.ko in build/initramfs.cpio.gz (run-qemu.sh -n needs it): run 'make'"

# ext4fc+sf needs an ext4fc.ko that knows the mount option
# fc_selective_flush (issue 30): the string is in the module's option
# table (.rodata, kept by the initramfs's strip --strip-debug).
sf_note=
if [[ " ${sel_cfg[*]} ${sel_peers[*]} ${smoke_nvme_configs:-} " == *"+sf "* ]]; then
	ko=$(grep '/extra/ext4fc\.ko$' <<<"$listing" | head -n 1)
	# the module read whole first: grep -q would make cpio die of SIGPIPE
	if [[ -z $ko ]] || ! zcat "$initramfs" | cpio -i --quiet --to-stdout "$ko" 2>/dev/null |
		grep -ac fc_selective_flush >/dev/null; then
		sf_note="ext4fc+sf and ext4fc+iso+sf left out: the ext4fc.ko in build/initramfs.cpio.gz does not know the mount option fc_selective_flush (issue 30; 'make' once it does)"
		echo "$prog: $sf_note" >&2
		mapfile -t sel_cfg < <(printf '%s\n' "${sel_cfg[@]}" | grep -v '+sf$' || true)
		mapfile -t sel_peers < <(printf '%s\n' "${sel_peers[@]}" | grep -v '+sf$' || true)
		((${#sel_cfg[@]})) || die "no configuration left to run"
	fi
fi

# --- output directory ---------------------------------------------------------

if ((dry_run)); then
	outdir=$(mktemp -d)
	trap 'rm -rf "$outdir"' EXIT
else
	if [[ -e $outdir ]]; then
		[[ -d $outdir ]] || die "-o $outdir exists and is not a directory"
		if [[ -n $(ls -A "$outdir") && ! -e $outdir/plan.txt ]]; then
			die "-o $outdir is not empty and holds no earlier bench output: choose another"
		fi
		rm -rf "$outdir"
	fi
	mkdir -p "$outdir/images"
	outdir=$(cd "$outdir" && pwd)
	[[ $outdir != *[[:space:]]* ]] ||
		die "-o $outdir: no blanks, please (the throttled disk goes through QEMU_OPTS)"
fi

# --- the plan -------------------------------------------------------------------

# Repetition r runs the configurations in order r (mod 4): ABCD, DCBA,
# BADC, CDAB.  Two repetitions balance a linear drift; four also put each
# configuration once in each position.  With fewer than four
# configurations, the same orders without the missing letters.
perms=("0 1 2 3" "3 2 1 0" "1 0 3 2" "2 3 0 1")
orders=()
for p in "${perms[@]}"; do
	o=''
	for i in $p; do
		((i < ${#sel_cfg[@]})) && o+=" ${sel_cfg[i]}"
	done
	orders+=("${o# }")
done
plan=$outdir/plan.txt
n=0
{
	echo "# N DEVICE WORKLOAD CONFIG REP KIND ARGS... (bench/bench.guest)"
	for d in "${sel_dev[@]}"; do
		for w in "${sel_wl[@]}"; do
			if [[ $profile == smoke && $d == iops && $w != "$smoke_iops" ]]; then
				continue
			fi
			[[ $d != bw || $bw_wl == *" $w "* ]] || continue
			[[ $profile != smoke || $d != bw || $w == "$smoke_bw" ]] || continue
			[[ $profile != smoke || $d == nvme || $w != "$smoke_nvme" ]] || continue
			[[ $profile != smoke || $d != nvme || $w == "$smoke_nvme" ]] || continue
			for ((r = 1; r <= reps; r++)); do
				cs=${orders[(r - 1) % 4]}
				if [[ $profile == smoke && $d == nvme ]]; then
					cs=''
					for c in $smoke_nvme_configs; do
						[[ $c != ext4fc+sf || -z $sf_note ]] && cs+=" $c"
					done
				elif [[ $peer_wl == *" $w "* ]]; then
					if ((r % 2)); then
						cs+=" ${sel_peers[*]}"
					else
						for ((i = ${#sel_peers[@]} - 1; i >= 0; i--)); do
							cs+=" ${sel_peers[i]}"
						done
					fi
				fi
				for c in $cs; do
					n=$((n + 1))
					echo "$n $d $w $c $r ${wl[$w]}"
				done
			done
		done
	done
} >"$plan"
((n > 0)) || die "the plan is empty (check --devices and --workloads)"
bw_used=0
grep -q '^[0-9]* bw ' "$plan" && bw_used=1
if ((dry_run)); then
	cat "$plan"
	exit 0
fi

# --- disks ------------------------------------------------------------------------

# QEMU_CACHE (run-qemu.sh --help) applies to every disk of the boot
cache=${QEMU_CACHE:-unsafe}
plain_img=$outdir/images/plain.img
truncate -s "$size" "$plain_img"
qemu_opts=${QEMU_OPTS:-}
throttle=''
bw_throttle=''
for d in "${sel_dev[@]}"; do
	if [[ $d == iops ]]; then
		iops_img=$outdir/images/iops.img
		truncate -s "$size" "$iops_img"
		throttle="throttling.iops-total=$iops"
		# A second drive the way run-qemu.sh adds its -d disks, plus
		# QEMU's block throttling; found in the guest by its serial.
		# QEMU counts reads and writes against the limit (not flushes);
		# without *-max, bursts of iops/10 are allowed.
		qemu_opts+=" -drive if=none,id=bslow,file=${iops_img//,/,,},format=raw,cache=$cache,$throttle"
		qemu_opts+=" -device virtio-blk-pci,drive=bslow,serial=ext4fc-bench-slow,addr=0x1e"
	fi
	if [[ $d == bw && $bw_used == 1 ]]; then
		bw_img=$outdir/images/bw.img
		truncate -s "$size" "$bw_img"
		bw_throttle="throttling.bps-total=$((bps * 1048576))"
		qemu_opts+=" -drive if=none,id=bbw,file=${bw_img//,/,,},format=raw,cache=$cache,$bw_throttle"
		qemu_opts+=" -device virtio-blk-pci,drive=bbw,serial=ext4fc-bench-bw,addr=0x1d"
	fi
done

files=(-d "$plain_img" -f "$top/tests/harness/guest.sh" -f "$plan")
if ((${#params[@]})); then
	printf '%s\n' "${params[@]}" >"$outdir/params.txt"
	files+=(-f "$outdir/params.txt")
fi
if grep -q '^[0-9]* nvme ' "$plan"; then
	# run-qemu.sh's NVMe disk (the same cache mode as the others; it has FUA)
	nvme_img=$outdir/images/nvme.img
	truncate -s "$size" "$nvme_img"
	files+=(-n "$nvme_img")
fi
((need_dbench)) && files+=(-f /usr/share/dbench/client.txt)

started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
{
	echo "date: $started"
	echo "profile: $profile, $reps repetition(s), $n runs"
	echo "host: $(nproc) CPUs, $(uname -r), $(qemu-system-x86_64 --version | head -n 1)"
	echo "guest: kernel ${KVER:-$("$top/scripts/kver.sh")}, QEMU_SMP=${QEMU_SMP:-2}, memory 1024M"
	if [[ $cache == unsafe ]]; then
		echo "disks: $size raw sparse files, virtio-blk, cache=unsafe (flushes reach QEMU, not the host disk)"
	else
		echo "disks: $size raw sparse files, virtio-blk, cache=$cache (QEMU_CACHE: flushes reach the host disk)"
	fi
	echo "plain: the -d disk as run-qemu.sh attaches it"
	echo "iops: ${throttle:-not used}"
	echo "bw: ${bw_throttle:-not used}${bw_throttle:+ (the workloads:$bw_wl)}"
	if [[ -n ${nvme_img:-} ]]; then
		echo "nvme: run-qemu.sh -n (QEMU's nvme controller: FUA, write back), not throttled"
	else
		echo "nvme: not used"
	fi
	echo "configurations: ${sel_cfg[*]}; peers: ${sel_peers[*]:-none}"
	echo "ext4fc module parameters: ${params[*]:-the defaults}"
	[[ -z $sf_note ]] || echo "note: $sf_note"
	echo "git: $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	for w in "${sel_wl[@]}"; do
		echo "workload $w: ${wl[$w]}"
	done
} >"$outdir/settings.txt"

if ((!quiet)); then
	echo "$prog: profile $profile: $n runs (${#sel_wl[@]} workloads x ${#sel_dev[@]} device(s) x ${#sel_cfg[@]} configurations x $reps, peers: ${sel_peers[*]:-none}), one boot, limit ${tmo}s"
	echo "$prog: results in ${outdir#"$top"/}/"
fi
t0=$SECONDS
# The console streams through this filter: progress lines and failures only.
set +e
QEMU_OPTS=$qemu_opts "$top/run-qemu.sh" -t "$tmo" -o "$outdir/guest" "${files[@]}" \
	"$top/bench/bench.guest" plan.txt |
	tr -d '\r' |
	awk -v q="$quiet" '/^bench:/ && !q { print; fflush() }
			   /^FAIL/ { print; fflush() }'
st=("${PIPESTATUS[@]}")
set -e
rc=${st[0]}
secs=$((SECONDS - t0))
echo "elapsed: ${secs}s for the boot and all runs" >>"$outdir/settings.txt"
if [[ -r $outdir/guest/guest-info.txt ]]; then
	echo "inside the guest: $(cat "$outdir/guest/guest-info.txt")" >>"$outdir/settings.txt"
fi
if ((keep == 0)); then
	rm -rf "$outdir/images"
fi
if ((rc != 0)); then
	echo "$prog: the benchmark boot failed (status $rc): see ${outdir#"$top"/}/guest/console.log" >&2
	exit 1
fi
[[ -s $outdir/guest/runs.csv ]] || die "no runs.csv came back from the guest"
cp "$outdir/guest/runs.csv" "$outdir/runs.csv"
"$top/bench/report.sh" "$outdir"
if ((!quiet)); then
	cat "$outdir/table.md"
	echo "$prog: ${secs}s; table in ${outdir#"$top"/}/table.md, plot ${outdir#"$top"/}/plot.png"
fi
