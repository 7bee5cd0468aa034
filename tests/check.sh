#!/bin/bash
# check.sh [TEST...]: run the test suite, fstests style.
#
# Tests are executables tests/<group>/<NNN> (host bash, most boot QEMU via
# run-qemu.sh).  With no argument all run, in order; an argument selects a
# test (ext4fc/003) or a group (ext4fc).  Per test: one line
# "<group>/<NNN> <secs>s ... pass|fail|notrun: why", its full output in
# build/results/check/<group>/<NNN>/out.log.  At the end: the failures and
# skips with reasons, JUnit XML in build/results/check/junit.xml, and
# "N passed, N failed, N skipped".  Exit status 0 only if nothing failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
results=${RESULTS_DIR:-$top/build/results/check}
timeout_s=${TEST_TIMEOUT:-900}
mkdir -p "$results"

mapfile -t all < <(cd "$top/tests" && find . -mindepth 2 -maxdepth 2 -type f -regex '.*/[0-9][0-9][0-9]$' | sed 's|^\./||' | sort)
sel=()
if (($#)); then
	for a in "$@"; do
		found=0
		for t in "${all[@]}"; do
			if [[ "$t" == "$a" || "${t%%/*}" == "$a" ]]; then
				sel+=("$t")
				found=1
			fi
		done
		((found)) || { echo "check: no test or group '$a' (have: ${all[*]})" >&2; exit 2; }
	done
else
	sel=("${all[@]}")
fi

xml_escape() {
	sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'
}

pass=0 failn=0 skip=0
declare -a failed skipped cases
t0=$(date +%s)
for t in "${sel[@]}"; do
	dir=$results/$t
	rm -rf "$dir"
	mkdir -p "$dir"
	start=$(date +%s)
	rc=0
	SEQ=$t RESULTS=$dir timeout --foreground -k 10 "$timeout_s" \
		"$top/tests/$t" >"$dir/out.log" 2>&1 </dev/null || rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0)
		echo "$t ${secs}s ... pass"
		pass=$((pass + 1))
		cases+=("<testcase classname=\"${t%%/*}\" name=\"$t\" time=\"$secs\"/>")
		;;
	77)
		why=$(grep '^NOTRUN:' "$dir/out.log" | tail -n 1 | sed 's/^NOTRUN: //')
		echo "$t ${secs}s ... notrun: ${why:-no reason given}"
		skip=$((skip + 1))
		skipped+=("$t: ${why:-no reason given}")
		cases+=("<testcase classname=\"${t%%/*}\" name=\"$t\" time=\"$secs\"><skipped message=\"$(xml_escape <<<"$why")\"/></testcase>")
		;;
	*)
		[[ $rc == 124 ]] && echo "TIMEOUT after ${timeout_s}s" >>"$dir/out.log"
		why=$(grep -E '^(FAIL|TIMEOUT)' "$dir/out.log" | tail -n 1)
		echo "$t ${secs}s ... fail (status $rc): ${why:-see log}"
		sed 's/^/    /' "$dir/out.log" | tail -n 15
		echo "    (full output: $dir/out.log)"
		failn=$((failn + 1))
		failed+=("$t: ${why:-status $rc}")
		cases+=("<testcase classname=\"${t%%/*}\" name=\"$t\" time=\"$secs\"><failure message=\"$(xml_escape <<<"${why:-status $rc}")\"><![CDATA[$(tail -n 50 "$dir/out.log")]]></failure></testcase>")
		;;
	esac
done
total=$(($(date +%s) - t0))

{
	echo '<?xml version="1.0" encoding="UTF-8"?>'
	echo "<testsuite name=\"ext4fc\" tests=\"${#sel[@]}\" failures=\"$failn\" skipped=\"$skip\" time=\"$total\">"
	printf '%s\n' "${cases[@]}"
	echo "</testsuite>"
} >"$results/junit.xml"

echo "Ran: ${sel[*]} in ${total}s"
if ((skip)); then
	echo "Not run:"
	printf '  %s\n' "${skipped[@]}"
fi
if ((failn)); then
	echo "Failures:"
	printf '  %s\n' "${failed[@]}"
fi
echo "$pass passed, $failn failed, $skip skipped"
((failn == 0))
