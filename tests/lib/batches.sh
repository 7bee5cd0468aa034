# shellcheck shell=bash
# batches.sh: sourced by the host scripts that run a long campaign in
# QEMU boots of BATCH items each (tests/corrupt/campaign.sh,
# tests/crash/long.sh).

# run_batches NAME WHAT TOTAL START BATCH BASE RUN: items START ..
# START+TOTAL-1 in batches of BATCH.  For each batch S..E: RUN DIR S E,
# its output to DIR/out.log (DIR: BASE/S-E, made first), whose verdicts
# (DIR/verdicts, the verdict in the fifth field: pass, fail, ...) are
# added to BASE/verdicts; then a line "NAME: DONE/TOTAL WHAT (S..E done):
# N passed, N failed; Ts, ~Ts to go".  BASE/verdicts is emptied first.
# Sets batches_secs, the seconds it all took.  (Its locals start with b_:
# RUN sees them.)
run_batches() {
	local b_name=$1 b_what=$2 b_total=$3 b_start=$4 b_batch=$5 b_base=$6 b_run=$7
	local b_t0 b_s b_e b_end b_dir b_done b_secs b_np b_nf
	: >"$b_base/verdicts"
	b_t0=$(date +%s)
	b_s=$b_start
	b_end=$((b_start + b_total - 1))
	while ((b_s <= b_end)); do
		b_e=$((b_s + b_batch - 1))
		((b_e > b_end)) && b_e=$b_end
		b_dir=$b_base/$b_s-$b_e
		mkdir -p "$b_dir"
		"$b_run" "$b_dir" "$b_s" "$b_e" >"$b_dir/out.log" 2>&1
		cat "$b_dir/verdicts" >>"$b_base/verdicts" 2>/dev/null
		b_done=$((b_e - b_start + 1))
		b_secs=$(($(date +%s) - b_t0))
		b_np=$(awk -F'\t' '$5 == "pass"' "$b_base/verdicts" | wc -l)
		b_nf=$(awk -F'\t' '$5 == "fail"' "$b_base/verdicts" | wc -l)
		echo "$b_name: $b_done/$b_total $b_what ($b_s..$b_e done): $b_np passed, $b_nf failed; ${b_secs}s, ~$((b_secs * (b_total - b_done) / b_done))s to go"
		b_s=$((b_e + 1))
	done
	# shellcheck disable=SC2034 # the caller reads it
	batches_secs=$(($(date +%s) - b_t0))
}
