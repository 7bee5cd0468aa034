#!/bin/bash
# repro.sh BASE MUTATION SEED: one corrupted image of the campaign again,
# in a boot of its own with the console on the terminal, judged the same
# way; its files (dmesg, manifest, e2fsck output) go to
# build/results/corrupt-repro/.  The same corrupted bytes on the host:
#   cp build/corrupt/base/BASE.img x.img && build/bin/fccorrupt apply x.img MUTATION SEED
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: tests/corrupt/repro.sh BASE MUTATION SEED (bases: b4k b1k b4k128; mutations: build/bin/fccorrupt mutations)" >&2; exit 2; }
export SEQ=corrupt/repro RESULTS
RESULTS=$(cd "$(dirname "$0")/../.." && pwd)/build/results/corrupt-repro
rm -rf "$RESULTS"
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
# shellcheck source=lib/host.sh
. "$TOP/tests/corrupt/lib/host.sh"
corrupt_need
corrupt_bases
line=$(corrupt_expect "$1" "$2" "$3")
[[ "$line" == mutation=* ]] || _fail "fccorrupt apply -n build/corrupt/base/$1.img $2 $3: ${line:-no target in this base}"
mapfile -t names < <(corrupt_base_names)
b=-1
for i in "${!names[@]}"; do
	[[ "${names[i]}" == "$1" ]] && b=$i
done
((b >= 0)) || _fail "no base image $1 (have: ${names[*]})"
id=$3-$2-$1
echo "$id $1 $(corrupt_disk "$b") $2 $3" >"$RESULTS/plan"
printf '%s\t%s\n' "$id" "$line" >"$RESULTS/plan.expect"
echo "oracle: $line"
CORRUPT_VERBOSE=1 corrupt_run "$RESULTS/plan"
d=$RESULTS/guest/img/$id
echo "--- kernel log of the image ($d/dmesg):"
cat "$d/dmesg"
corrupt_report "repro $id"
