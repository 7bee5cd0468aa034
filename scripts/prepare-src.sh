#!/bin/bash
# prepare-src.sh: make build/src, the kernel tree our modules build from.
#
#   base      the pristine files from linux-source-6.1.tar.xz (tag "base")
#   rename    scripts/rename.sed + rename-kbuild.sed applied (tag "renamed")
#   series    include/, jbd2fc/ and ext4fc/ patches/series applied with
#             git am, one commit per patch (tag "series")
#   overlay   our own files (ext4fc/*.[ch], jbd2fc/*.[ch], include/**.h)
#             symlinked in, plus the Kbuild and the generated symbol header
#
# build/src is a git repo: edit base files there, commit, and run
# 'make export-patches' to turn the commits into patches of the series.
# Run again, it only redoes what its inputs changed: a new tarball or rename
# script re-extracts, a changed series re-applies the patches (both refuse
# when build/src has work that is not in the series), the overlay is always
# refreshed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
build=${BUILD:-$top/build}
src=$build/src
components=(include jbd2fc ext4fc)

die() {
	echo "prepare-src: $*" >&2
	exit 1
}
say() {
	echo "  PREP    $*"
}
g() {
	git -C "$src" "$@"
}

# What the base + rename steps depend on, and what the series does.
base_id() {
	{
		ls -l --time-style=+%s "$tarball"
		cat "$top/scripts/rename.sed" "$top/scripts/rename-kbuild.sed"
		sed -n '/^# --- base ---/,/^# --- end base ---/p' "$0"
	} | sha1sum | cut -d' ' -f1
}
series_id() {
	local c p
	for c in "${components[@]}"; do
		[[ -f "$top/$c/patches/series" ]] || continue
		echo "$c"
		cat "$top/$c/patches/series"
		while read -r p; do
			cat "$top/$c/patches/$p"
		done < <(series_list "$c")
	done | sha1sum | cut -d' ' -f1
}
series_list() {
	[[ -f "$top/$1/patches/series" ]] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$top/$1/patches/series"
}

# Refuse to throw away work done in build/src.
check_clean() {
	local what=$1 dirty ahead
	dirty=$(g status --porcelain --untracked-files=no)
	if [[ -d "$src/.git/rebase-apply" ]]; then
		die "a 'git am' is in progress in $src: finish it (git am --continue / --abort), then 'make export-patches'"
	fi
	if [[ -n "$dirty" ]]; then
		die "$what, but $src has uncommitted changes:
$dirty
commit them and run 'make export-patches', or drop them with 'make reset-src'"
	fi
	ahead=$(g rev-list --count series..HEAD 2>/dev/null || echo 0)
	if [[ "$ahead" != 0 ]]; then
		die "$what, but $src has $ahead commit(s) that are not in the series: run 'make export-patches' to keep them, or 'make reset-src' to drop them"
	fi
}

# --- base ---
extract() {
	local tmp ver
	say "extract fs/ext4 fs/jbd2 and forked headers from $tarball"
	rm -rf "$build/src.new" "$build/upstream.new"
	tmp=$build/src.new
	mkdir -p "$tmp" "$build/upstream.new"
	tar -xJf "$tarball" -C "$tmp" --strip-components=1 \
		linux-source-6.1/Makefile \
		linux-source-6.1/fs/ext4 linux-source-6.1/fs/jbd2 \
		linux-source-6.1/include/linux/jbd2.h \
		linux-source-6.1/include/trace/events/ext4.h \
		linux-source-6.1/include/trace/events/jbd2.h \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch \
		linux-source-6.1/Documentation/admin-guide/device-mapper/log-writes.rst ||
		die "cannot extract from $tarball (reinstall linux-source-6.1)"
	# Not part of the module tree: kept for 'make style' and reference.
	mv "$tmp/Makefile" "$tmp/scripts" "$tmp/Documentation" "$build/upstream.new/"
	ver=$(awk '/^VERSION =/{v=$3} /^PATCHLEVEL =/{p=$3} /^SUBLEVEL =/{s=$3}
		END{print v "." p "." s}' "$build/upstream.new/Makefile")
	if [[ -n "${EXPECT_VERSION:-}" && "$ver" != "$EXPECT_VERSION" ]]; then
		die "$tarball holds Linux $ver, expected $EXPECT_VERSION (headers/image): install matching linux-source-6.1"
	fi
	rm -rf "$src" "$build/upstream"
	mv "$tmp" "$src"
	mv "$build/upstream.new" "$build/upstream"

	g init -q
	g config user.name "ext4fc developers"
	g config user.email "ext4fc@localhost"
	g config core.autocrlf false
	# Not the overlay's names yet: the base commit must hold every base
	# file, also one an overlay file might replace after a patch.
	write_excludes base
	g add -A
	g commit -q -m "base $ver (from $(basename "$tarball"))"
	g tag -f base >/dev/null

	say "rename ext4 -> ext4fc, jbd2 -> jbd2fc"
	g mv include/linux/jbd2.h include/linux/jbd2fc.h
	g mv include/trace/events/ext4.h include/trace/events/ext4fc.h
	g mv include/trace/events/jbd2.h include/trace/events/jbd2fc.h
	find "$src/fs" "$src/include" -type f \( -name '*.[ch]' \) -print0 |
		xargs -0 sed -i -f "$top/scripts/rename.sed"
	sed -i -f "$top/scripts/rename-kbuild.sed" "$src/fs/ext4/Makefile" "$src/fs/jbd2/Makefile"
	g add -A
	g commit -q -m "rename: ext4 -> ext4fc, jbd2 -> jbd2fc

Mechanical, by scripts/rename.sed and scripts/rename-kbuild.sed."
	g tag -f renamed >/dev/null
	g tag -f series >/dev/null
	base_id >"$src/.git/ext4fc-base-id"
	rm -f "$src/.git/ext4fc-series-id"
}
# --- end base ---

write_excludes() {
	cat >"$src/.git/info/exclude" <<'EOX'
# kbuild output and the overlay (symlinks to the ext4fc repo)
*.o
*.ko
*.mod
*.mod.c
*.cmd
*.a
*.order
*.symvers
*.dwo
.*.cmd
.*.d
.tmp_*
/Kbuild
/include/generated/
EOX
	[[ "${1:-}" == base ]] && return 0
	local c f
	for c in ext4fc jbd2fc include; do
		while read -r f; do
			echo "/$f" >>"$src/.git/info/exclude"
		done < <(overlay_targets "$c")
	done
}

apply_series() {
	local c p n=0
	for c in "${components[@]}"; do
		while read -r p; do
			[[ -f "$top/$c/patches/$p" ]] ||
				die "$c/patches/series lists $p, which does not exist"
			if ! g am -q --keep-cr "$top/$c/patches/$p" >/dev/null 2>&1; then
				g am --show-current-patch=diff >/dev/null 2>&1 || true
				die "$c/patches/$p does not apply to $(g log -1 --format=%s base):
  the 'git am' is left in progress in $src: fix the files there, 'git add' them,
  'git -C $src am --continue', then 'make export-patches' and 'make'"
			fi
			n=$((n + 1))
		done < <(series_list "$c")
	done
	g tag -f series >/dev/null
	series_id >"$src/.git/ext4fc-series-id"
	say "applied $n patch(es)"
}

# Our own files and where they go in build/src (path relative to it).
overlay_targets() {
	local f
	case $1 in
	ext4fc)
		for f in "$top"/ext4fc/*.[ch]; do
			[[ -e "$f" ]] && echo "fs/ext4/${f##*/}"
		done
		;;
	jbd2fc)
		for f in "$top"/jbd2fc/*.[ch]; do
			[[ -e "$f" ]] && echo "fs/jbd2/${f##*/}"
		done
		;;
	include)
		(cd "$top/include" && find . -name '*.h' | sed 's|^\./|include/|')
		;;
	esac
	return 0
}

overlay() {
	local c rel from
	for c in ext4fc jbd2fc include; do
		while read -r rel; do
			case $c in
			include) from=$top/${rel} ;;
			*) from=$top/$c/${rel##*/} ;;
			esac
			if g ls-files --error-unmatch "$rel" >/dev/null 2>&1; then
				die "$c/${rel##*/} would replace $rel, a file of the base tree: add a patch to $c/patches that removes it first"
			fi
			mkdir -p "$(dirname "$src/$rel")"
			if [[ "$(readlink "$src/$rel" 2>/dev/null)" != "$from" ]]; then
				ln -sfn "$from" "$src/$rel"
			fi
		done < <(overlay_targets "$c")
	done
	# Drop links whose file left the repo.
	find "$src/fs" "$src/include" -type l ! -exec test -e {} \; -delete
	if [[ "$(readlink "$src/Kbuild" 2>/dev/null)" != "$top/Kbuild" ]]; then
		ln -sfn "$top/Kbuild" "$src/Kbuild"
	fi
	write_excludes
	"$top/scripts/gen-symbols.sh" "$src" "$src/include/generated/jbd2fc-symbols.h"
}

if [[ "${1:-}" == --print-series-id ]]; then
	series_id
	exit 0
fi

mkdir -p "$build"
if [[ ! -d "$src/.git" ]] || [[ "$(cat "$src/.git/ext4fc-base-id" 2>/dev/null)" != "$(base_id)" ]]; then
	if [[ -d "$src/.git" ]] && g rev-parse -q --verify series >/dev/null; then
		check_clean "the tarball or the rename script changed and build/src must be extracted again"
	fi
	extract
fi
if [[ "$(cat "$src/.git/ext4fc-series-id" 2>/dev/null)" != "$(series_id)" ]]; then
	check_clean "the patch series changed and must be applied again"
	if [[ "$(g rev-parse HEAD)" != "$(g rev-parse renamed)" ]]; then
		say "patch series changed: re-applying on top of the rename"
		g reset -q --hard renamed
	fi
	apply_series
fi
overlay
