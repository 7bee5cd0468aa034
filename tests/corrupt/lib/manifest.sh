# shellcheck shell=sh
# manifest.sh: corrupt_manifest DIR: one line per path below DIR, sorted,
# from fsop state (type, inode, size, mode, nlink, ids, times, data hash,
# xattrs); a directory's times are left out (fast commits do not log a
# directory's own inode), its entries and link count are kept.
corrupt_manifest() {
	(cd "$1" && find . ! -name lost+found ! -path './lost+found/*' | sort | xargs fsop state)
}
