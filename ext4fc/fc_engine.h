/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext4fc fast commits: the on-disk record format and what the engine shares
 * with the rest of ext4.
 *
 * The engine is in fc_commit.c (tracking and the commit path) and
 * fc_replay.c (recovery); the comments at the top of those files explain
 * it.  This header holds three things:
 *
 *  1. the on-disk format.  It must stay byte-compatible with the kernel's
 *     fs/ext4/fast_commit.h and e2fsprogs' lib/ext2fs/fast_commit.h: a
 *     fast-commit area is a sequence of little-endian tag-length-value
 *     records, "struct ext4_fc_tl" followed by fc_len bytes of value, and a
 *     record never crosses a journal block;
 *  2. the ineligibility reasons, which callers all over ext4 name;
 *  3. the per-superblock statistics and replay state that ext4.h embeds in
 *     struct ext4_sb_info.
 *
 * Only the first part is seen where EXT4FC_FORMAT_ONLY is defined: by the
 * record parser (fc_parse.c), in the kernel and on the host alike.
 */
#ifndef __EXT4FC_FC_ENGINE_H__
#define __EXT4FC_FC_ENGINE_H__

/*
 * HEAD.fc_features bits this engine writes and understands.  Ours: the
 * fast commits that follow may hold DOTDOT records (mount option
 * fc_dir_moves; the journal carries JBD2_FEATURE_INCOMPAT_FC_DIR_MOVES
 * too, so stock ext4 refuses the journal before it reads the area).
 */
#define EXT4_FC_FEATURE_DIR_MOVES	0x1
#define EXT4_FC_SUPPORTED_FEATURES	EXT4_FC_FEATURE_DIR_MOVES

/*
 * Every record: tag and length, then fc_len bytes of value.  Below, each
 * tag (in tag order) with the layout of its value.
 */
struct ext4_fc_tl {
	__le16 fc_tag;
	__le16 fc_len;
};

#define EXT4_FC_TAG_BASE_LEN (sizeof(struct ext4_fc_tl))

/* 1, ADD_RANGE: the inode got an extent, in on-disk ext4_extent layout. */
#define EXT4_FC_TAG_ADD_RANGE		0x0001
struct ext4_fc_add_range {
	__le32 fc_ino;
	__u8 fc_ex[12];
};

/* 2, DEL_RANGE: logical blocks [fc_lblk, fc_lblk + fc_len) are unmapped. */
#define EXT4_FC_TAG_DEL_RANGE		0x0002
struct ext4_fc_del_range {
	__le32 fc_ino;
	__le32 fc_lblk;
	__le32 fc_len;
};

/*
 * 3, CREAT: a name created for a new inode; 4, LINK: a name added for an
 * inode; 5, UNLINK: a name removed.  The name is the rest of the value,
 * with no NUL.
 */
#define EXT4_FC_TAG_CREAT		0x0003
#define EXT4_FC_TAG_LINK		0x0004
#define EXT4_FC_TAG_UNLINK		0x0005
struct ext4_fc_dentry_info {
	__le32 fc_parent_ino;
	__le32 fc_ino;
	__u8 fc_dname[];
};

/* 6, INODE: the raw on-disk inode, as many bytes as the record carries. */
#define EXT4_FC_TAG_INODE		0x0006
struct ext4_fc_inode {
	__le32 fc_ino;
	__u8 fc_raw_inode[];
};

/* 7, PAD: filler up to the end of the block; its value is ignored. */
#define EXT4_FC_TAG_PAD			0x0007

/*
 * 8, TAIL: the end of one fast commit.  fc_tid is the running
 * transaction's; fc_crc is the crc32c (seed 0) of every byte of this fast
 * commit from the record after the previous tail (pads included) up to
 * and including this tail's tag, length and tid.  fc_len also covers the
 * rest of the block: the next fast commit starts in a new block.
 */
#define EXT4_FC_TAG_TAIL		0x0008
struct ext4_fc_tail {
	__le32 fc_tid;
	__le32 fc_crc;
};

/* 9, HEAD: the full commit (tid) the fast commits that follow apply after. */
#define EXT4_FC_TAG_HEAD		0x0009
struct ext4_fc_head {
	__le32 fc_features;
	__le32 fc_tid;
};

/*
 * 10, DOTDOT (ours, only after a HEAD with EXT4_FC_FEATURE_DIR_MOVES):
 * directory fc_ino moved to directory fc_parent_ino, whose ".." it now
 * names; the LINK of its new name and the UNLINK of its old one follow.
 * The value is a struct ext4_fc_dentry_info without a name.
 */
#define EXT4_FC_TAG_DOTDOT		0x000a

/*
 * Why the next commit has to be a full one.  The names are the interface
 * the rest of ext4 uses (ext4_fc_mark_ineligible()); fc_info prints them
 * in this order, with stock ext4's wording (fc_commit.c).
 */
enum {
	EXT4_FC_REASON_XATTR = 0,
	EXT4_FC_REASON_CROSS_RENAME = 1,
	EXT4_FC_REASON_JOURNAL_FLAG_CHANGE = 2,
	EXT4_FC_REASON_NOMEM = 3,
	EXT4_FC_REASON_SWAP_BOOT = 4,
	EXT4_FC_REASON_RESIZE = 5,
	EXT4_FC_REASON_RENAME_DIR = 6,
	EXT4_FC_REASON_FALLOC_RANGE = 7,
	EXT4_FC_REASON_INODE_JOURNAL_DATA = 8,
	EXT4_FC_REASON_ENCRYPTED_FILENAME = 9,
	EXT4_FC_REASON_NO_EXTENTS = 10,	/* ours: a file without an extent tree */
	EXT4_FC_REASON_ORPHAN_FREED = 11, /* ours: ext4_fc_orphan_freed() */
	EXT4_FC_REASON_MAX = 12
};

#if defined(__KERNEL__) && !defined(EXT4FC_FORMAT_ONLY)

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
};

/*
 * What fc_info shows, read without locks.  A commit updates its counts
 * under the journal's fast-commit exclusion (one fast commit at a time);
 * the tracking paths and fsync bump theirs under s_fc_lock (reasons,
 * xattrs, shifts, moves, directory fsyncs, fsyncs with nothing left to
 * log); the counts of fsyncs another commit covered, of waits for a full
 * commit and the batching waits are bumped outside both (a lost bump is
 * a wrong count, nothing more).
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

#endif /* __KERNEL__ && !EXT4FC_FORMAT_ONLY */

#endif /* __EXT4FC_FC_ENGINE_H__ */
