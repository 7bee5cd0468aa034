#!/bin/bash
# style.sh: kernel coding style on our C files and patches (the tarball's
# scripts/checkpatch.pl), shellcheck on our shell.  Exits 1 on any
# checkpatch error or shellcheck finding; checkpatch warnings are printed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cp=${BUILD:-$top/build}/upstream/scripts/checkpatch.pl
[[ -x "$cp" ]] || { echo "style: $cp missing: run 'make src' first" >&2; exit 1; }
cd "$top" || exit 1

fail=0
opts=(--no-tree --quiet --show-types --ignore "SPDX_LICENSE_TAG,FILE_PATH_CHANGES")
mapfile -t cfiles < <(git ls-files --cached --others --exclude-standard \
	'ext4fc/*.[ch]' 'jbd2fc/*.[ch]' 'include/*.h' 'tests/*.c' 'tests/*.h' 'bench/*.[ch]' \
	'tools/*.[ch]')
mapfile -t patches < <(git ls-files --cached --others --exclude-standard '*/patches/*.patch')

# judge OUTPUT: print checkpatch's findings; errors fail the run.
judge() {
	[[ -n "$1" ]] && echo "$1"
	if grep -q '^ERROR:' <<<"$1"; then
		fail=1
	fi
}
for f in "${cfiles[@]}"; do
	judge "$("$cp" "${opts[@]}" -f "$f" 2>&1)"
done
for p in "${patches[@]}"; do
	# from stdin: given a path inside a git checkout, checkpatch misreads it
	judge "$("$cp" "${opts[@]}" - <"$p" 2>&1)"
done
echo "checkpatch: ${#cfiles[@]} C file(s), ${#patches[@]} patch(es)"

files() {
	git ls-files --cached --others --exclude-standard "$@" | sort -u
}
# Host: bash.  Guest (busybox sh): the harness's init and guest library,
# *.guest.
mapfile -t host_sh < <(files '*.sh' run-qemu.sh .ci/run 'tests/*/[0-9][0-9][0-9]' |
	grep -v '^tests/harness/guest.sh$')
mapfile -t guest_sh < <(files tests/harness/init '*.guest' tests/harness/guest.sh)
if ((${#host_sh[@]})) && ! shellcheck "${host_sh[@]}"; then
	fail=1
fi
if ((${#guest_sh[@]})) && ! shellcheck -s sh "${guest_sh[@]}"; then
	fail=1
fi
echo "shellcheck: ${#host_sh[@]} host script(s), ${#guest_sh[@]} guest script(s)"
exit $fail
