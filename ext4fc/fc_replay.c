// SPDX-License-Identifier: GPL-2.0
/*
 * ext4fc: recovery of fast commits.
 *
 * The fast-commit area is the tail of the journal: after the last full
 * commit (transaction T) the engine appended one or more fast commits to
 * it, each a run of records closed by a TAIL.  jbd2 hands us the area one
 * block at a time, in order, twice: first for PASS_SCAN, then, after the
 * ordinary journal has been replayed, for PASS_REPLAY.
 *
 * Scan.  Nothing is changed.  Every record is checked before its value is
 * read: its header and value must lie inside the block (records never
 * straddle blocks), its length must suit its tag (the table near the end
 * of this file), and what it names must be plausible: inode numbers in the
 * inode table's range, extents inside the file system and off the group
 * metadata we can find cheaply, names a directory can hold.  The area must
 * open with a HEAD for T.  A crc32c runs over the bytes of each fast
 * commit, starting from zero after each tail; a TAIL is good when it
 * carries T and the crc of everything since the previous tail up to its
 * own tid.  We remember how many records lead up to the last good tail.
 * The scan stops at the first record that fails a check: what came before
 * the last good tail is replayed, what came after is dropped.  That is the
 * ordinary end of the log too (the block after the last tail is stale or
 * never written), so an objection at the start of a block, or a tail or
 * head of another transaction, is logged as information; anything else is
 * logged as a warning.  Either way one line says where and why.
 *
 * Regions.  Replaying a record may allocate (a new directory block, an
 * extent tree split), and the allocator must not hand out blocks that a
 * later record will claim: the bitmaps on disk predate the fast commits.
 * So the scan notes every ADD_RANGE extent as a region, keeps the regions
 * up to the last good tail, and ext4_fc_replay_check_excluded() lets the
 * replay-time allocator step around them.  Blocks that replay takes away
 * from an inode are noted the same way (ext4_fc_record_regions() with
 * replay set, from extents.c).
 *
 * Replay.  The records up to the last good tail are applied in order, one
 * handler per tag.  Each handler states an outcome rather than repeating
 * an operation: "inode 12 looks like this", "block 0 of inode 12 is block
 * 5000", "name x in directory 2 is inode 12", "name y is gone".  A handler
 * that finds its outcome already in place does nothing, so a replay cut
 * short by a crash can simply be run again from the start and arrives at
 * the same file system.  Handlers write through the buffer cache without
 * a journal (EXT4_FC_REPLAY in s_mount_state tells the rest of ext4 so);
 * jbd2 syncs the device before it declares the journal recovered.
 *
 * Settling.  After the last record the inodes replay touched are walked:
 * their extent trees are merged where they can be, every data and index
 * block they map is marked in use, i_blocks is recomputed.  Blocks freed
 * along the way and mapped by nobody stay free.
 *
 * Directories get two fixes the log leaves implicit: a new subdirectory
 * adds a link to its parent (its ".."), a removed one takes it away and
 * is itself deleted.  When the parent's own INODE record was applied in
 * the same fast commit, its logged link count already says so and is left
 * alone.
 *
 * Malformed input never crashes and never writes: the scan refuses it and
 * replay stops short of it.  The replay pass parses with the same checks,
 * so a block that changed between the passes is refused there as well.
 * Errors while applying a valid record (no memory, I/O) fail recovery and
 * thereby the mount; the journal is left to be recovered again.
 */

#include <asm/unaligned.h>

#include "ext4.h"
#include "ext4_jbd2.h"
#include "ext4_extents.h"

#include <trace/events/ext4fc.h>

/* One record, as the cursor found it, in host byte order. */
struct fc_rec {
	u16 tag;
	u16 len;		/* bytes of value */
	const u8 *tl;		/* the record's first byte */
	const u8 *val;		/* its value */
	int blk;		/* fc block offset */
	int byte;		/* byte offset of the record in the block */
};

/* Walks the records of one block. */
struct fc_cursor {
	const u8 *base;
	const u8 *pos;
	const u8 *end;
	int blk;
};

/* What a pass is working with, and what a check objected to. */
struct fc_walk {
	struct super_block *sb;
	struct ext4_fc_replay_state *rs;
	enum passtype pass;
	tid_t tid;		/* the transaction the area must follow */
	u64 bad;		/* the value a check objected to ... */
	bool has_bad;		/* ... if there is one worth printing */
	bool eol;		/* the objection reads as the end of the log */
};

struct fc_tag_ops {
	const char *name;
	u16 min_len;
	u16 max_len;		/* 0: whatever fits in the block */
	const char *(*check)(struct fc_walk *w, const struct fc_rec *r);
	int (*apply)(struct fc_walk *w, const struct fc_rec *r);
};

static const struct fc_tag_ops *fc_ops_of(u16 tag);

/* Growable arrays of the replay state. */

static int fc_grow(void **arr, int *max, int need, size_t size)
{
	void *p;
	int n;

	if (need <= *max)
		return 0;
	n = max(16, *max * 2);
	p = krealloc_array(*arr, n, size, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*max = n;
	return 0;
}

int ext4_fc_record_regions(struct super_block *sb, int ino,
			   ext4_lblk_t lblk, ext4_fsblk_t pblk, int len,
			   int replay)
{
	struct ext4_fc_replay_state *rs = &EXT4_SB(sb)->s_fc_replay_state;
	int err;

	/*
	 * During replay every new region is valid at once; what the scan
	 * noted past the last good tail is dropped first.
	 */
	if (replay)
		rs->rs_nr_regions = rs->rs_valid_regions;
	err = fc_grow((void **)&rs->rs_regions, &rs->rs_max_regions,
		      rs->rs_nr_regions + 1, sizeof(*rs->rs_regions));
	if (err)
		return err;
	rs->rs_regions[rs->rs_nr_regions++] = (struct ext4fc_region) {
		.ino = ino, .lblk = lblk, .pblk = pblk, .len = len,
	};
	if (replay)
		rs->rs_valid_regions = rs->rs_nr_regions;
	return 0;
}

static bool fc_region_has(const struct ext4fc_region *reg, ext4_fsblk_t blk)
{
	return reg->ino && blk >= reg->pblk && blk - reg->pblk < reg->len;
}

/* Asked by the replay-time allocator before it hands out blk. */
bool ext4_fc_replay_check_excluded(struct super_block *sb, ext4_fsblk_t blk)
{
	const struct ext4_fc_replay_state *rs = &EXT4_SB(sb)->s_fc_replay_state;
	int n;

	for (n = rs->rs_valid_regions - 1; n >= 0; n--)
		if (fc_region_has(&rs->rs_regions[n], blk))
			break;
	return n >= 0;
}

/* Free the arrays and forget everything. */
static void fc_state_reset(struct ext4_fc_replay_state *rs)
{
	kfree(rs->rs_regions);
	kfree(rs->rs_inodes);
	memset(rs, 0, sizeof(*rs));
}

/* At the end of the mount: replay is over, whichever way it went. */
void ext4_fc_replay_cleanup(struct super_block *sb)
{
	fc_state_reset(&EXT4_SB(sb)->s_fc_replay_state);
	EXT4_SB(sb)->s_mount_state &= ~EXT4_FC_REPLAY;
}

/* The entry for ino in the list of changed inodes, added if need be. */
static struct ext4fc_touched *fc_touch(struct ext4_fc_replay_state *rs,
				       u32 ino)
{
	struct ext4fc_touched *t;

	for (t = rs->rs_inodes; t < rs->rs_inodes + rs->rs_nr_inodes; t++)
		if (t->ino == ino)
			return t;
	if (fc_grow((void **)&rs->rs_inodes, &rs->rs_max_inodes,
		    rs->rs_nr_inodes + 1, sizeof(*t)))
		return NULL;
	t = &rs->rs_inodes[rs->rs_nr_inodes++];
	t->ino = ino;
	t->inode_commit = -1;
	return t;
}

/* Was ino's INODE record applied in the fast commit being applied? */
static bool fc_logged_now(struct ext4_fc_replay_state *rs, u32 ino)
{
	int i;

	for (i = 0; i < rs->rs_nr_inodes; i++)
		if (rs->rs_inodes[i].ino == ino)
			return rs->rs_inodes[i].inode_commit == rs->rs_commit;
	return false;
}

/* Checks.  Each returns NULL or what is wrong. */

static const char *fc_bad(struct fc_walk *w, const char *why, u64 val)
{
	w->bad = val;
	w->has_bad = true;
	return why;
}

static bool fc_ino_ok(struct super_block *sb, u32 ino)
{
	return ino >= EXT4_FIRST_INO(sb) &&
	       ino <= le32_to_cpu(EXT4_SB(sb)->s_es->s_inodes_count);
}

static const char *fc_check_ino(struct fc_walk *w, u32 ino)
{
	if (fc_ino_ok(w->sb, ino))
		return NULL;
	return fc_bad(w, "inode number out of range", ino);
}

static bool fc_overlaps(ext4_fsblk_t a, u64 alen, ext4_fsblk_t b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

/* Does [pblk, pblk + len) cover a bitmap or inode table of group g? */
static bool fc_hits_group_tables(struct super_block *sb, ext4_group_t g,
				 ext4_fsblk_t pblk, u32 len)
{
	struct ext4_group_desc *gd = ext4_get_group_desc(sb, g, NULL);

	if (!gd)
		return false;
	return fc_overlaps(pblk, len, ext4_block_bitmap(sb, gd), 1) ||
	       fc_overlaps(pblk, len, ext4_inode_bitmap(sb, gd), 1) ||
	       fc_overlaps(pblk, len, ext4_inode_table(sb, gd),
			   EXT4_SB(sb)->s_itb_per_group);
}

/*
 * The group metadata an extent could collide with, as far as it is cheap
 * to tell: the superblock and descriptor copies of the groups it touches,
 * and the bitmaps and inode tables of those groups and of their flex
 * group (with flex_bg they sit together in its first group).
 */
#define FC_FLEX_SCAN_MAX	64

static bool fc_hits_metadata(struct super_block *sb, ext4_fsblk_t pblk,
			     u32 len)
{
	struct ext4_sb_info *sbi = EXT4_SB(sb);
	ext4_group_t first = ext4_get_group_number(sb, pblk);
	ext4_group_t last = ext4_get_group_number(sb, pblk + len - 1);
	ext4_group_t g, f, flex = 1;
	u32 sb_len;

	if (ext4_has_feature_flex_bg(sb) &&
	    sbi->s_es->s_log_groups_per_flex < 32)
		flex = 1U << sbi->s_es->s_log_groups_per_flex;
	for (g = first; g <= last && g < sbi->s_groups_count; g++) {
		if (ext4_bg_has_super(sb, g)) {
			sb_len = 1 + ext4_bg_num_gdb(sb, g);
			if (!ext4_has_feature_meta_bg(sb))
				sb_len += le16_to_cpu(sbi->s_es->s_reserved_gdt_blocks);
			if (fc_overlaps(pblk, len,
					ext4_group_first_block_no(sb, g), sb_len))
				return true;
		}
		if (fc_hits_group_tables(sb, g, pblk, len))
			return true;
		if (flex == 1 || flex > FC_FLEX_SCAN_MAX || g % flex)
			continue;
		/* g leads a flex group: its members' tables may be here */
		for (f = g + 1; f < g + flex && f < sbi->s_groups_count; f++)
			if (fc_hits_group_tables(sb, f, pblk, len))
				return true;
	}
	return false;
}

static const char *fc_check_extent(struct fc_walk *w, const struct fc_rec *r)
{
	struct ext4_super_block *es = EXT4_SB(w->sb)->s_es;
	const char *why = fc_check_ino(w, get_unaligned_le32(r->val));
	struct ext4_extent ex;
	ext4_fsblk_t pblk;
	u32 len;

	if (why)
		return why;
	memcpy(&ex, r->val + sizeof(__le32), sizeof(ex));
	len = ext4_ext_get_actual_len(&ex);
	pblk = ext4_ext_pblock(&ex);
	if (!len)
		return "empty extent";
	if ((u64)le32_to_cpu(ex.ee_block) + len > EXT_MAX_BLOCKS)
		return fc_bad(w, "extent ends past the last logical block",
			      le32_to_cpu(ex.ee_block));
	if (pblk <= le32_to_cpu(es->s_first_data_block))
		return fc_bad(w, "extent starts in the boot block area", pblk);
	if (pblk + len > ext4_blocks_count(es))
		return fc_bad(w, "extent ends past the file system", pblk);
	if (fc_hits_metadata(w->sb, pblk, len))
		return fc_bad(w, "extent covers group metadata", pblk);
	return NULL;
}

static const char *fc_check_hole(struct fc_walk *w, const struct fc_rec *r)
{
	struct ext4_fc_del_range dr;
	const char *why;

	memcpy(&dr, r->val, sizeof(dr));
	why = fc_check_ino(w, le32_to_cpu(dr.fc_ino));
	if (why)
		return why;
	if (!le32_to_cpu(dr.fc_len))
		return "empty range";
	if ((u64)le32_to_cpu(dr.fc_lblk) + le32_to_cpu(dr.fc_len) >
	    EXT_MAX_BLOCKS)
		return fc_bad(w, "range ends past the last logical block",
			      le32_to_cpu(dr.fc_lblk));
	return NULL;
}

static const char *fc_check_dentry(struct fc_walk *w, const struct fc_rec *r)
{
	u32 dir = get_unaligned_le32(r->val);
	const u8 *name = r->val + sizeof(struct ext4_fc_dentry_info);
	int nlen = r->len - sizeof(struct ext4_fc_dentry_info);
	const char *why;

	if (dir != EXT4_ROOT_INO && !fc_ino_ok(w->sb, dir))
		return fc_bad(w, "directory inode number out of range", dir);
	why = fc_check_ino(w, get_unaligned_le32(r->val + sizeof(__le32)));
	if (why)
		return why;
	if (memchr(name, '/', nlen) || memchr(name, '\0', nlen))
		return "name holds '/' or NUL";
	if (name[0] == '.' && (nlen == 1 || (nlen == 2 && name[1] == '.')))
		return "name is . or ..";
	return NULL;
}

static bool fc_mode_ok(u16 mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
	case S_IFDIR:
	case S_IFLNK:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		return true;
	}
	return false;
}

#define FC_RAW(raw, field)	((raw) + offsetof(struct ext4_inode, field))

static const char *fc_check_inode(struct fc_walk *w, const struct fc_rec *r)
{
	const u8 *raw = r->val + sizeof(struct ext4_fc_inode);
	int len = r->len - sizeof(struct ext4_fc_inode);
	int isize = EXT4_INODE_SIZE(w->sb);
	const char *why = fc_check_ino(w, get_unaligned_le32(r->val));
	u16 mode, extra;

	if (why)
		return why;
	if (len > isize)
		return fc_bad(w, "longer than an on-disk inode", len);
	mode = get_unaligned_le16(FC_RAW(raw, i_mode));
	if (!fc_mode_ok(mode))
		return fc_bad(w, "bad file type in i_mode", mode);
	if (len >= offsetofend(struct ext4_inode, i_extra_isize)) {
		extra = get_unaligned_le16(FC_RAW(raw, i_extra_isize));
		if (EXT4_GOOD_OLD_INODE_SIZE + extra > isize || (extra & 3))
			return fc_bad(w, "bad i_extra_isize", extra);
	}
	return NULL;
}

static const char *fc_check_tail(struct fc_walk *w, const struct fc_rec *r)
{
	struct ext4_fc_tail tail;
	u32 crc;

	memcpy(&tail, r->val, sizeof(tail));
	if (le32_to_cpu(tail.fc_tid) != w->tid) {
		w->eol = true;
		return fc_bad(w, "tail of another transaction",
			      le32_to_cpu(tail.fc_tid));
	}
	if (w->pass != PASS_SCAN)
		return NULL;
	crc = ext4_chksum(EXT4_SB(w->sb), w->rs->rs_crc, r->tl,
			  EXT4_FC_TAG_BASE_LEN + sizeof(tail.fc_tid));
	if (crc != le32_to_cpu(tail.fc_crc))
		return fc_bad(w, "checksum mismatch, computed", crc);
	return NULL;
}

static const char *fc_check_head(struct fc_walk *w, const struct fc_rec *r)
{
	struct ext4_fc_head head;

	if (r->blk || r->byte)
		return "head record past the start of the area";
	memcpy(&head, r->val, sizeof(head));
	if (le32_to_cpu(head.fc_features) & ~EXT4_FC_SUPPORTED_FEATURES)
		return fc_bad(w, "unsupported features",
			      le32_to_cpu(head.fc_features));
	if (le32_to_cpu(head.fc_tid) != w->tid) {
		w->eol = true;
		return fc_bad(w, "head of another transaction",
			      le32_to_cpu(head.fc_tid));
	}
	return NULL;
}

/* Everything both passes check about a record before using it. */
static const char *fc_check(struct fc_walk *w, const struct fc_rec *r)
{
	const struct fc_tag_ops *ops = fc_ops_of(r->tag);

	if (!r->blk && !r->byte && r->tag != EXT4_FC_TAG_HEAD) {
		w->eol = true;
		return "area does not start with a head record";
	}
	if (!ops)
		return "unknown tag";
	if (r->len < ops->min_len || (ops->max_len && r->len > ops->max_len))
		return fc_bad(w, "bad value length", r->len);
	return ops->check ? ops->check(w, r) : NULL;
}

/* Handlers. */

static struct inode *fc_iget(struct super_block *sb, u32 ino)
{
	struct inode *inode = ext4_iget(sb, ino, EXT4_IGET_NORMAL);

	if (IS_ERR(inode)) {
		ext4_debug("fc replay: no inode %u (%ld)\n", ino,
			   PTR_ERR(inode));
		return NULL;
	}
	return inode;
}

static struct inode *fc_iget_dir(struct super_block *sb, u32 ino)
{
	struct inode *dir = fc_iget(sb, ino);

	if (dir && !S_ISDIR(dir->i_mode)) {
		ext4_msg(sb, KERN_WARNING,
			 "fast commit replay: inode %u is not a directory, name record skipped",
			 ino);
		iput(dir);
		dir = NULL;
	}
	return dir;
}

static bool fc_extent_mapped(struct inode *inode)
{
	return ext4_test_inode_flag(inode, EXT4_INODE_EXTENTS) &&
	       !ext4_has_inline_data(inode);
}

/*
 * The inode a range record changes, noted as changed; NULL when there is
 * nothing to change (gone, inline, or not extent-mapped: the range helpers
 * know extent trees only).
 */
static struct inode *fc_range_inode(struct fc_walk *w, u32 ino)
{
	struct inode *inode = fc_iget(w->sb, ino);

	if (!inode)
		return NULL;
	if (!fc_extent_mapped(inode)) {
		if (!ext4_has_inline_data(inode))
			ext4_msg(w->sb, KERN_WARNING,
				 "fast commit replay: inode %u has no extent tree, range record skipped",
				 ino);
		iput(inode);
		return NULL;
	}
	if (!fc_touch(w->rs, ino)) {
		iput(inode);
		return ERR_PTR(-ENOMEM);
	}
	return inode;
}

/* Map the hole at [lblk, lblk + len) to pblk onwards. */
static int fc_fill_hole(struct inode *inode, ext4_lblk_t lblk, u32 len,
			ext4_fsblk_t pblk, bool unwritten)
{
	struct ext4_ext_path *path;
	struct ext4_extent ex = {};
	int err;

	path = ext4_find_extent(inode, lblk, NULL, 0);
	if (IS_ERR(path))
		return PTR_ERR(path);
	ex.ee_block = cpu_to_le32(lblk);
	ex.ee_len = cpu_to_le16(len);
	ext4_ext_store_pblock(&ex, pblk);
	if (unwritten)
		ext4_ext_mark_unwritten(&ex);
	down_write(&EXT4_I(inode)->i_data_sem);
	err = ext4_ext_insert_extent(NULL, inode, &path, &ex, 0);
	up_write(&EXT4_I(inode)->i_data_sem);
	ext4_free_ext_path(path);
	return err;
}

/*
 * Make the run starting at lblk map to pblk onwards, as far as the current
 * mapping lets us do it in one step; returns the blocks settled.
 */
static int fc_settle_run(struct inode *inode, ext4_lblk_t lblk, u32 len,
			 ext4_fsblk_t pblk, bool unwritten)
{
	struct ext4_map_blocks map = { .m_lblk = lblk, .m_len = len };
	bool was_unwritten;
	int ret;

	ret = ext4_map_blocks(NULL, inode, &map, 0);
	if (ret < 0)
		return ret;
	if (!map.m_len)
		return -EFSCORRUPTED;
	if (!ret) {
		ret = fc_fill_hole(inode, lblk, map.m_len, pblk, unwritten);
		return ret ? ret : map.m_len;
	}
	was_unwritten = map.m_flags & EXT4_MAP_UNWRITTEN;
	if (map.m_pblk == pblk && was_unwritten == unwritten)
		return map.m_len;
	ret = ext4_ext_replay_update_ex(inode, lblk, map.m_len, unwritten,
					pblk);
	if (ret)
		return ret;
	if (map.m_pblk != pblk)
		/* settling puts them back if someone still maps them */
		ext4_mb_mark_bb(inode->i_sb, map.m_pblk, map.m_len, 0);
	else
		/* only the state flipped: undo the split if we can */
		ext4_ext_replay_shrink_inode(inode, lblk + map.m_len);
	return map.m_len;
}

static ext4_lblk_t fc_size_blocks(struct inode *inode)
{
	return min_t(u64, EXT_MAX_BLOCKS,
		     DIV_ROUND_UP_ULL(i_size_read(inode), i_blocksize(inode)));
}

static int fc_apply_extent(struct fc_walk *w, const struct fc_rec *r)
{
	struct ext4_extent ex;
	struct inode *inode;
	ext4_lblk_t lblk;
	u32 len, done;
	int ret = 0;

	memcpy(&ex, r->val + sizeof(__le32), sizeof(ex));
	lblk = le32_to_cpu(ex.ee_block);
	len = ext4_ext_get_actual_len(&ex);
	inode = fc_range_inode(w, get_unaligned_le32(r->val));
	if (IS_ERR_OR_NULL(inode))
		return PTR_ERR_OR_ZERO(inode);
	for (done = 0; done < len; done += ret) {
		ret = fc_settle_run(inode, lblk + done, len - done,
				    ext4_ext_pblock(&ex) + done,
				    ext4_ext_is_unwritten(&ex));
		if (ret < 0)
			break;
	}
	if (ret >= 0) {
		ext4_ext_replay_shrink_inode(inode, fc_size_blocks(inode));
		ret = 0;
	}
	iput(inode);
	return ret;
}

static int fc_apply_hole(struct fc_walk *w, const struct fc_rec *r)
{
	struct ext4_map_blocks map;
	struct ext4_fc_del_range dr;
	struct inode *inode;
	ext4_lblk_t start, end;
	int ret = 0;

	memcpy(&dr, r->val, sizeof(dr));
	start = le32_to_cpu(dr.fc_lblk);
	end = start + le32_to_cpu(dr.fc_len);
	inode = fc_range_inode(w, le32_to_cpu(dr.fc_ino));
	if (IS_ERR_OR_NULL(inode))
		return PTR_ERR_OR_ZERO(inode);
	/* free what the range maps now, then drop it from the tree */
	for (map.m_lblk = start; map.m_lblk < end; map.m_lblk += map.m_len) {
		map.m_len = end - map.m_lblk;
		ret = ext4_map_blocks(NULL, inode, &map, 0);
		if (ret < 0)
			goto out;
		if (!map.m_len) {
			ret = -EFSCORRUPTED;
			goto out;
		}
		if (ret)
			ext4_mb_mark_bb(inode->i_sb, map.m_pblk, map.m_len, 0);
	}
	down_write(&EXT4_I(inode)->i_data_sem);
	ret = ext4_ext_remove_space(inode, start, end - 1);
	up_write(&EXT4_I(inode)->i_data_sem);
	if (!ret) {
		ext4_ext_replay_shrink_inode(inode, fc_size_blocks(inode));
		ext4_mark_inode_dirty(NULL, inode);
	}
out:
	iput(inode);
	return ret;
}

/*
 * Does the logged i_block hold the inode's content rather than the root
 * of its block map?  Then it is taken from the log; otherwise the tree on
 * disk stays and the range records bring it up to date.
 */
static bool fc_iblock_is_content(const u8 *raw)
{
	u32 flags = get_unaligned_le32(FC_RAW(raw, i_flags));
	u16 mode = get_unaligned_le16(FC_RAW(raw, i_mode));

	if (flags & EXT4_INLINE_DATA_FL)
		return true;
	switch (mode & S_IFMT) {
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		return true;	/* device number, or nothing */
	case S_IFLNK:		/* a fast symlink keeps its target there */
		return !(flags & EXT4_EXTENTS_FL) &&
		       get_unaligned_le32(FC_RAW(raw, i_size_lo)) <
		       sizeof_field(struct ext4_inode, i_block);
	}
	return false;
}

/* Lay the logged inode (len bytes) over the on-disk one. */
static void fc_merge_raw_inode(struct ext4_inode *disk, const u8 *raw,
			       int len)
{
	const size_t from = offsetof(struct ext4_inode, i_block);
	const size_t to = offsetofend(struct ext4_inode, i_block);
	struct ext4_extent_header *eh = (void *)disk->i_block;

	memcpy(disk, raw, from);
	memcpy((u8 *)disk + to, raw + to, len - to);
	if (fc_iblock_is_content(raw)) {
		memcpy(disk->i_block, raw + from, to - from);
	} else if ((le32_to_cpu(disk->i_flags) & EXT4_EXTENTS_FL) &&
		   eh->eh_magic != EXT4_EXT_MAGIC) {
		/* new on disk: start from an empty tree */
		memset(disk->i_block, 0, sizeof(disk->i_block));
		eh->eh_magic = EXT4_EXT_MAGIC;
		eh->eh_max = cpu_to_le16((sizeof(disk->i_block) - sizeof(*eh)) /
					 sizeof(struct ext4_extent));
	}
}

static int fc_write_now(struct buffer_head *bh)
{
	int err = ext4_handle_dirty_metadata(NULL, NULL, bh);

	return err ? err : sync_dirty_buffer(bh);
}

/*
 * Mark ino in use.  ext4_mark_inode_used() keeps the group's free inode
 * count but not its directory count: a directory that only now comes
 * into use (the free count went down) is counted here.
 */
static int fc_mark_used(struct super_block *sb, u32 ino, bool is_dir)
{
	ext4_group_t group = (ino - 1) / EXT4_INODES_PER_GROUP(sb);
	struct ext4_group_desc *gd;
	struct buffer_head *gd_bh;
	u32 free;
	int err;

	gd = ext4_get_group_desc(sb, group, &gd_bh);
	if (!gd)
		return -EFSCORRUPTED;
	free = ext4_free_inodes_count(sb, gd);
	err = ext4_mark_inode_used(sb, ino);
	if (err || !is_dir || ext4_free_inodes_count(sb, gd) >= free)
		return err;
	ext4_lock_group(sb, group);
	ext4_used_dirs_set(sb, gd, ext4_used_dirs_count(sb, gd) + 1);
	ext4_group_desc_csum_set(sb, group, gd);
	ext4_unlock_group(sb, group);
	return fc_write_now(gd_bh);
}

static int fc_apply_inode(struct fc_walk *w, const struct fc_rec *r)
{
	struct super_block *sb = w->sb;
	u32 ino = get_unaligned_le32(r->val);
	const u8 *raw = r->val + sizeof(struct ext4_fc_inode);
	struct ext4fc_touched *t;
	struct ext4_iloc iloc;
	struct inode *inode;
	int err;

	/* An inode logged without links is on its way out: leave it be. */
	if (!get_unaligned_le16(FC_RAW(raw, i_links_count)))
		return 0;
	t = fc_touch(w->rs, ino);
	if (!t)
		return -ENOMEM;
	t->inode_commit = w->rs->rs_commit;

	/* Its blocks are counted afresh when replay settles. */
	inode = fc_iget(sb, ino);
	if (inode) {
		if (fc_extent_mapped(inode))
			ext4_ext_clear_bb(inode);
		iput(inode);
	}

	err = ext4_get_fc_inode_loc(sb, ino, &iloc);
	if (err)
		return err;
	fc_merge_raw_inode(ext4_raw_inode(&iloc), raw,
			   r->len - sizeof(struct ext4_fc_inode));
	err = fc_write_now(iloc.bh);
	if (!err)
		err = fc_mark_used(sb, ino,
				   S_ISDIR(get_unaligned_le16(FC_RAW(raw, i_mode))));
	if (err)
		goto out;

	inode = ext4_iget(sb, ino, EXT4_IGET_NORMAL);
	if (IS_ERR(inode)) {
		err = PTR_ERR(inode);
		goto out;
	}
	if (fc_extent_mapped(inode))
		ext4_ext_replay_set_iblocks(inode);
	ext4_inode_csum_set(inode, ext4_raw_inode(&iloc), EXT4_I(inode));
	err = fc_write_now(iloc.bh);
	iput(inode);
out:
	brelse(iloc.bh);
	return err;
}

/* A name record, with its inode and directory once they are read. */
struct fc_dentry {
	u32 dir_ino;
	u32 ino;
	struct qstr name;
	struct inode *inode;
	struct inode *dir;
};

/*
 * Decode a name record and get both inodes; false when one of them is
 * not there (or the directory is no directory): nothing to do then.
 */
static bool fc_dentry_get(struct fc_walk *w, const struct fc_rec *r,
			  struct fc_dentry *d)
{
	d->dir_ino = get_unaligned_le32(r->val);
	d->ino = get_unaligned_le32(r->val + sizeof(__le32));
	d->name.name = r->val + sizeof(struct ext4_fc_dentry_info);
	d->name.len = r->len - sizeof(struct ext4_fc_dentry_info);
	d->inode = fc_iget(w->sb, d->ino);
	if (!d->inode)
		return false;
	d->dir = fc_iget_dir(w->sb, d->dir_ino);
	if (d->dir)
		return true;
	iput(d->inode);
	return false;
}

static void fc_dentry_put(struct fc_dentry *d)
{
	iput(d->dir);
	iput(d->inode);
}

/* Add the name; 1 if added, 0 if it was there already, or an error. */
static int fc_add_name(struct inode *dir, struct inode *inode,
		       const struct qstr *name)
{
	struct dentry *parent, *dentry;
	int err;

	ihold(dir);		/* d_obtain_alias() takes a reference */
	parent = d_obtain_alias(dir);
	if (IS_ERR(parent))
		return PTR_ERR(parent);
	dentry = d_alloc(parent, name);
	if (dentry) {
		err = __ext4_link(dir, inode, dentry);
		d_drop(dentry);
		dput(dentry);
	} else {
		err = -ENOMEM;
	}
	d_drop(parent);
	dput(parent);
	if (err == -EEXIST)
		return 0;
	return err ? err : 1;
}

/* A subdirectory came (+1) or went (-1): its ".." links to dir. */
static void fc_count_subdir(struct fc_walk *w, struct inode *dir, int delta)
{
	/* dir's own record in this fast commit already counts it */
	if (fc_logged_now(w->rs, dir->i_ino))
		return;
	if (delta > 0 && dir->i_nlink > 1) {
		inc_nlink(dir);
		if (dir->i_nlink > EXT4_LINK_MAX)
			set_nlink(dir, 1);	/* "many", as dir_nlink has it */
	} else if (delta < 0 && dir->i_nlink > 2) {
		drop_nlink(dir);
	}
	ext4_mark_inode_dirty(NULL, dir);
}

static int fc_apply_link(struct fc_walk *w, const struct fc_rec *r)
{
	struct fc_dentry d;
	int ret = 0;

	if (!fc_dentry_get(w, r, &d))
		return 0;
	if (S_ISDIR(d.inode->i_mode))
		ext4_msg(w->sb, KERN_WARNING,
			 "fast commit replay: inode %u is a directory, link record skipped",
			 d.ino);
	else
		ret = fc_add_name(d.dir, d.inode, &d.name);
	fc_dentry_put(&d);
	return ret < 0 ? ret : 0;
}

/*
 * CREAT follows the new inode's INODE record (and its ranges): what is left
 * is the name, and for a directory its first block with "." and "..".
 */
static int fc_apply_create(struct fc_walk *w, const struct fc_rec *r)
{
	u32 ino = get_unaligned_le32(r->val + sizeof(__le32));
	struct fc_dentry d;
	unsigned int nlink;
	bool is_dir;
	int ret;

	ret = ext4_mark_inode_used(w->sb, ino);
	if (ret)
		return ret;
	if (!fc_dentry_get(w, r, &d)) {
		ext4_msg(w->sb, KERN_WARNING,
			 "fast commit replay: created inode %u or its directory unreadable, name record skipped",
			 ino);
		return 0;
	}
	nlink = d.inode->i_nlink;	/* as logged: linking must not add */
	is_dir = S_ISDIR(d.inode->i_mode);
	/* an inline directory came with its entries in the INODE record */
	if (is_dir && !ext4_has_inline_data(d.inode))
		ret = ext4_init_new_dir(NULL, d.dir, d.inode);
	if (!ret)
		ret = fc_add_name(d.dir, d.inode, &d.name);
	if (ret > 0 && is_dir)
		fc_count_subdir(w, d.dir, 1);
	if (ret >= 0) {
		set_nlink(d.inode, nlink);
		ret = ext4_mark_inode_dirty(NULL, d.inode);
	}
	fc_dentry_put(&d);
	return ret;
}

static int fc_apply_unlink(struct fc_walk *w, const struct fc_rec *r)
{
	struct fc_dentry d;
	int ret;

	if (!fc_dentry_get(w, r, &d))
		return 0;
	ret = __ext4_unlink(d.dir, &d.name, d.inode, NULL);
	if (S_ISDIR(d.inode->i_mode) && (!ret || ret == -ENOENT)) {
		/*
		 * A directory has one name: without it, it is deleted (when
		 * put below) and its ".." no longer links the parent.
		 */
		if (!ret)
			fc_count_subdir(w, d.dir, -1);
		clear_nlink(d.inode);
		ext4_mark_inode_dirty(NULL, d.inode);
	}
	fc_dentry_put(&d);
	return ret == -ENOENT ? 0 : ret;
}

static int fc_apply_tail(struct fc_walk *w, const struct fc_rec *r)
{
	w->rs->rs_commit++;
	return 0;
}

/*
 * Per tag: name, value length bounds, check, handler.  PAD and HEAD change
 * nothing; a TAIL moves on to the next fast commit.
 */
#define FC_NAME_TAG(name, apply) {					\
	name,								\
	sizeof(struct ext4_fc_dentry_info) + 1,				\
	sizeof(struct ext4_fc_dentry_info) + EXT4_NAME_LEN,		\
	fc_check_dentry, apply,						\
}

static const struct fc_tag_ops fc_tags[] = {
	[EXT4_FC_TAG_ADD_RANGE] = { "ADD_RANGE",
		sizeof(struct ext4_fc_add_range),
		sizeof(struct ext4_fc_add_range),
		fc_check_extent, fc_apply_extent },
	[EXT4_FC_TAG_DEL_RANGE] = { "DEL_RANGE",
		sizeof(struct ext4_fc_del_range),
		sizeof(struct ext4_fc_del_range),
		fc_check_hole, fc_apply_hole },
	[EXT4_FC_TAG_CREAT] = FC_NAME_TAG("CREAT", fc_apply_create),
	[EXT4_FC_TAG_LINK] = FC_NAME_TAG("LINK", fc_apply_link),
	[EXT4_FC_TAG_UNLINK] = FC_NAME_TAG("UNLINK", fc_apply_unlink),
	[EXT4_FC_TAG_INODE] = { "INODE",
		sizeof(struct ext4_fc_inode) + EXT4_GOOD_OLD_INODE_SIZE, 0,
		fc_check_inode, fc_apply_inode },
	[EXT4_FC_TAG_PAD] = { "PAD", 0, 0, NULL, NULL },
	[EXT4_FC_TAG_TAIL] = { "TAIL", sizeof(struct ext4_fc_tail), 0,
		fc_check_tail, fc_apply_tail },
	[EXT4_FC_TAG_HEAD] = { "HEAD", sizeof(struct ext4_fc_head),
		sizeof(struct ext4_fc_head), fc_check_head, NULL },
};

static const struct fc_tag_ops *fc_ops_of(u16 tag)
{
	if (tag >= ARRAY_SIZE(fc_tags) || !fc_tags[tag].name)
		return NULL;
	return &fc_tags[tag];
}

/* The cursor. */

static void fc_cursor_init(struct fc_cursor *c, struct buffer_head *bh,
			   int size, int blk)
{
	c->base = (const u8 *)bh->b_data;
	c->pos = c->base;
	c->end = c->base + size;
	c->blk = blk;
}

/*
 * The next record: 1 and *r when its header and value lie inside the
 * block, 0 at the end of the block, -1 (w says why) when the bytes left
 * cannot be a record.
 */
static int fc_cursor_next(struct fc_walk *w, struct fc_cursor *c,
			  struct fc_rec *r, const char **why)
{
	size_t left = c->end - c->pos;
	struct ext4_fc_tl tl;

	r->blk = c->blk;
	r->byte = c->pos - c->base;
	r->tl = c->pos;
	r->val = c->pos + EXT4_FC_TAG_BASE_LEN;
	r->tag = 0;
	r->len = 0;
	if (!left)
		return 0;
	if (left < EXT4_FC_TAG_BASE_LEN) {
		*why = fc_bad(w, "record header crosses the block end", left);
		return -1;
	}
	memcpy(&tl, c->pos, sizeof(tl));
	r->tag = le16_to_cpu(tl.fc_tag);
	r->len = le16_to_cpu(tl.fc_len);
	if (r->len > left - EXT4_FC_TAG_BASE_LEN) {
		*why = fc_bad(w, "value runs past the block end", r->len);
		return -1;
	}
	c->pos = r->val + r->len;
	return 1;
}

/* One line on why the walk stops at r. */
static void fc_refuse(struct fc_walk *w, const struct fc_rec *r,
		      const char *why)
{
	const struct fc_tag_ops *ops = fc_ops_of(r->tag);
	struct ext4_fc_replay_state *rs = w->rs;
	bool quiet = w->eol || !r->byte;
	char val[24] = "";

	if (w->has_bad)
		snprintf(val, sizeof(val), " %llu", w->bad);
	ext4_msg(w->sb, quiet ? KERN_INFO : KERN_WARNING,
		 "fast commit %s stops at fc block %d byte %d, %s record (tag %u, len %u): %s%s; tid %u: %d fast commit(s), %d records kept",
		 w->pass == PASS_SCAN ? "scan" : "replay", r->blk, r->byte,
		 ops ? ops->name : "unknown", r->tag, r->len, why, val,
		 w->tid, rs->rs_commits, rs->rs_tags_valid);
}

/* Scan. */

static void fc_scan_begin(struct ext4_fc_replay_state *rs)
{
	fc_state_reset(rs);
	rs->rs_pass = PASS_SCAN;
}

static int fc_scan_stop(struct fc_walk *w, int error)
{
	w->rs->rs_error = error;
	w->rs->rs_nr_regions = w->rs->rs_valid_regions;
	w->rs->rs_stopped = true;
	return JBD2_FC_REPLAY_STOP;
}

static int fc_scan_block(struct fc_walk *w, struct fc_cursor *c)
{
	struct ext4_fc_replay_state *rs = w->rs;
	struct ext4_sb_info *sbi = EXT4_SB(w->sb);
	const char *why = NULL;
	struct ext4_extent ex;
	struct fc_rec r;
	int got, err;

	while ((got = fc_cursor_next(w, c, &r, &why)) > 0) {
		why = fc_check(w, &r);
		if (why)
			break;
		rs->rs_tags++;
		if (r.tag == EXT4_FC_TAG_TAIL) {
			rs->rs_tags_valid = rs->rs_tags;
			rs->rs_valid_regions = rs->rs_nr_regions;
			rs->rs_commits++;
			rs->rs_crc = 0;
			continue;
		}
		rs->rs_crc = ext4_chksum(sbi, rs->rs_crc, r.tl,
					 EXT4_FC_TAG_BASE_LEN + r.len);
		if (r.tag != EXT4_FC_TAG_ADD_RANGE)
			continue;
		memcpy(&ex, r.val + sizeof(__le32), sizeof(ex));
		err = ext4_fc_record_regions(w->sb, get_unaligned_le32(r.val),
					     le32_to_cpu(ex.ee_block),
					     ext4_ext_pblock(&ex),
					     ext4_ext_get_actual_len(&ex), 0);
		if (err)
			return err;
	}
	if (!got)
		return JBD2_FC_REPLAY_CONTINUE;
	fc_refuse(w, &r, why);
	return fc_scan_stop(w, w->eol ? -ESTALE : -EFSCORRUPTED);
}

/* Replay. */

/* Count the blocks of a changed inode in, now that its tree is final. */
static void fc_settle_inode(struct super_block *sb, u32 ino)
{
	struct ext4_map_blocks map;
	struct ext4_ext_path *path;
	struct inode *inode;
	int ret, depth;

	inode = fc_iget(sb, ino);
	if (!inode)
		return;
	if (!fc_extent_mapped(inode))
		goto out;
	ext4_ext_replay_shrink_inode(inode, fc_size_blocks(inode));
	map.m_lblk = 0;
	while (map.m_lblk < EXT_MAX_BLOCKS) {
		map.m_len = EXT_MAX_BLOCKS - map.m_lblk;
		ret = ext4_map_blocks(NULL, inode, &map, 0);
		if (ret < 0)
			break;
		if (ret > 0) {
			ext4_mb_mark_bb(sb, map.m_pblk, map.m_len, 1);
			path = ext4_find_extent(inode, map.m_lblk, NULL, 0);
			if (!IS_ERR(path)) {
				for (depth = 0; depth < path->p_depth; depth++)
					ext4_mb_mark_bb(sb, path[depth].p_block,
							1, 1);
				ext4_free_ext_path(path);
			}
		}
		map.m_lblk += max_t(u32, map.m_len, 1);
	}
	ext4_ext_replay_set_iblocks(inode);
out:
	iput(inode);
}

/* The last step of replay, once, however it ends. */
static int fc_replay_end(struct fc_walk *w)
{
	struct ext4_fc_replay_state *rs = w->rs;
	int i;

	rs->rs_stopped = true;
	if (rs->rs_settled)
		return JBD2_FC_REPLAY_STOP;
	rs->rs_settled = true;
	for (i = 0; i < rs->rs_nr_inodes; i++)
		fc_settle_inode(w->sb, rs->rs_inodes[i].ino);
	ext4_msg(w->sb, KERN_INFO,
		 "fast commit replay: tid %u: %d of %d records applied, %d inode(s) changed",
		 w->tid, rs->rs_tags_done, rs->rs_tags_valid, rs->rs_nr_inodes);
	return JBD2_FC_REPLAY_STOP;
}

static u32 fc_rec_ino(const struct fc_rec *r)
{
	switch (r->tag) {
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
		return get_unaligned_le32(r->val + sizeof(__le32));
	case EXT4_FC_TAG_ADD_RANGE:
	case EXT4_FC_TAG_DEL_RANGE:
	case EXT4_FC_TAG_INODE:
		return get_unaligned_le32(r->val);
	}
	return 0;
}

static int fc_replay_begin(struct fc_walk *w)
{
	struct ext4_fc_replay_state *rs = w->rs;

	EXT4_SB(w->sb)->s_mount_state |= EXT4_FC_REPLAY;
	rs->rs_pass = PASS_REPLAY;
	rs->rs_next_off = 0;
	rs->rs_stopped = false;
	rs->rs_settled = false;
	rs->rs_tags_done = 0;
	rs->rs_commit = 0;
	if (!rs->rs_tags_valid) {
		rs->rs_stopped = true;
		return JBD2_FC_REPLAY_STOP;
	}
	ext4_msg(w->sb, KERN_INFO,
		 "fast commit replay: tid %u: %d fast commit(s), %d records",
		 w->tid, rs->rs_commits, rs->rs_tags_valid);
	return JBD2_FC_REPLAY_CONTINUE;
}

static int fc_replay_block(struct fc_walk *w, struct fc_cursor *c)
{
	struct ext4_fc_replay_state *rs = w->rs;
	int max = EXT4_SB(w->sb)->s_fc_debug_max_replay;
	const struct fc_tag_ops *ops;
	const char *why = NULL;
	struct fc_rec r;
	int got, err;

	for (;;) {
		if (rs->rs_tags_done >= rs->rs_tags_valid)
			return fc_replay_end(w);
		if (max > 0 && rs->rs_tags_done >= max) {
			ext4_msg(w->sb, KERN_INFO,
				 "fast commit replay: fc_debug_max_replay=%d reached",
				 max);
			return fc_replay_end(w);
		}
		got = fc_cursor_next(w, c, &r, &why);
		if (!got)
			return JBD2_FC_REPLAY_CONTINUE;
		if (got > 0)
			why = fc_check(w, &r);
		if (why) {
			/* the scan passed it: the block changed under us */
			w->eol = false;
			fc_refuse(w, &r, why);
			return fc_replay_end(w);
		}
		ops = fc_ops_of(r.tag);
		trace_ext4_fc_replay(w->sb, r.tag, fc_rec_ino(&r), r.blk,
				     r.byte);
		err = ops->apply ? ops->apply(w, &r) : 0;
		if (err) {
			ext4_msg(w->sb, KERN_ERR,
				 "fast commit replay: %s record for inode %u at fc block %d byte %d failed: %d",
				 ops->name, fc_rec_ino(&r), r.blk, r.byte, err);
			rs->rs_stopped = true;
			return err;
		}
		rs->rs_tags_done++;
	}
}

/*
 * jbd2's replay callback: each block of the fast-commit area in order,
 * off counting from 0, for PASS_SCAN and then for PASS_REPLAY.
 */
int ext4fc_replay_block(journal_t *journal, struct buffer_head *bh,
			enum passtype pass, int off, tid_t expected_tid)
{
	struct super_block *sb = journal->j_private;
	struct fc_walk w = {
		.sb = sb,
		.rs = &EXT4_SB(sb)->s_fc_replay_state,
		.pass = pass,
		.tid = expected_tid,
	};
	struct ext4_fc_replay_state *rs = w.rs;
	struct fc_cursor c;
	int ret;

	if (pass != PASS_SCAN && pass != PASS_REPLAY)
		return JBD2_FC_REPLAY_STOP;
	if (!off) {
		if (pass == PASS_SCAN)
			fc_scan_begin(rs);
		else if (fc_replay_begin(&w) == JBD2_FC_REPLAY_STOP)
			return JBD2_FC_REPLAY_STOP;
	}
	if (rs->rs_pass != pass || rs->rs_stopped)
		return JBD2_FC_REPLAY_STOP;
	if (off != rs->rs_next_off) {
		ext4_msg(sb, KERN_WARNING,
			 "fast commit %s: got fc block %d, expected %d",
			 pass == PASS_SCAN ? "scan" : "replay", off,
			 rs->rs_next_off);
		if (pass == PASS_SCAN)
			return fc_scan_stop(&w, -EFSCORRUPTED);
		return fc_replay_end(&w);
	}
	rs->rs_next_off++;
	fc_cursor_init(&c, bh, journal->j_blocksize, off);
	if (pass == PASS_SCAN) {
		ret = fc_scan_block(&w, &c);
		trace_ext4_fc_replay_scan(sb, ret < 0 ? ret : rs->rs_error,
					  off);
		return ret;
	}
	return fc_replay_block(&w, &c);
}
