// SPDX-License-Identifier: GPL-2.0
/*
 * ext4fc fast commits: what changed since the last full commit, and how an
 * fsync writes just that.
 *
 * A full jbd2 commit writes every metadata block a transaction dirtied.  A
 * fast commit writes a log of logical changes instead ("inode 12 maps
 * logical block 0 to block 9000", "name foo in directory 2 is inode 12")
 * into the fast-commit area at the end of the journal, and recovery
 * rebuilds the blocks from it (fc_replay.c).  The record format is in
 * fc_format.h; jbd2's side (the area, the exclusion between fast and
 * full commits, the fc buffers) is jbd2fc/fc_journal.c.
 *
 * What is tracked
 *
 *   Since the last full commit ("the epoch") we keep two queues per
 *   superblock, each in two generations, s_fc_q[] for inodes and
 *   s_fc_dentry_q[] for name operations:
 *
 *   - a name operation (create, link, unlink) is a struct ext4fc_dentry,
 *     queued in the order ext4 did them; a create is also hung on the new
 *     inode (i_fc_dilist), so the commit can log that inode before its
 *     name and an inode evicted before any commit takes its create along;
 *   - an inode is queued the first time a handle dirties it in the epoch,
 *     with the logical blocks whose mapping changed, as up to
 *     EXT4FC_RANGES disjoint ranges (i_fc_ranges, sorted, under
 *     i_fc_lock): a new range merges with those it overlaps or touches,
 *     and when there are too many the two nearest become one, gap
 *     included (fc_add_range()).  The mapping itself is read back from
 *     the extent tree at commit time, so the ranges only have to cover
 *     every change: a commit logs the extents and holes inside them and
 *     nothing between them, so sparse random writes into a big file log
 *     about one record each.  Directories are never queued: their
 *     changes are the name operations.
 *
 *   New entries go to the FC_Q_MAIN generation, unless a commit (fast or
 *   full) owns the journal: then they go to FC_Q_STAGING, and the cleanup
 *   after that commit splices STAGING behind MAIN.  The journal is owned
 *   longer than updates are locked (from the claim until handles drain,
 *   and from the snapshot until the hand-over), so a fast commit splices
 *   STAGING behind MAIN once more when it freezes the queues, with no
 *   handle running: every change completed before the freeze is in that
 *   commit.  A commit walks only what it froze; what changes after the
 *   freeze is kept for the next one: new entries go to STAGING, and an
 *   inode of the frozen MAIN that changes again is marked
 *   EXT4_STATE_FC_REQUEUE, which keeps it queued at the cleanup.  Each
 *   snapshot is numbered (s_fc_subtid, taken before the freeze) and a
 *   fast commit that reaches the disk publishes its number
 *   (s_fc_covered): an fsync that waited for a commit knows from them
 *   whether that commit had its changes (ext4_fc_commit()).
 *
 * Locking
 *
 *   s_fc_lock (spinlock) protects both queues, their list links and the
 *   EXT4_STATE_FC_COMMITTING bits.  i_fc_lock (mutex) protects an inode's
 *   tracked range and the transaction it belongs to.  jbd2_fc_begin_commit()
 *   locks out new handles until the commit has turned the frozen queues
 *   into records (the snapshot), so no inode changes under it: that is the
 *   bracket that keeps a commit from ever logging an inode half-changed.
 *   Updates are unlocked before any I/O of the commit (data or fc blocks):
 *   a thread that starts a handle waits for a snapshot, never for the
 *   disk.  fc_info shows how long new handles were held off, in total
 *   and at most, and for the last EXT4FC_WINDOWS commits the
 *   percentiles of its two parts: the wait for the running handles to
 *   drain, and the lock window after it.  ext4_fc_start_update() and
 *   ext4_fc_stop_update() are the finer bracket for callers that change
 *   an inode outside a handle;
 *   the commit waits for an inode's updates to drain.  An inode being
 *   committed carries EXT4_STATE_FC_COMMITTING; eviction (ext4_fc_del())
 *   waits for it to clear, so the commit never touches a freed inode.
 *
 * Ineligibility
 *
 *   An operation the format can't express calls ext4_fc_mark_ineligible():
 *   the superblock is flagged and the flag remembers the newest transaction
 *   it applies to.  Every fsync until a full commit of that transaction
 *   falls back to a full commit, and the cleanup after it clears the flag.
 *   Keying the flag on a tid (rather than a start/stop pair around the
 *   operation) is as safe: the operation runs inside a handle of that tid,
 *   so no fast commit can be taken between the change and a full commit
 *   that contains it.  Tracking goes on while the flag is set, so what the
 *   next transaction does is never missed.  A change only the inode's own
 *   records would get wrong (an xattr, journalled data, a block map)
 *   calls ext4_fc_mark_inode_ineligible(): with fsync_isolation the inode
 *   alone is flagged (EXT4_STATE_FC_INELIGIBLE and the tid) and only a
 *   commit that would log it falls back; an inode that leaves memory
 *   flagged passes the flag on to the superblock.  An xattr set or
 *   removed in the inode's own xattr space is not ineligible at all: the
 *   inode's record then carries the whole on-disk inode, xattrs included
 *   (ext4_fc_track_xattr()); only one that touches an xattr block or an
 *   EA inode is.  Three operations stock ext4 calls ineligible are
 *   expressed in its records too, so stock replay applies them: a
 *   RENAME_EXCHANGE as links and unlinks that never leave an inode
 *   nameless (ext4_fc_track_exchange()), a rename of a directory within
 *   its parent as a LINK and an UNLINK, and a collapse or insert range as
 *   the range records of everything it moved (ext4_fc_track_shift(),
 *   up to FC_SHIFT_MAX_RUNS extents).  A directory that changes parent
 *   would need a new "..", which no record says: ineligible.  So is the
 *   removal of an orphan entry made before the epoch (a truncate a full
 *   commit caught half-way, an O_TMPFILE linked, an unlinked inode freed:
 *   ext4_fc_orphan_del()): no record takes it off the list on disk.
 *
 * A directory's fsync
 *
 *   stock 6.1 treats a directory as data=journal, so its fsync is a full
 *   commit, and SQLite's rollback journal (a new journal file, then an
 *   fsync of its directory, every transaction) never gets a fast one.
 *   Here it is a fast commit of every queued name operation, the
 *   directory's among them (ext4_fc_fsync()): those records are all a
 *   directory's entries need.  Its own inode has no record, so a change
 *   of it that no name operation makes (mode, owner, times set by hand,
 *   flags, xattrs: ext4_fc_track_dir_attr(), from ext4_setattr(),
 *   ext4_fileattr_set() and the xattr code) flags it as above, and its
 *   fsync is a full commit until one has carried the change.  So is
 *   every directory's fsync while a directory created or removed in the
 *   epoch waits for a full commit (fc_subdir_pending(): stock's replay of
 *   mkdir and rmdir needs one after it, as its directory fsyncs give it).
 *   Its mtime and ctime after a replay are the replay's, as for the
 *   parent of any file whose create a fast commit logged.
 *
 * The commit (ext4_fc_commit(), from fsync)
 *
 *   0. An fsync whose inode has nothing left to log (fc_all_logged(): not
 *      queued, not being committed, no create pending, nothing
 *      ineligible; for a directory, no name queued) takes no commit:
 *      what it changed is in fast commits already on disk, and the data
 *      the fsync wrote needs only a cache flush.  Stock ext4 gets the
 *      same from a full commit (the inode's transaction is then
 *      committed); fast commits never commit a transaction, so without
 *      this every later fsync of the file would be one more fast commit.
 *   1. jbd2_fc_begin_commit(): wait out a running commit; if it covered
 *      our changes we are done ("skipped").  Updates are locked now.
 *   2. Freeze the queues (STAGING joins MAIN): every queued inode, and
 *      every inode a queued create names, gets EXT4_STATE_FC_COMMITTING.
 *      With fsync_isolation (a mount option) an fsync's commit first
 *      puts back into STAGING what its file does not need: it keeps the
 *      shortest prefix of the names that holds every name of the inodes
 *      it takes, and the inodes those names name, starting from the file
 *      and the other files whose fsyncs wait (fc_isolate()).  The rest
 *      stays queued, its data not written, for a later commit.
 *   3. Records, into fc blocks filled but not sent yet; then updates are
 *      unlocked.  HEAD once per epoch (the first fast commit after a full
 *      one), the name operations in order (a create logs its inode's
 *      INODE and ranges first, so replay has an inode to link), then for
 *      each inode its ranges (ADD_RANGE for mapped extents, DEL_RANGE for
 *      holes, read from the extent map) and its raw INODE, and a TAIL with
 *      the tid and the crc of the fast commit.  Records never cross a
 *      block: the rest of a block that can't hold the next record is a
 *      PAD; the tail fills its block, so the next fast commit starts on a
 *      new one.
 *   4. Write and wait for the frozen inodes' data (ordered mode: the
 *      blocks the new extents point at must be on disk before the records
 *      that point at them), then send the fc blocks as one write with
 *      preflush+FUA: its flush makes the data durable, its FUA the
 *      blocks, so a commit of any size is one round trip.  (If the
 *      blocks are not contiguous on disk, the tail's block goes alone
 *      with preflush+FUA once the others have completed.)  With
 *      fc_selective_flush the preflush is left out when it would make
 *      nothing durable (below).
 *   5. Wait for the fc buffers, jbd2_fc_end_commit(); the cleanup callback
 *      empties MAIN (keeping inodes marked for requeue) and promotes
 *      STAGING.
 *
 *   Any failure (area full, memory, I/O, a record that can't fit) ends in
 *   jbd2_fc_end_commit_fallback(): a full commit of the transaction, which
 *   is always correct because it contains everything the fast commit would
 *   have said, and which empties the area.  The fsync never returns before
 *   its changes are durable one way or the other.  So that the area is
 *   seldom the reason, a fast commit that leaves it fc_full_commit_at
 *   percent full (module parameter, 75) asks kjournald2 for a full commit
 *   of the running transaction (jbd2_fc_start_commit_at()) and does not
 *   wait for it.  Fsyncs that come while it runs wait for it as for any
 *   full commit (fc_info counts them and how long they waited); none has
 *   to make one because the area is full.
 *
 *   Group commit comes from the snapshot numbers: fsyncs that arrive while
 *   a fast commit is on its way all wait for it, and the first to claim
 *   the journal after it takes one snapshot for all of them; the others
 *   find it covers them (s_fc_covered, or with fsync_isolation the number
 *   of the last commit that logged their file, i_fc_snap) and return.
 *   A full commit's cleanup also drops from STAGING what it carried.
 *   Their data goes as a group too: an fsync that comes while a fast
 *   commit is on its way queues its file's range and sleeps until that
 *   commit ends, and the first of them to wake writes the data of all,
 *   under one plug, so that their blocks go as one request where they
 *   are contiguous (ext4_fc_fsync_data(); fc_group_data, module
 *   parameter, 1).
 *   With fc_batch_max_us (module parameter, 0: off) the fsyncs of
 *   several threads also wait for each other: a batching window as long
 *   as an average fast commit, opened by the fsync of a thread other than
 *   the last one to commit (fc_batch()).
 *
 * Selective flushing (mount option fc_selective_flush, off by default)
 *
 *   A fast commit needs a cache flush only to make durable the data its
 *   records point at, or that its fsync promises: everything else it
 *   depends on is durable already (the full commit before it and every
 *   earlier fast commit completed with FUA, and what replay rebuilds,
 *   bitmaps and directory blocks, is never written in place before a
 *   full commit).  So we know, per inode, whether its data is:
 *   s_fc_data_seq counts the data writes that completed without FUA
 *   (ext4_fc_data_written(): a writeback bio's end, a direct write, the
 *   zeroes written for an extent), i_fc_data_seq is the newest of an
 *   inode's (an evicted inode leaves its own in s_fc_evicted_seq), and
 *   s_fc_flushed_seq the newest a completed cache flush covers: the
 *   count read before the flush was issued, so only writes completed by
 *   then.  On a device with FUA, data written for someone who waits
 *   for it (WB_SYNC_ALL writeback: fsync's own, a commit's ordered data)
 *   goes FUA and is never counted (ext4_fc_fua_data()).  A fast commit
 *   whose every frozen inode has its data durable (fc_data_durable())
 *   writes its fc blocks FUA only, each of them if they go separately;
 *   the others flush as above.  An fsync with nothing left to log, or
 *   whose transaction is committed already, flushes only if its file's
 *   data is not durable.  So what still flushes: a commit of an inode
 *   with data from background writeback, direct I/O or zeroing since
 *   the last flush, and, on a device without FUA (virtio-blk), every
 *   commit that logs written data (the block layer also turns each FUA
 *   into a write and a flush there).  Full commits are jbd2's, as ever,
 *   and their flushes are not counted as covering anything (a flush
 *   we did not issue tells us nothing about when it was issued).
 *
 * fc_info (/proc/fs/ext4fc/DEV/fc_info) counts the outcomes, the reasons,
 * the blocks written (and per fast commit), the fsyncs the fast commits
 * answered, the batching windows and the fsyncs that waited in them, the
 * fsyncs whose data went in groups, the time per commit phase (choosing,
 * records, data, fc blocks), the full commits the area made (synchronous
 * ones it forced, background ones started early), the in-inode xattr
 * changes and range shifts logged, the isolated commits and the inodes
 * they left queued, the commits and fsyncs selective flushing spared a
 * flush, and a commit latency histogram.
 */

#include "ext4.h"
#include "ext4_jbd2.h"
#include "ext4_extents.h"

#include <trace/events/ext4fc.h>
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/sort.h>

/* One queued name operation. */
struct ext4fc_dentry {
	struct list_head fd_queue;	/* in sbi->s_fc_dentry_q[] */
	struct list_head fd_inode;	/* in ei->i_fc_dilist (creates only) */
	u16 fd_tag;			/* EXT4_FC_TAG_{CREAT,LINK,UNLINK} */
	u32 fd_dir;			/* parent directory */
	u32 fd_ino;			/* inode the name refers to */
	u32 fd_len;
	tid_t fd_tid;			/* transaction of the operation */
	unsigned char *fd_name;		/* fd_short or kmalloc()ed */
	unsigned char fd_short[DNAME_INLINE_LEN];
};

static struct kmem_cache *ext4fc_dentry_cache;

/* The spare name an exchange lends its first inode: the prefix, then ino. */
#define FC_SPARE_NAME	".ext4fc-exchange-"

/* A range shift logs one record per extent or hole it moved, at most. */
#define FC_SHIFT_MAX_RUNS	256

/*
 * For the crash suite: hold every fast commit this long between its
 * snapshot and its I/O, so that a test can change an inode of the commit
 * in that window on purpose (tests/crash/lib/opcases, fcdelay).
 */
static unsigned int fc_debug_send_delay_ms;
module_param(fc_debug_send_delay_ms, uint, 0644);
MODULE_PARM_DESC(fc_debug_send_delay_ms,
		 "testing only: milliseconds each fast commit waits between its snapshot and its I/O");

/*
 * A fast commit that leaves the area at least this full (percent) starts
 * a full commit in the background, so that no fsync finds the area full
 * and has to wait for a full commit it makes itself.  0: never (the crash
 * suite's cases that fill the area on purpose).
 */
static unsigned int fc_full_commit_at = 75;
module_param(fc_full_commit_at, uint, 0644);
MODULE_PARM_DESC(fc_full_commit_at,
		 "start a full commit once fast commits fill this percentage of the fast-commit area (0: never)");

/*
 * The longest batching window (fc_batch()) in microseconds; a window
 * lasts as long as an average fast commit, up to this.  0: no windows.
 */
static unsigned int fc_batch_max_us;
module_param(fc_batch_max_us, uint, 0644);
MODULE_PARM_DESC(fc_batch_max_us,
		 "group commit: fsyncs of other threads wait up to this long (us) to share a fast commit (0: never)");

/*
 * Group data (ext4_fc_fsync_data()): fsyncs that come while a fast commit
 * is on its way write their files' data together once it ends.  0: each
 * fsync writes its own at once, as stock ext4 does.
 */
static unsigned int fc_group_data = 1;
module_param(fc_group_data, uint, 0644);
MODULE_PARM_DESC(fc_group_data,
		 "fsyncs that wait for a running fast commit write their data as one group after it (0: each at once)");

/* Outcome of one ext4_fc_commit() call, for the statistics. */
enum fc_outcome {
	FC_DONE,		/* fast commit written */
	FC_INELIGIBLE,		/* flagged ineligible: full commit */
	FC_FAILED,		/* fast commit failed: full commit */
	FC_SKIPPED,		/* another commit covered this fsync */
};

static bool fc_off(struct super_block *sb)
{
	return !test_opt2(sb, JOURNAL_FAST_COMMIT) ||
	       (EXT4_SB(sb)->s_mount_state & EXT4_FC_REPLAY);
}

/* --- what is tracked: the queues ------------------------------------- */

/* The generation new entries go to: see "What is tracked" above. */
static struct list_head *fc_generation(struct ext4_sb_info *sbi,
				       struct list_head *q)
{
	unsigned long busy = JBD2_FULL_COMMIT_ONGOING |
			     JBD2_FAST_COMMIT_ONGOING;

	return &q[(sbi->s_journal->j_flags & busy) ? FC_Q_STAGING : FC_Q_MAIN];
}

/* STAGING goes behind MAIN, in order; s_fc_lock held. */
static void fc_promote_staging(struct ext4_sb_info *sbi)
{
	list_splice_tail_init(&sbi->s_fc_q[FC_Q_STAGING],
			      &sbi->s_fc_q[FC_Q_MAIN]);
	list_splice_tail_init(&sbi->s_fc_dentry_q[FC_Q_STAGING],
			      &sbi->s_fc_dentry_q[FC_Q_MAIN]);
}

static void fc_forget_range(struct ext4_inode_info *ei)
{
	ei->i_fc_nranges = 0;
}

/*
 * Add [@start, @end] to @ei's ranges (see "What is tracked"): it takes in
 * every range it overlaps or touches, goes in at its place in the order,
 * and if that makes one too many, the two with the smallest gap between
 * them become one.  i_fc_lock held.
 */
static void fc_add_range(struct ext4_inode_info *ei, ext4_lblk_t start,
			 ext4_lblk_t end)
{
	struct ext4fc_range r[EXT4FC_RANGES + 1];
	unsigned int i, n = 0, best = 0;

	if (start > end)
		return;		/* a punch inside one block: no block changed */
	for (i = 0; i < ei->i_fc_nranges; i++) {
		const struct ext4fc_range *o = &ei->i_fc_ranges[i];

		if ((u64)o->end + 1 < start || (u64)end + 1 < o->start) {
			r[n++] = *o;	/* apart: keep it */
			continue;
		}
		start = min(start, o->start);
		end = max(end, o->end);
	}
	for (i = n; i > 0 && r[i - 1].start > start; i--)
		r[i] = r[i - 1];
	r[i] = (struct ext4fc_range) { .start = start, .end = end };
	n++;
	if (n > EXT4FC_RANGES) {
		for (i = 1; i + 1 < n; i++)
			if (r[i + 1].start - r[i].end < r[best + 1].start - r[best].end)
				best = i;
		r[best].end = r[best + 1].end;
		for (i = best + 1; i + 1 < n; i++)
			r[i] = r[i + 1];
		n--;
	}
	memcpy(ei->i_fc_ranges, r, n * sizeof(*r));
	ei->i_fc_nranges = n;
}

/*
 * The inode's record belongs to the transaction of @tid: a change in a
 * newer transaction than the one the range was collected in starts a new
 * range (the older one is in a full commit by now).  i_fc_lock held.
 */
static void fc_enter_tid(struct ext4_inode_info *ei, tid_t tid)
{
	if (ei->i_sync_tid != tid) {
		fc_forget_range(ei);
		ei->i_sync_tid = tid;
	}
}

static bool fc_committing(struct inode *inode)
{
	return ext4_test_inode_state(inode, EXT4_STATE_FC_COMMITTING);
}

static void fc_queue_inode(struct inode *inode)
{
	struct ext4_sb_info *sbi = EXT4_SB(inode->i_sb);
	struct ext4_inode_info *ei = EXT4_I(inode);

	spin_lock(&sbi->s_fc_lock);
	if (list_empty(&ei->i_fc_list))
		list_add_tail(&ei->i_fc_list, fc_generation(sbi, sbi->s_fc_q));
	else if (fc_committing(inode))
		/* changed after the snapshot: the next commit takes it */
		ext4_set_inode_state(inode, EXT4_STATE_FC_REQUEUE);
	spin_unlock(&sbi->s_fc_lock);
}

/*
 * Wait until the commit that holds @inode is over.  Called with s_fc_lock
 * held, returns with it dropped.  The wait is keyed on the address of
 * i_fc_list in a hashed queue, so the waker never touches the inode after
 * clearing the bit (the waiter may free it right away).
 */
static void fc_wait_commit_done(struct inode *inode)
	__releases(&EXT4_SB(inode->i_sb)->s_fc_lock)
{
	spin_unlock(&EXT4_SB(inode->i_sb)->s_fc_lock);
	wait_var_event(&EXT4_I(inode)->i_fc_list, !fc_committing(inode));
}

static void fc_release_inode(struct ext4_inode_info *ei)
{
	ext4_clear_inode_state(&ei->vfs_inode, EXT4_STATE_FC_COMMITTING);
	/* the bit is clear before anyone can see the wake-up */
	smp_mb();
	wake_up_var(&ei->i_fc_list);
}

static void fc_free_dentry(struct ext4fc_dentry *fd)
{
	if (fd->fd_name != fd->fd_short)
		kfree(fd->fd_name);
	kmem_cache_free(ext4fc_dentry_cache, fd);
}

/* --- selective flushing ---------------------------------------------- */

static void fc_seq_max(atomic64_t *v, s64 seq)
{
	s64 old = atomic64_read(v), prev;

	while (old < seq) {
		prev = atomic64_cmpxchg(v, old, seq);
		if (prev == old)
			break;
		old = prev;
	}
}

static bool fc_selective(struct super_block *sb)
{
	return test_opt2(sb, FC_SELECTIVE_FLUSH) &&
	       test_opt2(sb, JOURNAL_FAST_COMMIT) && test_opt(sb, BARRIER);
}

/*
 * Selective flushing: should data written for someone who waits for it
 * (writeback with WB_SYNC_ALL: fsync, a commit's ordered data) go FUA?
 * Only on a device with FUA: elsewhere the block layer would add a
 * flush to every such write.
 */
bool ext4_fc_fua_data(struct super_block *sb)
{
	return fc_selective(sb) && bdev_fua(sb->s_bdev);
}

/*
 * A data write of @inode completed without FUA (end of a writeback bio, a
 * direct write, zeroes for an extent): it is durable only after a cache
 * flush issued from now on.
 */
void ext4_fc_data_written(struct inode *inode)
{
	struct ext4_sb_info *sbi = EXT4_SB(inode->i_sb);

	fc_seq_max(&EXT4_I(inode)->i_fc_data_seq,
		   atomic64_inc_return(&sbi->s_fc_data_seq));
}

/*
 * With fc_selective_flush: is every data write of @inode that has
 * completed durable (FUA, or covered by a cache flush since)?  Without
 * the option, never: the caller flushes as it always did.
 */
bool ext4_fc_data_durable(struct inode *inode)
{
	struct ext4_sb_info *sbi = EXT4_SB(inode->i_sb);
	s64 seq;

	if (!fc_selective(inode->i_sb))
		return false;
	smp_rmb();	/* after the wait for the writes (their end_io) */
	seq = max(atomic64_read(&EXT4_I(inode)->i_fc_data_seq),
		  atomic64_read(&sbi->s_fc_evicted_seq));
	return seq <= atomic64_read(&sbi->s_fc_flushed_seq);
}

/* A cache flush; the data writes completed before it are durable after. */
int ext4_fc_flush(struct super_block *sb)
{
	struct ext4_sb_info *sbi = EXT4_SB(sb);
	s64 seq = atomic64_read(&sbi->s_fc_data_seq);
	int err = blkdev_issue_flush(sb->s_bdev);

	if (!err)
		fc_seq_max(&sbi->s_fc_flushed_seq, seq);
	return err;
}

/* --- locking: an inode's state and its updates ----------------------- */

void ext4_fc_init_inode(struct inode *inode)
{
	struct ext4_inode_info *ei = EXT4_I(inode);

	/* not queued, no create pending, nothing tracked or committing */
	INIT_LIST_HEAD(&ei->i_fc_list);
	INIT_LIST_HEAD(&ei->i_fc_dilist);
	atomic_set(&ei->i_fc_updates, 0);
	init_waitqueue_head(&ei->i_fc_wait);
	ext4_clear_inode_state(inode, EXT4_STATE_FC_COMMITTING);
	ext4_clear_inode_state(inode, EXT4_STATE_FC_INELIGIBLE);
	ext4_clear_inode_state(inode, EXT4_STATE_FC_FSYNC);
	ext4_clear_inode_state(inode, EXT4_STATE_FC_XATTR);
	ei->i_fc_ineligible_tid = 0;
	ei->i_fc_orphan_tid = 0;
	ei->i_fc_snap = 0;
	atomic64_set(&ei->i_fc_data_seq, 0);
	fc_forget_range(ei);
}

void ext4_fc_start_update(struct inode *inode)
{
	struct ext4_sb_info *sbi = EXT4_SB(inode->i_sb);
	struct ext4_inode_info *ei = EXT4_I(inode);

	if (fc_off(inode->i_sb))
		return;
	spin_lock(&sbi->s_fc_lock);
	while (!list_empty(&ei->i_fc_list) && fc_committing(inode)) {
		fc_wait_commit_done(inode);
		spin_lock(&sbi->s_fc_lock);
	}
	atomic_inc(&ei->i_fc_updates);
	spin_unlock(&sbi->s_fc_lock);
}

void ext4_fc_stop_update(struct inode *inode)
{
	/* the last update out lets a waiting commit in (fc_write_data()) */
	if (!fc_off(inode->i_sb) &&
	    atomic_dec_and_test(&EXT4_I(inode)->i_fc_updates))
		wake_up_all(&EXT4_I(inode)->i_fc_wait);
}

/* --- ineligibility --------------------------------------------------- */

/*
 * Flag the epoch ineligible up to @tid (@known false: no tid to key it on,
 * the next full commit clears it).  s_fc_lock held.
 */
static void fc_flag_sb(struct super_block *sb, tid_t tid, bool known)
{
	struct ext4_sb_info *sbi = EXT4_SB(sb);

	if (known && (!ext4_test_mount_flag(sb, EXT4_MF_FC_INELIGIBLE) ||
		      tid_gt(tid, sbi->s_fc_ineligible_tid)))
		sbi->s_fc_ineligible_tid = tid;
	ext4_set_mount_flag(sb, EXT4_MF_FC_INELIGIBLE);
}

/* Has @ei a change that no full commit has carried yet? */
static bool fc_inode_ineligible(journal_t *journal, struct ext4_inode_info *ei)
{
	return ext4_test_inode_state(&ei->vfs_inode, EXT4_STATE_FC_INELIGIBLE) &&
	       tid_gt(ei->i_fc_ineligible_tid,
		      READ_ONCE(journal->j_commit_sequence));
}

/*
 * The inode leaves memory: take it off the queue, and its create with it
 * (an inode evicted before a commit saw it was unlinked, or ext4 has made
 * the epoch ineligible: see ext4_evict_inode()).
 */
void ext4_fc_del(struct inode *inode)
{
	struct ext4fc_dentry *fd = NULL;
	struct ext4_inode_info *ei = EXT4_I(inode);
	struct ext4_sb_info *sbi = EXT4_SB(inode->i_sb);

	/* a reloaded inode starts at 0: the superblock remembers for it */
	fc_seq_max(&sbi->s_fc_evicted_seq, atomic64_read(&ei->i_fc_data_seq));
	if (fc_off(inode->i_sb))
		return;

	spin_lock(&sbi->s_fc_lock);
	while (fc_committing(inode)) {
		fc_wait_commit_done(inode);
		spin_lock(&sbi->s_fc_lock);
	}
	list_del_init(&ei->i_fc_list);
	/* a reloaded inode would not know: the whole epoch takes the flag */
	if (fc_inode_ineligible(sbi->s_journal, ei))
		fc_flag_sb(inode->i_sb, ei->i_fc_ineligible_tid, true);
	if (!list_empty(&ei->i_fc_dilist)) {
		fd = list_first_entry(&ei->i_fc_dilist, struct ext4fc_dentry,
				      fd_inode);
		list_del_init(&fd->fd_inode);
		list_del_init(&fd->fd_queue);
	}
	spin_unlock(&sbi->s_fc_lock);
	if (fd)
		fc_free_dentry(fd);
}

void ext4_fc_mark_ineligible(struct super_block *sb, int reason,
			     handle_t *handle)
{
	struct ext4_sb_info *sbi = EXT4_SB(sb);
	journal_t *journal = sbi->s_journal;
	bool known = true;
	tid_t tid = 0;

	if (fc_off(sb))
		return;
	if (WARN_ON_ONCE(reason < 0 || reason >= EXT4_FC_REASON_MAX))
		reason = EXT4_FC_REASON_NOMEM;

	if (handle && !IS_ERR(handle)) {
		tid = handle->h_transaction->t_tid;
	} else {
		read_lock(&journal->j_state_lock);
		if (journal->j_running_transaction)
			tid = journal->j_running_transaction->t_tid;
		else
			known = false;
		read_unlock(&journal->j_state_lock);
	}

	spin_lock(&sbi->s_fc_lock);
	fc_flag_sb(sb, tid, known);
	sbi->s_fc_stats.fc_ineligible_reason_count[reason]++;
	spin_unlock(&sbi->s_fc_lock);
}

/*
 * @inode is being taken off the orphan list (ext4_orphan_del()): its
 * truncate is over, it was linked (O_TMPFILE) or it is being freed.  If
 * it went onto the list in an earlier transaction, a full commit may have
 * written it there, and no record takes it off: after a replay, orphan
 * recovery would process the inode again, truncating a live file to its
 * size (a preallocation past EOF lost, mtime and ctime reset) or one that
 * a fast commit logged under the number of a freed one.  So the epoch is
 * ineligible.  Within one transaction (a truncate, SQLite's journal held
 * open and unlinked) the list on disk never had it.
 */
void ext4_fc_orphan_del(handle_t *handle, struct inode *inode)
{
	if (!ext4_handle_valid(handle) || !ext4_inode_orphan_tracked(inode) ||
	    EXT4_I(inode)->i_fc_orphan_tid == handle->h_transaction->t_tid)
		return;
	ext4_fc_mark_ineligible(inode->i_sb, EXT4_FC_REASON_ORPHAN_DEL,
				handle);
}

/* One more of what @n counts (a tracking path's fc_info count). */
static void fc_count(struct ext4_sb_info *sbi, unsigned long *n)
{
	spin_lock(&sbi->s_fc_lock);
	(*n)++;
	spin_unlock(&sbi->s_fc_lock);
}

/* Flag @inode alone ineligible up to @tid.  s_fc_lock held. */
static void fc_flag_inode(struct inode *inode, tid_t tid)
{
	struct ext4_inode_info *ei = EXT4_I(inode);

	if (!ext4_test_inode_state(inode, EXT4_STATE_FC_INELIGIBLE) ||
	    tid_gt(tid, ei->i_fc_ineligible_tid))
		ei->i_fc_ineligible_tid = tid;
	ext4_set_inode_state(inode, EXT4_STATE_FC_INELIGIBLE);
}

/*
 * A change only @inode's own records would carry wrongly (its xattrs,
 * journalled data, a block map).  With fsync_isolation only the commits
 * that take @inode fall back, until a full commit has the change;
 * without it (or outside a handle) the whole epoch does.
 */
void ext4_fc_mark_inode_ineligible(struct inode *inode, int reason,
				   handle_t *handle)
{
	struct super_block *sb = inode->i_sb;
	struct ext4_sb_info *sbi = EXT4_SB(sb);

	if (fc_off(sb))
		return;
	if (!test_opt2(sb, FSYNC_ISOLATION) || !handle || IS_ERR(handle)) {
		ext4_fc_mark_ineligible(sb, reason, handle);
		return;
	}
	spin_lock(&sbi->s_fc_lock);
	fc_flag_inode(inode, handle->h_transaction->t_tid);
	sbi->s_fc_stats.fc_ineligible_reason_count[reason]++;
	spin_unlock(&sbi->s_fc_lock);
}

/*
 * Directory @inode changed in a way no name record says (mode, owner,
 * times set by hand, flags, an xattr): a fast commit could not make it
 * durable, so an fsync of the directory is a full commit until one has
 * carried the change.  @handle is the change's, or NULL once the change's
 * own handle has ended: the newest transaction then is the latest the
 * change can be in.  Nothing else is flagged: a file's fast commit never
 * promised its parent's attributes.
 */
void ext4_fc_track_dir_attr(struct inode *inode, handle_t *handle)
{
	struct ext4_sb_info *sbi = EXT4_SB(inode->i_sb);
	tid_t tid;

	if (fc_off(inode->i_sb) || !S_ISDIR(inode->i_mode))
		return;
	if (handle && !IS_ERR(handle) && ext4_handle_valid(handle))
		tid = handle->h_transaction->t_tid;
	else
		tid = READ_ONCE(sbi->s_journal->j_transaction_sequence) - 1;
	spin_lock(&sbi->s_fc_lock);
	fc_flag_inode(inode, tid);
	spin_unlock(&sbi->s_fc_lock);
}

/*
 * An xattr of @inode was set or removed in @handle.  A change that stayed
 * in the inode's own xattr space (@in_inode) is carried by the inode's
 * record, which from now on holds the whole on-disk inode (stock replay
 * copies a record's full length too); one that touched an xattr block or
 * an EA inode (or failed half-way) is ineligible for @inode.
 */
void ext4_fc_track_xattr(handle_t *handle, struct inode *inode, bool in_inode)
{
	struct ext4_sb_info *sbi = EXT4_SB(inode->i_sb);

	if (fc_off(inode->i_sb))
		return;
	if (S_ISDIR(inode->i_mode)) {
		/* no record carries a directory's inode: see below */
		ext4_fc_track_dir_attr(inode, handle);
		return;
	}
	if (!in_inode) {
		ext4_fc_mark_inode_ineligible(inode, EXT4_FC_REASON_XATTR,
					      handle);
		return;
	}
	ext4_set_inode_state(inode, EXT4_STATE_FC_XATTR);
	fc_count(sbi, &sbi->s_fc_stats.fc_xattr_in_inode);
}

/* --- what is tracked: names, inodes, ranges -------------------------- */

/* Queue a name operation: @name in @dir, which refers to @inode. */
static int fc_track_name(handle_t *handle, struct inode *inode,
			 struct inode *dir, const struct qstr *name, u16 tag)
{
	struct super_block *sb = inode->i_sb;
	struct ext4_sb_info *sbi = EXT4_SB(sb);
	struct ext4_inode_info *ei = EXT4_I(inode);
	unsigned int len = name->len;
	struct ext4fc_dentry *fd;

	if (fc_off(sb))
		return 0;
	if (IS_ENCRYPTED(dir)) {
		ext4_fc_mark_ineligible(sb, EXT4_FC_REASON_ENCRYPTED_FILENAME,
					handle);
		return -EOPNOTSUPP;
	}

	fd = kmem_cache_alloc(ext4fc_dentry_cache, GFP_NOFS);
	if (!fd)
		goto nomem;
	fd->fd_name = fd->fd_short;
	if (len > sizeof(fd->fd_short)) {
		fd->fd_name = kmalloc(len, GFP_NOFS);
		if (!fd->fd_name) {
			kmem_cache_free(ext4fc_dentry_cache, fd);
			goto nomem;
		}
	}
	memcpy(fd->fd_name, name->name, len);
	fd->fd_len = len;
	fd->fd_tag = tag;
	fd->fd_dir = dir->i_ino;
	fd->fd_ino = inode->i_ino;
	fd->fd_tid = handle->h_transaction->t_tid;
	INIT_LIST_HEAD(&fd->fd_inode);

	mutex_lock(&ei->i_fc_lock);
	fc_enter_tid(ei, handle->h_transaction->t_tid);
	mutex_unlock(&ei->i_fc_lock);

	spin_lock(&sbi->s_fc_lock);
	list_add_tail(&fd->fd_queue, fc_generation(sbi, sbi->s_fc_dentry_q));
	if (S_ISDIR(inode->i_mode) && tag != EXT4_FC_TAG_LINK) {
		/* a directory came or went: see fc_subdir_pending() */
		sbi->s_fc_subdir = true;
		sbi->s_fc_subdir_tid = fd->fd_tid;
	}
	if (tag == EXT4_FC_TAG_CREAT) {
		WARN_ON_ONCE(!list_empty(&ei->i_fc_dilist));
		list_add_tail(&fd->fd_inode, &ei->i_fc_dilist);
	}
	spin_unlock(&sbi->s_fc_lock);
	return 0;

nomem:
	ext4_fc_mark_ineligible(sb, EXT4_FC_REASON_NOMEM, handle);
	return -ENOMEM;
}

void __ext4_fc_track_unlink(handle_t *handle, struct inode *inode,
			    struct dentry *dentry)
{
	int ret = fc_track_name(handle, inode, d_inode(dentry->d_parent),
				&dentry->d_name, EXT4_FC_TAG_UNLINK);

	trace_ext4_fc_track_unlink(handle, inode, dentry, ret);
}

void __ext4_fc_track_link(handle_t *handle, struct inode *inode,
			  struct dentry *dentry)
{
	int ret = fc_track_name(handle, inode, d_inode(dentry->d_parent),
				&dentry->d_name, EXT4_FC_TAG_LINK);

	trace_ext4_fc_track_link(handle, inode, dentry, ret);
}

void __ext4_fc_track_create(handle_t *handle, struct inode *inode,
			    struct dentry *dentry)
{
	int ret = fc_track_name(handle, inode, d_inode(dentry->d_parent),
				&dentry->d_name, EXT4_FC_TAG_CREAT);

	trace_ext4_fc_track_create(handle, inode, dentry, ret);
}

void ext4_fc_track_unlink(handle_t *handle, struct dentry *dentry)
{
	__ext4_fc_track_unlink(handle, d_inode(dentry), dentry);
}

/*
 * link(2) (rename tracks its halves itself).  A link that leaves the
 * inode one name is an O_TMPFILE file's first: for replay that inode does
 * not exist yet, so it is tracked as a create, which logs the inode
 * before its name, with its whole block map: a fast commit taken while
 * the file had no name logged it with no link, and replay dropped that
 * record and the ranges with it.
 */
void ext4_fc_track_link(handle_t *handle, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);

	if (inode->i_nlink != 1) {
		__ext4_fc_track_link(handle, inode, dentry);
		return;
	}
	__ext4_fc_track_create(handle, inode, dentry);
	if (S_ISREG(inode->i_mode))
		ext4_fc_track_range(handle, inode, 0, EXT_MAX_BLOCKS - 1);
}

void ext4_fc_track_create(handle_t *handle, struct dentry *dentry)
{
	__ext4_fc_track_create(handle, d_inode(dentry), dentry);
}

/*
 * RENAME_EXCHANGE swapped the inodes of @a and @b (the dentries still
 * show them as they were).  Replay applies names one at a time and
 * deletes an inode whose last name goes, so the swap is logged as moves
 * that never leave an inode nameless: @a's inode first gets a spare name
 * beside @a, then each name is unlinked and linked to the other inode,
 * then the spare name goes.  These are LINK and UNLINK records, which
 * stock replay applies the same way.  A directory keeps its ".." only
 * within its parent, and the spare name must be free: otherwise the
 * exchange is ineligible.  So it is for a directory with dir_nlink's one
 * link for "many" subdirectories, which stock replay's UNLINK would take
 * to zero.
 */
void ext4_fc_track_exchange(handle_t *handle, struct dentry *a,
			    struct dentry *b)
{
	struct inode *dir_a = d_inode(a->d_parent);
	struct inode *dir_b = d_inode(b->d_parent);
	struct inode *x = d_inode(a), *y = d_inode(b);
	char buf[sizeof(FC_SPARE_NAME) + 10];
	struct qstr spare = QSTR_INIT(buf, 0);

	if (fc_off(x->i_sb))
		return;
	spare.len = snprintf(buf, sizeof(buf), FC_SPARE_NAME "%lu",
			     x->i_ino);
	if ((dir_a != dir_b && (S_ISDIR(x->i_mode) || S_ISDIR(y->i_mode))) ||
	    (S_ISDIR(x->i_mode) && x->i_nlink == 1) ||
	    (S_ISDIR(y->i_mode) && y->i_nlink == 1) ||
	    ext4_fc_name_ino(dir_a, &spare) != 0) {
		ext4_fc_mark_ineligible(x->i_sb, EXT4_FC_REASON_CROSS_RENAME,
					handle);
		return;
	}
	if (fc_track_name(handle, x, dir_a, &spare, EXT4_FC_TAG_LINK) ||
	    fc_track_name(handle, x, dir_a, &a->d_name, EXT4_FC_TAG_UNLINK) ||
	    fc_track_name(handle, y, dir_a, &a->d_name, EXT4_FC_TAG_LINK) ||
	    fc_track_name(handle, y, dir_b, &b->d_name, EXT4_FC_TAG_UNLINK) ||
	    fc_track_name(handle, x, dir_b, &b->d_name, EXT4_FC_TAG_LINK))
		return;		/* marked ineligible */
	fc_track_name(handle, x, dir_a, &spare, EXT4_FC_TAG_UNLINK);
}

/*
 * Can @inode's changes be fast-committed at all?  Directories change
 * through name operations only; a journalled-data inode's data would have
 * to be in the log.
 */
static bool fc_tracks_inode(handle_t *handle, struct inode *inode)
{
	if (S_ISDIR(inode->i_mode) || fc_off(inode->i_sb))
		return false;
	if (ext4_should_journal_data(inode)) {
		ext4_fc_mark_inode_ineligible(inode,
					      EXT4_FC_REASON_INODE_JOURNAL_DATA,
					      handle);
		return false;
	}
	return true;
}

void ext4_fc_track_inode(handle_t *handle, struct inode *inode)
{
	struct ext4_inode_info *ei = EXT4_I(inode);

	if (!fc_tracks_inode(handle, inode))
		return;
	mutex_lock(&ei->i_fc_lock);
	fc_enter_tid(ei, handle->h_transaction->t_tid);
	mutex_unlock(&ei->i_fc_lock);
	fc_queue_inode(inode);
	trace_ext4_fc_track_inode(handle, inode, 0);
}

void ext4_fc_track_range(handle_t *handle, struct inode *inode,
			 ext4_lblk_t start, ext4_lblk_t end)
{
	struct ext4_inode_info *ei = EXT4_I(inode);
	int ret = 0;

	if (!fc_tracks_inode(handle, inode))
		return;
	if (ext4_has_inline_data(inode)) {
		/* the data lives in the inode's xattr space */
		ext4_fc_mark_inode_ineligible(inode, EXT4_FC_REASON_XATTR,
					      handle);
		return;
	}

	if (inode->i_ino >= EXT4_FIRST_INO(inode->i_sb) &&
	    !ext4_test_inode_flag(inode, EXT4_INODE_EXTENTS)) {
		/* ranges replay into extent trees only */
		ext4_fc_mark_inode_ineligible(inode, EXT4_FC_REASON_NO_EXTENTS,
					      handle);
		return;
	}

	mutex_lock(&ei->i_fc_lock);
	fc_enter_tid(ei, handle->h_transaction->t_tid);
	if (inode->i_ino < EXT4_FIRST_INO(inode->i_sb))
		/* reserved inodes: logged whole, never by range */
		ret = -ECANCELED;
	else
		fc_add_range(ei, start, end);
	mutex_unlock(&ei->i_fc_lock);
	fc_queue_inode(inode);
	trace_ext4_fc_track_range(handle, inode, start, end, ret);
}

/*
 * A directory moved to another parent (a rename from @from to @to): its
 * ".." changes, which only our DOTDOT record says.  With fc_dir_moves
 * (and the journal marked at mount, ext4_fc_enable_dir_moves()) that
 * record goes first, then the LINK of the new name and the UNLINK of the
 * old, which replay applies as a move within the new parent.  Without
 * the option the rename is ineligible, as in stock ext4.
 */
void ext4_fc_track_dir_move(handle_t *handle, struct dentry *from,
			    struct dentry *to)
{
	static const struct qstr no_name = QSTR_INIT("", 0);
	struct inode *inode = d_inode(from);
	struct inode *to_dir = d_inode(to->d_parent);
	struct super_block *sb = inode->i_sb;

	if (fc_off(sb))
		return;
	if (!test_opt2(sb, FC_DIR_MOVES) ||
	    !jbd2_has_feature_fc_dir_moves(EXT4_SB(sb)->s_journal)) {
		ext4_fc_mark_ineligible(sb, EXT4_FC_REASON_RENAME_DIR, handle);
		return;
	}
	if (fc_track_name(handle, inode, to_dir, &no_name, EXT4_FC_TAG_DOTDOT) ||
	    fc_track_name(handle, inode, to_dir, &to->d_name, EXT4_FC_TAG_LINK) ||
	    fc_track_name(handle, inode, d_inode(from->d_parent),
			  &from->d_name, EXT4_FC_TAG_UNLINK))
		return;		/* marked ineligible */
	fc_count(EXT4_SB(sb), &EXT4_SB(sb)->s_fc_stats.fc_dir_moves);
}

/*
 * Mounting with fc_dir_moves: mark the journal, so that a kernel or an
 * e2fsck that does not know DOTDOT refuses it instead of replaying part
 * of it (stock 6.1 stops at an unknown tag and drops the rest).  The
 * journal superblock goes to disk now, before any fast commit;
 * jbd2_journal_destroy() clears the bit when it leaves the log empty.
 * Returns 0, or -EINVAL after saying why.
 */
int ext4_fc_enable_dir_moves(struct super_block *sb)
{
	journal_t *journal = EXT4_SB(sb)->s_journal;

	if (!test_opt2(sb, JOURNAL_FAST_COMMIT) || sb_rdonly(sb)) {
		ext4_msg(sb, KERN_WARNING,
			 "fc_dir_moves ignored: %s; a directory that changes parent stays a full commit",
			 sb_rdonly(sb) ? "a read-only mount (mount read-write to use it)" :
			 "fast commits are off");
		return 0;
	}
	if (!jbd2_journal_set_features(journal, 0, 0,
				       JBD2_FEATURE_INCOMPAT_FC_DIR_MOVES)) {
		ext4_msg(sb, KERN_ERR,
			 "fc_dir_moves: the journal refused its feature bit: mount without fc_dir_moves");
		return -EINVAL;
	}
	jbd2_journal_update_sb_errno(journal);	/* writes its superblock */
	ext4_msg(sb, KERN_INFO,
		 "fc_dir_moves: directories that change parent are fast commits; until a clean unmount stock ext4 and e2fsprogs refuse this journal");
	return 0;
}

/*
 * FALLOC_FL_COLLAPSE_RANGE or INSERT_RANGE moved every extent of @inode
 * from logical block @lblk on.  The range records of [@lblk, the end]
 * that the commit reads back from the extent map say where each one is
 * now, and the holes (the end a collapse left, the gap an insert made)
 * as DEL_RANGE; stock replay applies them the same way.  They are one per
 * extent or hole, so a shift that moved more than FC_SHIFT_MAX_RUNS of
 * them is ineligible for @inode instead.  Called with @handle still open,
 * after the shift and i_data_sem released.
 */
void ext4_fc_track_shift(handle_t *handle, struct inode *inode,
			 ext4_lblk_t lblk)
{
	struct ext4_sb_info *sbi = EXT4_SB(inode->i_sb);
	struct ext4_map_blocks map;
	ext4_lblk_t next = lblk;
	bool too_many = false;
	int runs = 0, ret;

	if (fc_off(inode->i_sb))
		return;
	while (next < EXT_MAX_BLOCKS) {
		map.m_lblk = next;
		map.m_len = EXT_MAX_BLOCKS - next;
		map.m_flags = 0;
		ret = ext4_map_blocks(NULL, inode, &map, 0);
		if (ret < 0 || ++runs > FC_SHIFT_MAX_RUNS) {
			too_many = true;
			break;
		}
		next += max_t(unsigned int, map.m_len, 1);
	}
	fc_count(sbi, too_many ? &sbi->s_fc_stats.fc_shifts_too_long :
				 &sbi->s_fc_stats.fc_shifts);
	if (too_many)
		ext4_fc_mark_inode_ineligible(inode,
					      EXT4_FC_REASON_FALLOC_RANGE,
					      handle);
	else
		ext4_fc_track_range(handle, inode, lblk, EXT_MAX_BLOCKS - 1);
}

/* --- the commit: records into fc blocks (step 3) --------------------- */

/*
 * Writing records.  s_fc_bytes counts the bytes of the area used in this
 * epoch, s_fc_bh is the fc block being filled.  Only the committer (inside
 * jbd2_fc_begin_commit()) and the cleanup after a commit touch them.  A
 * filled block is only closed (chained on @closed through b_private,
 * newest first); fc_send() writes them all once updates are unlocked.
 */
struct fc_writer {
	struct super_block *sb;
	journal_t *journal;
	struct ext4_sb_info *sbi;
	u32 crc;		/* crc32c of this fast commit so far */
	tid_t tid;		/* the transaction we commit on top of */
	int blocks;		/* fc blocks taken by this commit */
	bool area_full;		/* the area had no block left for it */
	bool ineligible;	/* a frozen inode has an ineligible change */
	struct buffer_head *closed;	/* filled blocks, newest first */
	struct inode *fsynced;	/* fsync_isolation: the file, else NULL */
	int left;		/* queued inodes this commit left behind */
	bool partial;		/* it left inodes or names behind */
	u64 phase_ns[EXT4FC_PHASES];	/* where its time went */
};

/* Time since @t0 (and from now on, since now) goes to @phase. */
static void fc_phase_end(struct fc_writer *w, int phase, ktime_t *t0)
{
	ktime_t now = ktime_get();

	w->phase_ns[phase] += ktime_to_ns(ktime_sub(now, *t0));
	*t0 = now;
}

static void fc_end_io(struct buffer_head *bh, int uptodate)
{
	if (uptodate)
		set_buffer_uptodate(bh);
	else
		clear_buffer_uptodate(bh);
	unlock_buffer(bh);
}

/* The block being filled is full: keep it for fc_send(). */
static void fc_close_block(struct fc_writer *w)
{
	struct buffer_head *bh = w->sbi->s_fc_bh;

	bh->b_private = w->closed;
	w->closed = bh;
	w->sbi->s_fc_bh = NULL;
}

static void fc_write_block(struct buffer_head *bh, blk_opf_t opf)
{
	lock_buffer(bh);
	set_buffer_dirty(bh);
	set_buffer_uptodate(bh);
	bh->b_end_io = fc_end_io;
	submit_bh(opf, bh);
}

static int fc_next_block(struct fc_writer *w)
{
	struct buffer_head *bh;
	int err;

	err = jbd2_fc_get_buf(w->journal, &bh);
	if (err) {
		w->area_full = err == -ENOSPC;
		return err;
	}
	if (!bh)
		return -EIO;
	w->sbi->s_fc_bh = bh;
	w->blocks++;
	return 0;
}

static void fc_put(struct fc_writer *w, u8 **pos, const void *src,
		   size_t len, bool summed)
{
	memcpy(*pos, src, len);
	if (summed)
		w->crc = ext4_chksum(w->sbi, w->crc, *pos, len);
	*pos += len;
}

static void fc_put_tl(struct fc_writer *w, u8 **pos, u16 tag, u16 len)
{
	struct ext4_fc_tl tl = {
		.fc_tag = cpu_to_le16(tag),
		.fc_len = cpu_to_le16(len),
	};

	fc_put(w, pos, &tl, sizeof(tl), true);
}

/*
 * Room for a record of @len bytes (tag and length included), always
 * leaving space for a PAD header behind it; a block that can't take it is
 * closed with a PAD and the record goes at the start of a fresh block.
 * Returns where to write it, or an ERR_PTR.
 */
static u8 *fc_reserve(struct fc_writer *w, int len)
{
	int bsize = w->journal->j_blocksize;
	int off = w->sbi->s_fc_bytes % bsize;
	int room;
	u8 *pos;
	int err;

	if (len + EXT4_FC_TAG_BASE_LEN > bsize)
		return ERR_PTR(-E2BIG);
	if (!w->sbi->s_fc_bh) {
		err = fc_next_block(w);
		if (err)
			return ERR_PTR(err);
	}
	pos = w->sbi->s_fc_bh->b_data + off;
	room = bsize - off - EXT4_FC_TAG_BASE_LEN;
	if (len <= room) {
		w->sbi->s_fc_bytes += len;
		return pos;
	}

	/* PAD: header, then zeroes to the end of the block, all summed */
	fc_put_tl(w, &pos, EXT4_FC_TAG_PAD, room);
	memset(pos, 0, room);
	w->crc = ext4_chksum(w->sbi, w->crc, pos, room);
	fc_close_block(w);
	w->sbi->s_fc_bytes += bsize - off;

	err = fc_next_block(w);
	if (err)
		return ERR_PTR(err);
	w->sbi->s_fc_bytes += len;
	return w->sbi->s_fc_bh->b_data;
}

/* A record whose value is one contiguous buffer. */
static int fc_log(struct fc_writer *w, u16 tag, const void *val, u16 len)
{
	u8 *pos = fc_reserve(w, EXT4_FC_TAG_BASE_LEN + len);

	if (IS_ERR(pos))
		return PTR_ERR(pos);
	fc_put_tl(w, &pos, tag, len);
	fc_put(w, &pos, val, len, true);
	return 0;
}

static int fc_log_head(struct fc_writer *w)
{
	struct ext4_fc_head head = {
		.fc_tid = cpu_to_le32(w->tid),
	};

	/* a journal stock ext4 refuses anyway: DOTDOT may follow */
	if (jbd2_has_feature_fc_dir_moves(w->journal))
		head.fc_features = cpu_to_le32(EXT4_FC_FEATURE_DIR_MOVES);

	return fc_log(w, EXT4_FC_TAG_HEAD, &head, sizeof(head));
}

/*
 * TAIL: its length runs to the end of the block, so nothing else goes in
 * that block; the crc covers everything up to and including the tid.
 * fc_send() writes its block last (see there).
 */
static int fc_log_tail(struct fc_writer *w)
{
	int bsize = w->journal->j_blocksize;
	__le32 tid = cpu_to_le32(w->tid);
	__le32 crc;
	int rest;
	u8 *pos;

	pos = fc_reserve(w, EXT4_FC_TAG_BASE_LEN + sizeof(struct ext4_fc_tail));
	if (IS_ERR(pos))
		return PTR_ERR(pos);
	rest = bsize - w->sbi->s_fc_bytes % bsize;
	fc_put_tl(w, &pos, EXT4_FC_TAG_TAIL,
		  sizeof(struct ext4_fc_tail) + rest);
	fc_put(w, &pos, &tid, sizeof(tid), true);
	crc = cpu_to_le32(w->crc);
	fc_put(w, &pos, &crc, sizeof(crc), false);
	memset(pos, 0, rest);
	w->sbi->s_fc_bytes += rest;
	fc_close_block(w);
	return 0;
}

static int fc_log_name(struct fc_writer *w, struct ext4fc_dentry *fd)
{
	struct ext4_fc_dentry_info di = {
		.fc_parent_ino = cpu_to_le32(fd->fd_dir),
		.fc_ino = cpu_to_le32(fd->fd_ino),
	};
	u16 len = sizeof(di) + fd->fd_len;
	u8 *pos = fc_reserve(w, EXT4_FC_TAG_BASE_LEN + len);

	if (IS_ERR(pos))
		return PTR_ERR(pos);
	fc_put_tl(w, &pos, fd->fd_tag, len);
	fc_put(w, &pos, &di, sizeof(di), true);
	fc_put(w, &pos, fd->fd_name, fd->fd_len, true);
	return 0;
}

/*
 * INODE: the raw inode as it is in the inode table buffer: the 128-byte
 * base plus i_extra_isize, or the whole inode when its data is inline or
 * its in-inode xattrs changed (EXT4_STATE_FC_XATTR).
 */
static int fc_log_inode(struct fc_writer *w, struct inode *inode)
{
	int isize = EXT4_INODE_SIZE(inode->i_sb);
	__le32 ino = cpu_to_le32(inode->i_ino);
	struct ext4_iloc iloc;
	int len, err;
	u8 *pos;

	if (ext4_test_inode_flag(inode, EXT4_INODE_INLINE_DATA) ||
	    ext4_test_inode_state(inode, EXT4_STATE_FC_XATTR))
		len = isize;
	else if (isize > EXT4_GOOD_OLD_INODE_SIZE)
		len = EXT4_GOOD_OLD_INODE_SIZE + EXT4_I(inode)->i_extra_isize;
	else
		len = EXT4_GOOD_OLD_INODE_SIZE;

	err = ext4_get_inode_loc(inode, &iloc);
	if (err)
		return err;
	pos = fc_reserve(w, EXT4_FC_TAG_BASE_LEN + sizeof(ino) + len);
	if (IS_ERR(pos)) {
		err = PTR_ERR(pos);
	} else {
		fc_put_tl(w, &pos, EXT4_FC_TAG_INODE, sizeof(ino) + len);
		fc_put(w, &pos, &ino, sizeof(ino), true);
		fc_put(w, &pos, ext4_raw_inode(&iloc), len, true);
	}
	brelse(iloc.bh);
	return err;
}

static int fc_log_mapped(struct fc_writer *w, struct inode *inode,
			 struct ext4_map_blocks *map)
{
	bool unwritten = map->m_flags & EXT4_MAP_UNWRITTEN;
	struct ext4_fc_add_range add = {
		.fc_ino = cpu_to_le32(inode->i_ino),
	};
	struct ext4_extent *ex = (struct ext4_extent *)add.fc_ex;

	map->m_len = min_t(unsigned int, map->m_len,
			   unwritten ? EXT_UNWRITTEN_MAX_LEN : EXT_INIT_MAX_LEN);
	ex->ee_block = cpu_to_le32(map->m_lblk);
	ex->ee_len = cpu_to_le16(map->m_len);
	ext4_ext_store_pblock(ex, map->m_pblk);
	if (unwritten)
		ext4_ext_mark_unwritten(ex);
	return fc_log(w, EXT4_FC_TAG_ADD_RANGE, &add, sizeof(add));
}

static int fc_log_hole(struct fc_writer *w, struct inode *inode,
		       struct ext4_map_blocks *map)
{
	struct ext4_fc_del_range del = {
		.fc_ino = cpu_to_le32(inode->i_ino),
		.fc_lblk = cpu_to_le32(map->m_lblk),
		.fc_len = cpu_to_le32(map->m_len),
	};

	return fc_log(w, EXT4_FC_TAG_DEL_RANGE, &del, sizeof(del));
}

/* ADD_RANGE / DEL_RANGE for [@next, @last], as the extent map has it now. */
static int fc_log_range(struct fc_writer *w, struct inode *inode,
			ext4_lblk_t next, ext4_lblk_t last)
{
	struct ext4_map_blocks map;
	int ret;

	while (next <= last) {
		map.m_lblk = next;
		map.m_len = last - next + 1;
		map.m_flags = 0;
		ret = ext4_map_blocks(NULL, inode, &map, 0);
		if (ret < 0)
			return ret;
		if (!map.m_len) {
			next++;
			continue;
		}
		if (ret > 0)
			ret = fc_log_mapped(w, inode, &map);
		else
			ret = fc_log_hole(w, inode, &map);
		if (ret)
			return ret;
		if (next + map.m_len < next)	/* the last block of a file */
			break;
		next += map.m_len;
	}
	return 0;
}

/*
 * The records of every tracked range of @inode; the ranges are taken (and
 * emptied) under i_fc_lock.
 */
static int fc_log_ranges(struct fc_writer *w, struct inode *inode)
{
	struct ext4_inode_info *ei = EXT4_I(inode);
	struct ext4fc_range r[EXT4FC_RANGES];
	unsigned int i, n;
	int ret = 0;

	mutex_lock(&ei->i_fc_lock);
	n = ei->i_fc_nranges;
	memcpy(r, ei->i_fc_ranges, n * sizeof(*r));
	ei->i_fc_nranges = 0;
	mutex_unlock(&ei->i_fc_lock);
	for (i = 0; i < n && !ret; i++)
		ret = fc_log_range(w, inode, r[i].start, r[i].end);
	return ret;
}

/* --- the commit: freezing the queues (step 2) ------------------------ */

/*
 * fsync_isolation: the inodes an isolated commit takes, by number.  It
 * starts with the fsync'd file and every queued file an fsync waits for
 * (EXT4_STATE_FC_FSYNC: they ride along, as in group commit), and grows
 * with what the names they need name.  Beyond FC_ISOLATE_MAX inodes the
 * commit takes everything, as without the option.
 */
#define FC_ISOLATE_MAX	64

struct fc_set {
	int n;
	u32 ino[FC_ISOLATE_MAX];
};

static bool fc_set_has(const struct fc_set *set, u32 ino)
{
	int i;

	for (i = 0; i < set->n; i++)
		if (set->ino[i] == ino)
			return true;
	return false;
}

/* Add @ino; false when the set is full. */
static bool fc_set_add(struct fc_set *set, u32 ino)
{
	if (fc_set_has(set, ino))
		return true;
	if (set->n == FC_ISOLATE_MAX)
		return false;
	set->ino[set->n++] = ino;
	return true;
}

/*
 * The names an isolated commit takes: the shortest prefix of the queue
 * that holds every operation on an inode of @set or in a directory of
 * @set (a directory created in this epoch: its records describe all its
 * entries), with every inode that prefix names added to @set, until
 * nothing more is added.  A prefix, because replay applies names in
 * order; every operation of an inode it takes, because the inode's
 * record (link count, size) is the inode as it is now.  Returns the last
 * name of the prefix (NULL: none), or an ERR_PTR when @set is full.
 */
static struct ext4fc_dentry *fc_names_needed(struct list_head *names,
					     struct fc_set *set)
{
	struct ext4fc_dentry *fd, *last;
	bool grew;

	do {
		last = NULL;
		list_for_each_entry(fd, names, fd_queue)
			if (fc_set_has(set, fd->fd_ino) ||
			    fc_set_has(set, fd->fd_dir))
				last = fd;
		if (!last)
			return NULL;
		grew = false;
		list_for_each_entry(fd, names, fd_queue) {
			if (!fc_set_has(set, fd->fd_ino)) {
				if (!fc_set_add(set, fd->fd_ino))
					return ERR_PTR(-E2BIG);
				grew = true;
			}
			if (fd == last)
				break;
		}
	} while (grew);
	return last;
}

/*
 * fsync_isolation: leave in MAIN only what @w->fsynced needs (see
 * fc_names_needed()); the other names and inodes go to STAGING, which is
 * empty (no handle runs), in their order, so the cleanup puts them back
 * in front of what comes meanwhile.  s_fc_lock held.
 */
static void fc_isolate(struct fc_writer *w)
{
	struct ext4_sb_info *sbi = w->sbi;
	struct list_head *names = &sbi->s_fc_dentry_q[FC_Q_MAIN];
	struct list_head *inodes = &sbi->s_fc_q[FC_Q_MAIN];
	struct ext4_inode_info *ei, *ei_next;
	struct ext4fc_dentry *last;
	struct fc_set set = { 0 };
	LIST_HEAD(needed);

	fc_set_add(&set, w->fsynced->i_ino);
	list_for_each_entry(ei, inodes, i_fc_list)
		if (ext4_test_inode_state(&ei->vfs_inode, EXT4_STATE_FC_FSYNC) &&
		    !fc_set_add(&set, ei->vfs_inode.i_ino))
			return;
	last = fc_names_needed(names, &set);
	if (IS_ERR(last))
		return;
	if (last)
		list_cut_position(&needed, names, &last->fd_queue);
	w->partial = !list_empty(names);
	list_splice_init(names, &sbi->s_fc_dentry_q[FC_Q_STAGING]);
	list_splice(&needed, names);
	list_for_each_entry_safe(ei, ei_next, inodes, i_fc_list) {
		if (fc_set_has(&set, ei->vfs_inode.i_ino))
			continue;
		list_move_tail(&ei->i_fc_list, &sbi->s_fc_q[FC_Q_STAGING]);
		w->left++;
		w->partial = true;
	}
}

/*
 * Freeze what this commit covers.  No handle runs now (updates are
 * locked), so everything queued is complete: STAGING joins MAIN (what
 * handles queued while the journal was being claimed, or after the last
 * commit's cleanup and before its hand-over, belongs in this commit: the
 * fsync that waited for that commit counts on this one).  An isolated
 * commit then puts back what it does not need.  Every inode of MAIN and
 * every inode a queued create names is marked committing (the latter
 * are moved to MAIN if they are not there, so the cleanup releases
 * them); one with an ineligible change makes the commit a full one.
 */
static void fc_freeze(struct fc_writer *w)
{
	struct ext4_sb_info *sbi = w->sbi;
	struct list_head *inodes = &sbi->s_fc_q[FC_Q_MAIN];
	struct ext4_inode_info *ei;
	struct ext4fc_dentry *fd;

	spin_lock(&sbi->s_fc_lock);
	fc_promote_staging(sbi);
	if (w->fsynced)
		fc_isolate(w);
	list_for_each_entry(fd, &sbi->s_fc_dentry_q[FC_Q_MAIN], fd_queue) {
		if (list_empty(&fd->fd_inode))
			continue;
		ei = list_first_entry(&fd->fd_inode, struct ext4_inode_info,
				      i_fc_dilist);
		list_move_tail(&ei->i_fc_list, inodes);
	}
	list_for_each_entry(ei, inodes, i_fc_list) {
		ext4_set_inode_state(&ei->vfs_inode, EXT4_STATE_FC_COMMITTING);
		ext4_clear_inode_state(&ei->vfs_inode, EXT4_STATE_FC_FSYNC);
		if (fc_inode_ineligible(w->journal, ei))
			w->ineligible = true;
	}
	spin_unlock(&sbi->s_fc_lock);
}

/* --- the commit: the snapshot (steps 2-3) ---------------------------- */

/*
 * The frozen lists only change under the cleanup callback, which runs
 * after us: walking them without s_fc_lock is safe from here on, with
 * updates locked or not (what is queued meanwhile goes to STAGING, and a
 * committing inode is not freed).
 */
static void fc_wait_updates(struct ext4_sb_info *sbi)
{
	struct ext4_inode_info *ei;

	list_for_each_entry(ei, &sbi->s_fc_q[FC_Q_MAIN], i_fc_list)
		wait_event(ei->i_fc_wait, !atomic_read(&ei->i_fc_updates));
}

/*
 * The name records in order.  A create logs its inode first, with its
 * block map: replay links an inode that exists.  An inode created in
 * this epoch that has no name left (unlinked, and held open or gone) is
 * not logged at all: replay would have no inode to give its names to,
 * and the names it had came and went in this epoch (their records find
 * no inode and change nothing).
 */
static int fc_write_names(struct fc_writer *w)
{
	struct ext4fc_dentry *fd;
	struct ext4_inode_info *ei;
	int err;

	list_for_each_entry(fd, &w->sbi->s_fc_dentry_q[FC_Q_MAIN], fd_queue) {
		if (fd->fd_tag == EXT4_FC_TAG_CREAT &&
		    !list_empty(&fd->fd_inode)) {
			ei = list_first_entry(&fd->fd_inode,
					      struct ext4_inode_info,
					      i_fc_dilist);
			if (!ei->vfs_inode.i_nlink)
				continue;
			err = fc_log_inode(w, &ei->vfs_inode);
			if (!err)
				err = fc_log_ranges(w, &ei->vfs_inode);
			if (err)
				return err;
		}
		err = fc_log_name(w, fd);
		if (err)
			return err;
	}
	return 0;
}

static int fc_write_inodes(struct fc_writer *w)
{
	struct ext4_inode_info *ei;
	int err;

	list_for_each_entry(ei, &w->sbi->s_fc_q[FC_Q_MAIN], i_fc_list) {
		/*
		 * Tracking never queues a directory (fc_tracks_inode()), but
		 * fc_freeze() takes every created inode in with its create:
		 * a new directory's record went out with its CREAT.
		 */
		if (S_ISDIR(ei->vfs_inode.i_mode))
			continue;
		/*
		 * No name (O_TMPFILE, or unlinked and still open): nothing
		 * replay can use, and stock 6.1 fails the mount on the ranges
		 * of such an inode.  Its range waits for a name.
		 */
		if (!ei->vfs_inode.i_nlink)
			continue;
		err = fc_log_ranges(w, &ei->vfs_inode);
		if (!err)
			err = fc_log_inode(w, &ei->vfs_inode);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Steps 2-3 of the commit, updates locked: freeze the queues and turn
 * what they hold into records, in fc blocks that are not sent yet.
 */
static int fc_snapshot(struct fc_writer *w)
{
	journal_t *journal = w->journal;
	ktime_t t0 = ktime_get();
	int err = 0;

	fc_freeze(w);
	if (w->ineligible)
		return -ECANCELED;
	fc_wait_updates(w->sbi);
	fc_phase_end(w, EXT4FC_PHASE_CHOOSE, &t0);

	/* no handle runs now (jbd2_fc_begin_commit()): the tid is stable */
	read_lock(&journal->j_state_lock);
	if (journal->j_running_transaction)
		w->tid = journal->j_running_transaction->t_tid;
	else
		err = -ENOENT;
	read_unlock(&journal->j_state_lock);
	if (err)
		return err;

	if (w->sbi->s_fc_bytes == 0)
		err = fc_log_head(w);
	if (!err)
		err = fc_write_names(w);
	if (!err)
		err = fc_write_inodes(w);
	if (!err)
		err = fc_log_tail(w);
	fc_phase_end(w, EXT4FC_PHASE_RECORDS, &t0);
	return err;
}

/* --- the commit: data and fc blocks to disk (step 4) ----------------- */

/*
 * The data of the frozen inodes, written and waited for.  It runs after
 * the snapshot, with handles running again: the snapshot's extents only
 * point at blocks in the inodes' dirty ranges or already written, the
 * ranges only grow until the next full commit, and no full commit runs
 * before this fast commit ends.
 */
static int fc_write_data(struct ext4_sb_info *sbi)
{
	struct list_head *inodes = &sbi->s_fc_q[FC_Q_MAIN];
	struct ext4_inode_info *ei;
	int err;

	list_for_each_entry(ei, inodes, i_fc_list) {
		err = jbd2_submit_inode_data(READ_ONCE(ei->jinode));
		if (err)
			return err;
	}
	list_for_each_entry(ei, inodes, i_fc_list) {
		err = jbd2_wait_inode_data(sbi->s_journal,
					   READ_ONCE(ei->jinode));
		if (err)
			return err;
	}
	return 0;
}

static void fc_end_bio(struct bio *bio)
{
	struct buffer_head *bh = bio->bi_private, *next;

	for (; bh; bh = next) {
		next = bh->b_private;
		bh->b_private = NULL;
		fc_end_io(bh, !bio->bi_status);
	}
	bio_put(bio);
}

/*
 * fc_selective_flush: is the data of every inode the commit logs durable
 * already (ext4_fc_data_durable())?  Then the fc blocks need no flush.
 */
static bool fc_data_durable(struct ext4_sb_info *sbi)
{
	struct ext4_inode_info *ei;

	list_for_each_entry(ei, &sbi->s_fc_q[FC_Q_MAIN], i_fc_list)
		if (!ext4_fc_data_durable(&ei->vfs_inode))
			return false;
	return true;
}

/*
 * Send all the commit's blocks as one write with @opf, if they are
 * contiguous on the log's device (they are unless the journal's blocks
 * are fragmented inside the area).  Returns false, having sent nothing,
 * if they are not.
 */
static bool fc_write_run(struct fc_writer *w, blk_opf_t opf)
{
	struct buffer_head *bh, *next, *prev = NULL;
	struct bio *bio;

	if (w->blocks > BIO_MAX_VECS)
		return false;
	/* w->closed runs from the newest block to the oldest */
	for (bh = w->closed; bh->b_private; bh = bh->b_private) {
		next = bh->b_private;
		if (next->b_blocknr + 1 != bh->b_blocknr ||
		    next->b_bdev != bh->b_bdev)
			return false;
	}
	for (bh = w->closed; bh; bh = next) {
		next = bh->b_private;
		bh->b_private = prev;
		prev = bh;
	}
	w->closed = NULL;

	bio = bio_alloc(prev->b_bdev, w->blocks, opf, GFP_NOIO);
	bio->bi_iter.bi_sector = prev->b_blocknr * (prev->b_size >> 9);
	bio->bi_end_io = fc_end_bio;
	bio->bi_private = prev;
	for (bh = prev; bh; bh = bh->b_private) {
		lock_buffer(bh);
		set_buffer_dirty(bh);
		set_buffer_uptodate(bh);
		__bio_add_page(bio, bh->b_page, bh->b_size, bh_offset(bh));
	}
	submit_bio(bio);
	return true;
}

/*
 * Step 4, updates unlocked: the data, then the fc blocks, all waited for
 * (the commit's time per phase is counted here too).  The fc blocks go
 * as one write with preflush+FUA, after the data has completed: its
 * flush covers the data, its FUA every block of the commit, so a commit
 * takes one round trip whatever its size.  Only if the blocks are not
 * contiguous on disk does the block holding the tail go on its own,
 * once the others have completed (a flush covers only completed
 * writes).  A commit torn after fsync returned would fail its crc and
 * take the whole commit with it.
 */
static int fc_send(struct fc_writer *w)
{
	journal_t *journal = w->journal;
	struct ext4_sb_info *sbi = w->sbi;
	struct buffer_head *tail = w->closed, *bh, *next;
	blk_opf_t plain = REQ_OP_WRITE | JBD2_JOURNAL_REQ_FLAGS, opf = plain;
	bool flush = test_opt(w->sb, BARRIER);
	ktime_t t0 = ktime_get();
	struct blk_plug plug;
	s64 seq;
	int err;

	err = fc_write_data(sbi);
	if (err)
		return err;
	if (flush && fc_selective(w->sb)) {
		flush = !fc_data_durable(sbi);
		fc_count(sbi, flush ? &sbi->s_fc_stats.fc_data_flush :
				      &sbi->s_fc_stats.fc_no_flush);
	}
	/* every data write completed by now is covered by the flush */
	seq = atomic64_read(&sbi->s_fc_data_seq);
	/* the data went to another device than the log: order it first */
	if (flush && journal->j_fs_dev != journal->j_dev)
		ext4_fc_flush(w->sb);
	fc_phase_end(w, EXT4FC_PHASE_DATA, &t0);

	if (test_opt(w->sb, BARRIER))
		opf |= flush ? REQ_PREFLUSH | REQ_FUA : REQ_FUA;
	if (fc_write_run(w, opf))
		goto wait;
	blk_start_plug(&plug);
	for (bh = tail->b_private; bh; bh = next) {
		next = bh->b_private;
		bh->b_private = NULL;
		/* no flush to come: each block durable by itself */
		fc_write_block(bh, flush ? plain : opf);
	}
	blk_finish_plug(&plug);
	tail->b_private = NULL;
	/* jbd2 counts the tail's block as the newest: wait for the rest */
	err = jbd2_fc_wait_sent(journal, w->blocks - 1);
	if (err)
		return err;
	fc_write_block(tail, opf);
wait:
	err = jbd2_fc_wait_bufs(journal, w->blocks);
	if (!err && flush && journal->j_fs_dev == journal->j_dev)
		fc_seq_max(&sbi->s_fc_flushed_seq, seq);
	fc_phase_end(w, EXT4FC_PHASE_BLOCKS, &t0);
	return err;
}

/* --- the commit: what fc_info counts --------------------------------- */

static void fc_account(struct super_block *sb, enum fc_outcome outcome,
		       const struct fc_writer *w, u64 ns, tid_t tid)
{
	struct ext4_fc_stats *st = &EXT4_SB(sb)->s_fc_stats;
	u64 us = div_u64(ns, NSEC_PER_USEC);
	int blocks = w ? w->blocks : 0;
	int bucket, i;

	switch (outcome) {
	case FC_DONE:
		st->fc_num_commits++;
		st->fc_numblks += blocks;
		for (i = 0; i < EXT4FC_PHASES; i++)
			st->fc_phase_ns[i] += w->phase_ns[i];
		st->s_fc_avg_commit_time = st->s_fc_avg_commit_time ?
			(ns + 3 * st->s_fc_avg_commit_time) / 4 : ns;
		bucket = min_t(int, fls64(us >> 4), EXT4FC_LAT_BUCKETS - 1);
		st->fc_lat_hist[bucket]++;
		break;
	case FC_FAILED:
		st->fc_failed_commits++;
		fallthrough;
	case FC_INELIGIBLE:
		st->fc_ineligible_commits++;
		break;
	case FC_SKIPPED:
		st->fc_skipped_commits++;
		break;
	}
	trace_ext4_fc_commit_stop(sb, blocks, outcome, tid);
}

/*
 * Unlock updates, and count for fc_info how long new handles were held
 * off: from @since, when jbd2_fc_begin_commit() started to wait for the
 * running handles to drain (new ones wait from then on), through
 * @locked, when they had, until now (the lock window).
 */
static void fc_unlock_updates(journal_t *journal, ktime_t since,
			      ktime_t locked)
{
	struct ext4_fc_stats *st = &EXT4_SB(journal->j_private)->s_fc_stats;
	unsigned int slot = st->fc_windows++ % EXT4FC_WINDOWS;
	u64 drain, window;

	jbd2_journal_unlock_updates(journal);
	drain = ktime_to_ns(ktime_sub(locked, since));
	window = ktime_to_ns(ktime_sub(ktime_get(), locked));
	st->fc_drain_ns[slot] = min_t(u64, drain, U32_MAX);
	st->fc_window_ns[slot] = min_t(u64, window, U32_MAX);
	st->fc_held_off_ns += drain + window;
	st->fc_held_off_max_ns = max(st->fc_held_off_max_ns, drain + window);
}

/* An fsync waited from @since for a full commit to end. */
static void fc_count_full_wait(struct ext4_fc_stats *st, ktime_t since)
{
	u64 ns = ktime_to_ns(ktime_sub(ktime_get(), since));

	st->fc_full_waits++;
	st->fc_full_wait_ns += ns;
	st->fc_full_wait_max_ns = max(st->fc_full_wait_max_ns, ns);
}

/* --- the commit: group commit ---------------------------------------- */

/*
 * Did a fast commit numbered after @snap_before reach the disk with what
 * this call needs: anything, or with fsync_isolation @inode's records?
 */
static bool fc_covered(struct ext4_sb_info *sbi, struct inode *inode,
		       int snap_before)
{
	int snap = inode ? READ_ONCE(EXT4_I(inode)->i_fc_snap) :
			   atomic_read(&sbi->s_fc_covered);

	return snap - snap_before > 0;
}

/*
 * Group commit for fsyncs of several threads.  The fsync of another
 * thread than the last one that committed opens a window as long as an
 * average fast commit (at most fc_batch_max_us; none before the first
 * fast commit), unless a commit is on its way (then it waits for that one anyway); an fsync that comes while
 * a window is open sleeps until it closes.  Each then commits as usual:
 * the first to claim the journal takes one snapshot for all of them, and
 * the others find their changes in it.  One thread fsyncing alone never
 * waits.
 */
static void fc_batch(struct super_block *sb)
{
	struct ext4_sb_info *sbi = EXT4_SB(sb);
	struct ext4fc_batch *b = &sbi->s_fc_batch;
	struct ext4_fc_stats *st = &sbi->s_fc_stats;
	u64 max_ns = (u64)READ_ONCE(fc_batch_max_us) * NSEC_PER_USEC;
	ktime_t now = ktime_get(), end;
	u64 len = min(st->s_fc_avg_commit_time, max_ns);
	bool alone;

	if (!len)
		return;
	spin_lock(&sbi->s_fc_lock);
	end = b->end;
	alone = b->last == current->pid;
	b->last = current->pid;
	if (!ktime_before(now, end)) {
		if (alone || READ_ONCE(sbi->s_journal->j_flags) &
		    (JBD2_FAST_COMMIT_ONGOING | JBD2_FULL_COMMIT_ONGOING)) {
			spin_unlock(&sbi->s_fc_lock);
			return;
		}
		end = ktime_add_ns(now, len);
		b->end = end;
		st->fc_batch_windows++;
	}
	st->fc_batch_waits++;
	spin_unlock(&sbi->s_fc_lock);

	set_current_state(TASK_UNINTERRUPTIBLE);
	schedule_hrtimeout(&end, HRTIMER_MODE_ABS);
	st->fc_batch_ns += ktime_to_ns(ktime_sub(ktime_get(), now));
}

/*
 * Group data.  An fsync writes its file's data before it commits.  One
 * that comes while a fast commit is on its way would wait for that commit
 * before its own anyway: it queues its file's range instead, and sleeps
 * until the commit ends.  Then the first of the queued fsyncs to wake
 * writes the data of all of them, under one plug: their new blocks are
 * allocated one after the other, so they go to the disk as one request
 * where they are contiguous, and the commit that follows (one snapshot for
 * all of them, as above) takes them all.  Each fsync then writes and waits
 * for its own range as before, so what it returns with is what it always
 * did: only the order of the writes changes.  An error stays with the
 * file's mapping, where each fsync finds its own.  An fsync that finds no
 * fast commit running writes its data at once.  fc_group_data (module
 * parameter) 0 turns it off.
 */
struct fc_data_req {
	struct list_head list;
	struct address_space *mapping;
	loff_t start, end;
};

static bool fc_data_turn(journal_t *journal, struct ext4fc_batch *b,
			 int seen)
{
	return atomic_read(&b->ends) != seen ||
	       !(READ_ONCE(journal->j_flags) & JBD2_FAST_COMMIT_ONGOING);
}

int ext4_fc_fsync_data(struct file *file, loff_t start, loff_t end)
{
	struct inode *inode = file->f_mapping->host;
	struct super_block *sb = inode->i_sb;
	struct ext4_sb_info *sbi = EXT4_SB(sb);
	journal_t *journal = sbi->s_journal;
	struct ext4fc_batch *b = &sbi->s_fc_batch;
	struct fc_data_req req = {
		.mapping = file->f_mapping,
		.start = start,
		.end = end,
	}, *r;
	struct blk_plug plug;
	LIST_HEAD(group);
	int seen, n = 0;

	if (!READ_ONCE(fc_group_data) || !journal || fc_off(sb) ||
	    !S_ISREG(inode->i_mode) || ext4_should_journal_data(inode))
		return file_write_and_wait_range(file, start, end);
	seen = atomic_read(&b->ends);
	if (!(READ_ONCE(journal->j_flags) & JBD2_FAST_COMMIT_ONGOING))
		return file_write_and_wait_range(file, start, end);

	spin_lock(&sbi->s_fc_lock);
	list_add_tail(&req.list, &b->data_q);
	spin_unlock(&sbi->s_fc_lock);
	/* the hand-over that ends the commit wakes us (fc_cleanup() first) */
	wait_event(journal->j_fc_wait, fc_data_turn(journal, b, seen));

	/* the queued fsyncs wait here until the group's data is sent */
	mutex_lock(&b->data_lock);
	spin_lock(&sbi->s_fc_lock);
	list_splice_init(&b->data_q, &group);
	spin_unlock(&sbi->s_fc_lock);
	blk_start_plug(&plug);
	list_for_each_entry(r, &group, list) {
		filemap_fdatawrite_range(r->mapping, r->start, r->end);
		n++;
	}
	blk_finish_plug(&plug);
	mutex_unlock(&b->data_lock);
	if (n > 1) {
		spin_lock(&sbi->s_fc_lock);
		sbi->s_fc_stats.fc_data_groups++;
		sbi->s_fc_stats.fc_data_grouped += n;
		spin_unlock(&sbi->s_fc_lock);
	}
	return file_write_and_wait_range(file, start, end);
}

/* --- the commit (ext4_fc_commit(), from fsync) ----------------------- */

/*
 * Make transaction @tid's changes durable, by a fast commit when
 * possible, else by a full one; with @fsynced (fsync_isolation) only
 * what that file needs has to be, and the fast commit takes no more.
 * An @fsync may wait in a batching window first (fc_batch()).
 */
static int fc_commit(journal_t *journal, tid_t tid, struct inode *fsynced,
		     bool fsync)
{
	struct super_block *sb = journal->j_private;
	struct ext4_sb_info *sbi = EXT4_SB(sb);
	/* our changes are complete: any snapshot taken from now has them */
	int snap_before = atomic_read(&sbi->s_fc_subtid);
	struct fc_writer w = {
		.sb = sb,
		.journal = journal,
		.sbi = sbi,
		.fsynced = fsynced,
	};
	struct ext4_inode_info *ei;
	struct ext4_fc_stats *st = &sbi->s_fc_stats;
	enum fc_outcome outcome;
	ktime_t start, since, locked;
	int snap, ret;
	bool full;

	if (!test_opt2(sb, JOURNAL_FAST_COMMIT))
		return jbd2_complete_transaction(journal, tid);
	if (fsync)
		fc_batch(sb);

	trace_ext4_fc_commit_start(sb, tid);
	start = ktime_get();
	for (;;) {
		since = ktime_get();
		full = READ_ONCE(journal->j_flags) & JBD2_FULL_COMMIT_ONGOING;
		ret = jbd2_fc_begin_commit(journal, tid);
		if (ret != -EALREADY)
			break;
		if (full)
			fc_count_full_wait(st, since);
		/*
		 * A commit ran while we waited.  A full commit of @tid, or
		 * a fast commit whose snapshot was taken after we came in
		 * and which reached the disk (and, isolated, logged our
		 * file), has what we need; otherwise try again.
		 */
		if (fc_covered(sbi, fsynced, snap_before)) {
			st->fc_fsyncs++;	/* a fast commit answered us */
			fc_account(sb, FC_SKIPPED, NULL, 0, tid);
			return 0;
		}
		if (!tid_gt(tid, journal->j_commit_sequence)) {
			fc_account(sb, FC_SKIPPED, NULL, 0, tid);
			return 0;
		}
	}
	if (ret) {
		/* no fast commit possible now (e.g. none since mount) */
		fc_account(sb, FC_FAILED, NULL, 0, tid);
		return jbd2_complete_transaction(journal, tid);
	}
	locked = ktime_get();	/* the running handles have drained */

	if (ext4_test_mount_flag(sb, EXT4_MF_FC_INELIGIBLE)) {
		fc_unlock_updates(journal, since, locked);
		outcome = FC_INELIGIBLE;
		goto full;
	}
	/* numbered before the freeze: see snap_before */
	snap = atomic_inc_return(&sbi->s_fc_subtid);
	ret = fc_snapshot(&w);
	fc_unlock_updates(journal, since, locked);
	if (!ret && unlikely(fc_debug_send_delay_ms))
		msleep(fc_debug_send_delay_ms);
	if (!ret)
		ret = fc_send(&w);
	if (!ret) {
		/* tell waiters in the loop above what is on disk now */
		list_for_each_entry(ei, &sbi->s_fc_q[FC_Q_MAIN], i_fc_list)
			WRITE_ONCE(ei->i_fc_snap, snap);
		if (!w.partial)
			atomic_set(&sbi->s_fc_covered, snap);
		else
			st->fc_isolated++;
		st->fc_left_queued += w.left;
		st->fc_fsyncs++;
		fc_account(sb, FC_DONE, &w,
			   ktime_to_ns(ktime_sub(ktime_get(), start)), tid);
		if (jbd2_fc_start_commit_at(journal, fc_full_commit_at))
			st->fc_bg_full_commits++;
		return jbd2_fc_end_commit(journal);
	}
	outcome = w.ineligible ? FC_INELIGIBLE : FC_FAILED;
	if (w.area_full)
		st->fc_area_full++;
full:
	fc_account(sb, outcome, NULL, 0, tid);
	return jbd2_fc_end_commit_fallback(journal);
}

/* A commit of everything queued (ext4's own callers). */
int ext4_fc_commit(journal_t *journal, tid_t tid)
{
	return fc_commit(journal, tid, NULL, false);
}

/* --- fsync: step 0, a directory's fsync ------------------------------ */

/*
 * Has the epoch a directory created or removed that no full commit has
 * carried yet?  Stock 6.1's replay of a mkdir or rmdir leaves the parent's
 * link count (and the new directory's i_blocks) wrong unless a full
 * commit follows, which its directory fsyncs always were: ours are then
 * full commits too, so that stock replays what we write as well as what
 * it writes.  s_fc_lock held.
 */
static bool fc_subdir_pending(struct ext4_sb_info *sbi)
{
	return sbi->s_fc_subdir &&
	       tid_gt(sbi->s_fc_subdir_tid,
		      READ_ONCE(sbi->s_journal->j_commit_sequence));
}

/*
 * Has every change of @inode an fsync needs gone out already?  A change
 * queues the inode (a new name hangs on it too), and the queue lets go of
 * it only once a commit that carried it is on disk: an inode neither
 * queued nor being committed, with no create pending and nothing
 * ineligible, has nothing left to log.  A directory also needs every
 * queued name gone.
 */
static bool fc_all_logged(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct ext4_sb_info *sbi = EXT4_SB(sb);
	struct ext4_inode_info *ei = EXT4_I(inode);
	bool done;

	spin_lock(&sbi->s_fc_lock);
	done = list_empty(&ei->i_fc_list) && list_empty(&ei->i_fc_dilist) &&
	       !fc_committing(inode) &&
	       !ext4_test_mount_flag(sb, EXT4_MF_FC_INELIGIBLE) &&
	       !fc_inode_ineligible(sbi->s_journal, ei);
	if (done && S_ISDIR(inode->i_mode))
		done = list_empty(&sbi->s_fc_dentry_q[FC_Q_MAIN]) &&
		       list_empty(&sbi->s_fc_dentry_q[FC_Q_STAGING]) &&
		       !fc_subdir_pending(sbi);
	if (done)
		sbi->s_fc_stats.fc_all_logged++;
	spin_unlock(&sbi->s_fc_lock);
	return done;
}

/*
 * fsync(2)'s commit.  With fsync_isolation, the file asks the commits to
 * come for itself (EXT4_STATE_FC_FSYNC: a commit that freezes it clears
 * it, and so do we once answered, so that a later commit does not take it
 * for a waiting fsync) and its own takes only what it needs.  A
 * directory's fsync takes every queued name, or is a full commit (see "A
 * directory's fsync" above).
 */
int ext4_fc_fsync(struct inode *inode, tid_t tid)
{
	struct ext4_sb_info *sbi = EXT4_SB(inode->i_sb);
	journal_t *journal = sbi->s_journal;
	int ret;

	/*
	 * Nothing left to log: the data the fsync wrote needs the cache
	 * flush, not a commit (a directory has no data).  A committed @tid
	 * goes on: fc_commit() returns at once, and the caller flushes.
	 */
	if (!fc_off(inode->i_sb) &&
	    tid_gt(tid, READ_ONCE(journal->j_commit_sequence)) &&
	    fc_all_logged(inode)) {
		if (S_ISDIR(inode->i_mode) || !(journal->j_flags & JBD2_BARRIER))
			return 0;
		if (ext4_fc_data_durable(inode)) {
			fc_count(sbi, &sbi->s_fc_stats.fc_all_logged_no_flush);
			return 0;
		}
		return ext4_fc_flush(inode->i_sb);
	}
	if (S_ISDIR(inode->i_mode) && !fc_off(inode->i_sb)) {
		/*
		 * Its names are name records (every queued one goes, so
		 * isolation has nothing to leave out); a change of its own
		 * inode is not, and needs the full commit.
		 */
		bool full;

		spin_lock(&sbi->s_fc_lock);
		full = fc_inode_ineligible(journal, EXT4_I(inode)) ||
		       fc_subdir_pending(sbi);
		spin_unlock(&sbi->s_fc_lock);
		fc_count(sbi, full ? &sbi->s_fc_stats.fc_dir_fsyncs_full :
				     &sbi->s_fc_stats.fc_dir_fsyncs);
		if (full)
			return jbd2_complete_transaction(journal, tid);
		return fc_commit(journal, tid, NULL, true);
	}
	if (!test_opt2(inode->i_sb, FSYNC_ISOLATION))
		return fc_commit(journal, tid, NULL, true);
	ext4_set_inode_state(inode, EXT4_STATE_FC_FSYNC);
	ret = fc_commit(journal, tid, inode, true);
	ext4_clear_inode_state(inode, EXT4_STATE_FC_FSYNC);
	return ret;
}

/* --- the commit: the cleanup (step 5) -------------------------------- */

/*
 * jbd2's callback after every fast commit (@full false, @tid 0, or the
 * transaction a fallback leaves the changes to) and full commit (@full
 * true, @tid the committed transaction).  Empties MAIN: what a full
 * commit covered is forgotten; an inode that changed in a newer
 * transaction during a full commit, or after a fast commit's snapshot
 * (EXT4_STATE_FC_REQUEUE), stays queued; then STAGING becomes MAIN.
 */
static void fc_retire_inodes(struct ext4_sb_info *sbi, bool full, tid_t tid)
{
	struct ext4_inode_info *ei, *ei_next;
	bool again;

	list_for_each_entry_safe(ei, ei_next, &sbi->s_fc_q[FC_Q_MAIN],
				 i_fc_list) {
		again = ext4_test_inode_state(&ei->vfs_inode,
					      EXT4_STATE_FC_REQUEUE);
		ext4_clear_inode_state(&ei->vfs_inode, EXT4_STATE_FC_REQUEUE);
		list_del_init(&ei->i_fc_list);
		if (tid && tid_geq(tid, ei->i_sync_tid))
			fc_forget_range(ei);
		else if (full || again)
			list_add_tail(&ei->i_fc_list,
				      &sbi->s_fc_q[FC_Q_STAGING]);
		fc_release_inode(ei);
	}
}

/*
 * What waits in STAGING and a full commit of @tid carried: names and
 * inodes an isolated fast commit left behind before the fallback or the
 * full commit, or that a handle of @tid queued while the journal was
 * owned.  The names go on @names, to be freed.  s_fc_lock held.
 */
static void fc_retire_staging(struct ext4_sb_info *sbi, tid_t tid,
			      struct list_head *names)
{
	struct ext4_inode_info *ei, *ei_next;
	struct ext4fc_dentry *fd, *fd_next;

	list_for_each_entry_safe(ei, ei_next, &sbi->s_fc_q[FC_Q_STAGING],
				 i_fc_list) {
		if (tid_gt(ei->i_sync_tid, tid))
			continue;
		list_del_init(&ei->i_fc_list);
		fc_forget_range(ei);
	}
	list_for_each_entry_safe(fd, fd_next,
				 &sbi->s_fc_dentry_q[FC_Q_STAGING], fd_queue)
		if (!tid_gt(fd->fd_tid, tid))
			list_move_tail(&fd->fd_queue, names);
}

static void fc_cleanup(journal_t *journal, int full, tid_t tid)
{
	struct ext4_sb_info *sbi = EXT4_SB(journal->j_private);
	struct ext4fc_dentry *fd, *fd_next;
	LIST_HEAD(names);

	trace_ext4_fc_cleanup(journal, full, tid);
	atomic_inc(&sbi->s_fc_batch.ends);	/* before the hand-over's wake-up */
	if (full)
		sbi->s_fc_bh = NULL;	/* released with the rest below */
	jbd2_fc_release_bufs(journal);

	spin_lock(&sbi->s_fc_lock);
	fc_retire_inodes(sbi, full, tid);
	list_splice_init(&sbi->s_fc_dentry_q[FC_Q_MAIN], &names);
	if (tid)
		fc_retire_staging(sbi, tid, &names);
	list_for_each_entry(fd, &names, fd_queue)
		list_del_init(&fd->fd_inode);
	fc_promote_staging(sbi);
	if (full)
		sbi->s_fc_bytes = 0;
	if (tid_geq(tid, sbi->s_fc_ineligible_tid)) {
		ext4_clear_mount_flag(journal->j_private,
				      EXT4_MF_FC_INELIGIBLE);
		sbi->s_fc_ineligible_tid = 0;
	}
	spin_unlock(&sbi->s_fc_lock);

	list_for_each_entry_safe(fd, fd_next, &names, fd_queue)
		fc_free_dentry(fd);
	trace_ext4_fc_stats(journal->j_private);
}

/* --- mount ----------------------------------------------------------- */

void ext4_fc_init_sb(struct super_block *sb)
{
	struct ext4_sb_info *sbi = EXT4_SB(sb);
	int g;

	for (g = FC_Q_MAIN; g <= FC_Q_STAGING; g++) {
		INIT_LIST_HEAD(&sbi->s_fc_q[g]);
		INIT_LIST_HEAD(&sbi->s_fc_dentry_q[g]);
	}
	spin_lock_init(&sbi->s_fc_lock);
	atomic_set(&sbi->s_fc_subtid, 0);
	atomic_set(&sbi->s_fc_covered, 0);
	sbi->s_fc_bytes = 0;
	sbi->s_fc_bh = NULL;
	sbi->s_fc_ineligible_tid = 0;
	ext4_clear_mount_flag(sb, EXT4_MF_FC_INELIGIBLE);
	memset(&sbi->s_fc_stats, 0, sizeof(sbi->s_fc_stats));
	memset(&sbi->s_fc_batch, 0, sizeof(sbi->s_fc_batch));
	INIT_LIST_HEAD(&sbi->s_fc_batch.data_q);
	mutex_init(&sbi->s_fc_batch.data_lock);
	memset(&sbi->s_fc_replay_state, 0, sizeof(sbi->s_fc_replay_state));
	atomic64_set(&sbi->s_fc_data_seq, 0);
	atomic64_set(&sbi->s_fc_flushed_seq, 0);
	atomic64_set(&sbi->s_fc_evicted_seq, 0);
}

void ext4_fc_init(struct super_block *sb, journal_t *journal)
{
	/*
	 * Replay is wired even with fast commits off: the journal may hold
	 * fast commits from a mount that had them on.
	 */
	journal->j_fc_replay_callback = ext4fc_replay_block;
	if (test_opt2(sb, JOURNAL_FAST_COMMIT))
		journal->j_fc_cleanup_callback = fc_cleanup;
}

/* fc_info's names for the reasons: stock ext4's, which scripts match */
static const struct {
	int reason;
	const char *name;
} fc_reasons[] = {
	{ EXT4_FC_REASON_XATTR, "Extended attributes changed" },
	{ EXT4_FC_REASON_CROSS_RENAME, "Cross rename" },
	{ EXT4_FC_REASON_JOURNAL_FLAG_CHANGE, "Journal flag changed" },
	{ EXT4_FC_REASON_NOMEM, "Insufficient memory" },
	{ EXT4_FC_REASON_SWAP_BOOT, "Swap boot" },
	{ EXT4_FC_REASON_RESIZE, "Resize" },
	{ EXT4_FC_REASON_RENAME_DIR, "Dir renamed" },
	{ EXT4_FC_REASON_FALLOC_RANGE, "Falloc range op" },
	{ EXT4_FC_REASON_INODE_JOURNAL_DATA, "Data journalling" },
	{ EXT4_FC_REASON_ENCRYPTED_FILENAME, "Encrypted filename" },
	{ EXT4_FC_REASON_NO_EXTENTS, "Block-mapped file" },
	{ EXT4_FC_REASON_ORPHAN_DEL, "Orphan removed" },
};

/* --- fc_info --------------------------------------------------------- */

static int fc_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * "WHAT (us, last N): p50 A p99 B max C" over the ring @ns of the last
 * @n (at most EXT4FC_WINDOWS) claims; nothing without memory for a copy.
 */
static void fc_show_windows(struct seq_file *seq, const char *what,
			    const u32 *ns, unsigned long n)
{
	u32 *v;

	n = min_t(unsigned long, n, EXT4FC_WINDOWS);
	if (!n)
		return;
	v = kmemdup(ns, n * sizeof(*v), GFP_KERNEL);
	if (!v)
		return;
	sort(v, n, sizeof(*v), fc_cmp_u32, NULL);
	seq_printf(seq, "%s (us, last %lu): p50 %u p99 %u max %u\n", what, n,
		   v[(n - 1) / 2] / (u32)NSEC_PER_USEC,
		   v[(n * 99 - 1) / 100] / (u32)NSEC_PER_USEC,
		   v[n - 1] / (u32)NSEC_PER_USEC);
	kfree(v);
}

/*
 * /proc/fs/ext4fc/DEV/fc_info: the lines stock ext4 prints (scripts parse
 * them), then ours: failed commits (and how many for lack of room), full
 * commits started early, skipped commits, fsyncs and fc blocks per fast
 * commit, how long handles were held off (the drain and the lock window
 * as percentiles), the time per commit phase and the latency histogram.
 */
int ext4_fc_info_show(struct seq_file *seq, void *v)
{
	struct super_block *sb = seq->private;
	struct ext4_fc_stats *st = &EXT4_SB(sb)->s_fc_stats;
	static const char * const phases[EXT4FC_PHASES] = {
		"choosing", "records", "data", "fc blocks",
	};
	unsigned long per100, blk100, n = st->fc_num_commits;
	int i;

	if (v != SEQ_START_TOKEN)
		return 0;
	per100 = n ? st->fc_fsyncs * 100 / n : 0;
	blk100 = n ? st->fc_numblks * 100 / n : 0;

	seq_puts(seq, "fc stats:\n");
	seq_printf(seq, "%lu commits\n", st->fc_num_commits);
	seq_printf(seq, "%lu ineligible\n", st->fc_ineligible_commits);
	seq_printf(seq, "%lu numblks\n", st->fc_numblks);
	seq_printf(seq, "%lluus avg_commit_time\n",
		   div_u64(st->s_fc_avg_commit_time, NSEC_PER_USEC));
	seq_puts(seq, "Ineligible reasons:\n");
	for (i = 0; i < ARRAY_SIZE(fc_reasons); i++)
		seq_printf(seq, "\"%s\":\t%u\n", fc_reasons[i].name,
			   st->fc_ineligible_reason_count[fc_reasons[i].reason]);
	seq_printf(seq, "%lu failed\n", st->fc_failed_commits);
	seq_printf(seq, "%lu area full\n", st->fc_area_full);
	seq_printf(seq, "%lu background full commits\n",
		   st->fc_bg_full_commits);
	seq_printf(seq, "%lu skipped\n", st->fc_skipped_commits);
	seq_printf(seq, "%lu fsyncs answered by fast commits\n", st->fc_fsyncs);
	seq_printf(seq, "%lu.%02lu fsyncs per fast commit\n",
		   per100 / 100, per100 % 100);
	seq_printf(seq, "%lu fsyncs waited for a full commit, %lluus in total, %lluus at most\n",
		   st->fc_full_waits, div_u64(st->fc_full_wait_ns, NSEC_PER_USEC),
		   div_u64(st->fc_full_wait_max_ns, NSEC_PER_USEC));
	seq_printf(seq, "%lu batching windows, %lu fsyncs waited in them, %lluus in total\n",
		   st->fc_batch_windows, st->fc_batch_waits,
		   div_u64(st->fc_batch_ns, NSEC_PER_USEC));
	seq_printf(seq, "%lu data groups, %lu fsyncs wrote their data in them\n",
		   st->fc_data_groups, st->fc_data_grouped);
	seq_printf(seq, "%lu.%02lu fc blocks per fast commit\n",
		   blk100 / 100, blk100 % 100);
	seq_printf(seq, "%lu in-inode xattr changes logged\n",
		   st->fc_xattr_in_inode);
	seq_printf(seq, "%lu range shifts logged\n", st->fc_shifts);
	seq_printf(seq, "%lu range shifts over %d extents (full commit)\n",
		   st->fc_shifts_too_long, FC_SHIFT_MAX_RUNS);
	seq_printf(seq, "%lu directory moves logged\n", st->fc_dir_moves);
	seq_printf(seq, "%lu directory fsyncs as fast commits, %lu as full commits (the directory's own inode changed)\n",
		   st->fc_dir_fsyncs, st->fc_dir_fsyncs_full);
	seq_printf(seq, "%lu fsyncs with nothing left to log (a cache flush at most)\n",
		   st->fc_all_logged);
	seq_printf(seq, "%lu fast commits without a cache flush, %lu with one (data written without FUA since the last flush)\n",
		   st->fc_no_flush, st->fc_data_flush);
	seq_printf(seq, "%lu fsyncs with nothing left to log and their data durable (no I/O)\n",
		   st->fc_all_logged_no_flush);
	seq_printf(seq, "%lu isolated fast commits\n", st->fc_isolated);
	seq_printf(seq, "%lu inodes left queued by them\n",
		   st->fc_left_queued);
	seq_printf(seq, "%lluus handles held off\n",
		   div_u64(st->fc_held_off_ns, NSEC_PER_USEC));
	seq_printf(seq, "%lluus handles held off (longest)\n",
		   div_u64(st->fc_held_off_max_ns, NSEC_PER_USEC));
	fc_show_windows(seq, "handles drained", st->fc_drain_ns,
			st->fc_windows);
	fc_show_windows(seq, "lock window", st->fc_window_ns, st->fc_windows);
	seq_puts(seq, "time per fast commit (us):");
	for (i = 0; i < EXT4FC_PHASES; i++)
		seq_printf(seq, " %s %llu", phases[i],
			   n ? div64_u64(st->fc_phase_ns[i], n * NSEC_PER_USEC) : 0);
	seq_putc(seq, '\n');
	seq_puts(seq, "Commit latency histogram (us):\n");
	for (i = 0; i < EXT4FC_LAT_BUCKETS - 1; i++)
		seq_printf(seq, "<%u:\t%u\n", 16U << i, st->fc_lat_hist[i]);
	seq_printf(seq, ">=%u:\t%u\n", 16U << (EXT4FC_LAT_BUCKETS - 2),
		   st->fc_lat_hist[i]);
	return 0;
}

/* --- the module ------------------------------------------------------ */

int __init ext4_fc_init_dentry_cache(void)
{
	ext4fc_dentry_cache = kmem_cache_create("ext4fc_fc_dentry",
						sizeof(struct ext4fc_dentry),
						0, SLAB_RECLAIM_ACCOUNT, NULL);
	return ext4fc_dentry_cache ? 0 : -ENOMEM;
}

void ext4_fc_destroy_dentry_cache(void)
{
	kmem_cache_destroy(ext4fc_dentry_cache);
}
