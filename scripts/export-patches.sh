#!/bin/bash
# export-patches.sh: turn the commits in build/src since the rename back
# into our patch series.
#
# Every commit after tag "renamed" becomes one patch, in the series of the
# component it touches: fs/jbd2 -> jbd2fc/patches, fs/ext4 ->
# ext4fc/patches, include/ -> include/patches.  A commit touching several
# components is refused (split it: git rebase -i).  The series files and
# patch files of all three components are rewritten from the commits, so
# reordering, rewording, squashing and dropping commits in build/src are
# all exported the same way.  Afterwards 'make' sees the tree as up to date.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=${BUILD:-$top/build}/src
components=(include jbd2fc ext4fc)

die() {
	echo "export-patches: $*" >&2
	exit 1
}
g() {
	git -C "$src" "$@"
}

[[ -d "$src/.git" ]] || die "$src does not exist: run 'make' first"
[[ ! -d "$src/.git/rebase-apply" ]] || die "a 'git am' is in progress in $src: finish it first (git am --continue / --abort)"
if [[ -n "$(g status --porcelain --untracked-files=no)" ]]; then
	die "$src has uncommitted changes: commit them (git -C $src commit -a) so they become a patch, or drop them (git -C $src checkout .)"
fi

component_of() {
	local files c comps=()
	files=$(g diff-tree --no-commit-id --name-only -r "$1")
	for c in "${components[@]}"; do
		case $c in
		include) grep -q '^include/' <<<"$files" && comps+=("$c") ;;
		jbd2fc) grep -q '^fs/jbd2/' <<<"$files" && comps+=("$c") ;;
		ext4fc) grep -q '^fs/ext4/' <<<"$files" && comps+=("$c") ;;
		esac
	done
	if grep -qv '^\(include\|fs/jbd2\|fs/ext4\)/' <<<"$files"; then
		die "commit $(g log -1 --format='%h %s' "$1") touches files outside fs/ext4, fs/jbd2 and include"
	fi
	if [[ ${#comps[@]} -ne 1 ]]; then
		die "commit $(g log -1 --format='%h %s' "$1") touches ${comps[*]:-nothing}: one commit per component, please split it (git -C $src rebase -i renamed)"
	fi
	echo "${comps[0]}"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A count
declare -A rank=([include]=0 [jbd2fc]=1 [ext4fc]=2)
last=
for c in "${components[@]}"; do
	count[$c]=0
	mkdir -p "$tmp/$c"
done
order_warned=
while read -r commit; do
	c=$(component_of "$commit")
	# The series are applied include, jbd2fc, ext4fc: say so if the
	# commits are in another order (they may not apply that way).
	if [[ -n "$last" && -z "$order_warned" && ${rank[$c]} -lt ${rank[$last]} ]]; then
		echo "export-patches: warning: a $c commit follows a $last commit; the series apply in the order include, jbd2fc, ext4fc" >&2
		order_warned=1
	fi
	last=$c
	n=$((count[$c] + 1))
	count[$c]=$n
	g format-patch -q -1 --zero-commit --no-signature --signoff --start-number "$n" \
		-o "$tmp/$c" "$commit" >/dev/null
done < <(g rev-list --reverse renamed..HEAD)

for c in "${components[@]}"; do
	dir=$top/$c/patches
	mkdir -p "$dir"
	header=$(sed -n '/^#/p' "$dir/series" 2>/dev/null | head -n 20)
	[[ -n "$header" ]] || header="# $c patch series: applied in order by scripts/prepare-src.sh"
	rm -f "$dir"/*.patch
	{
		echo "$header"
		for p in "$tmp/$c"/*.patch; do
			[[ -e "$p" ]] || continue
			cp "$p" "$dir/"
			echo "${p##*/}"
		done
	} >"$dir/series"
	echo "  EXPORT  $c/patches: ${count[$c]} patch(es)"
done

# The tree now is what the series describes.
g tag -f series >/dev/null
BUILD=${BUILD:-$top/build} "$top/scripts/prepare-src.sh" --print-series-id >"$src/.git/ext4fc-series-id"
