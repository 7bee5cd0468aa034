# shellcheck shell=sh
# guest.sh: helpers for guest test scripts (POSIX sh, busybox).
# Sourced as: . "$TESTDIR/guest.sh"   (run-qemu.sh -f tests/harness/guest.sh)

fail() {
	echo "FAIL: $*"
	exit 1
}

info() {
	echo "  $*"
}

# mark NAME: a marker in the kernel log; dmesg_check looks only after it.
mark() {
	_mark="ext4fc-test: $1 $$"
	echo "$_mark" >/dev/kmsg
}

# dmesg_since_mark: kernel log lines after the last mark(), raw (<prio>).
dmesg_since_mark() {
	dmesg -r | awk -v m="$_mark" 'found { print } index($0, m) { found = 1 }'
}

# kernel_warnings ERE: of the raw kernel log lines on stdin (dmesg -r),
# those at KERN_WARNING or worse, other than the taint lines an unsigned
# out-of-tree module gets and those ERE (an awk regular expression; empty:
# none) matches.
kernel_warnings() {
	awk -v ign="$1" '
		{
			p = $0; sub(/^</, "", p); sub(/>.*/, "", p)
			if (p % 8 > 4 || int(p / 8) != 0)
				next
		}
		/loading out-of-tree module taints kernel/ { next }
		/module verification failed: signature and\/or required key missing/ { next }
		ign != "" && $0 ~ ign { next }
		{ print }'
}

# dmesg_check: fail if anything at KERN_WARNING or worse was logged since
# the mark, other than the taint lines an unsigned out-of-tree module gets.
dmesg_check() {
	dmesg_check_except ''
}

# dmesg_check_except ERE: dmesg_check, passing over the lines ERE matches too.
dmesg_check_except() {
	_bad=$(dmesg_since_mark | kernel_warnings "$1")
	if [ -n "$_bad" ]; then
		echo "unexpected kernel messages (warning or worse):"
		echo "$_bad"
		fail "dmesg not clean"
	fi
}

# dmesg_has TEXT: the kernel logged TEXT since the mark.
dmesg_has() {
	dmesg_since_mark | grep -qF -- "$1"
}

# fc_info_kv FILE: an fc_info (/proc/fs/FS/DEV/fc_info, or a copy of one)
# as "KEY<tab>VALUE" lines in its order; the one reader of its format.  A
# line "N words, M more words, ..." gives KEY "words" for N and "words:
# more words" for M (a unit after a number, "12us", is dropped): "commits",
# "ineligible", "numblks", "area full", "batching windows", "batching
# windows: fsyncs waited in them", "in-inode xattr changes logged", ...  A
# reason's line gives its first field as KEY ("\"Extended attributes
# changed\":").  Headings, the latency histogram and the lines that start
# with a word ("handles drained (us, last N): p50 ...") give nothing.
fc_info_kv() {
	awk -F'\t' '
		/^"/ { print $1 "\t" $2; next }
		/^[0-9]/ {
			n = split($0, part, ", ")
			for (i = 1; i <= n; i++) {
				v = part[i]; sub(/ .*/, "", v); sub(/[^0-9.]+$/, "", v)
				k = part[i]; sub(/^[^ ]* /, "", k)
				if (i == 1)
					first = k
				else
					k = first ": " k
				print k "\t" v
			}
		}' "$1"
}

# fc_stat DEV KEY: a number from /proc/fs/ext4fc/DEV/fc_info (KEY as
# fc_info_kv prints it: commits, ineligible, numblks, ...).
fc_stat() {
	fc_info_kv "/proc/fs/${FCFS:-ext4fc}/$1/fc_info" |
		awk -F'\t' -v k="$2" '$1 == k { print $2; exit }'
}

# fc_reason DEV TEXT: the count of one ineligibility reason.
fc_reason() {
	fc_stat "$1" "\"$2\":"
}

# manifest DIR: one line per entry below DIR: for a regular file its
# name, size, mode, nlink, uid, gid, mtime, ctime and content hash (atime
# is left out: reading changes it); for anything else its name and mode.
manifest() {
	(cd "$1" && find . | sort | while read -r f; do
		if [ -f "$f" ]; then
			echo "$f $(fsop stat "$f" | awk '{ $6 = ""; print }') $(fsop cksum "$f")"
		else
			echo "$f $(fsop stat "$f" | awk '{ print $2 }')"
		fi
	done)
}

load_ext4fc() {
	modprobe ext4fc || fail "modprobe ext4fc failed"
	grep -qw ext4fc /proc/filesystems || fail "ext4fc not in /proc/filesystems"
}

# must CMD...: run CMD; the test fails if it does.
must() {
	"$@" || fail "$* (status $?)"
}

# write_fsync FILE OFFSET LEN SEED: fsop pwrite, then fsync FILE.
write_fsync() {
	must fsop pwrite "$@"
	must fsop fsync "$1"
}
