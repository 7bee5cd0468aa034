#!/bin/bash
# fstests-src.sh: put fstests (xfstests) into build/fstests, configured.
#
#   scripts/fstests-src.sh [--print]
#
# The source is FSTESTS_SRC: a tarball (*.tar, *.tar.gz, *.tar.xz, ...), a
# directory holding an fstests tree, or a git URL (checked out at
# FSTESTS_COMMIT, default 63a29724).  Default: the pinned tarball
# ../shared/third_party/fstests-63a29724.tar.xz next to this checkout when
# it is there (its sha256 is checked against the one its README gives),
# else upstream's git repository.  fstests never enters our repository:
# it lives in $BUILD/fstests, unpacked and configured once; a different
# FSTESTS_SRC unpacks it again.  'make fstests' then builds the whole
# suite there; the crash and stress tests take only fsstress and
# replay-log from it, built static (Makefile).
#
# --print: say which source would be used, and exit.
# Exit status: 0 ready; 1 the source is missing, does not verify, or does
# not configure (the message says which and what to do).
set -euo pipefail

prog=fstests-src
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$top/build}
dest=$build/fstests
pinned_commit=63a29724
pinned_tarball=$(cd "$top/.." && pwd)/shared/third_party/fstests-$pinned_commit.tar.xz
pinned_sha256=f97d9b4760b7d254d8e590ba8b132ab3e1b1170bd6ef31c7d485c2b3104e7db2
upstream=https://git.kernel.org/pub/scm/fs/xfs/xfstests-dev.git
commit=${FSTESTS_COMMIT:-$pinned_commit}

die() {
	echo "$prog: $*" >&2
	exit 1
}

say() {
	echo "  FSTESTS $*"
}

src=${FSTESTS_SRC:-}
if [[ -z $src ]]; then
	if [[ -f $pinned_tarball ]]; then
		src=$pinned_tarball
	else
		src=$upstream
	fi
fi
if [[ ${1:-} == --print ]]; then
	echo "$src"
	exit 0
fi

# What we unpacked last time, to tell whether to do it again.
if [[ -d $src ]]; then
	id="dir $(cd "$src" && pwd)"
elif [[ -f $src ]]; then
	id="tarball $(realpath "$src") $(stat -c '%s %Y' "$src")"
else
	id="git $src $commit"
fi

stamp=$dest/.ext4fc-source
if [[ ! -f $stamp || "$(cat "$stamp")" != "$id" ]]; then
	rm -rf "$dest" "$dest.new"
	mkdir -p "$dest.new"
	if [[ -d $src ]]; then
		[[ -f $src/check && -d $src/tests/generic ]] ||
			die "FSTESTS_SRC=$src is a directory but holds no fstests tree (no ./check, no tests/generic)"
		say "copy $src"
		# a fresh copy: configure and make write into the tree
		(cd "$src" && tar --exclude=.git -cf - .) | tar -xf - -C "$dest.new"
	elif [[ -f $src ]]; then
		if [[ $(realpath "$src") == "$(realpath "$pinned_tarball" 2>/dev/null)" ]]; then
			sum=$(sha256sum "$src" | cut -d' ' -f1)
			[[ $sum == "$pinned_sha256" ]] ||
				die "$src: sha256 $sum, but its README says $pinned_sha256: the file is damaged or not the pinned one; fetch it again or point FSTESTS_SRC elsewhere"
		fi
		say "unpack $src"
		tar -xf "$src" -C "$dest.new" ||
			die "cannot unpack $src (FSTESTS_SRC): is it a tarball of fstests?"
		# a tarball of a tree usually has one top directory
		mapfile -t top_entries < <(ls -A "$dest.new")
		if ((${#top_entries[@]} == 1)) && [[ -d $dest.new/${top_entries[0]} ]]; then
			mv "$dest.new/${top_entries[0]}" "$dest.new.top"
			rmdir "$dest.new"
			mv "$dest.new.top" "$dest.new"
		fi
		[[ -f $dest.new/check ]] || die "$src unpacked, but there is no ./check in it: not an fstests tarball"
	else
		command -v git >/dev/null || die "FSTESTS_SRC=$src is no file or directory, and git (to clone it) is not installed: run 'make deps'"
		say "clone $src at $commit"
		git clone -q "$src" "$dest.new" ||
			die "git clone $src failed: no network? Set FSTESTS_SRC to an fstests tarball or directory (the pinned one is fstests-$pinned_commit.tar.xz)"
		git -C "$dest.new" -c advice.detachedHead=false checkout -q "$commit" ||
			die "$src has no commit $commit (FSTESTS_COMMIT)"
	fi
	mv "$dest.new" "$dest"
	echo "$id" >"$stamp"
fi

if [[ ! -f $dest/.ext4fc-configured ]]; then
	for c in autoconf:autoconf automake:automake libtoolize:libtool make:make gcc:gcc; do
		command -v "${c%%:*}" >/dev/null ||
			die "${c%%:*} not found: install ${c#*:} (or run 'make deps')"
	done
	say "configure (log: $dest/configure.log)"
	if ! (cd "$dest" && make configure && ./configure) >"$dest/configure.log" 2>&1; then
		tail -n 5 "$dest/configure.log" | sed 's/^/    /' >&2
		die "fstests does not configure (see $dest/configure.log): a missing -dev package? 'make deps' installs them"
	fi
	touch "$dest/.ext4fc-configured"
fi
exit 0
