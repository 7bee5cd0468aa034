#!/bin/bash
# Print the kernel version (KVER) we build and boot against.
#
# Default: the newest installed linux-image (/boot/vmlinuz-*) whose headers
# are installed too (/lib/modules/$KVER/build/Makefile).  $KVER in the
# environment wins.  Exits 1 with a message naming the package to install
# when there is none.
set -euo pipefail

if [[ -n "${KVER:-}" ]]; then
	if [[ ! -e "/boot/vmlinuz-$KVER" ]]; then
		echo "kver: /boot/vmlinuz-$KVER not found: install linux-image-$KVER (or run 'make deps')" >&2
		exit 1
	fi
	if [[ ! -e "/lib/modules/$KVER/build/Makefile" ]]; then
		echo "kver: headers for $KVER not found: install linux-headers-$KVER (or run 'make deps')" >&2
		exit 1
	fi
	echo "$KVER"
	exit 0
fi

best=
for img in /boot/vmlinuz-*; do
	[[ -e "$img" ]] || continue
	v=${img#/boot/vmlinuz-}
	[[ -e "/lib/modules/$v/build/Makefile" ]] || continue
	best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)
done
if [[ -z "$best" ]]; then
	echo "kver: no linux-image with matching linux-headers installed: run 'make deps' (installs linux-image-amd64 linux-headers-amd64)" >&2
	exit 1
fi
echo "$best"
