#!/bin/bash
# deps.sh TARGET PACKAGE...: the Debian packages 'make TARGET' needs are
# installed, or it installs them, before anything else happens.
#
# The Makefile calls it first thing in 'make run', 'make check', 'make
# bench' and 'make deps', with its PACKAGES list (or the part of it the
# target needs).  One dpkg-query for them all: on a ready machine it is
# silent and quick, no apt work.  When some are missing it says which and
# why, and then:
#   - as root: apt-get update, apt-get install -y the missing ones, check
#     again;
#   - not root: prints the one command to run ('sudo make deps') and exits.
# Under 'make -n' (an n in MAKEFLAGS: the Makefile runs this line anyway)
# it installs nothing and says what it would do.
#
# Exit status: 0 everything is installed (now); 1 apt-get failed or left
# a package missing; 2 packages are missing and we are not root (run
# 'sudo make deps'), or bad usage.
set -euo pipefail

if (($# < 1)); then
	echo "usage: $0 TARGET PACKAGE..." >&2
	exit 2
fi
target=$1
shift
pkgs=("$@")
((${#pkgs[@]})) || exit 0

say() {
	echo "ext4fc: $*"
}

# The packages of "$@" that dpkg does not list as installed.
missing_of() {
	local -A have=()
	local p st
	# ${db:Status-Abbrev}: its second letter is 'i' when installed.
	# Unknown names go to stderr and exit 1: they are missing.
	while read -r p st; do
		[[ "${st:1:1}" == i ]] && have[$p]=1
	done < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "$@" 2>/dev/null || true)
	for p in "$@"; do
		[[ -n "${have[$p]:-}" ]] || echo "$p"
	done
}

if ! command -v dpkg-query >/dev/null 2>&1; then
	say "cannot check the packages 'make $target' needs: no dpkg-query (ext4fc is set up for Debian 12)." >&2
	say "going on; if the build stops, install the equivalents of: ${pkgs[*]}" >&2
	exit 0
fi

mapfile -t missing < <(missing_of "${pkgs[@]}")
if ((${#missing[@]} == 0)); then
	[[ $target != deps ]] || say "all ${#pkgs[@]} packages are installed: nothing to do"
	exit 0
fi

case $target in
run) why="to build the modules against Debian's 6.1 kernel (its source and headers) and boot them in QEMU" ;;
check) why="to build the modules and run the test suite in QEMU, with the fuzzer, the benchmarks' smoke test and an fstests smoke run" ;;
bench) why="to build the modules and run the benchmarks in QEMU (fs_mark, dbench, gnuplot)" ;;
fstests) why="to build fstests and run it in QEMU on the host's userland (xfsprogs, attr, acl, fio, udev, ...)" ;;
*) why="for any target (the Makefile's PACKAGES)" ;;
esac
say "'make $target' needs ${#missing[@]} Debian package(s) that are not installed,"
say "$why:"
fmt -w 76 <<<"${missing[*]}" | sed 's/^/    /'

dry=0
[[ " ${MAKEFLAGS:-}" =~ ^\ [^-\ ]*n ]] && dry=1

if [[ "$(id -u)" != 0 ]]; then
	say "installing them needs root: run this once, then 'make $target' again:"
	echo
	echo "    sudo make deps"
	echo
	exit 2
fi

install=(apt-get install -y --no-install-recommends "${missing[@]}")
if ((dry)); then
	say "make -n: would run, as root: apt-get update; ${install[*]}"
	exit 0
fi
say "installing them (as root; a few minutes on a fresh machine): apt-get update, then ${install[*]:0:4} ..."
start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
rc=0
apt-get update || rc=$?
if ((rc)); then
	say "apt-get update failed (status $rc): check the network and /etc/apt/sources.list, then run 'make deps'" >&2
	exit 1
fi
"${install[@]}" || rc=$?
if ((rc)); then
	say "apt-get install failed (status $rc; its messages are above): fix what it says, then run 'make deps'" >&2
	exit 1
fi
mapfile -t still < <(missing_of "${missing[@]}")
if ((${#still[@]})); then
	say "apt-get install succeeded, yet still not installed: ${still[*]}; install them by hand (apt-get install ${still[*]}), then 'make $target'" >&2
	exit 1
fi
msg="installed ${#missing[@]} package(s) in $(($(date +%s) - start))s"
[[ $target == deps ]] || msg+="; on with 'make $target'"
say "$msg"
