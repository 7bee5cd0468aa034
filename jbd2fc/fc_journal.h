/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fs/jbd2/fc_journal.h - the calls journal.c, commit.c and recovery.c make
 * into fc_journal.c.  The fast-commit API a file system uses is exported
 * and declared in <linux/jbd2fc.h>; nothing here leaves the module.
 */
#ifndef _JBD2FC_FC_JOURNAL_H
#define _JBD2FC_FC_JOURNAL_H

#include <linux/jbd2fc.h>

/* The area at the end of the log (journal.c: load, set features, destroy). */
void jbd2fc_area_load(journal_t *journal);
int jbd2fc_area_setup(journal_t *journal);
void jbd2fc_area_release(journal_t *journal);

/* A full commit claims the journal and gives it back (commit.c). */
void jbd2fc_full_commit_start(journal_t *journal);
void jbd2fc_full_commit_done(journal_t *journal, tid_t tid);

/* The fast-commit pass of recovery (recovery.c, after each log pass). */
int jbd2fc_recover_area(journal_t *journal, enum passtype pass,
			tid_t expected_tid);

/*
 * An empty journal has nothing to replay, so its superblock goes to disk
 * without the fast-commit incompat bit (older kernels and e2fsprogs can
 * then use it); the bit stays set in memory for the fast commits to come
 * and reaches the disk again with the next superblock write.
 */
static inline bool jbd2fc_sb_hide_feature(journal_t *journal)
{
	if (!jbd2_has_feature_fast_commit(journal))
		return false;
	jbd2_clear_feature_fast_commit(journal);
	return true;
}

static inline void jbd2fc_sb_unhide_feature(journal_t *journal, bool hidden)
{
	if (hidden)
		jbd2_set_feature_fast_commit(journal);
}

#endif /* _JBD2FC_FC_JOURNAL_H */
