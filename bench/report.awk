# bench/report.awk: the tables of bench/report.sh (see there), from
# DIR/runs.csv (-F,) and each ext4fc run's fc_info (LOGS/N.fc_info).
# Variables: out_csv (results.csv), out_md (the tables), out_dat (the
# plot's data), logs (bench.guest's log directory).
function mean(s, n) { return n ? s / n : 0 }
function fmt(v) { return v == "" ? "-" : sprintf(v >= 100 ? "%.0f" : "%.3g", v) }
function fmt1(v) { return sprintf(v >= 100 ? "%.0f" : (v >= 10 ? "%.1f" : "%.2f"), v) }
function per(a, b) { return b > 0 ? a / b : "" }
# section TITLE INTRO HEADER RULE: heading, intro and head rows of a table
function section(t, intro, h, r) {
	print "\n## " t "\n" >out_md
	print intro "\n" >out_md
	print h >out_md
	print r >out_md
}
# inpct K: ineligible commits in % of the commits fsyncs made (fast +
# ineligible), or "" where fast commits are off
function inpct(k) {
	return fast[k] + inel[k] > 0 ? sprintf("%.1f", inel[k] * 100 / (fast[k] + inel[k])) : ""
}
# winrow(K, WHAT, W): the fc_info line "... (us, last N): p50 A p99 B max C"
# split into W; sums the p50 and p99 of the runs, keeps the largest max
function winrow(k, what, w,    e) {
	for (e = 1; e in w; e++) {
		if (w[e] == "p50") win[k, what, "p50"] += w[e + 1]
		if (w[e] == "p99") win[k, what, "p99"] += w[e + 1]
		if (w[e] == "max" && w[e + 1] + 0 > win[k, what, "max"]) win[k, what, "max"] = w[e + 1] + 0
	}
	nwin[k, what]++
}
function ratio(a, b) { return (a != "" && b != "" && b > 0) ? sprintf("%.3f", a / b) : "" }
# overlap K1 K2: the min..max ranges of two configurations overlap.
function overlap(k1, k2) { return n[k1] > 1 && n[k2] > 1 && lo[k1] <= hi[k2] && lo[k2] <= hi[k1] }
function rcell(k1, k2, r) {
	if (r == "")
		return "-"
	return r (overlap(k1, k2) ? " ~" : "")
}
NR == 1 { next }
{
	cell = $3 SUBSEP $4
	if (!(cell in seen)) {
		seen[cell] = 1
		cells[++ncells] = cell
	}
	k = cell SUBSEP $5
	n[k]++
	t = $7 + 0
	st[k] += t
	if (n[k] == 1 || t < lo[k]) lo[k] = t
	if (n[k] == 1 || t > hi[k]) hi[k] = t
	unit[cell] = $8
	if ($9 != "") { p50[k] += $9; p99[k] += $10; lat[k]++ }
	if ($11 != "") { mx[k] += $11; nmx[k]++ }
	fs[k] += $12; full[k] += $14; fast[k] += $15; inel[k] += $16
	fcb[k] += $17; jb[k] += $18; wio[k] += $19; sec[k] += $20; fl[k] += $21
	# fc_info "Extended attributes changed" and "in-inode xattr changes
	# logged" (columns bench.guest added later: empty in older runs.csv)
	xmark[k] += $23; xinode[k] += $24
	# FUA write and flush requests issued to the disk (block_rq_issue;
	# empty in older runs.csv)
	fua[k] += $25; rqfl[k] += $26
	if ($25 + 0 > 0)
		fuacell[cell] = 1
	if ($23 + $24 > 0)
		xcell[cell] = 1
	# extra: NAME=VALUE, or the pairs of the interference workload
	# (write_p99_us=..;write_p999_us=..;write_max_us=..;creates=..)
	if ($22 ~ /^write_p99_us=/) {
		ne = split($22, xp, ";")
		for (e = 1; e <= ne; e++) {
			split(xp[e], kv, "=")
			wl[k, kv[1]] += kv[2]
		}
		nw[k]++
		wcell[cell] = 1
	} else if ($22 ~ /=/) {
		split($22, kv, "="); xname[cell] = kv[1]; xs[k] += kv[2]; nx[k]++
	}
	# ext4fc+fc, +iso, +batch: their fc_info after the run
	# (guest/log/N.fc_info; a fresh mount per run, so the counts are
	# those of the run)
	if ($5 ~ /^ext4fc\+/) {
		f = logs "/" $1 ".fc_info"
		while ((getline line <f) > 0) {
			split(line, w, " ")
			if (w[2] == "commits") fcc[k] += w[1]
			else if (w[2] == "area" && w[3] == "full") { afull[k] += w[1]; nafull[k]++ }
			else if (w[2] == "background") bgc[k] += w[1]
			else if (w[2] == "fsyncs" && w[3] == "answered") ans[k] += w[1]
			else if (w[2] == "isolated") iso[k] += w[1]
			else if (w[2] == "batching") { bwin[k] += w[1]; bwait[k] += w[4]; nbw[k]++ }
			else if (w[2] == "fsyncs" && w[3] == "waited") { fwait[k] += w[1]; fwaitus[k] += w[8] + 0; nfw[k]++ }
			else if (w[2] == "fc" && w[3] == "blocks" && w[4] == "per") { fcbpc[k] += w[1]; nfcbpc[k]++ }
			# "N fast commits without a cache flush, M with one (...)"
			else if (w[2] == "fast" && w[3] == "commits" && w[4] == "without" && w[6] == "cache") {
				nofl[k] += w[1]; withfl[k] += w[8]; nnofl[k]++
			}
			else if (w[1] == "handles" && w[2] == "drained") winrow(k, "drain", w)
			else if (w[1] == "lock" && w[2] == "window") winrow(k, "window", w)
			else if (w[1] == "time" && w[2] == "per" && w[4] == "commit") {
				# choosing A records B data C fc blocks D
				ph[k, "choose"] += w[7]; ph[k, "records"] += w[9]
				ph[k, "data"] += w[11]; ph[k, "blocks"] += w[14]; nph[k]++
			}
		}
		close(f)
	}
}
END {
	nc = split("ext4fc+fc ext4fc-nofc ext4+fc ext4-nofc", C, " ")
	# the peers: in a table of their own, results.csv and interfere
	# (P[1..NPE] are ext4fc peers, the others file systems)
	np = split("ext4fc+iso ext4fc+sf ext4fc+iso+sf ext4fc+batch xfs btrfs", P, " ")
	NPE = 4
	ncp = split("ext4fc+fc ext4fc+sf ext4fc+iso ext4fc+iso+sf ext4fc+batch ext4fc-nofc ext4+fc ext4-nofc xfs btrfs", CP, " ")
	npc = split("ext4fc+fc ext4fc+iso ext4fc+sf ext4fc+iso+sf ext4fc+batch ext4+fc ext4-nofc xfs btrfs", PC, " ")
	# the configurations with fast-commit counters; those compared with
	# the other file systems (the peers from P[NPE + 1] on)
	nfcc = split("ext4fc+fc ext4fc+sf ext4fc+iso ext4fc+iso+sf ext4fc+batch", FCC, " ")
	nfcp = split("ext4fc+fc ext4fc+iso", FCP, " ")
	A = "ext4fc+fc"; B = "ext4fc-nofc"; S = "ext4+fc"
	for (k in n)
		m[k] = mean(st[k], n[k])
	print "device,workload,config,runs,tput_mean,tput_min,tput_max,unit,p50_us,p99_us,max_us,fsyncs_per_run,full_commits_per_run,fast_commits_per_run,fc_ineligible_per_run,fsyncs_per_full_commit,dev_kib_per_fsync,journal_kib_per_fsync,flushes_per_fsync,write_ios_per_fsync,extra,tput_vs_ext4+fc,tput_vs_ext4fc-nofc,commits_per_fsync,ineligible_pct,fc_reason_xattr_per_run,fc_xattr_in_inode_per_run,fua_writes_per_fsync,tput_vs_ext4fc+fc,fc_no_flush_per_run" >out_csv
	for (i = 1; i <= ncells; i++) {
		split(cells[i], dw, SUBSEP)
		for (j = 1; j <= ncp; j++) {
			k = cells[i] SUBSEP CP[j]
			if (!n[k])
				continue
			q50[k] = lat[k] ? p50[k] / lat[k] : ""
			q99[k] = lat[k] ? p99[k] / lat[k] : ""
			qmx[k] = nmx[k] ? mx[k] / nmx[k] : ""
			x[k] = nx[k] ? sprintf("%s=%.1f", xname[cells[i]], xs[k] / nx[k]) : ""
			ra = rb = rf = ""
			if (CP[j] == A) {
				ra = ratio(m[k], m[cells[i] SUBSEP S])
				rb = ratio(m[k], m[cells[i] SUBSEP B])
			} else if (CP[j] ~ /^ext4fc\+/) {
				# the ext4fc peers: against stock and ext4fc+fc
				ra = ratio(m[k], m[cells[i] SUBSEP S])
				rf = ratio(m[k], m[cells[i] SUBSEP A])
			}
			printf "%s,%s,%s,%d,%.2f,%.2f,%.2f,%s,%s,%s,%s,%.1f,%.1f,%.1f,%.1f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.1f,%.1f,%s,%s,%s\n",
				dw[1], dw[2], CP[j], n[k], m[k], lo[k], hi[k], unit[cells[i]],
				q50[k] == "" ? "" : sprintf("%.0f", q50[k]),
				q99[k] == "" ? "" : sprintf("%.0f", q99[k]),
				qmx[k] == "" ? "" : sprintf("%.0f", qmx[k]),
				fs[k] / n[k], full[k] / n[k], fast[k] / n[k], inel[k] / n[k],
				full[k] ? sprintf("%.2f", fs[k] / full[k]) : "",
				fs[k] ? sprintf("%.2f", sec[k] / 2 / fs[k]) : "",
				fs[k] ? sprintf("%.2f", (jb[k] + fcb[k]) * 4 / fs[k]) : "",
				fs[k] ? sprintf("%.3f", fl[k] / fs[k]) : "",
				fs[k] ? sprintf("%.3f", wio[k] / fs[k]) : "",
				x[k], ra, rb,
				fs[k] ? sprintf("%.3f", (full[k] + fast[k]) / fs[k]) : "",
				inpct(k), xmark[k] / n[k], xinode[k] / n[k],
				fs[k] ? sprintf("%.3f", fua[k] / fs[k]) : "", rf,
				nnofl[k] == n[k] ? sprintf("%.1f", nofl[k] / n[k]) : "" >out_csv
		}
	}

	print "## Throughput\n" >out_md
	print "Mean of the runs, ± half their range in % of the mean.  Ratios are of the means; \"~\": the ranges of runs of the two configurations overlap (no difference shown).\n" >out_md
	print "| device | workload | unit | ext4fc+fc | ext4fc-nofc | ext4+fc | ext4-nofc | ext4fc+fc / ext4+fc | ext4fc+fc / ext4fc-nofc |" >out_md
	print "|---|---|---|--:|--:|--:|--:|--:|--:|" >out_md
	for (i = 1; i <= ncells; i++) {
		split(cells[i], dw, SUBSEP)
		line = "| " dw[1] " | " dw[2] " | " unit[cells[i]]
		for (j = 1; j <= nc; j++) {
			k = cells[i] SUBSEP C[j]
			if (!n[k]) { line = line " | -"; continue }
			sp = m[k] > 0 ? (hi[k] - lo[k]) / 2 / m[k] * 100 : 0
			line = line " | " fmt1(m[k]) (n[k] > 1 ? sprintf(" ±%.0f%%", sp) : "")
		}
		ka = cells[i] SUBSEP A
		line = line " | " rcell(ka, cells[i] SUBSEP S, ratio(m[ka], m[cells[i] SUBSEP S]))
		line = line " | " rcell(ka, cells[i] SUBSEP B, ratio(m[ka], m[cells[i] SUBSEP B])) " |"
		print line >out_md
		if (xname[cells[i]] != "") {
			xl = ""
			for (j = 1; j <= nc; j++)
				if (x[cells[i] SUBSEP C[j]] != "")
					xl = xl (xl == "" ? "" : ", ") C[j] " " x[cells[i] SUBSEP C[j]]
			notes[++nnotes] = dw[1] "/" dw[2] ": " xl
		}
	}
	for (i = 1; i <= nnotes; i++)
		print (i == 1 ? "\n" : "") "- " notes[i] >out_md

	hdr = 0
	for (i = 1; i <= ncells; i++) {
		any = 0
		for (j = 1; j <= np; j++)
			if (n[cells[i] SUBSEP P[j]])
				any = 1
		if (!any)
			continue
		if (!hdr++)
			section("The peers: ext4fc with fsync_isolation, selective flushing or group commit, XFS and btrfs",
				"The same workload on the same device in the same boot: ext4fc mounted with fsync_isolation (ext4fc+iso: an fsync commits its file and what that depends on), with fc_selective_flush (ext4fc+sf: fast commits FUA-only where nothing needs ordering; ext4fc+iso+sf: both options), ext4fc with group commit\047s batching window (ext4fc+batch: fc_batch_max_us=15000), XFS and btrfs (mkfs defaults, no discard; btrfs logs fsyncs in its log tree, its fast-commit analogue).  Throughput in the workload\047s unit, mean of the runs, and fsync p99 in us where the workload measures it.  Ratios of the throughput.",
				"| device | workload | unit | ext4fc+fc | ext4fc+iso | ext4fc+sf | ext4fc+iso+sf | ext4fc+batch | ext4+fc | ext4-nofc | xfs | btrfs | ext4fc+iso / ext4+fc | ext4fc+sf / ext4+fc | ext4fc+iso+sf / ext4+fc | ext4fc+batch / ext4+fc | ext4fc+fc / xfs | ext4fc+fc / btrfs | ext4fc+iso / xfs | ext4fc+iso / btrfs |",
				"|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
		split(cells[i], dw, SUBSEP)
		line = "| " dw[1] " | " dw[2] " | " unit[cells[i]]
		for (j = 1; j <= npc; j++) {
			k = cells[i] SUBSEP PC[j]
			if (!n[k]) { line = line " | -"; continue }
			line = line " | " fmt1(m[k]) (q99[k] != "" ? sprintf(" (p99 %.0f)", q99[k]) : "")
		}
		ks = cells[i] SUBSEP S
		for (j = 1; j <= NPE; j++) {
			ki = cells[i] SUBSEP P[j]
			line = line " | " rcell(ki, ks, ratio(n[ki] ? m[ki] : "", m[ks]))
		}
		for (a = 1; a <= nfcp; a++) {
			ka = cells[i] SUBSEP FCP[a]
			for (j = NPE + 1; j <= np; j++) {
				kp = cells[i] SUBSEP P[j]
				line = line " | " rcell(ka, kp, ratio(n[ka] ? m[ka] : "", n[kp] ? m[kp] : ""))
			}
		}
		print line " |" >out_md
	}

	print "\n## fsync latency\n" >out_md
	print "Microseconds, p50 / p99 / max, each the mean of the per-run values; dbench reports only its max (over all operations); sqlite-wal and sqlite-delete report per transaction (its fsyncs and all).\n" >out_md
	print "| device | workload | ext4fc+fc | ext4fc-nofc | ext4+fc | ext4-nofc | p99 ext4fc+fc / ext4+fc | p99 ext4fc+fc / ext4fc-nofc |" >out_md
	print "|---|---|--:|--:|--:|--:|--:|--:|" >out_md
	for (i = 1; i <= ncells; i++) {
		split(cells[i], dw, SUBSEP)
		any = 0
		line = "| " dw[1] " | " dw[2]
		for (j = 1; j <= nc; j++) {
			k = cells[i] SUBSEP C[j]
			if (q99[k] == "" && qmx[k] == "") { line = line " | -"; continue }
			any = 1
			if (q99[k] == "")
				line = line " | max " sprintf("%.0f", qmx[k])
			else
				line = line sprintf(" | %.0f / %.0f / %.0f", q50[k], q99[k], qmx[k])
		}
		ka = cells[i] SUBSEP A
		line = line " | " (ratio(q99[ka], q99[cells[i] SUBSEP S]) == "" ? "-" : ratio(q99[ka], q99[cells[i] SUBSEP S]))
		line = line " | " (ratio(q99[ka], q99[cells[i] SUBSEP B]) == "" ? "-" : ratio(q99[ka], q99[cells[i] SUBSEP B])) " |"
		if (any)
			print line >out_md
	}

	hdr = 0
	for (i = 1; i <= ncells; i++) {
		if (!(cells[i] in wcell))
			continue
		if (!hdr++)
			section("The threads that do not fsync (interfere)",
				"Three threads at once: appends + fsync, a buffered 4 KiB writer that never fsyncs, create + 100 B + close.  The writer: write() latency in microseconds, p99 / p99.9 / max (means of the per-run values); creates per run; the fsync thread\047s fsync p50 in microseconds.  Ratios of the writer p99.9 (to ext4fc+fc: what fsync_isolation or selective flushing change), and of the fsync p50 to stock\047s.",
				"| device | workload | config | write p99 | write p99.9 | write max | creates | fsync p50 | p99.9 / ext4+fc | p99.9 / ext4-nofc | p99.9 / ext4fc+fc | fsync p50 / ext4+fc |",
				"|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
		split(cells[i], dw, SUBSEP)
		ks = cells[i] SUBSEP S
		kn = cells[i] SUBSEP "ext4-nofc"
		kf = cells[i] SUBSEP A
		for (j = 1; j <= ncp; j++) {
			k = cells[i] SUBSEP CP[j]
			if (!nw[k])
				continue
			w999 = wl[k, "write_p999_us"] / nw[k]
			printf "| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %s | %s | %s | %s | %s |\n",
				dw[1], dw[2], CP[j], wl[k, "write_p99_us"] / nw[k], w999,
				wl[k, "write_max_us"] / nw[k], wl[k, "creates"] / nw[k],
				q50[k] == "" ? "-" : sprintf("%.0f", q50[k]),
				nw[ks] ? ratio(w999, wl[ks, "write_p999_us"] / nw[ks]) : "-",
				nw[kn] ? ratio(w999, wl[kn, "write_p999_us"] / nw[kn]) : "-",
				nw[kf] && CP[j] != A ? ratio(w999, wl[kf, "write_p999_us"] / nw[kf]) : "-",
				ratio(q50[k], q50[ks]) == "" ? "-" : ratio(q50[k], q50[ks]) >out_md
		}
	}

	print "\n## Commits and writes per fsync\n" >out_md
	print "Per run (mean): fsyncs (counted in the kernel: ext4_sync_file_enter; the peers XFS and btrfs: the workload\047s count), full commits (jbd2 transactions), fast commits and ineligible (fallback) commits (fc_info).  Per fsync, over all runs: KiB the device wrote (/sys/block/DEV/stat field 7), journal KiB (full-commit blocks, from jbd2 info as average x count, + fast-commit blocks), cache flushes (field 16), FUA writes (write requests issued with FUA, block_rq_issue: 0 on virtio-blk, which has no FUA) and write I/Os (field 5).\n" >out_md
	print "| device | workload | config | fsyncs | full commits | fast commits | ineligible | fsyncs / full commit | device KiB / fsync | journal KiB / fsync | flushes / fsync | FUA writes / fsync | write I/Os / fsync |" >out_md
	print "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|" >out_md
	for (i = 1; i <= ncells; i++) {
		split(cells[i], dw, SUBSEP)
		for (j = 1; j <= ncp; j++) {
			k = cells[i] SUBSEP CP[j]
			if (!n[k])
				continue
			printf "| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %s | %s | %s | %s | %s | %s |\n",
				dw[1], dw[2], CP[j], fs[k] / n[k], full[k] / n[k],
				fast[k] / n[k], inel[k] / n[k],
				full[k] ? sprintf("%.1f", fs[k] / full[k]) : "-",
				fs[k] ? fmt1(sec[k] / 2 / fs[k]) : "-",
				fs[k] ? fmt1((jb[k] + fcb[k]) * 4 / fs[k]) : "-",
				fs[k] ? sprintf("%.2f", fl[k] / fs[k]) : "-",
				fs[k] ? sprintf("%.2f", fua[k] / fs[k]) : "-",
				fs[k] ? sprintf("%.2f", wio[k] / fs[k]) : "-" >out_md
		}
	}

	# Selective flushing (issue 30): where ext4fc+sf ran, or the disk
	# saw FUA writes (the NVMe disk).
	hdr = 0
	for (i = 1; i <= ncells; i++) {
		if (!(cells[i] in fuacell) && !n[cells[i] SUBSEP "ext4fc+sf"] && !n[cells[i] SUBSEP "ext4fc+iso+sf"])
			continue
		if (!hdr++)
			section("Cache flushes and FUA writes (selective flushing)",
				"Issue 30.  ext4fc+sf: ext4fc mounted with fc_selective_flush (a fast commit with nothing to order is written FUA, without a cache flush).  Throughput (mean of the runs) and its ratios; per fsync over all runs: cache flushes (/sys/block/DEV/stat field 16), FUA writes (write requests issued to the disk with FUA, block_rq_issue) and write I/Os (field 5).  Per run, from fc_info (ext4fc): fast commits, and of them those written without a cache flush and with one (\"-\": an fc_info without that line).  On virtio-blk (no FUA) the block layer turns each FUA into a flush after the write.",
				"| device | workload | config | throughput | / ext4+fc | / ext4fc+fc | fsyncs | flushes / fsync | FUA writes / fsync | write I/Os / fsync | fast commits | without a flush | with one |",
				"|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
		split(cells[i], dw, SUBSEP)
		ks = cells[i] SUBSEP S
		kf = cells[i] SUBSEP A
		for (j = 1; j <= ncp; j++) {
			k = cells[i] SUBSEP CP[j]
			if (!n[k])
				continue
			printf "| %s | %s | %s | %s %s | %s | %s | %.0f | %s | %s | %s | %.0f | %s | %s |\n",
				dw[1], dw[2], CP[j], fmt1(m[k]), unit[cells[i]],
				CP[j] == S ? "-" : rcell(k, ks, ratio(m[k], m[ks])),
				CP[j] == A ? "-" : rcell(k, kf, ratio(m[k], m[kf])),
				fs[k] / n[k],
				fs[k] ? sprintf("%.2f", fl[k] / fs[k]) : "-",
				fs[k] ? sprintf("%.2f", fua[k] / fs[k]) : "-",
				fs[k] ? sprintf("%.2f", wio[k] / fs[k]) : "-",
				fast[k] / n[k],
				nnofl[k] == n[k] ? sprintf("%.1f", nofl[k] / n[k]) : "-",
				nnofl[k] == n[k] ? sprintf("%.1f", withfl[k] / n[k]) : "-" >out_md
		}
	}

	hdr = 0
	for (i = 1; i <= ncells; i++) {
		if (!(cells[i] in xcell))
			continue
		if (!hdr++)
			section("Fast commits or full: xattrs at create (fsmark-sec)",
				"Every file inherits an ACL and gets a security.selinux label (bench/src/fsmarksec.c); mkfs.ext4 -I 256 (fsmark-sec) or -I 512 (fsmark-sec512).  Per run (mean): fsyncs, fast commits, ineligible commits (fsyncs that found the transaction ineligible, or whose fast commit failed, and made a full commit; fc_info), and the % of the commits fsyncs made (fast + ineligible) that were ineligible.  Commits per fsync: (full + fast) / fsyncs.  Per fsync: xattr changes that made the transaction ineligible (fc_info \"Extended attributes changed\", counted per mark: stock marks each xattr change more than once), xattr changes a fast commit logged in the inode record (ext4fc), journal KiB and device KiB.  Throughput ratio to stock ext4+fc.",
				"| device | workload | config | files/s | fsyncs | fast commits | ineligible | % ineligible | commits / fsync | xattr marks / fsync | in-inode xattrs / fsync | journal KiB / fsync | device KiB / fsync | / ext4+fc |",
				"|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
		split(cells[i], dw, SUBSEP)
		ks = cells[i] SUBSEP S
		for (j = 1; j <= nc; j++) {
			k = cells[i] SUBSEP C[j]
			if (!n[k])
				continue
			pc = inpct(k)
			printf "| %s | %s | %s | %s | %.0f | %.0f | %.0f | %s | %s | %s | %s | %s | %s | %s |\n",
				dw[1], dw[2], C[j], fmt1(m[k]), fs[k] / n[k],
				fast[k] / n[k], inel[k] / n[k], pc == "" ? "-" : pc "%",
				fs[k] ? sprintf("%.2f", (full[k] + fast[k]) / fs[k]) : "-",
				fs[k] ? sprintf("%.2f", xmark[k] / fs[k]) : "-",
				fs[k] ? sprintf("%.2f", xinode[k] / fs[k]) : "-",
				fs[k] ? fmt1((jb[k] + fcb[k]) * 4 / fs[k]) : "-",
				fs[k] ? fmt1(sec[k] / 2 / fs[k]) : "-",
				rcell(k, ks, ratio(m[k], m[ks])) >out_md
		}
	}

	hdr = 0
	for (i = 1; i <= ncells; i++) {
		for (a = 1; a <= nfcc; a++) {
			k = cells[i] SUBSEP FCC[a]
			if (!n[k])
				continue
			if (!hdr++)
				section("The fast-commit area and group commit (ext4fc)",
					"From fc_info after each run.  Fsyncs a fast commit answered (its own, and those that waited for it and found their changes in it) per fast commit; fsyncs that fell back to a full commit because the area was full, per 10,000 fsyncs; full commits started in the background as the area filled (fc_full_commit_at), per run; fast commits that left queued inodes behind (fsync_isolation), per run; group commit\047s batching windows and the fsyncs that waited in them, per run; fsyncs that waited for a full commit to end, per run, and the ms they waited, per run.  \"-\": that fc_info has no such lines (modules older than them).",
					"| device | workload | config | fsyncs | fast commits | fsyncs / fast commit | area full / 10,000 fsyncs | background full commits | isolated fast commits | batching windows | fsyncs in them | fsyncs waiting for a full commit | ms they waited |",
					"|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
			split(cells[i], dw, SUBSEP)
			new = nafull[k] == n[k]
			newer = nbw[k] == n[k]
			printf "| %s | %s | %s | %.0f | %.0f | %s | %s | %s | %.1f | %s | %s | %s | %s |\n", dw[1], dw[2],
				FCC[a], fs[k] / n[k], fcc[k] / n[k],
				new && fcc[k] ? sprintf("%.2f", ans[k] / fcc[k]) : "-",
				new && fs[k] ? sprintf("%.1f", afull[k] * 10000 / fs[k]) : "-",
				new ? sprintf("%.1f", bgc[k] / n[k]) : "-", iso[k] / n[k],
				newer ? sprintf("%.1f", bwin[k] / n[k]) : "-",
				newer ? sprintf("%.1f", bwait[k] / n[k]) : "-",
				nfw[k] == n[k] ? sprintf("%.1f", fwait[k] / n[k]) : "-",
				nfw[k] == n[k] ? sprintf("%.1f", fwaitus[k] / 1000 / n[k]) : "-" >out_md
		}
	}

	hdr = 0
	for (i = 1; i <= ncells; i++) {
		for (a = 1; a <= nfcc; a++) {
			k = cells[i] SUBSEP FCC[a]
			if (!n[k] || !nwin[k, "window"])
				continue
			if (!hdr++)
				section("Lock windows and commit phases (ext4fc)",
					"From fc_info after each run (issue 32).  Per claim of the journal: how long new handles waited for the running ones to drain, and how long updates then stayed locked (the lock window); p50 and p99 are the means of those of the runs (each over its last 1,024 claims), max the largest.  Per fast commit, in us: freezing the queues (choosing), writing the records into fc blocks (updates locked), the data of the frozen inodes, and the I/O of the fc blocks.  fc blocks per fast commit.",
					"| device | workload | config | drain p50 | drain p99 | drain max | window p50 | window p99 | window max | choosing | records | data | fc blocks | fc blocks / fast commit |",
					"|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
			split(cells[i], dw, SUBSEP)
			nd = nwin[k, "drain"]; nwd = nwin[k, "window"]; np1 = nph[k]
			printf "| %s | %s | %s | %.0f | %.0f | %d | %.0f | %.0f | %d | %s | %s | %s | %s | %s |\n", dw[1], dw[2], FCC[a],
				nd ? win[k, "drain", "p50"] / nd : 0, nd ? win[k, "drain", "p99"] / nd : 0, win[k, "drain", "max"],
				win[k, "window", "p50"] / nwd, win[k, "window", "p99"] / nwd, win[k, "window", "max"],
				np1 ? sprintf("%.0f", ph[k, "choose"] / np1) : "-",
				np1 ? sprintf("%.0f", ph[k, "records"] / np1) : "-",
				np1 ? sprintf("%.0f", ph[k, "data"] / np1) : "-",
				np1 ? sprintf("%.0f", ph[k, "blocks"] / np1) : "-",
				nfcbpc[k] ? sprintf("%.2f", fcbpc[k] / nfcbpc[k]) : "-" >out_md
		}
	}

	# plot.dat: label, throughput / ext4+fc for each config, then
	# device KiB per fsync for each config.
	for (i = 1; i <= ncells; i++) {
		split(cells[i], dw, SUBSEP)
		base = n[cells[i] SUBSEP S] ? m[cells[i] SUBSEP S] : 0
		line = dw[1] "/" dw[2]
		for (j = 1; j <= nc; j++) {
			k = cells[i] SUBSEP C[j]
			line = line " " ((n[k] && base > 0) ? sprintf("%.4f", m[k] / base) : "NaN")
		}
		for (j = 1; j <= nc; j++) {
			k = cells[i] SUBSEP C[j]
			line = line " " ((n[k] && fs[k]) ? sprintf("%.3f", sec[k] / 2 / fs[k]) : "NaN")
		}
		print line >out_dat
	}
}
