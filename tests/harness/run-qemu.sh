#!/bin/bash
# Boot the stock kernel ($KVER) in QEMU with the harness initramfs, run one
# guest script, bring its results back, and judge the run.  See --help.
# Users and the test suites call it through the root's ./run-qemu.sh.
#
# A run passes only on positive proof: the guest's /init writes
#   ext4fc-status rc=N tainted=T boot_tainted=B results=ok|fail|none
# on the second serial port after the script ended and its results were
# written; a hang, a panic or a dead QEMU leave no such line.  The console
# is scanned for kernel failures, blamed on the section (the last
# "ext4fc-harness: start NAME" line in the kernel log) they appeared in.
set -euo pipefail

prog=run-qemu
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

# Exit codes of the harness itself (the script's own code passes through).
readonly EX_HARNESS=2 EX_TIMEOUT=124 EX_KERNEL=125 EX_NOSTATUS=255

# Taint bits that are expected: O (out-of-tree module) and E (unsigned).
readonly TAINT_OK=$(((1 << 12) | (1 << 13)))
readonly TAINT_LETTERS=PFSRMBUDAWCIOELKXT

# Kernel log lines that fail a run (extended regular expressions, matched
# against console lines that carry a printk timestamp), and lines that
# match one of them but are no failure.
readonly FAIL_PATTERNS=(
	'BUG:' 'kernel BUG at' 'Oops' 'WARNING:' 'general protection'
	'Kernel panic' 'blocked for more than' 'hung_task'
	'possible circular locking' 'possible recursive locking'
	'UBSAN:' 'KASAN:' 'soft lockup' 'hard LOCKUP' 'detected stall'
)
readonly IGNORE_PATTERNS=(
	'[Cc]ommand line: '	# the kernel echoes its parameters (hung_task_...)
)

usage() {
	cat <<'EOF'
usage: ./run-qemu.sh [-d IMAGE]... [-n IMAGE]... [-f FILE]... [-o OUTDIR]
                     [-t SECONDS] [-m MEM] [--accel auto|kvm|tcg]
                     [--host-root] [-i] [-q]
                     [SCRIPT [ARGS...]]
       ./run-qemu.sh --scan-console CONSOLE_LOG [TAINTED]
       ./run-qemu.sh --help

Boots /boot/vmlinuz-$KVER (KVER: scripts/kver.sh) with build/initramfs.cpio.gz
(make initramfs) plus a small archive with SCRIPT, the -f files and ARGS, and
runs "SCRIPT ARGS..." in the guest (busybox sh: SCRIPT must be POSIX sh or a
static binary).  Without SCRIPT, or with -i, you get a shell on the console.

Options:
  -d IMAGE     attach IMAGE (raw file or block device) as the next virtio disk:
               /dev/vda, /dev/vdb, ... in order, serials ext4fc-d0, -d1, ...
               Repeatable.  cache=unsafe: the guest sees a volatile write
               cache ("write back"), so ext4/jbd2 issue their flushes, and
               dm targets above the disk see flush and FUA bios (virtio-blk
               itself has no FUA: the block layer adds a flush); QEMU does
               not pass flushes on to the host, but everything the guest
               wrote is in IMAGE once QEMU exits, even when killed.
  -n IMAGE     attach IMAGE as the next NVMe disk (QEMU's nvme controller,
               one per IMAGE, one namespace, serials ext4fc-n0, -n1, ...),
               numbered apart from the -d disks: $NVME_DISKS in the guest
               lists them in order ("/dev/nvme0n1 /dev/nvme1n1"; init finds
               them by serial: the driver probes asynchronously, so use
               $NVME_DISKS rather than the names).  At most 4.  cache=unsafe
               as for -d (write cache "write back"), but unlike virtio-blk
               the disk has FUA (queue/fua 1): FUA writes reach it as FUA,
               with no flush added.
  -f FILE      copy FILE into the guest's $TESTDIR, next to SCRIPT.  Repeatable.
  -o OUTDIR    where results go (must be new or empty); default
               build/results/<date>-<time>-<script>/, linked as
               build/results/latest.
  -t SECONDS   limit for the whole boot (default 600; none with -i).  The
               guest stops SCRIPT itself ~15 s before (dumping the blocked
               tasks to the console) and still returns $OUT; QEMU is killed
               at SECONDS.  124 either way.
  -m MEM       guest memory (default 1024M).
  --accel A    auto (default): KVM if a bounded probe boot works (the verdict
               is cached in build/.accel-$KVER; delete it to probe again),
               else TCG; kvm or tcg force one.
  --host-root  run SCRIPT (or the shell) with the host's root file system
               as the guest's: / shared read-only over virtio-9p, a tmpfs
               overlay on top (the guest may write anywhere; nothing
               reaches the host but $OUT), chrooted into by the initramfs.
               The guest gets the host's whole userland (bash, xfs_io,
               perl, udev, ...) and the host's /lib/modules/$KVER; our
               modules are not in it (pass them with -f and insmod them).
               For fstests (tests/fstests); the busybox initramfs alone
               stays the default.
  -i           interactive: the console is this terminal (Ctrl-A X quits
               QEMU, Ctrl-A C the monitor); "exit" in the guest powers off.
  -q           quiet: do not stream the console, print only the verdict.
  --scan-console LOG [TAINTED]
               only scan a console log (and a tainted value) the way a run's
               console is judged, print the findings, exit 0 or 125.

In the guest (environment of SCRIPT, and of the interactive shell):
  $OUT       output directory (the cwd); its contents come back into OUTDIR
  $TESTDIR   SCRIPT and the -f files
  $DISKS     the -d disks as device names, in order ("/dev/vda /dev/vdb")
  $NVME_DISKS  the -n disks, in order ("/dev/nvme0n1 /dev/nvme1n1"); init
             waits (up to 20 s) for them to appear
  $KVER      kernel release;  $HARNESS_ACCEL  kvm or tcg
  PATH       /usr/local/bin (fsop and other build/bin helpers) first, then
             e2fsprogs, dmsetup, blkid, busybox applets
  modprobe ext4 / ext4fc / dm-flakey / dm-log-writes / null_blk ... work
  (ours are extra/jbd2fc.ko, extra/ext4fc.ko); mount -t ext4 loads ext4.
  Write "ext4fc-harness: start NAME" to /dev/kmsg to start a section: kernel
  failures after it are blamed on NAME.  Keep dmesg off the console (save it
  to $OUT): the scanner would take its lines for new kernel messages.  At the end init saves dmesg to
  $OUT/dmesg.txt, syncs (without unmounting; a sync a stuck device holds
  up past 30 s is left behind, with a note) and powers off.  A SCRIPT
  that knows it is stuck (a task it cannot kill) can end the boot early:
  it writes why to $OUT/harness-stop and sends USR1 to PID 1; init then
  dumps the blocked tasks and saves $OUT as at the deadline (status 124).

Results (OUTDIR):
  console.log  the whole serial console (kernel log and SCRIPT's output)
  status       the guest's status line (second serial port)
  qemu.log     the QEMU command line and QEMU's own messages
  dmesg.txt    and everything else SCRIPT wrote to $OUT

Exit status (the first that applies):
  124   timeout (-t): the guest stopped SCRIPT, or QEMU was killed
  125   kernel failure: a console line with a printk timestamp matching
        BUG:, Oops, WARNING:, general protection, Kernel panic, blocked for
        more than, hung_task, possible circular locking, UBSAN:, KASAN:,
        soft lockup, ... or taint bits other than O (4096) and E (8192); a
        panic (panic=-1 ends QEMU at once) lands here: "Kernel panic"
  2     harness error: bad usage, missing dependency, QEMU did not start,
        or SCRIPT passed but its results did not come back (RESULTS_SIZE)
  255   the guest never reported back (no status line)
  N     SCRIPT's own exit status (0: pass)
A run passes only when the guest's /init wrote, on the second serial port,
after SCRIPT ended and $OUT was saved:
  ext4fc-status rc=N tainted=T boot_tainted=B results=ok|fail|none timeout=0|1

Environment: KVER (kernel to boot), QEMU_APPEND (more kernel parameters),
QEMU_OPTS (more QEMU options, split on blanks), QEMU_SMP (default 2),
QEMU_CACHE (the -d and -n disks' cache mode, default unsafe; writeback
passes the guest's flushes on to the host's disk as fdatasync),
RESULTS_SIZE (size of the results disk, default 512M), KERNEL_BOOT (pvh,
the default: boot an uncompressed copy of the same kernel, build/vmlinux-$KVER,
through its PVH entry, ~5 s faster under TCG; bzimage: boot vmlinuz as is).
EOF
}

die_usage() {
	echo "$prog: $*" >&2
	echo "$prog: see ./run-qemu.sh --help" >&2
	exit "$EX_HARNESS"
}

die() {
	echo "$prog: $*" >&2
	exit "$EX_HARNESS"
}

say() {
	echo "$prog: $*" >&2
}

# --- console scanner ---------------------------------------------------------

# scan_console LOG: print each kernel failure line with its line number and
# section; return 1 when there was any.
scan_console() {
	local re ign
	re=$(IFS='|'; echo "${FAIL_PATTERNS[*]}")
	ign=$(IFS='|'; echo "${IGNORE_PATTERNS[*]}")
	awk -v re="$re" -v ign="$ign" -v file="$1" '
		BEGIN { sec = "boot"; n = 0 }
		{ gsub(/\r/, "") }
		/\[ *[0-9]+\.[0-9]+\] / {
			if (index($0, "ext4fc-harness: start ")) {
				s = $0
				sub(/.*ext4fc-harness: start /, "", s)
				sec = s
				next
			}
			if ($0 ~ re && $0 !~ ign) {
				n++
				if (n <= 20)
					printf("%s:%d: kernel failure in section \"%s\": %s\n",
					       file, NR, sec, $0)
			}
		}
		END {
			if (n > 20)
				printf("%s: ... and %d more failure lines\n", file, n - 20)
			exit n > 0
		}' "$1"
}

# last_section LOG: the name of the last section started in LOG.
last_section() {
	awk '{ gsub(/\r/, "") }
	     /\[ *[0-9]+\.[0-9]+\] .*ext4fc-harness: start / {
		s = $0; sub(/.*ext4fc-harness: start /, "", s); sec = s }
	     END { print (sec == "" ? "boot" : sec) }' "$1"
}

# taint_bits VALUE: the letters and numbers of the unexpected bits set.
taint_bits() {
	local v=$1 bad i out=
	bad=$((v & ~TAINT_OK))
	for ((i = 0; bad >> i; i++)); do
		((bad >> i & 1)) || continue
		out+="${out:+ }${TAINT_LETTERS:i:1}($((1 << i)))"
	done
	echo "$out"
}

# check_taint VALUE WHERE: print and return 1 when unexpected bits are set.
check_taint() {
	local v=$1 where=$2
	[[ $v =~ ^[0-9]+$ ]] || return 0
	if ((v & ~TAINT_OK)); then
		echo "kernel tainted=$v $where: unexpected taint bits $(taint_bits "$v")"
		return 1
	fi
	return 0
}

if [[ ${1:-} == --scan-console ]]; then
	[[ $# -ge 2 && $# -le 3 && -r $2 ]] ||
		die_usage "--scan-console needs a readable console log (and optionally a tainted value)"
	bad=0
	scan_console "$2" || bad=1
	if [[ $# -eq 3 ]]; then
		check_taint "$3" "(section \"$(last_section "$2")\")" || bad=1
	fi
	exit $((bad ? EX_KERNEL : 0))
fi

# --- options -----------------------------------------------------------------

images=()
nvmes=()
files=()
outdir=
tmo=
mem=1024M
accel=auto
interactive=0
quiet=0
host_root=0
while [[ $# -gt 0 ]]; do
	case $1 in
	-d) [[ $# -ge 2 ]] || die_usage "-d needs an IMAGE"; images+=("$2"); shift 2 ;;
	-n) [[ $# -ge 2 ]] || die_usage "-n needs an IMAGE"; nvmes+=("$2"); shift 2 ;;
	-f) [[ $# -ge 2 ]] || die_usage "-f needs a FILE"; files+=("$2"); shift 2 ;;
	-o) [[ $# -ge 2 ]] || die_usage "-o needs an OUTDIR"; outdir=$2; shift 2 ;;
	-t) [[ $# -ge 2 ]] || die_usage "-t needs SECONDS"; tmo=$2; shift 2 ;;
	-m) [[ $# -ge 2 ]] || die_usage "-m needs MEM"; mem=$2; shift 2 ;;
	--accel) [[ $# -ge 2 ]] || die_usage "--accel needs auto, kvm or tcg"; accel=$2; shift 2 ;;
	--accel=*) accel=${1#--accel=}; shift ;;
	--host-root) host_root=1; shift ;;
	-i) interactive=1; shift ;;
	-q) quiet=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-?*) die_usage "unknown option $1" ;;
	*) break ;;
	esac
done
script=${1:-}
[[ $# -gt 0 ]] && shift
args=("$@")

[[ -z $tmo || $tmo =~ ^[1-9][0-9]*$ ]] || die_usage "-t wants a number of seconds, not '$tmo'"
[[ $mem =~ ^[1-9][0-9]*[MGmg]?$ ]] || die_usage "-m wants a size like 1024M or 2G, not '$mem'"
case $accel in auto | kvm | tcg) ;; *) die_usage "--accel wants auto, kvm or tcg, not '$accel'" ;; esac
if [[ -z $script ]]; then
	[[ -t 0 ]] || die_usage "no SCRIPT given and stdin is not a terminal: give a SCRIPT, or use -i on a terminal"
	interactive=1
fi
if ((interactive)); then
	[[ -t 0 && -t 1 ]] || die_usage "-i needs a terminal on stdin and stdout"
	quiet=0
else
	tmo=${tmo:-600}
fi
if [[ -n $script ]]; then
	[[ -f $script && -r $script ]] || die_usage "SCRIPT $script is not a readable file"
fi
declare -A seen=()
[[ -n $script ]] && seen[${script##*/}]=SCRIPT
for f in "${files[@]}"; do
	[[ -f $f && -r $f ]] || die_usage "-f $f: not a readable file"
	b=${f##*/}
	[[ -z ${seen[$b]:-} ]] || die_usage "-f $f: a file named $b is already in \$TESTDIR (${seen[$b]})"
	seen[$b]=$f
done
for img in "${images[@]}"; do
	[[ -f $img || -b $img ]] || die_usage "-d $img: no such image file or block device"
	[[ -r $img && -w $img ]] || die_usage "-d $img: need read and write permission"
done
((${#images[@]} <= 16)) || die_usage "at most 16 -d images"
for img in "${nvmes[@]}"; do
	[[ -f $img || -b $img ]] || die_usage "-n $img: no such image file or block device"
	[[ -r $img && -w $img ]] || die_usage "-n $img: need read and write permission"
done
((${#nvmes[@]} <= 4)) || die_usage "at most 4 -n images"

# --- prerequisites -----------------------------------------------------------

command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	die "qemu-system-x86_64 not found: install qemu-system-x86 (or run 'make deps')"
for c in cpio:cpio gzip:gzip tar:tar timeout:coreutils; do
	command -v "${c%%:*}" >/dev/null 2>&1 ||
		die "${c%%:*} not found: install ${c#*:} (or run 'make deps')"
done
KVER=$("$root/scripts/kver.sh") || exit "$EX_HARNESS"
kernel=/boot/vmlinuz-$KVER
[[ -r $kernel ]] || die "$kernel is not readable: install linux-image-$KVER (or run 'make deps')"
# pvh_kernel: print an uncompressed copy of $kernel (build/vmlinux-$KVER,
# extracted once) when it can boot through its PVH entry: QEMU then loads
# the ELF directly, which skips the real-mode setup and, above all, the XZ
# decompression that costs ~5 s under TCG.  The same kernel either way.
pvh_kernel() {
	local v=$root/build/vmlinux-$KVER tmp magic pat off dec
	if [[ -s $v && ! $kernel -nt $v ]]; then
		echo "$v"
		return 0
	fi
	command -v readelf >/dev/null 2>&1 || return 1
	tmp=$v.tmp.$$
	for magic in xz zstd gzip; do
		case $magic in
		xz) pat=$'\xfd7zXZ' dec=(xz -dc) ;;
		zstd) pat=$'\x28\xb5\x2f\xfd' dec=(zstd -dcq) ;;
		gzip) pat=$'\x1f\x8b\x08' dec=(gzip -dc) ;;
		esac
		off=$(LC_ALL=C grep -abo -m 1 "$pat" "$kernel" || true)
		off=${off%%$'\n'*}
		[[ -n $off ]] || continue
		command -v "${dec[0]}" >/dev/null 2>&1 || continue
		tail -c +$((${off%%:*} + 1)) "$kernel" | "${dec[@]}" >"$tmp" 2>/dev/null || true
		# XEN_ELFNOTE_PHYS32_ENTRY (type 18) is the PVH entry point.
		if readelf -n "$tmp" 2>/dev/null | grep -q 'note type: (0x00000012)'; then
			mv -f "$tmp" "$v"
			echo "$v"
			return 0
		fi
	done
	rm -f "$tmp"
	return 1
}
boot_kernel=$kernel
if [[ ${KERNEL_BOOT:-pvh} == pvh ]]; then
	if boot_kernel=$(pvh_kernel); then
		:
	else
		boot_kernel=$kernel
		say "note: cannot boot $kernel through PVH (no extractable ELF with a PVH note): booting the bzImage, ~5 s slower"
	fi
fi

initramfs=$root/build/initramfs.cpio.gz
[[ -r $initramfs ]] || die "$initramfs not found: run 'make' (or 'make initramfs')"
for f in "$here"/init "$here"/files.list "$root"/build/*.ko "$root"/build/bin/*; do
	if [[ -e $f && $f -nt $initramfs ]]; then
		say "note: ${f#"$root"/} is newer than build/initramfs.cpio.gz: run 'make' to use it"
		break
	fi
done

# --- output directory --------------------------------------------------------

if [[ -n $outdir ]]; then
	if [[ -e $outdir ]]; then
		[[ -d $outdir ]] || die_usage "-o $outdir exists and is not a directory"
		[[ -z $(ls -A "$outdir") ]] || die_usage "-o $outdir is not empty: remove it or choose another"
	fi
	mkdir -p "$outdir"
	link_latest=0
else
	name=${script##*/}
	name=${name:-shell}
	base=$root/build/results/$(date +%Y%m%d-%H%M%S)-${name//[^A-Za-z0-9._-]/_}
	outdir=$base
	n=1
	while ! mkdir -p "$(dirname "$base")" || ! mkdir "$outdir" 2>/dev/null; do
		[[ -d $(dirname "$base") ]] || die "cannot create $(dirname "$base")"
		outdir=$base.$n
		n=$((n + 1))
	done
	link_latest=1
fi
outdir=$(cd "$outdir" && pwd)
work=$outdir/.harness
mkdir -p "$work"
qpid=
tpid=
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[[ -n $qpid ]] && kill -TERM "$qpid" 2>/dev/null
	[[ -n $tpid ]] && kill "$tpid" 2>/dev/null
	rm -rf "$work"
	return 0
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM HUP
rel_out=${outdir#"$root"/}

# --- accelerator -------------------------------------------------------------

kvm_usable() {
	[[ -r /dev/kvm && -w /dev/kvm ]]
}

# probe_kvm: one bounded KVM boot of a script that exits 0.
probe_kvm() {
	local dir=$root/build/.accel-probe.$$ rc=0
	rm -rf "$dir"
	mkdir -p "$dir"
	printf '#!/bin/sh\nexit 0\n' >"$dir/probe.sh"
	"$here/run-qemu.sh" --accel kvm -q -t 12 -m 512M -o "$dir/out" "$dir/probe.sh" \
		>"$dir/log" 2>&1 || rc=$?
	cp -f "$dir/out/console.log" "$root/build/.accel-$KVER.console.log" 2>/dev/null || true
	rm -rf "$dir"
	return "$rc"
}

if [[ $accel == auto ]]; then
	cache=$root/build/.accel-$KVER
	if ! kvm_usable; then
		accel=tcg
		why="/dev/kvm is not usable"
	elif [[ -r $cache ]] && read -r verdict date rest <"$cache" &&
		[[ $verdict == kvm || $verdict == tcg ]]; then
		accel=$verdict
		why="verdict of $date cached in build/.accel-$KVER; delete it to probe again"
	else
		say "probing KVM with a bounded test boot (at most ~20 s, once)..."
		if probe_kvm; then
			accel=kvm
			rest="KVM probe boot passed"
		else
			accel=tcg
			rest="KVM probe boot failed or hung (console in build/.accel-$KVER.console.log)"
		fi
		echo "$accel $(date +%Y-%m-%d) $rest" >"$cache.tmp.$$"
		mv -f "$cache.tmp.$$" "$cache"
		why="$rest; cached in build/.accel-$KVER"
	fi
elif [[ $accel == kvm ]]; then
	kvm_usable || die "--accel kvm: /dev/kvm is missing or not writable for you: use --accel tcg (or add yourself to group kvm)"
	why="forced"
else
	why="forced"
fi
if [[ $accel == kvm ]]; then
	accel_opts=(-accel kvm -cpu host)
else
	# -cpu max: SSE4.2 for crc32c-intel and the rest a modern kernel likes.
	# shellcheck disable=SC2054 # commas belong to the option value
	accel_opts=(-accel tcg,thread=multi -cpu max)
fi

# --- the test archive --------------------------------------------------------

# shq WORD: WORD quoted for sh.
shq() {
	local s=${1//\'/\'\\\'\'}
	printf "'%s'" "$s"
}

stage=$work/stage
mkdir -p "$stage/test" "$stage/harness"
script_name=
if [[ -n $script ]]; then
	script_name=${script##*/}
	cp "$script" "$stage/test/$script_name"
	chmod 0755 "$stage/test/$script_name"
fi
for f in "${files[@]}"; do
	cp -p "$f" "$stage/test/"
done
{
	echo "HARNESS_MODE=$( ((interactive)) && echo shell || echo script)"
	echo "HARNESS_SCRIPT=$(shq "$script_name")"
	echo "HARNESS_ACCEL=$accel"
	echo "HARNESS_TIMEOUT=${tmo:-}"
	echo "HARNESS_ROOT=$( ((host_root)) && echo host || echo initramfs)"
	echo "HARNESS_NVME=${#nvmes[@]}"
	printf 'set --'
	for a in "${args[@]}"; do
		printf ' %s' "$(shq "$a")"
	done
	echo
} >"$stage/harness/env"
(
	cd "$stage"
	find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet | gzip -1
) >"$work/test.cpio.gz"
cat "$initramfs" "$work/test.cpio.gz" >"$work/initrd.img"
rm -rf "$stage"

results_img=$work/results.img
truncate -s "${RESULTS_SIZE:-512M}" "$results_img" ||
	die "cannot create the results disk ($results_img, RESULTS_SIZE=${RESULTS_SIZE:-512M})"

# --- QEMU --------------------------------------------------------------------

# qemu_path PATH: PATH as a QEMU option value (commas doubled).
qemu_path() {
	local p
	p=$(realpath "$1")
	echo "${p//,/,,}"
}

cmdline="console=ttyS0,115200 panic=-1 printk.devkmsg=on printk.time=1 nokaslr"
cmdline+=" loglevel=7 sysctl.kernel.hung_task_timeout_secs=60"
cmdline+=" i8042.noaux i8042.nokbd ${QEMU_APPEND:-}"

qemu=(qemu-system-x86_64 -nodefaults -no-reboot -display none
	"${accel_opts[@]}" -smp "${QEMU_SMP:-2}" -m "$mem"
	-kernel "$boot_kernel" -initrd "$work/initrd.img" -append "$cmdline")
: >"$outdir/console.log"
if ((interactive)); then
	# shellcheck disable=SC2054 # commas belong to the option values
	qemu+=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$(qemu_path "$outdir/console.log")"
		-serial chardev:con -mon chardev=con,mode=readline)
else
	qemu+=(-chardev "file,id=con,path=$(qemu_path "$outdir/console.log")" -serial chardev:con)
fi
qemu+=(-chardev "file,id=status,path=$(qemu_path "$outdir/status")" -serial chardev:status)
# disk ID IMAGE DEVICE SLOT: IMAGE as drive ID on DEVICE (serial
# ext4fc-ID) in PCI slot SLOT, cache=unsafe (see -d in --help) unless
# QEMU_CACHE says otherwise
disk() {
	qemu+=(-drive "if=none,id=$1,file=$(qemu_path "$2"),format=raw,cache=${QEMU_CACHE:-unsafe},discard=unmap"
		-device "$3,drive=$1,serial=ext4fc-$1,addr=$(printf '0x%x' "$4")")
}
i=0
for img in "${images[@]}"; do
	disk "d$i" "$img" virtio-blk-pci $((8 + i))
	i=$((i + 1))
done
# NVMe: slots 0x1b.. (the virtio disks and the results disk take at most
# 0x8..0x18).  The serial finds the namespace in the guest.
j=0
for img in "${nvmes[@]}"; do
	disk "n$j" "$img" nvme $((0x1b + j))
	j=$((j + 1))
done
if ((host_root)); then
	# The host's / read-only; multidevs=remap keeps inode numbers unique
	# across the host's mounts (QEMU warns otherwise).
	# shellcheck disable=SC2054 # commas belong to the option value
	qemu+=(-virtfs "local,path=/,mount_tag=ext4fc-hostroot,security_model=none,readonly=on,multidevs=remap")
fi
qemu+=(-drive "if=none,id=out,file=$(qemu_path "$results_img"),format=raw,cache=unsafe"
	-device "virtio-blk-pci,drive=out,serial=ext4fc-out,addr=$(printf '0x%x' $((8 + i)))")
# shellcheck disable=SC2206 # QEMU_OPTS is split on blanks on purpose
qemu+=(${QEMU_OPTS:-})

for a in "${qemu[@]}"; do
	if [[ $a =~ ^[A-Za-z0-9_,./:=+-]+$ ]]; then
		printf '%s ' "$a"
	else
		printf '%s ' "${a@Q}"
	fi
done >"$outdir/qemu.log"
echo >>"$outdir/qemu.log"

what=${script_name:-shell}
if ((!quiet)); then
	say "$what: kernel $KVER, accel $accel ($why), ${#images[@]} disk(s)$( ((${#nvmes[@]})) && echo " + ${#nvmes[@]} NVMe"), timeout ${tmo:-none}$( ((host_root)) && echo ", host root")"
	say "results: $rel_out/"
fi

start=$SECONDS
qrc=0
if ((interactive)); then
	if [[ -n $tmo ]]; then
		timeout --foreground --kill-after=10 "$tmo" "${qemu[@]}" 2>>"$outdir/qemu.log" || qrc=$?
	else
		"${qemu[@]}" 2>>"$outdir/qemu.log" || qrc=$?
	fi
else
	timeout --foreground --kill-after=10 "$tmo" "${qemu[@]}" </dev/null 2>>"$outdir/qemu.log" &
	qpid=$!
	if ((!quiet)); then
		tail -n +1 -s 0.2 -f --pid="$qpid" "$outdir/console.log" &
		tpid=$!
	fi
	wait "$qpid" || qrc=$?
	qpid=
	if [[ -n $tpid ]]; then
		wait "$tpid" || true
		tpid=
	fi
fi
elapsed=$((SECONDS - start))

# --- verdict -----------------------------------------------------------------

timed_out=0
if [[ -n $tmo ]] && ((qrc == 124 || qrc == 137)) && ((elapsed >= tmo)); then
	timed_out=1
fi

status_line=
if [[ -r $outdir/status ]]; then
	status_line=$(tr -d '\r' <"$outdir/status" | grep -a -m1 '^ext4fc-status ' || true)
fi
field() {	# field NAME: NAME=value from the status line
	sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $status_line"
}
rc=$(field rc)
tainted=$(field tainted)
boot_tainted=$(field boot_tainted)
results=$(field results)
guest_timeout=$(field timeout)
[[ $rc =~ ^[0-9]+$ ]] || status_line=

kernel_bad=0
findings=$(scan_console "$outdir/console.log") || kernel_bad=1
if [[ -n $status_line ]]; then
	if [[ $boot_tainted =~ ^[0-9]+$ ]] && ((boot_tainted & ~TAINT_OK)); then
		where="at boot, before the script"
	else
		where="during section \"$(last_section "$outdir/console.log")\""
	fi
	t=$(check_taint "$tainted" "$where") || { kernel_bad=1; findings+=${findings:+$'\n'}$t; }
fi

# Results: a tar written on the results disk, extracted here.
results_note=
if [[ $results == ok ]]; then
	if ! tar -xf "$results_img" -C "$outdir" --no-same-owner \
		--exclude=./console.log --exclude=./status --exclude=./qemu.log \
		--exclude=./.harness 2>>"$outdir/qemu.log"; then
		results_note="could not extract the results disk (see qemu.log)"
	fi
elif [[ -n $status_line ]]; then
	results_note="the guest could not write its results (results=$results; a bigger RESULTS_SIZE?)"
fi

if ((link_latest)); then
	ln -sfn "${outdir##*/}" "$root/build/results/latest" 2>/dev/null || true
fi

if ((timed_out)); then
	ex=$EX_TIMEOUT
	verdict="TIMEOUT after ${tmo}s in section \"$(last_section "$outdir/console.log")\" (QEMU killed, no results)"
elif [[ $guest_timeout == 1 ]]; then
	ex=$EX_TIMEOUT
	if [[ -s $outdir/harness-stop ]]; then
		verdict="TIMEOUT: $what stopped the guest early: $(head -n 1 "$outdir/harness-stop") (blocked tasks and \$OUT saved)"
	else
		verdict="TIMEOUT: the guest stopped $what before the -t ${tmo}s deadline (blocked tasks and \$OUT saved)"
	fi
elif ((kernel_bad)); then
	ex=$EX_KERNEL
	verdict="KERNEL FAILURE${rc:+ (script rc=$rc)}"
elif [[ -z $status_line && $qrc -ne 0 && ! -s $outdir/console.log ]]; then
	ex=$EX_HARNESS
	verdict="QEMU did not start (exit status $qrc): see the command line in $rel_out/qemu.log"
elif [[ -z $status_line ]]; then
	ex=$EX_NOSTATUS
	verdict="NO STATUS: the guest never reported back (QEMU exit status $qrc)"
elif [[ -n $results_note ]]; then
	ex=$((rc != 0 ? rc : EX_HARNESS))
	verdict="rc=$rc, but $results_note"
else
	ex=$rc
	verdict=$( ((rc == 0)) && echo "PASS" || echo "FAIL rc=$rc")
fi

[[ -z $findings ]] || echo "$findings" | sed "s|^$outdir/|$rel_out/|; s|^|$prog: |" >&2
if ((ex == EX_NOSTATUS || ex == EX_TIMEOUT)) && ((quiet)); then
	say "last console lines ($rel_out/console.log):"
	tail -n 15 "$outdir/console.log" | tr -d '\r' | sed 's/^/    /' >&2
fi
if [[ $qrc -ne 0 && $timed_out -eq 0 && -s $outdir/qemu.log ]] &&
	[[ $(wc -l <"$outdir/qemu.log") -gt 1 ]]; then
	say "QEMU said ($rel_out/qemu.log):"
	tail -n +2 "$outdir/qemu.log" | tail -n 10 | sed 's/^/    /' >&2
fi
say "$what: $verdict (${elapsed}s, exit $ex); results in $rel_out/"
exit "$ex"
