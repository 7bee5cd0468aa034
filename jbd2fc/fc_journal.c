// SPDX-License-Identifier: GPL-2.0
/*
 * fs/jbd2/fc_journal.c - jbd2fc's half of fast commits.
 *
 * A fast commit is a small log of what changed since the last full commit,
 * written by the file system (ext4fc) into blocks jbd2 reserves for it.  This
 * file owns those blocks, decides who may write into the journal when, and
 * walks the blocks at recovery.  What goes into a block is the file
 * system's business; jbd2 never looks inside one.
 *
 * The area.  The last blocks of the log: s_num_fc_blks of them, 256 when
 * the superblock says 0.  The full-commit log wraps at j_last, so it uses
 * [j_first, j_last); fast commits use [j_fc_first, j_fc_last) with
 * j_fc_last = s_maxlen, j_last = s_maxlen - n and j_fc_first = j_last + 1.
 * That leaves n - 1 blocks for fast commits and j_last itself to nobody.
 * It is the arithmetic upstream jbd2 has always used and it decides where
 * each block lands on disk, which stock ext4 and e2fsck must find: keep it.
 * The area is set up twice.  jbd2fc_area_load() runs when the superblock
 * is read and carries the bit: recovery has to know where the area is.
 * jbd2fc_area_setup() runs when the file system asks for the feature
 * (jbd2_journal_set_features()): it takes the blocks away from the log
 * (j_last, j_free) for good and allocates j_fc_wbuf, one slot per block.
 * The area is filled from j_fc_first; j_fc_off is the next free block.
 * Each full commit starts it over (j_fc_off = 0): from then on whatever
 * the blocks hold is stale, and the file system tells old from new by the
 * tid it writes into them.  Nothing is written into the area while the
 * full commit runs, so should it not complete, the fast commits before it
 * are still there for recovery.  jbd2_fc_start_commit_at() starts that
 * full commit early, once the area is filled to a share the file system
 * names, so that an fsync seldom finds it full (jbd2_fc_get_buf() then
 * says -ENOSPC).
 *
 * The feature bit.  jbd2_journal_set_features() sets it and the next
 * superblock write puts it on disk: from then on fast commits may need
 * replay.  When the journal is marked empty (a flush, a wipe, an unmount)
 * the superblock is written without it, since there is nothing to replay,
 * and the bit is put back in memory (jbd2fc_sb_hide_feature()).  Loading a
 * journal clears it in memory after recovery (journal_reset()): a file
 * system that no longer asks for fast commits does not get them.
 *
 * Who writes.  Two bits of j_flags, only ever changed with j_state_lock
 * held for writing: JBD2_FAST_COMMIT_ONGOING, a fast commit owns the
 * journal, and JBD2_FULL_COMMIT_ONGOING, a full commit runs or has been
 * promised.  A fast commit starts only when neither is set.  A full commit
 * sets its bit first, so no new fast commit can start, then sleeps until
 * the fast commit that is running (if any) is done, and only then locks
 * its transaction.  Waiters sleep on j_fc_wait; jbd2fc_hand_over() is the
 * one place the bits are dropped and it wakes them.  The bits are tested
 * and the waiter queued under the lock the hand-over takes, so no wake-up
 * is lost.  A fast commit that finds the journal busy sleeps until one
 * hand-over and returns -EALREADY: the caller sees whether what it waited
 * for covered its changes and starts again if not.  jbd2_fc_begin_commit()
 * also locks updates (jbd2_journal_lock_updates()): no handle changes
 * anything while the file system takes its snapshot of inodes and extents.
 * The file system unlocks them itself (jbd2_journal_unlock_updates()) as
 * soon as the snapshot is taken, before any I/O of the commit, and always
 * before jbd2_fc_end_commit() or jbd2_fc_end_commit_fallback(): handles
 * wait for the snapshot, never for the disk.  The journal stays claimed
 * until the end, so no full commit starts while the fast commit's blocks
 * are on their way.  Fast commits only start once this mount has
 * made a full commit (j_stats.ts_tid), and not while the log on disk is
 * empty (JBD2_FLUSHED: after a flush, a checkpoint of everything, a
 * remount read-only and back, until the next full commit): recovery never
 * looks at the area of an empty log (s_start == 0), so a fast commit then
 * would be lost, fsync'd data with it (stock 6.1 loses it).
 *
 * Fallback.  Half-way through a fast commit the file system may find it
 * cannot finish it: a change the format cannot say, no more blocks, an I/O
 * error.  By then it has dropped its record of what the fast commit was to
 * carry, and the blocks it wrote hold no valid tail: each tail covers
 * everything written since the previous tail, so every fast commit written
 * after them in the same area would fail its check at replay.  The running
 * transaction still has all the changes, so the way out is a full commit
 * of it, and it must come before any other fast commit: fallback drops the
 * fast-commit bit and raises the full-commit bit in the same hand-over,
 * then commits the transaction and waits for it.
 *
 * Buffers.  jbd2_fc_get_buf() gives the file system the buffer of the next
 * block of the area, holding one reference, and keeps it in j_fc_wbuf at
 * its slot.  jbd2_fc_wait_sent() waits for the blocks sent before the one
 * being filled (the file system calls it before it sends the block that
 * closes a commit: that block's cache flush covers only completed
 * writes).  jbd2_fc_wait_bufs() waits for the last n of them, the newest
 * (the tail, submitted last) first, and checks each is uptodate before it
 * drops the reference: once put_bh() has run the buffer may be gone, and
 * nothing here touches it again.  A slot is NULL or holds one reference;
 * a buffer that failed, and those before it, stay in their slots for
 * jbd2_fc_release_bufs(), which the file system calls when the commit is
 * over, whatever happened.
 *
 * Recovery.  After each pass over the log but the revoke pass (the area has
 * no revoke records), when the superblock carries the bit, the area is
 * offered block by block, in order, to j_fc_replay_callback with its
 * offset in the area and the tid a tail must carry (the one after the last
 * full commit the scan found).  The callback says continue, stop, or gives
 * an error; an error is the pass's error, as upstream has it.  The walk
 * stays inside the area, and its end is the end of the log: fast commits
 * that fill the area to its last block are all there is to replay.
 * (Upstream read the block past the area and failed the recovery, so a
 * power cut with the area full left a file system that would not mount.)
 */

#include <linux/fs.h>
#include <linux/jbd2fc.h>
#include <linux/buffer_head.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <trace/events/jbd2fc.h>

#include "fc_journal.h"

#define JBD2FC_BUSY	(JBD2_FAST_COMMIT_ONGOING | JBD2_FULL_COMMIT_ONGOING)

/* --- the area -------------------------------------------------------- */

/* Place @nr blocks at the end of a log that ends at block @end. */
static void jbd2fc_place_area(journal_t *journal, unsigned long end,
			      unsigned long nr)
{
	journal->j_fc_last = end;
	journal->j_last = end - nr;
	journal->j_fc_first = journal->j_last + 1;
	journal->j_fc_off = 0;
}

/*
 * The superblock just read says fast commits may need replay: find the
 * area for recovery.  A size the log cannot spare leaves it empty
 * (j_fc_first past j_fc_last) and the log whole.
 */
void jbd2fc_area_load(journal_t *journal)
{
	unsigned long end = journal->j_last;
	unsigned long nr;

	if (!jbd2_has_feature_fast_commit(journal))
		return;
	nr = (unsigned int)jbd2_journal_get_num_fc_blks(journal->j_superblock);
	if (nr > end || end - nr < JBD2_MIN_JOURNAL_BLOCKS) {
		pr_warn("JBD2FC: %s: s_num_fc_blks %lu does not fit a %lu-block journal: no fast-commit area, fast commits are not replayed\n",
			journal->j_devname, nr, end);
		nr = 0;
	}
	jbd2fc_place_area(journal, end, nr);
}

/*
 * The file system turns fast commits on: take the area from the log and
 * get a slot per block.  Called on a journal that is empty and whose j_last
 * is still the end of the log; the caller recomputes what follows from
 * the log's size (j_max_transaction_buffers).
 */
int jbd2fc_area_setup(journal_t *journal)
{
	unsigned long end = journal->j_last;
	unsigned long nr;

	if (journal->j_fc_wbuf)
		return 0;	/* done already, the log is short already */

	nr = (unsigned int)jbd2_journal_get_num_fc_blks(journal->j_superblock);
	if (nr > end || end - nr < JBD2_MIN_JOURNAL_BLOCKS) {
		pr_err("JBD2FC: %s: %lu fast-commit blocks (s_num_fc_blks) leave less of the %lu-block journal than the %d its log needs: make the journal bigger or the area smaller (mke2fs -J size=MB,fast_commit_size=KB)\n",
			journal->j_devname, nr, end, JBD2_MIN_JOURNAL_BLOCKS);
		return nr > end ? -EFSCORRUPTED : -ENOSPC;
	}

	journal->j_fc_wbuf = kcalloc(nr, sizeof(*journal->j_fc_wbuf),
				     GFP_KERNEL);
	if (!journal->j_fc_wbuf)
		return -ENOMEM;
	journal->j_fc_wbufsize = nr;
	jbd2fc_place_area(journal, end, nr);
	journal->j_free = journal->j_last - journal->j_first;
	return 0;
}

void jbd2fc_area_release(journal_t *journal)
{
	kfree(journal->j_fc_wbuf);
	journal->j_fc_wbuf = NULL;
	journal->j_fc_wbufsize = 0;
}

/* --- who writes into the journal -------------------------------------- */

/*
 * Sleep on j_fc_wait until the next hand-over.  Called, and returns, with
 * j_state_lock held for writing: we are on the queue before the lock is
 * dropped, so the wake-up of a hand-over we raced with cannot be missed.
 */
static void jbd2fc_sleep_for_handover(journal_t *journal)
	__must_hold(&journal->j_state_lock)
{
	DEFINE_WAIT(wait);

	prepare_to_wait(&journal->j_fc_wait, &wait, TASK_UNINTERRUPTIBLE);
	write_unlock(&journal->j_state_lock);
	schedule();
	finish_wait(&journal->j_fc_wait, &wait);
	write_lock(&journal->j_state_lock);
}

/* Wait until no fast commit owns the journal; j_state_lock held for write. */
static void jbd2fc_fc_wait_idle(journal_t *journal)
	__must_hold(&journal->j_state_lock)
{
	while (journal->j_flags & JBD2_FAST_COMMIT_ONGOING)
		jbd2fc_sleep_for_handover(journal);
}

/*
 * The one place a commit gives the journal back: drop the @drop bits,
 * raise the @raise bits, then wake everyone sleeping for a hand-over.
 */
static void jbd2fc_hand_over(journal_t *journal, unsigned long drop,
			     unsigned long raise)
{
	write_lock(&journal->j_state_lock);
	journal->j_flags = (journal->j_flags & ~drop) | raise;
	write_unlock(&journal->j_state_lock);
	wake_up(&journal->j_fc_wait);
}

/*
 * Make the journal ours for a fast commit of @tid, unless @tid needs none
 * or someone else has it (then wait for them to be done and say so).
 */
static int jbd2fc_claim(journal_t *journal, tid_t tid)
	__must_hold(&journal->j_state_lock)
{
	if (tid_geq(journal->j_commit_sequence, tid))
		return -EALREADY;
	/* the log on disk is empty: recovery would not look at the area */
	if (journal->j_flags & JBD2_FLUSHED)
		return -EINVAL;
	if (journal->j_flags & JBD2FC_BUSY) {
		jbd2fc_sleep_for_handover(journal);
		return -EALREADY;
	}
	journal->j_flags |= JBD2_FAST_COMMIT_ONGOING;
	return 0;
}

/**
 * jbd2_fc_begin_commit() - start a fast commit of transaction @tid
 * @journal: the journal
 * @tid: the transaction whose changes the fast commit carries
 *
 * Return: 0 when the fast commit may be written (updates are locked: the
 * caller unlocks them before it ends the commit); -EALREADY when
 * @tid is committed already, or after waiting for the commit that was
 * running; -EINVAL before the first full commit of this mount or while
 * the log on disk is empty; -EIO on an aborted journal.
 */
int jbd2_fc_begin_commit(journal_t *journal, tid_t tid)
{
	int ret;

	if (unlikely(is_journal_aborted(journal)))
		return -EIO;
	/* Nothing in the log for recovery to anchor the area to (see top). */
	if (!journal->j_stats.ts_tid)
		return -EINVAL;

	write_lock(&journal->j_state_lock);
	ret = jbd2fc_claim(journal, tid);
	write_unlock(&journal->j_state_lock);
	if (ret == 0)
		jbd2_journal_lock_updates(journal);
	return ret;
}
EXPORT_SYMBOL(jbd2_fc_begin_commit);

/*
 * End the fast commit.  The cleanup callback learns which transaction a
 * fallback leaves the changes to (0 for none: the fast commit has them).
 */
static int jbd2fc_end(journal_t *journal, bool fallback)
{
	tid_t tid = 0;

	if (fallback) {
		read_lock(&journal->j_state_lock);
		if (journal->j_running_transaction)
			tid = journal->j_running_transaction->t_tid;
		read_unlock(&journal->j_state_lock);
	}

	if (journal->j_fc_cleanup_callback)
		journal->j_fc_cleanup_callback(journal, 0, tid);

	if (!fallback) {
		jbd2fc_hand_over(journal, JBD2_FAST_COMMIT_ONGOING, 0);
		return 0;
	}
	jbd2fc_hand_over(journal, JBD2_FAST_COMMIT_ONGOING,
			 JBD2_FULL_COMMIT_ONGOING);
	return jbd2_complete_transaction(journal, tid);
}

/**
 * jbd2_fc_end_commit() - the fast commit is on disk
 * @journal: the journal
 *
 * Return: 0.
 */
int jbd2_fc_end_commit(journal_t *journal)
{
	return jbd2fc_end(journal, false);
}
EXPORT_SYMBOL(jbd2_fc_end_commit);

/**
 * jbd2_fc_end_commit_fallback() - give up the fast commit for a full one
 * @journal: the journal
 *
 * Ends the fast commit and commits the running transaction before any
 * other fast commit can start; waits for that commit.
 *
 * Return: 0, or the error of the full commit.
 */
int jbd2_fc_end_commit_fallback(journal_t *journal)
{
	return jbd2fc_end(journal, true);
}
EXPORT_SYMBOL(jbd2_fc_end_commit_fallback);

/*
 * A full commit is about to lock its transaction: keep new fast commits
 * out, wait for the running one, and start the area over.
 */
void jbd2fc_full_commit_start(journal_t *journal)
{
	write_lock(&journal->j_state_lock);
	journal->j_flags |= JBD2_FULL_COMMIT_ONGOING;
	/*
	 * Fast commits are held off for the whole full commit, though only
	 * its T_FLUSH stage strictly needs it: simpler, at the price of some
	 * fsync latency while a full commit runs.
	 */
	jbd2fc_fc_wait_idle(journal);
	journal->j_fc_off = 0;
	write_unlock(&journal->j_state_lock);
}

/* Transaction @tid is on disk: let the file system clean up, then go. */
void jbd2fc_full_commit_done(journal_t *journal, tid_t tid)
{
	if (journal->j_fc_cleanup_callback)
		journal->j_fc_cleanup_callback(journal, 1, tid);
	jbd2fc_hand_over(journal, JBD2FC_BUSY, 0);
}

/* --- buffers of the area --------------------------------------------- */

/* The buffer of journal block @blk, with a reference, not read. */
static struct buffer_head *jbd2fc_getblk(journal_t *journal,
					 unsigned long blk)
{
	unsigned long long pblk;
	struct buffer_head *bh;
	int err;

	err = jbd2_journal_bmap(journal, blk, &pblk);
	if (err)
		return ERR_PTR(err);
	bh = __getblk(journal->j_dev, pblk, journal->j_blocksize);
	return bh ?: ERR_PTR(-ENOMEM);
}

/* How many blocks jbd2_fc_get_buf() can hand out after a full commit. */
static unsigned long jbd2fc_area_blocks(journal_t *journal)
{
	return min_t(unsigned long, journal->j_fc_last - journal->j_fc_first,
		     journal->j_fc_wbufsize);
}

/**
 * jbd2_fc_get_buf() - the buffer of the next block of the area
 * @journal: the journal
 * @bh_out: set to the buffer (with a reference), or NULL
 *
 * Return: 0; -ENOSPC when the area is full; -ENOMEM, or the error of
 * mapping the block.
 */
int jbd2_fc_get_buf(journal_t *journal, struct buffer_head **bh_out)
{
	unsigned long slot = journal->j_fc_off;
	struct buffer_head *bh;

	*bh_out = NULL;
	if (slot >= jbd2fc_area_blocks(journal))
		return -ENOSPC;

	bh = jbd2fc_getblk(journal, journal->j_fc_first + slot);
	if (IS_ERR(bh))
		return PTR_ERR(bh);
	journal->j_fc_wbuf[slot] = bh;
	journal->j_fc_off = slot + 1;
	*bh_out = bh;
	return 0;
}
EXPORT_SYMBOL(jbd2_fc_get_buf);

/**
 * jbd2_fc_start_commit_at() - start a full commit once the area is filling
 * @journal: the journal
 * @percent: how full the area must be, in percent of its blocks (0: never)
 *
 * When the fast commits since the last full commit have used @percent of
 * the area, ask kjournald2 for a full commit of the running transaction;
 * do not wait for it.  Call it while a fast commit owns the journal (so
 * the area is not started over and the running transaction stays).
 *
 * Return: true when this call asked for the commit (false: not full
 * enough, or already asked for).
 */
bool jbd2_fc_start_commit_at(journal_t *journal, unsigned int percent)
{
	unsigned long size = jbd2fc_area_blocks(journal);
	tid_t tid = 0;

	if (!percent || journal->j_fc_off * 100 < size * percent)
		return false;
	read_lock(&journal->j_state_lock);
	if (journal->j_running_transaction)
		tid = journal->j_running_transaction->t_tid;
	read_unlock(&journal->j_state_lock);
	return tid && jbd2_log_start_commit(journal, tid);
}
EXPORT_SYMBOL(jbd2_fc_start_commit_at);

/*
 * Wait for the buffer at @slot and check that it was written; with
 * @release, drop our reference (the buffer may be gone after that).
 */
static int jbd2fc_wait_slot(journal_t *journal, unsigned long slot,
			    bool release)
{
	struct buffer_head *bh = journal->j_fc_wbuf[slot];

	if (!bh)
		return 0;
	wait_on_buffer(bh);
	if (unlikely(!buffer_uptodate(bh)))
		return -EIO;
	if (release) {
		journal->j_fc_wbuf[slot] = NULL;
		put_bh(bh);	/* bh is not ours any more */
	}
	return 0;
}

/**
 * jbd2_fc_wait_bufs() - wait for the last buffers handed out
 * @journal: the journal
 * @num_blks: how many of the most recent buffers to wait for
 *
 * Each buffer that is written is released.  On the first one that is not
 * uptodate, it and the older ones are left to jbd2_fc_release_bufs().
 *
 * Return: 0, or -EIO.
 */
int jbd2_fc_wait_bufs(journal_t *journal, int num_blks)
{
	unsigned long slot = journal->j_fc_off;
	unsigned long oldest = 0;
	int err;

	if (num_blks < 0)
		num_blks = 0;
	if ((unsigned long)num_blks < slot)
		oldest = slot - num_blks;

	/* Newest first: by the time the last one is done, so are the rest. */
	while (slot-- > oldest) {
		err = jbd2fc_wait_slot(journal, slot, true);
		if (err)
			return err;
	}
	return 0;
}
EXPORT_SYMBOL(jbd2_fc_wait_bufs);

/**
 * jbd2_fc_wait_sent() - wait for the buffers sent before the newest one
 * @journal: the journal
 * @num_blks: how many buffers before the newest to wait for
 *
 * The newest buffer is the one still being filled.  A cache flush sent
 * with it only covers writes that have completed: the file system waits
 * for the earlier blocks of a commit before it sends the block that makes
 * the commit valid.  The buffers stay held for jbd2_fc_wait_bufs().
 *
 * Return: 0, or -EIO.
 */
int jbd2_fc_wait_sent(journal_t *journal, int num_blks)
{
	unsigned long newest = journal->j_fc_off;
	unsigned long slot;
	int err;

	if (!newest || num_blks <= 0)
		return 0;
	newest--;
	slot = (unsigned long)num_blks < newest ? newest - num_blks : 0;
	for (; slot < newest; slot++) {
		err = jbd2fc_wait_slot(journal, slot, false);
		if (err)
			return err;
	}
	return 0;
}
EXPORT_SYMBOL(jbd2_fc_wait_sent);

/**
 * jbd2_fc_release_bufs() - drop every buffer of the area still held
 * @journal: the journal
 *
 * Return: 0.
 */
int jbd2_fc_release_bufs(journal_t *journal)
{
	unsigned long slot;
	struct buffer_head *bh;

	for (slot = 0; slot < journal->j_fc_off; slot++) {
		bh = journal->j_fc_wbuf[slot];
		if (bh) {
			journal->j_fc_wbuf[slot] = NULL;
			put_bh(bh);
		}
	}
	return 0;
}
EXPORT_SYMBOL(jbd2_fc_release_bufs);

/* --- the file's data, before its fast commit ------------------------- */

/* @jinode's pages, if @flag says there is data to write or to wait for. */
static struct address_space *jbd2fc_data_mapping(struct jbd2_inode *jinode,
						 unsigned long flag)
{
	if (!jinode || !(jinode->i_flags & flag) || !jinode->i_vfs_inode)
		return NULL;
	return jinode->i_vfs_inode->i_mapping;
}

/**
 * jbd2_submit_inode_data() - start writing the data a fast commit needs
 * @jinode: the inode's jbd2 record, may be NULL
 *
 * Writes the dirty range of the inode's allocated blocks, as a full commit
 * does for data=ordered; does nothing unless the inode has data to write.
 *
 * Return: 0 or the error of starting the writeback.
 */
int jbd2_submit_inode_data(struct jbd2_inode *jinode)
{
	if (!jbd2fc_data_mapping(jinode, JI_WRITE_DATA))
		return 0;

	trace_jbd2fc_submit_inode_data(jinode->i_vfs_inode);
	return jbd2_journal_submit_inode_data_buffers(jinode);
}
EXPORT_SYMBOL(jbd2_submit_inode_data);

/**
 * jbd2_wait_inode_data() - wait for the data jbd2_submit_inode_data() wrote
 * @journal: the journal (unused)
 * @jinode: the inode's jbd2 record, may be NULL
 *
 * Return: 0, or the write-back error of the range (which stays recorded
 * in the mapping for whoever checks it next).
 */
int jbd2_wait_inode_data(journal_t *journal, struct jbd2_inode *jinode)
{
	struct address_space *mapping = jbd2fc_data_mapping(jinode, JI_WAIT_DATA);

	if (!mapping)
		return 0;
	return filemap_fdatawait_range_keep_errors(mapping,
						   jinode->i_dirty_start,
						   jinode->i_dirty_end);
}
EXPORT_SYMBOL(jbd2_wait_inode_data);

/* --- recovery -------------------------------------------------------- */

/* Block @blk of the journal, read. */
static struct buffer_head *jbd2fc_read_block(journal_t *journal,
					     unsigned long blk)
{
	struct buffer_head *bh = jbd2fc_getblk(journal, blk);

	if (!IS_ERR(bh) && bh_read(bh, 0) < 0) {
		brelse(bh);
		bh = ERR_PTR(-EIO);
	}
	return bh;
}

/**
 * jbd2fc_recover_area() - the fast-commit part of a recovery pass
 * @journal: the journal being recovered
 * @pass: the pass over the log that just ended
 * @expected_tid: the tid the fast commits to replay carry
 *
 * Return: 0 when there is nothing to do, the callback said stop or the
 * area ended; the callback's error, or the error of reading a block.
 */
int jbd2fc_recover_area(journal_t *journal, enum passtype pass,
			tid_t expected_tid)
{
	unsigned long blk;
	struct buffer_head *bh;
	int ret;

	if (pass == PASS_REVOKE || !jbd2_has_feature_fast_commit(journal) ||
	    !journal->j_fc_replay_callback)
		return 0;

	for (blk = journal->j_fc_first; blk < journal->j_fc_last; blk++) {
		bh = jbd2fc_read_block(journal, blk);
		if (IS_ERR(bh)) {
			jbd2_debug(1, "fast commit area: block %lu unreadable (%ld)\n",
				   blk, PTR_ERR(bh));
			return PTR_ERR(bh);
		}
		ret = journal->j_fc_replay_callback(journal, bh, pass,
						    blk - journal->j_fc_first,
						    expected_tid);
		brelse(bh);
		if (ret < 0) {
			jbd2_debug(1, "fast commit pass %d: error %d at block %lu\n",
				   pass, ret, blk);
			return ret;
		}
		if (ret == JBD2_FC_REPLAY_STOP)
			return 0;
	}
	return 0;	/* the end of the area is the end of the log */
}
