#!/bin/bash
# check.sh [TEST...]: run the test suite, fstests style.
#
# Tests are executables tests/<group>/<NNN> (host bash, most boot QEMU via
# run-qemu.sh).  With no argument all run, in order; an argument selects a
# test (ext4fc/003) or a group (ext4fc).  First a line with how many tests
# and about how long: each test's time in its last run here
# (build/results/check/times), else in tests/expected-times (a reference
# run: 2 cores, TCG), else a minute.  Per test: one line
# "<group>/<NNN> <secs>s ... pass|fail|notrun: why", its full output in
# build/results/check/<group>/<NNN>/out.log.  At the end: the failures and
# skips with reasons, JUnit XML in build/results/check/junit.xml, and
# "N passed, N failed, N skipped".  Exit status 0 only if nothing failed.
#
# The crash suite's tests (crash/NNN) boot a guest each whose work is
# mostly one thread: CHECK_JOBS of them (default 2, 1: one at a time) run
# at once, on the two cores a guest alone leaves half idle.  Their lines
# still come in order, each when it and those before it are done.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
results=${RESULTS_DIR:-$top/build/results/check}
timeout_s=${TEST_TIMEOUT:-900}
jobs=${CHECK_JOBS:-2}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "check: CHECK_JOBS wants a number of tests at once (1 or more), not '$jobs'" >&2; exit 2; }

# Tests that may run beside one another: the crash suite's guests.
parallel() {
	[[ "$1" == crash/* ]]
}
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

# Seconds per test: this machine's last runs, else the reference.
times=$results/times
declare -A ran_here=() ref=()
if [[ -r "$top/tests/expected-times" ]]; then
	while read -r t s; do
		[[ "$s" =~ ^[0-9]+$ ]] && ref[$t]=$s
	done <"$top/tests/expected-times"
fi
if [[ -r "$times" ]]; then
	while read -r t s; do
		[[ "$s" =~ ^[0-9]+$ ]] && ran_here[$t]=$s
	done <"$times"
fi
est=0 par_est=0 n_here=0 n_ref=0 n_guess=0
for t in "${sel[@]}"; do
	if [[ -n "${ran_here[$t]:-}" ]]; then
		e=${ran_here[$t]} n_here=$((n_here + 1))
	elif [[ -n "${ref[$t]:-}" ]]; then
		e=${ref[$t]} n_ref=$((n_ref + 1))
	else
		e=60 n_guess=$((n_guess + 1))
	fi
	if parallel "$t"; then
		par_est=$((par_est + e))
	else
		est=$((est + e))
	fi
done
# the times are each test's own: those run side by side take about the
# longest of their share
est=$((est + par_est / jobs))
if ((est < 90)); then
	about="${est}s"
else
	about="$(((est + 30) / 60)) min"
fi
how=
((n_here)) && how+=", $n_here as long as their last run here"
((n_ref)) && how+=", $n_ref as in tests/expected-times (2 cores, TCG)"
((n_guess)) && how+=", $n_guess new, guessed at a minute"
echo "check: ${#sel[@]} test(s), about $about (${how#, })"

xml_escape() {
	sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'
}

pass=0 failn=0 skip=0
declare -a failed skipped cases

# run_test T: run T, its output to its out.log, "RC SECS" to its status
run_test() {
	local t=$1 dir=$results/$1 start rc=0
	start=$(date +%s)
	SEQ=$t RESULTS=$dir timeout --foreground -k 10 "$timeout_s" \
		"$top/tests/$t" >"$dir/out.log" 2>&1 </dev/null || rc=$?
	echo "$rc $(($(date +%s) - start))" >"$dir/status"
}

# report T: T's line (and on failure its log's tail), counts, times
report() {
	local t=$1 dir=$results/$1 rc secs why k
	read -r rc secs <"$dir/status"
	ran_here[$t]=$secs
	for k in "${!ran_here[@]}"; do
		echo "$k ${ran_here[$k]}"
	done | sort >"$times.new" && mv "$times.new" "$times"
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
}

# In order; a test that may run beside others starts as soon as fewer
# than $jobs run, any other waits for all of them.  Lines are printed in
# order: next is the first test not reported yet.
t0=$(date +%s)
next=0
running=0
report_done() {
	while ((next < ${#sel[@]})) && [[ -f "$results/${sel[next]}/status" ]]; do
		report "${sel[next]}"
		next=$((next + 1))
	done
}
for t in "${sel[@]}"; do
	rm -rf "${results:?}/$t"
	mkdir -p "$results/$t"
done
for t in "${sel[@]}"; do
	if parallel "$t" && ((jobs > 1)); then
		while ((running >= jobs)); do
			wait -n
			running=$((running - 1))
			report_done
		done
		run_test "$t" &
		running=$((running + 1))
	else
		wait
		running=0
		report_done
		run_test "$t"
		report_done
	fi
done
wait
report_done
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
