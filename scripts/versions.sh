#!/bin/bash
# versions.sh KVER TARBALL: check that the kernel source tarball, the
# headers and the image we build against are the same kernel.
#
# Prints "SRC_UPSTREAM IMAGE_DEBIAN_VERSION" (e.g. "6.1.192 6.1.192-3") on
# success.  Exits 1 with a message saying what disagrees and what to do.
set -euo pipefail
kver=$1 tarball=$2

die() {
	echo "versions: $*" >&2
	exit 1
}

[[ -r "$tarball" ]] || die "$tarball not found: install linux-source-6.1 (or run 'make deps')"

pkgver() {
	dpkg-query -W -f '${Version}' "$1" 2>/dev/null || true
}

src=$(pkgver linux-source-6.1)
[[ -n "$src" ]] || die "linux-source-6.1 is not installed (dpkg): run 'make deps'"

img=$(pkgver "linux-image-$kver")
[[ -n "$img" ]] || img=$(pkgver "linux-image-$kver-unsigned")
[[ -n "$img" ]] || die "cannot tell the version of /boot/vmlinuz-$kver: linux-image-$kver is not a Debian package; install it with apt (or set KVER to one that is)"

pkgh=/lib/modules/$kver/build/include/generated/package.h
[[ -r "$pkgh" ]] || die "$pkgh missing: install linux-headers-$kver (or run 'make deps')"
hdr=$(sed -n 's/.*LINUX_PACKAGE_ID " Debian \([^"]*\)".*/\1/p' "$pkgh")
[[ -n "$hdr" ]] || die "cannot read the Debian version from $pkgh"

upstream() {
	local v=${1%%-*}
	echo "${v%%[+~]*}"
}

if [[ "$hdr" != "$img" ]]; then
	die "linux-headers-$kver is $hdr but linux-image-$kver is $img: install matching packages (apt-get install linux-image-$kver=$hdr or linux-headers-$kver=$img)"
fi
if [[ "$(upstream "$src")" != "$(upstream "$img")" ]]; then
	die "linux-source-6.1 is $src (kernel $(upstream "$src")) but linux-image-$kver is $img (kernel $(upstream "$img")): modules built from that source would not match the running kernel; install the same version of both (apt-get install linux-source-6.1=$img, or upgrade linux-image-amd64 linux-headers-amd64), or pick another KVER"
fi
echo "$(upstream "$src") $img"
