#!/bin/bash
# Prove the QEMU harness (this folder: run-qemu.sh, the initramfs, fsop):
# every case boots the guest (or feeds the console scanner a canned log)
# and checks one promise of ./run-qemu.sh --help, through the root's entry
# point that users type.  Runs on the host, needs no root.
#
#   tests/harness/selftest.sh [CASE...]     e.g. tests/harness/selftest.sh 003 005
#
# Prints one fstests-like line per case and "N passed, N failed[, N not
# run]"; exits 0 only when nothing failed.  Each case's files stay in
# build/selftest/NNN/ for a look afterwards.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
run=$root/run-qemu.sh
fsop=$root/build/bin/fsop
work=$root/build/selftest

if [[ ! -r $root/build/initramfs.cpio.gz ]]; then
	echo "harness-selftest: build/initramfs.cpio.gz not found: run 'make' (or 'make initramfs')" >&2
	exit 2
fi
if [[ ! -x $fsop ]]; then
	echo "harness-selftest: build/bin/fsop not found: run 'make' (or 'make helpers initramfs')" >&2
	exit 2
fi
for c in mkfs.ext4 e2fsck debugfs; do
	command -v "$c" >/dev/null 2>&1 || PATH=$PATH:/sbin:/usr/sbin
	command -v "$c" >/dev/null 2>&1 || {
		echo "harness-selftest: $c not found: install e2fsprogs (or run 'make deps')" >&2
		exit 2
	}
done

d=	# the current case's directory
why=	# why it failed
rc=	# exit status of the last run-qemu.sh

# rq ARGS...: run-qemu.sh into $d/out (stdout) and $d/err (stderr), $rc.
rq() {
	rc=0
	"$run" "$@" >"$d/out" 2>"$d/err" || rc=$?
}

# script NAME: a guest script from stdin, in $d.
script() {
	cat >"$d/$1"
	chmod +x "$d/$1"
}

want_rc() {
	[[ $rc -eq $1 ]] && return 0
	why="run-qemu.sh exited $rc, want $1 (see ${d#"$root"/}/err)"
	return 1
}

want_in() {	# want_in FILE TEXT: FILE contains TEXT
	grep -qF -- "$2" "$1" && return 0
	why="${1#"$root"/} lacks '$2'"
	return 1
}

want_not_in() {
	grep -qF -- "$2" "$1" || return 0
	why="${1#"$root"/} has '$2'"
	return 1
}

mkimg() {	# mkimg FILE [mkfs options...]: 64M image, ext4 when options given
	local f=$1
	shift
	rm -f "$f"
	truncate -s 64M "$f"
	[[ $# -eq 0 ]] || mkfs.ext4 -q -F "$@" "$f"
}

# --- cases -------------------------------------------------------------------

declare -A desc=()

desc[001]="a passing script exits 0; the console streams; status line"
case_001() {
	script pass.sh <<'EOF'
#!/bin/sh
echo "hello from the guest"
exit 0
EOF
	rq -o "$d/res" "$d/pass.sh"
	want_rc 0 &&
		want_in "$d/out" "Linux version" &&
		want_in "$d/out" "hello from the guest" &&
		want_in "$d/res/console.log" "ext4fc-harness: start pass.sh" &&
		want_in "$d/res/status" "ext4fc-status rc=0 " &&
		want_in "$d/err" "PASS"
}

desc[002]="exit 3 gives 3; -q prints only the verdict"
case_002() {
	printf '#!/bin/sh\necho three\nexit 3\n' | script three.sh
	rq -q -o "$d/res" "$d/three.sh"
	want_rc 3 &&
		want_not_in "$d/out" "Linux version" &&
		want_in "$d/err" "FAIL rc=3"
}

desc[003]="a script sleeping past -t gives 124 (QEMU killed)"
case_003() {
	printf '#!/bin/sh\nsleep 600\n' | script sleep.sh
	rq -q -t 15 -o "$d/res" "$d/sleep.sh"
	want_rc 124 && want_in "$d/err" "TIMEOUT after 15s"
}

desc[004]="a hung script is stopped by the guest before -t: 124, \$OUT back"
case_004() {
	script hang.sh <<'EOF'
#!/bin/sh
echo "got this far" >"$OUT/partial.txt"
sleep 600
EOF
	rq -q -t 35 -o "$d/res" "$d/hang.sh"
	want_rc 124 &&
		want_in "$d/res/partial.txt" "got this far" &&
		want_in "$d/res/console.log" "Show Blocked State" &&
		want_in "$d/res/status" "timeout=1"
}

desc[005]="a panic (sysrq c) gives 125, blamed on its section"
case_005() {
	printf '#!/bin/sh\necho c >/proc/sysrq-trigger\nsleep 30\n' | script panic.sh
	rq -q -o "$d/res" "$d/panic.sh"
	want_rc 125 && want_in "$d/err" 'kernel failure in section "panic.sh"' &&
		want_in "$d/err" "Kernel panic"
}

desc[006]="the guest powering off by itself (no status line) gives 255"
case_006() {
	printf '#!/bin/sh\npoweroff -f\nsleep 30\n' | script off.sh
	rq -q -o "$d/res" "$d/off.sh"
	want_rc 255 && want_in "$d/err" "never reported back"
}

# A console log with the harness's framing around LINES (on stdin).
canned() {
	printf '[    0.000000] Linux version 6.1.0 (canned)\r\n'
	printf '[    0.000000] Kernel command line: console=ttyS0 sysctl.kernel.hung_task_timeout_secs=60\r\n'
	printf '[    4.100000] ext4fc-harness: start canned.sh\r\n'
	printf '[    4.200000] ext4fc-harness: start generic/042\r\n'
	printf 'WARNING: this is the script talking, not the kernel\r\n'
	tr '\n' '\r' | sed 's/\r/\r\n/g'
	printf '[    9.000000] ext4fc-harness: end canned.sh rc=0\r\n'
}

desc[007]="console scanner: each failure pattern, its section, taint bits"
case_007() {
	local p n=0 r
	canned </dev/null >"$d/clean.log"
	r=0; "$run" --scan-console "$d/clean.log" >"$d/clean.out" 2>&1 || r=$?
	[[ $r -eq 0 ]] || { why="clean log: exit $r (see ${d#"$root"/}/clean.out)"; return 1; }
	r=0; "$run" --scan-console "$d/clean.log" 12288 >"$d/oe.out" 2>&1 || r=$?
	[[ $r -eq 0 ]] || { why="tainted=12288 (O+E): exit $r, want 0"; return 1; }
	r=0; "$run" --scan-console "$d/clean.log" 12800 >"$d/w.out" 2>&1 || r=$?
	[[ $r -eq 125 ]] || { why="tainted=12800 (W+O+E): exit $r, want 125"; return 1; }
	want_in "$d/w.out" "W(512)" || return 1
	for p in "WARNING: CPU: 1 PID: 77 at fs/ext4fc/fast_commit.c:42 ext4_fc_commit+0x1/0x2 [ext4fc]" \
		"BUG: kernel NULL pointer dereference, address: 0000000000000008" \
		"kernel BUG at fs/jbd2fc/journal.c:100!" \
		"Oops: 0002 [#1] PREEMPT SMP NOPTI" \
		"general protection fault, probably for non-canonical address 0xdead: 0000 [#1]" \
		"Kernel panic - not syncing: Fatal exception" \
		"INFO: task jbd2fc/vda-8:123 blocked for more than 60 seconds." \
		"possible circular locking dependency detected" \
		"UBSAN: shift-out-of-bounds in fs/ext4fc/fast_commit.c:7:3"; do
		n=$((n + 1))
		printf '[    5.%06d] %s\n' "$n" "$p" | canned >"$d/bad$n.log"
		r=0; "$run" --scan-console "$d/bad$n.log" >"$d/bad$n.out" 2>&1 || r=$?
		[[ $r -eq 125 ]] || { why="'$p': exit $r, want 125"; return 1; }
		want_in "$d/bad$n.out" 'section "generic/042"' || return 1
		want_in "$d/bad$n.out" "bad$n.log:6:" || return 1
	done
}

desc[008]="-f files and ARGS arrive in \$TESTDIR, intact"
case_008() {
	head -c 300000 /dev/urandom >"$d/data.bin"
	printf 'two\n' >"$d/second.txt"
	script args.sh <<'EOF'
#!/bin/sh
fail() { echo "args.sh: $*"; exit 1; }
[ "$#" -eq 5 ] || fail "got $# args"
[ "$1" = "a b" ] || fail "arg1 '$1'"
[ "$2" = "it's" ] || fail "arg2 '$2'"
[ "$3" = "" ] || fail "arg3 '$3'"
[ "$4" = '$HOME *' ] || fail "arg4 '$4'"
[ "$(fsop cksum "$TESTDIR/data.bin")" = "$5" ] || fail "data.bin differs"
[ "$(cat "$TESTDIR/second.txt")" = two ] || fail "second.txt differs"
[ "$(pwd)" = "$OUT" ] || fail "cwd is $(pwd), not $OUT"
[ "$KVER" = "$(uname -r)" ] || fail "KVER $KVER"
exit 0
EOF
	# shellcheck disable=SC2016 # a literal $HOME for the guest
	rq -q -o "$d/res" -f "$d/data.bin" -f "$d/second.txt" "$d/args.sh" \
		"a b" "it's" "" '$HOME *' "$("$fsop" cksum "$d/data.bin")"
	want_rc 0
}

desc[009]="files written to \$OUT come back into OUTDIR"
case_009() {
	script out.sh <<'EOF'
#!/bin/sh
mkdir -p "$OUT/sub/dir"
echo "results are back" >"$OUT/sub/dir/note.txt"
fsop pwrite "$OUT/pattern.bin" 0 3M 42
EOF
	rq -q -o "$d/res" "$d/out.sh"
	want_rc 0 || return 1
	want_in "$d/res/sub/dir/note.txt" "results are back" || return 1
	"$fsop" verify "$d/res/pattern.bin" 0 3M 42 2>"$d/verify.err" ||
		{ why="pattern.bin came back wrong: $(cat "$d/verify.err")"; return 1; }
	want_in "$d/res/dmesg.txt" "ext4fc-harness: start out.sh"
}

desc[010]="-d images are vda, vdb in order; stock ext4 mounts a fast_commit image"
case_010() {
	mkimg "$d/a.img" -O fast_commit
	mkimg "$d/b.img"
	script disk.sh <<'EOF'
#!/bin/sh
set -e
[ "$DISKS" = "/dev/vda /dev/vdb" ] || { echo "DISKS='$DISKS'"; exit 1; }
[ -b /dev/vda ] && [ -b /dev/vdb ]
dumpe2fs -h /dev/vda 2>/dev/null | grep -q 'features:.*fast_commit'
! grep -qw ext4 /proc/filesystems
mount -t ext4 /dev/vda /mnt		# loads ext4 through request_module
lsmod | grep -q '^ext4 '
fsop pwrite /mnt/f 0 1M 9
fsop fsync /mnt/f
umount /mnt
EOF
	rq -q -o "$d/res" -d "$d/a.img" -d "$d/b.img" "$d/disk.sh"
	want_rc 0 || return 1
	e2fsck -fn "$d/a.img" >"$d/e2fsck.out" 2>&1 ||
		{ why="e2fsck -fn a.img failed (see ${d#"$root"/}/e2fsck.out)"; return 1; }
	debugfs -R "dump /f $d/f" "$d/a.img" >/dev/null 2>&1
	"$fsop" verify "$d/f" 0 1M 9 2>"$d/verify.err" ||
		{ why="/f in a.img: $(cat "$d/verify.err")"; return 1; }
}

desc[011]="fsop in the guest: shutdown nologflush, then replay keeps fsync'd data"
case_011() {
	mkimg "$d/a.img" -O fast_commit
	script crash.sh <<'EOF'
#!/bin/sh
set -e
mount -t ext4 /dev/vda /mnt
fsop pwrite /mnt/kept 0 256K 1
fsop fsync /mnt/kept
fsop stat /mnt/kept >"$OUT/before"
fsop cksum /mnt/kept >>"$OUT/before"
fsop shutdown /mnt nologflush
if fsop pwrite /mnt/after 0 4K 2 2>/dev/null; then
	echo "crash.sh: write after shutdown worked"; exit 1
fi
umount /mnt
mount -t ext4 /dev/vda /mnt		# journal (and fast commit) replay
fsop stat /mnt/kept >"$OUT/after"
fsop cksum /mnt/kept >>"$OUT/after"
fsop verify /mnt/kept 0 256K 1
fsop fallocate /mnt/kept punch 0 4K
fsop setflags /mnt/kept +j
fsop getflags /mnt/kept
fsop setxattr /mnt/kept user.t v
[ "$(fsop getxattr /mnt/kept user.t)" = v ]
touch /mnt/other
fsop rename-exchange /mnt/kept /mnt/other
[ "$(fsop stat /mnt/other | cut -d' ' -f1)" = 262144 ]
umount /mnt
EOF
	rq -q -o "$d/res" -d "$d/a.img" "$d/crash.sh"
	want_rc 0 || return 1
	cmp -s "$d/res/before" "$d/res/after" ||
		{ why="stat/cksum changed across the replay (see ${d#"$root"/}/res)"; return 1; }
	e2fsck -fn "$d/a.img" >"$d/e2fsck.out" 2>&1 ||
		{ why="e2fsck -fn after the guest failed (see ${d#"$root"/}/e2fsck.out)"; return 1; }
}

desc[012]="modprobe ext4fc (extra/ in the guest's modules.dep) works, taint O+E only"
case_012() {
	zcat "$root/build/initramfs.cpio.gz" | cpio -t --quiet >"$d/list" 2>/dev/null || true
	if ! grep -q '/extra/ext4fc.ko$' "$d/list"; then
		why="build/ext4fc.ko is not in the initramfs (run 'make')"
		return 3
	fi
	script ext4fc.sh <<'EOF'
#!/bin/sh
set -e
modprobe ext4fc
grep -qw ext4fc /proc/filesystems
lsmod | grep -q '^jbd2fc '
modprobe -r ext4fc
EOF
	rq -q -o "$d/res" "$d/ext4fc.sh"
	want_rc 0 && want_in "$d/res/status" "tainted=12288"
}

desc[013]="usage errors and missing files exit 2 with a message"
case_013() {
	local r
	printf '#!/bin/sh\n' >"$d/s.sh"
	mkdir -p "$d/full"
	: >"$d/full/x"
	r=0; "$run" --help >"$d/help" 2>&1 || r=$?
	[[ $r -eq 0 ]] || { why="--help: exit $r"; return 1; }
	want_in "$d/help" "Exit status" || return 1
	for args in "-x $d/s.sh" "-t soon $d/s.sh" "-d $d/nonexistent.img $d/s.sh" \
		"-f $d/nonexistent $d/s.sh" "$d/nonexistent.sh" "--accel xen $d/s.sh" \
		"-o $d/full $d/s.sh" "-i $d/s.sh"; do
		r=0
		# shellcheck disable=SC2086 # split on purpose
		"$run" $args </dev/null >"$d/usage.out" 2>&1 || r=$?
		[[ $r -eq 2 ]] || { why="'run-qemu.sh $args': exit $r, want 2"; return 1; }
		grep -q "run-qemu: " "$d/usage.out" ||
			{ why="'run-qemu.sh $args': no message"; return 1; }
	done
}

desc[014]="--host-root: the host's userland, read-only; only \$OUT comes back"
case_014() {
	local mark=$d/host-file
	echo host >"$mark"
	script hr.sh <<EOF
#!/bin/sh
command -v bash >/dev/null && echo "has bash" >"\$OUT/found"
[ -f /init ] && echo "initramfs init visible" >>"\$OUT/found"
echo guest >"$mark" && echo "wrote $mark" >"\$OUT/wrote"
mkdir -p /etc/ext4fc-selftest && echo "wrote /etc" >>"\$OUT/wrote"
grep -q ' / overlay ' /proc/mounts && echo "root is overlay" >>"\$OUT/found"
exit 0
EOF
	rq -q --host-root -t 60 -o "$d/res" "$d/hr.sh"
	want_rc 0 && want_in "$d/res/found" "has bash" && want_in "$d/res/found" "root is overlay" &&
		want_not_in "$d/res/found" "initramfs init visible" &&
		want_in "$d/res/wrote" "wrote $mark" || return 1
	[[ $(cat "$mark") == host ]] || { why="the guest's write reached the host's $mark"; return 1; }
	[[ ! -e /etc/ext4fc-selftest ]] || { why="the guest's mkdir reached the host's /etc"; return 1; }
}

desc[015]="a script can stop the boot early: harness-stop + USR1 to init gives 124 with its reason"
case_015() {
	script stop.sh <<'EOF'
#!/bin/sh
echo "stuck on purpose" >"$OUT/harness-stop"
kill -USR1 1
sleep 600
EOF
	local t0=$SECONDS
	rq -q -t 120 -o "$d/res" "$d/stop.sh"
	want_rc 124 &&
		want_in "$d/err" "stopped the guest early: stuck on purpose" &&
		want_in "$d/res/console.log" "stopped early: stuck on purpose" &&
		want_in "$d/res/console.log" "Show Blocked State" &&
		want_in "$d/res/status" "timeout=1" || return 1
	# at once, not at the guest's own deadline (about 100 s in)
	((SECONDS - t0 < 60)) || { why="the guest took $((SECONDS - t0)) s: the USR1 was lost, it ran to its deadline"; return 1; }
}

desc[016]="a final sync held up by a stuck device: the guest powers off after 30 s, its status kept"
case_016() {
	mkimg "$d/disk.img"
	# Dirty page cache of a suspended dm device, held open by a sleeper
	# so that dd's close is not the last (that would wait): the script
	# ends, the final sync's writeback of those pages waits for a resume.
	script stuck.sh <<'EOF'
#!/bin/sh
set -e
dmsetup create ext4fc-stuck --table "0 2048 linear $(echo "$DISKS" | cut -d' ' -f1) 0"
dmsetup suspend ext4fc-stuck
sleep 600 </dev/mapper/ext4fc-stuck &
dd if=/dev/zero of=/dev/mapper/ext4fc-stuck bs=4096 count=16 2>/dev/null
echo "written, device suspended"
EOF
	local t0=$SECONDS
	rq -q -t 200 -d "$d/disk.img" -o "$d/res" "$d/stuck.sh"
	want_rc 0 &&
		want_in "$d/res/console.log" "written, device suspended" &&
		want_in "$d/res/console.log" "the final sync did not finish in 30 s" || return 1
	((SECONDS - t0 < 100)) || { why="the guest took $((SECONDS - t0)) s: it waited past the bounded sync"; return 1; }
}

desc[017]="-n images are NVMe in \$NVME_DISKS, in order, with FUA and a write-back cache"
case_017() {
	mkimg "$d/v.img"
	mkimg "$d/n0.img" -L n0
	mkimg "$d/n1.img" -L n1
	script nvme.sh <<'EOF'
#!/bin/sh
set -e
echo "DISKS='$DISKS' NVME_DISKS='$NVME_DISKS'"
[ "$DISKS" = /dev/vda ]
set -- $NVME_DISKS
[ $# = 2 ]
[ "$(blkid -o value -s LABEL "$1")" = n0 ] && [ "$(blkid -o value -s LABEL "$2")" = n1 ]
for n in "$@"; do
	b=${n##*/}
	echo "$b: fua $(cat /sys/block/$b/queue/fua), write_cache $(cat /sys/block/$b/queue/write_cache)"
	[ "$(cat /sys/block/$b/queue/fua)" = 1 ]
	[ "$(cat /sys/block/$b/queue/write_cache)" = "write back" ]
done
EOF
	rq -q -o "$d/res" -d "$d/v.img" -n "$d/n0.img" -n "$d/n1.img" "$d/nvme.sh"
	want_rc 0
}

# --- driver ------------------------------------------------------------------

cases=("$@")
if [[ ${#cases[@]} -eq 0 ]]; then
	mapfile -t cases < <(declare -F | sed -n 's/^declare -f case_//p' | sort)
fi
npass=0
nfail=0
nnotrun=0
failed=()
mkdir -p "$work"
for c in "${cases[@]}"; do
	if ! declare -F "case_$c" >/dev/null; then
		echo "harness-selftest: no case $c" >&2
		exit 2
	fi
	d=$work/$c
	rm -rf "$d"
	mkdir -p "$d"
	why=
	start=$SECONDS
	r=0
	"case_$c" || r=$?
	t=$((SECONDS - start))
	case $r in
	0)
		printf 'harness/%s %3ss ... pass      %s\n' "$c" "$t" "${desc[$c]}"
		npass=$((npass + 1))
		;;
	3)
		printf 'harness/%s %3ss ... [not run] %s: %s\n' "$c" "$t" "${desc[$c]}" "$why"
		nnotrun=$((nnotrun + 1))
		;;
	*)
		printf 'harness/%s %3ss ... FAIL      %s\n' "$c" "$t" "${desc[$c]}"
		printf '    %s\n' "${why:-case failed}"
		nfail=$((nfail + 1))
		failed+=("$c")
		;;
	esac
done
summary="$npass passed, $nfail failed"
((nnotrun == 0)) || summary+=", $nnotrun not run"
echo "$summary"
((nfail == 0)) || echo "failed: ${failed[*]} (files in build/selftest/)"
((nfail == 0))
