#!/bin/bash
# Build the harness's base initramfs from tests/harness/files.list.
#
#   tests/harness/build-initramfs.sh [-l FILES_LIST] OUTPUT.cpio.gz
#
# Needs no root: everything is staged in a temporary directory next to
# OUTPUT and packed with "cpio -o -H newc -R 0:0"; the one device node the
# kernel needs before /init runs (/dev/console) is written as a tiny newc
# archive by hand, the rest of /dev is devtmpfs.  Stock modules come from
# /lib/modules/$KVER (KVER: scripts/kver.sh), with their dependencies
# resolved from modules.dep; "depmod -b" then writes the guest's own
# modules.dep/modules.alias.  run-qemu.sh appends a second archive with the
# test script at boot.  Helpers (build/bin/*, e.g. fsop) are built by make
# before this runs; without them the list's optional entry is skipped.
# The optional host files it did not find are listed in OUTPUT.skipped
# (make rebuilds the initramfs when one appears).
set -euo pipefail

prog=tests/harness/build-initramfs.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
list=$here/files.list

die() {
	echo "$prog: $*" >&2
	exit 1
}

note() {
	echo "$prog: $*" >&2
}

usage() {
	cat <<EOF
usage: $prog [-l FILES_LIST] OUTPUT.cpio.gz

Builds the base initramfs of the QEMU harness (default list:
tests/harness/files.list; see its header for the syntax).  KVER comes from
scripts/kver.sh (\$KVER in the environment wins).
EOF
}

while getopts "l:h" opt; do
	case $opt in
	l) list=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [[ $# -ne 1 ]]; then
	usage >&2
	exit 2
fi
output=$1
[[ -r $list ]] || die "file list $list not found"

# --- host prerequisites ------------------------------------------------------

need() {	# need COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 ||
		die "$1 not found: install $2 (or run 'make deps')"
}
need cpio cpio
need gzip gzip
need strip binutils
need ldd libc-bin
PATH=$PATH:/sbin:/usr/sbin
need depmod kmod
need modinfo kmod

KVER=$("$root/scripts/kver.sh") || exit 1
moddir=/lib/modules/$KVER
[[ -r $moddir/modules.dep ]] ||
	die "$moddir/modules.dep not found: install linux-image-$KVER (or run 'make deps')"

# Which package to name when a file of the list is missing.
pkg_of() {
	case ${1##*/} in
	busybox) echo busybox-static ;;
	dmsetup) echo dmsetup ;;
	mke2fs | mkfs.ext* | e2fsck | fsck.ext* | debugfs | tune2fs | dumpe2fs | mke2fs.conf)
		echo e2fsprogs ;;
	blkid) echo util-linux ;;
	*) echo "the package that provides $1" ;;
	esac
}

# --- staging -----------------------------------------------------------------

outdir=$(dirname "$output")
mkdir -p "$outdir"
stage=$(mktemp -d "$outdir/.initramfs-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
kmods=$stage/lib/modules/$KVER

# modules.dep of the host: module file (relative to $moddir) -> its deps,
# and module name (with "_") -> module file.
declare -A dep_of=() file_of=()
while IFS= read -r line; do
	f=${line%%:*}
	deps=${line#*:}
	dep_of[$f]=${deps# }
	n=${f##*/}
	n=${n%%.ko*}
	file_of[${n//-/_}]=$f
done <"$moddir/modules.dep"

declare -A copied_mod=() ext_names=() host_names=()
ext_needs=()
n_stock=0

copy_stock_file() {	# copy_stock_file RELPATH: one module file, as is
	local f=$1 dst
	[[ -n ${copied_mod[$f]:-} ]] && return 0
	copied_mod[$f]=1
	dst=$kmods/${f%.ko*}.ko
	mkdir -p "$(dirname "$dst")"
	case $f in
	*.ko) cp "$moddir/$f" "$dst" ;;
	*.ko.xz) xz -dc "$moddir/$f" >"$dst" ;;
	*.ko.zst) zstd -qdc "$moddir/$f" >"$dst" ;;
	*.ko.gz) gzip -dc "$moddir/$f" >"$dst" ;;
	*) die "$moddir/$f: unknown module compression" ;;
	esac
	n_stock=$((n_stock + 1))
}

add_stock() {	# add_stock OPTIONAL NAME: module and its modules.dep closure
	local opt=$1 name=${2//-/_} f d
	f=${file_of[$name]:-}
	if [[ -z $f ]]; then
		[[ -n $opt ]] && { note "note: module $2 not in $moddir, skipped"; return 0; }
		die "module $2 not found in $moddir/modules.dep: is it built for $KVER? (check the name, or install linux-image-$KVER)"
	fi
	copy_stock_file "$f"
	for d in ${dep_of[$f]}; do
		copy_stock_file "$d"
	done
}

add_extmod() {	# add_extmod OPTIONAL PATH: one of our modules, stripped
	local opt=$1 src=$2 name vermagic d
	[[ $src = /* ]] || src=$root/$src
	if [[ ! -f $src ]]; then
		[[ -n $opt ]] && {
			note "note: ${src#"$root"/} not built yet, left out (run 'make' to build it)"
			return 0
		}
		die "${src#"$root"/} not found: run 'make' to build it"
	fi
	vermagic=$(modinfo -F vermagic "$src")
	[[ $vermagic == "$KVER "* ]] ||
		die "${src#"$root"/} was built for '${vermagic%% *}', the guest runs $KVER: rebuild with 'make'"
	name=$(modinfo -F name "$src")
	ext_names[${name//-/_}]=1
	mkdir -p "$kmods/extra"
	strip --strip-debug -o "$kmods/extra/$name.ko" "$src"
	for d in $(modinfo -F depends "$src" | tr ',' ' '); do
		d=${d//-/_}
		# A stock module, or another of ours (checked at the end:
		# the list may name them in any order).
		if [[ -n ${file_of[$d]:-} ]]; then
			add_stock "" "$d"
		else
			ext_needs+=("$name:$d")
		fi
	done
}

copy_libs() {	# copy_libs ELF: the shared libraries ldd lists, to the same path
	local lib out
	out=$(ldd "$1" 2>/dev/null) || return 0	# static or not ELF
	while read -r lib; do
		[[ -e $stage$lib ]] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done < <(sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' <<<"$out")
}

# skip_host PATH: an optional host file that is not there; listed in
# OUTPUT.skipped, so that make rebuilds the initramfs once it is (make
# check installs fs_mark and dbench after make run built it).
skipped=()
skip_host() {
	note "note: $1 not found, skipped"
	skipped+=("$1")
}

add_bin() {	# add_bin OPTIONAL PATH: host executable + libraries, same path
	local opt=$1 path=$2 target
	if [[ ! -e $path ]]; then
		[[ -n $opt ]] && { skip_host "$path"; return 0; }
		die "$path not found: install $(pkg_of "$path") (or run 'make deps')"
	fi
	host_names[${path##*/}]=1
	mkdir -p "$stage$(dirname "$path")"
	if [[ -L $path ]]; then
		# e.g. mkfs.ext4 -> mke2fs: keep the link (the tool looks at
		# argv[0]) and bring its target along.
		target=$(readlink "$path")
		ln -sfn "$target" "$stage$path"
		[[ $target = /* ]] || target=$(dirname "$path")/$target
		add_bin "" "$target"
		return 0
	fi
	cp -p "$path" "$stage$path"
	copy_libs "$path"
}

add_helper() {	# add_helper OPTIONAL GLOB: guest helpers into /usr/local/bin
	local opt=$1 pat=$2 f found=
	[[ $pat = /* ]] || pat=$root/$pat
	mkdir -p "$stage/usr/local/bin"
	for f in $pat; do
		[[ -f $f && -x $f ]] || continue
		found=1
		cp -p "$f" "$stage/usr/local/bin/"
		host_names[${f##*/}]=1
		if ldd "$f" >/dev/null 2>&1; then
			note "note: ${f#"$root"/} is dynamically linked; copying its libraries"
			copy_libs "$f"
		fi
	done
	if [[ -z $found ]]; then
		[[ -n $opt ]] && { note "note: no helper matches ${pat#"$root"/}, none added"; return 0; }
		die "no helper matches ${pat#"$root"/}: run 'make' to build it"
	fi
}

busybox_src=
add_busybox() {	# add_busybox OPTIONAL PATH
	local path=$2
	[[ -x $path ]] || die "$path not found: install busybox-static (or run 'make deps')"
	if ldd "$path" >/dev/null 2>&1; then
		die "$path is dynamically linked: install busybox-static (or run 'make deps')"
	fi
	mkdir -p "$stage/bin"
	cp -p "$path" "$stage/bin/busybox"
	busybox_src=$path
}

add_file() {	# add_file OPTIONAL SRC DEST [MODE]
	local opt=$1 src=$2 dst=$3 mode=${4:-}
	[[ $src = /* ]] || src=$root/$src
	if [[ ! -f $src ]]; then
		[[ -n $opt ]] && { skip_host "$src"; return 0; }
		die "$src not found: install $(pkg_of "$src") (or run 'make deps')"
	fi
	mkdir -p "$stage$(dirname "$dst")"
	cp -p "$src" "$stage$dst"
	[[ -z $mode ]] || chmod "$mode" "$stage$dst"
}

# --- read the list -----------------------------------------------------------

lineno=0
while IFS= read -r line || [[ -n $line ]]; do
	lineno=$((lineno + 1))
	line=${line%%#*}
	read -r -a words <<<"$line"
	[[ ${#words[@]} -eq 0 ]] && continue
	kind=${words[0]}
	args=("${words[@]:1}")
	opt=
	if [[ $kind == *\? ]]; then
		opt=1
		kind=${kind%\?}
	fi
	[[ ${#args[@]} -gt 0 ]] || die "$list:$lineno: '$kind' needs an argument"
	case $kind in
	module) for a in "${args[@]}"; do add_stock "$opt" "$a"; done ;;
	extmod) for a in "${args[@]}"; do add_extmod "$opt" "$a"; done ;;
	bin) for a in "${args[@]}"; do add_bin "$opt" "$a"; done ;;
	helper) for a in "${args[@]}"; do add_helper "$opt" "$a"; done ;;
	busybox) add_busybox "$opt" "${args[0]}" ;;
	file)
		[[ ${#args[@]} -ge 2 ]] || die "$list:$lineno: usage: file SRC DEST [MODE]"
		add_file "$opt" "${args[@]:0:3}"
		;;
	dir) for a in "${args[@]}"; do mkdir -p "$stage$a"; done ;;
	*) die "$list:$lineno: unknown kind '$kind' (see the header of $list)" ;;
	esac
done <"$list"

for nd in "${ext_needs[@]}"; do
	[[ -n ${ext_names[${nd#*:}]:-} ]] ||
		die "${nd%%:*}.ko needs ${nd#*:}.ko, which is neither a stock module nor built: run 'make'"
done
[[ -n $busybox_src ]] || die "$list has no busybox entry: the guest needs a shell"
[[ -x $stage/init ]] || die "$list installs no executable /init"

# busybox applets, unless a host binary or helper of that name is there.
while IFS= read -r applet; do
	[[ -n ${host_names[${applet##*/}]:-} ]] && continue
	[[ -e $stage/$applet || -L $stage/$applet ]] && continue
	mkdir -p "$stage/$(dirname "$applet")"
	ln -s /bin/busybox "$stage/$applet"
done < <("$busybox_src" --list-full)

# The guest's module index: exactly what was copied.
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[[ -e $moddir/$f ]] && cp "$moddir/$f" "$kmods/"
done
depmod -b "$stage" "$KVER" || die "depmod -b on the staging tree failed (see above)"
n_ext=${#ext_names[@]}
for m in "${!ext_names[@]}"; do
	grep -q "^extra/$m.ko:" "$kmods/modules.dep" ||
		die "depmod did not index extra/$m.ko (see above)"
done

# --- pack --------------------------------------------------------------------

# newc entry for a device node: header fields are 8 hex digits each.
cpio_dev_entry() {	# cpio_dev_entry NAME MODE MAJOR MINOR INO
	local name=$1 len hdr pad
	len=$((${#name} + 1))
	hdr=$(printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		"$5" "$2" 0 0 1 0 0 0 0 "$3" "$4" "$len" 0)
	printf '%s%s\0' "$hdr" "$name"
	pad=$(((4 - (110 + len) % 4) % 4))
	[[ $pad -eq 0 ]] || head -c "$pad" /dev/zero
}

tmp_out=$output.tmp.$$
(
	cd "$stage"
	find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --reproducible --quiet
	cpio_dev_entry dev/console $((8#020600)) 5 1 1
	cpio_dev_entry dev/null $((8#020666)) 1 3 2
	cpio_dev_entry TRAILER!!! 0 0 0 0
) | gzip -n -6 >"$tmp_out"
mv -f "$tmp_out" "$output"
printf '%s\n' "${skipped[@]}" >"$output.skipped"

size=$(du -k "$output" | cut -f1)
echo "$prog: $output: ${size} KiB, kernel $KVER, $n_stock stock modules, $n_ext of ours"
