#!/bin/bash
# bench/report.sh DIR: DIR/runs.csv (one line per run, from bench.guest)
# -> DIR/results.csv, DIR/table.md and DIR/plot.png.
#
# Per device, workload and configuration: the mean throughput of the runs
# and its spread (half the range, in % of the mean), the mean of each run's
# latency percentiles, and counters summed over the runs, from which the
# per-fsync figures come: device KiB written, journal KiB (full-commit
# blocks + fast-commit blocks), flushes and write I/Os per fsync, fsyncs
# per full commit, FUA writes per fsync (block_rq_issue, see bench.guest).
# Ratios: ext4fc+fc against ext4+fc (stock, our anchor)
# and against ext4fc-nofc (what fast commits gain); the peers (ext4fc+iso:
# ext4fc with fsync_isolation; ext4fc+sf: with fc_selective_flush;
# ext4fc+batch: with group commit's window; XFS, btrfs) in tables of their
# own, and selective flushing's flushes and FUA writes in one.  Where
# a workload changes xattrs (fsmark-sec), a table of how many of the
# commits fell back to full ones: fc_info's ineligible commits and its
# "Extended attributes changed" count.
# DIR/settings.txt, when there, heads the table.
set -euo pipefail

prog=bench/report.sh
if [[ $# -ne 1 || ! -r $1/runs.csv ]]; then
	echo "usage: $prog DIR   (DIR/runs.csv from bench/run.sh)" >&2
	exit 2
fi
dir=$1

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
awk -F, -v out_csv="$dir/results.csv" -v out_md="$dir/table.md.body" \
    -v out_dat="$dir/plot.dat" -v logs="$dir/guest/log" \
    -f "$here/report.awk" "$dir/runs.csv"

{
	echo "# ext4fc benchmarks"
	echo
	if [[ -r $dir/settings.txt ]]; then
		echo '```'
		cat "$dir/settings.txt"
		echo '```'
		echo
	fi
	cat "$dir/table.md.body"
} >"$dir/table.md"
rm -f "$dir/table.md.body"

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "$prog: gnuplot not found: no plot.png (install gnuplot-nox, or run 'make deps')" >&2
	exit 0
fi
ncells=$(wc -l <"$dir/plot.dat")
width=$((ncells * 70 + 300))
((width >= 900)) || width=900
gnuplot <<EOF 2>"$dir/gnuplot.log" || echo "$prog: gnuplot failed: see $dir/gnuplot.log" >&2
set terminal pngcairo size $width,1000 font "sans,10"
set output "$dir/plot.png"
set datafile missing "NaN"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -35 noenhanced nomirror
set key outside right top noenhanced
set grid ytics
set multiplot layout 2,1 title "ext4fc vs stock ext4, fast commits on and off (one boot; $(sed -n 's/^date: //p' "$dir/settings.txt" 2>/dev/null))"
set title "throughput relative to stock ext4+fc (higher is better)"
set ylabel "x ext4+fc"
set yrange [0:*]
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "#555555"
plot "$dir/plot.dat" using 2:xtic(1) title "ext4fc+fc" lc rgb "#1f77b4", \
     "" using 3 title "ext4fc-nofc" lc rgb "#aec7e8", \
     "" using 4 title "ext4+fc" lc rgb "#d62728", \
     "" using 5 title "ext4-nofc" lc rgb "#ff9896"
set title "device KiB written per fsync (lower is better, log scale)"
set ylabel "KiB / fsync"
unset arrow 1
set logscale y
set yrange [*:*]
plot "$dir/plot.dat" using 6:xtic(1) title "ext4fc+fc" lc rgb "#1f77b4", \
     "" using 7 title "ext4fc-nofc" lc rgb "#aec7e8", \
     "" using 8 title "ext4+fc" lc rgb "#d62728", \
     "" using 9 title "ext4-nofc" lc rgb "#ff9896"
unset multiplot
EOF
[[ -s $dir/gnuplot.log ]] || rm -f "$dir/gnuplot.log"
