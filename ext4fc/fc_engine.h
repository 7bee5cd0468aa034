/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext4fc fast commits: the engine's state, and what the engine shares with
 * the rest of ext4 (ext4.h includes this header).
 *
 * The engine is in fc_commit.c (tracking and the commit path) and
 * fc_replay.c (recovery); the comments at the top of those files explain
 * it.  The on-disk records, the feature bits and the ineligibility
 * reasons are in fc_format.h, the record parser's interface in
 * fc_parse.h; this header includes both, and neither includes it.  What
 * is here, for the kernel only: the statistics, batching and replay state
 * that ext4.h embeds in struct ext4_sb_info, the ranges it embeds in
 * struct ext4_inode_info, and the engine's functions that the rest of
 * ext4 calls.
 */
#ifndef __EXT4FC_FC_ENGINE_H__
#define __EXT4FC_FC_ENGINE_H__

#include "fc_format.h"
#include "fc_parse.h"

/* Commit latency histogram: bucket i counts commits under 2^(i+4) us. */
#define EXT4FC_LAT_BUCKETS	16

/*
 * An inode remembers the logical blocks whose mapping changed since the
 * last commit as at most EXT4FC_RANGES disjoint ranges [start, end]
 * (struct ext4_inode_info's i_fc_ranges, fc_commit.c).
 */
#define EXT4FC_RANGES		16

struct ext4fc_range {
	ext4_lblk_t start;
	ext4_lblk_t end;	/* inclusive */
};

/* The last fast commits whose lock windows fc_info's percentiles cover. */
#define EXT4FC_WINDOWS		1024

/* Where a fast commit's time goes (fc_info: time per commit phase). */
enum {
	EXT4FC_PHASE_CHOOSE,	/* freezing the queues, isolation */
	EXT4FC_PHASE_RECORDS,	/* records into fc blocks, updates locked */
	EXT4FC_PHASE_DATA,	/* the frozen inodes' data, written, waited */
	EXT4FC_PHASE_BLOCKS,	/* the fc blocks, written, waited */
	EXT4FC_PHASES
};

/*
 * Group commit across threads (fc_batch()): the fsync of a thread other
 * than the last one to commit opens a batching window, and fsyncs that
 * come while it is open sleep until it closes, so that one snapshot
 * takes them all.  Under s_fc_lock.
 */
struct ext4fc_batch {
	pid_t last;		/* thread of the last fsync that committed */
	ktime_t end;		/* the open window closes then */
	/* group data (ext4_fc_fsync_data()) */
	struct list_head data_q;	/* fsyncs whose data waits (s_fc_lock) */
	struct mutex data_lock;		/* one writer of that data at a time */
	atomic_t ends;			/* commits ended (fc_cleanup()) */
};

/*
 * What fc_info shows, read without locks.  Three kinds of writers:
 *  - the commit that owns the journal (jbd2_fc_begin_commit() succeeded,
 *    so one at a time): its outcome, blocks, phase times and latency
 *    (fc_account()), the lock window (fc_unlock_updates()), the isolated
 *    commits and the inodes they left, the area full, the background full
 *    commits, and the fsync it answered;
 *  - anyone under s_fc_lock (fc_count() and the tracking paths): the
 *    reasons, in-inode xattrs, shifts, directory moves, directory fsyncs,
 *    fsyncs with nothing left to log, the selective-flush counts, the
 *    batching windows and the fsyncs that waited in one (fc_batch()),
 *    and the data written for several fsyncs at once (fc_group_data);
 *  - an fsync that did not get the journal, under neither: fc_fsyncs and
 *    the skipped commits when another commit covered it, the failed and
 *    ineligible commits when none could start, the waits for a full
 *    commit, and the time slept in batching windows.
 * A count that two of these bump, or the third alone, can lose a bump when
 * two writers race: a wrong count, nothing more.
 */
struct ext4_fc_stats {
	unsigned long fc_num_commits;		/* fast commits that made it */
	unsigned long fc_ineligible_commits;	/* fsyncs that needed a full one */
	unsigned long fc_failed_commits;	/* of those: a fast commit failed */
	unsigned long fc_area_full;		/* of those: the area was full */
	unsigned long fc_skipped_commits;	/* another commit covered us */
	unsigned long fc_fsyncs;		/* fsyncs fast commits answered */
	unsigned long fc_bg_full_commits;	/* started early, area filling */
	unsigned long fc_numblks;		/* fc blocks written */
	unsigned long fc_isolated;		/* fast commits that left some behind */
	unsigned long fc_left_queued;		/* inodes they left queued */
	unsigned long fc_xattr_in_inode;	/* xattr changes logged, inode */
	unsigned long fc_shifts;		/* collapse/insert range logged */
	unsigned long fc_shifts_too_long;	/* ... too many extents: full */
	unsigned long fc_dir_moves;		/* to another parent (DOTDOT) */
	unsigned long fc_dir_fsyncs;		/* directory fsyncs, fast */
	unsigned long fc_dir_fsyncs_full;	/* ... its inode changed: full */
	unsigned long fc_all_logged;		/* fsyncs with nothing to log */
	unsigned long fc_no_flush;		/* fc_selective_flush: FUA only */
	unsigned long fc_data_flush;		/* ... data not durable: flushed */
	unsigned long fc_all_logged_no_flush;	/* nothing to log, nor to flush */
	unsigned long fc_full_waits;		/* fsyncs that waited for a full commit */
	u64 fc_full_wait_ns;			/* how long, summed */
	u64 fc_full_wait_max_ns;		/* the longest */
	unsigned long fc_batch_windows;		/* batching windows opened */
	unsigned long fc_batch_waits;		/* fsyncs that slept in one */
	unsigned long fc_data_groups;		/* several fsyncs' data, one write */
	unsigned long fc_data_grouped;		/* the fsyncs in those */
	u64 fc_batch_ns;			/* how long they slept, summed */
	u64 s_fc_avg_commit_time;		/* ns, weighted 3:1 to the past */
	u64 fc_held_off_ns;			/* new handles waited: drain + window */
	u64 fc_held_off_max_ns;			/* the longest of those */
	u64 fc_phase_ns[EXT4FC_PHASES];		/* summed over fast commits */
	unsigned int fc_ineligible_reason_count[EXT4_FC_REASON_MAX];
	unsigned int fc_lat_hist[EXT4FC_LAT_BUCKETS];
	/*
	 * Per fast commit, the newest EXT4FC_WINDOWS in a ring (slot
	 * fc_windows % EXT4FC_WINDOWS next): how long it waited for the
	 * running handles to drain, and how long updates then stayed
	 * locked (the lock window), in ns.
	 */
	unsigned long fc_windows;
	u32 fc_drain_ns[EXT4FC_WINDOWS];
	u32 fc_window_ns[EXT4FC_WINDOWS];
};

/*
 * Recovery (fc_replay.c).  A region is a run of blocks an inode owns after
 * replay; during replay the allocator must not hand them out.
 */
struct ext4fc_region {
	u32 ino;
	ext4_lblk_t lblk;
	ext4_fsblk_t pblk;
	u32 len;
};

/* An inode the replay changed: the last step settles its blocks. */
struct ext4fc_touched {
	u32 ino;
	int inode_commit;	/* fast commit of its last INODE record, -1 */
	int spare_names;	/* a directory's names LINK added, not unlinked */
};

/* An UNLINK the scan saw, by fast commit and place in the log. */
struct ext4fc_unlink {
	u32 ino;
	u32 commit;		/* good tails before it */
	u32 rec;		/* records up to and with it */
};

struct ext4_fc_replay_state {
	int rs_pass;			/* PASS_SCAN or PASS_REPLAY */
	int rs_next_off;		/* fc block offset expected next */
	bool rs_stopped;		/* this pass has returned STOP */
	bool rs_settled;		/* replay's last step has run */
	int rs_error;			/* why the scan stopped, 0 if clean */
	struct fcp_state rs_parse;	/* the pass's record parser */
	int rs_tags_valid;		/* records up to the last good tail */
	int rs_commits;			/* good tails */
	int rs_tags_done;		/* records applied (replay pass) */
	int rs_commit;			/* fast commit being applied */
	struct ext4fc_region *rs_regions;
	int rs_nr_regions, rs_max_regions;
	int rs_valid_regions;		/* regions up to the last good tail */
	struct ext4fc_touched *rs_inodes;	/* inodes replay changed */
	int rs_nr_inodes, rs_max_inodes;
	struct ext4fc_unlink *rs_unlinks;	/* every UNLINK the scan saw */
	int rs_nr_unlinks, rs_max_unlinks;
};

struct super_block;

/* fc_commit.c: per-superblock engine state, before the journal loads. */
void ext4_fc_init_sb(struct super_block *sb);

/* fc_replay.c */
int ext4fc_replay_block(journal_t *journal, struct buffer_head *bh,
			enum passtype pass, int off, tid_t expected_tid);

/* namei.c (our patches): names for replay and exchange, "..". */
struct qstr;
int ext4_fc_name_ino(struct inode *dir, const struct qstr *name);
int ext4_fc_dotdot_ino(struct inode *inode);
int ext4_fc_set_dotdot(struct inode *inode, u32 parent);

#endif /* __EXT4FC_FC_ENGINE_H__ */
