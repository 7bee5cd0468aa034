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
 * read, by the parser both passes share with the host tools (fc_parse.c,
 * which has the list): its header and value must lie inside the block
 * (records never straddle blocks), its length must suit its tag, and what
 * it names must be plausible: inode numbers in the inode table's range,
 * extents inside the file system, names a directory can hold.  One check
 * needs the live file system and is ours (fc_check_live()): extents must
 * stay off the group metadata we can find cheaply.  The area must
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
 * jbd2 syncs the device before it declares the journal recovered.  A
 * read-only mount recovers too, with SB_RDONLY lifted while replay runs
 * (ext4fc_replay_block()).
 *
 * Inodes.  An INODE record is laid over the inode on disk, but for the
 * block map, which the range records keep up to date, and the orphan
 * list link (i_dtime), which follows the list on disk.  An inode number
 * that was free before (its bitmap bit clear) starts from zeroes: the
 * table still holds a deleted inode's tree and xattrs there.
 *
 * Settling.  After the last record the inodes replay touched are walked:
 * written blocks past the end of the file are dropped (a truncate the
 * fast commit caught between its size update and its block removal is
 * finished, as orphan recovery would; a verity file's tree stays), extents are merged where they can
 * be, every data and tree block they map is marked in use, and i_blocks
 * is counted afresh (data, tree blocks, an external xattr block).
 * Blocks freed along the way and mapped by nobody stay free.
 *
 * Directories get five fixes the log leaves implicit.  A created one is
 * given its first block only if it has none (a create made as a full
 * commit began is in that commit and logged again after it).  One that
 * gained a name is settled too: a block it took for the name was allocated
 * without quota, so i_blocks never counted it.  A new subdirectory adds a
 * link to its parent (its ".."), a removed one takes it away and is itself
 * deleted.  When the parent's own INODE record was applied in the same
 * fast commit, its logged link count already says so and is left alone.
 * A subdirectory moved within its parent (rename, exchange) is LINKed
 * under its new name before the UNLINK of its old one: that UNLINK takes
 * the spare name back and deletes nothing (fc_link_dir()).  The scan
 * notes every UNLINK, and a directory's LINK that its fast commit does
 * not follow with an UNLINK of it is skipped: it would be a second name.  One that
 * changed parent (fc_dir_moves) first has a DOTDOT record: its ".." is
 * rewritten and the link moves from the old parent to the new one.
 *
 * Malformed input never crashes and never writes: the scan refuses it and
 * replay stops short of it.  The replay pass parses with the same checks,
 * so a block that changed between the passes is refused there as well.
 * A valid record that can't be applied is one of two kinds.  No memory
 * or an I/O error fail recovery and thereby the mount; the journal is
 * left to be recovered again.  Any other error would come back at every
 * mount: replay stops at that record, settles what came before it, marks
 * the file system with errors (e2fsck will check it) and the mount goes
 * on (fc_replay_failed()).
 */

#include "ext4.h"
#include "ext4_jbd2.h"
#include "ext4_extents.h"

#include <trace/events/ext4fc.h>
#include <linux/moduleparam.h>

/* What a pass is working with. */
struct fc_walk {
	struct super_block *sb;
	struct ext4_fc_replay_state *rs;
	enum passtype pass;
	tid_t tid;		/* the transaction the area must follow */
	const struct fcp_rec *rec;	/* the record being replayed */
};

/* --- regions, and the state both passes keep ------------------------- */

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
	kfree(rs->rs_unlinks);
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


/* --- scan: the checks the parser leaves to us ------------------------ */

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


/*
 * The parser's hook for what only the mounted file system can tell: an
 * extent must not cover group metadata.
 */
static const char *fc_check_live(void *ctx, const struct fcp_rec *r,
				 u64 *bad, bool *has_bad)
{
	if (r->tag != EXT4_FC_TAG_ADD_RANGE ||
	    !fc_hits_metadata(ctx, r->v.ext.pblk, r->v.ext.len))
		return NULL;
	*bad = r->v.ext.pblk;
	*has_bad = true;
	return "extent covers group metadata";
}

static u32 fc_crc(void *ctx, u32 crc, const void *buf, unsigned int len)
{
	return ext4_chksum(EXT4_SB((struct super_block *)ctx), crc, buf, len);
}

/* A parser for one pass over the area. */
static void fc_parse_begin(struct fc_walk *w)
{
	struct super_block *sb = w->sb;
	struct ext4_super_block *es = EXT4_SB(sb)->s_es;
	struct fcp_geom geom = {
		.inodes_count = le32_to_cpu(es->s_inodes_count),
		.first_ino = EXT4_FIRST_INO(sb),
		.blocks_count = ext4_blocks_count(es),
		.first_data_block = le32_to_cpu(es->s_first_data_block),
		.inode_size = EXT4_INODE_SIZE(sb),
	};

	/* fc_parse.c cannot see ext4.h: its copies must agree */
	BUILD_BUG_ON(FCP_MAX_LBLK != EXT_MAX_BLOCKS);
	BUILD_BUG_ON(FCP_INIT_MAX_LEN != EXT_INIT_MAX_LEN);
	BUILD_BUG_ON(FCP_NAME_LEN != EXT4_NAME_LEN);
	BUILD_BUG_ON(FCP_ROOT_INO != EXT4_ROOT_INO);
	BUILD_BUG_ON(FCP_OLD_INODE_SIZE != EXT4_GOOD_OLD_INODE_SIZE);
	BUILD_BUG_ON(offsetof(struct ext4_inode, i_mode) != FCP_I_MODE);
	BUILD_BUG_ON(offsetof(struct ext4_inode, i_size_lo) != FCP_I_SIZE_LO);
	BUILD_BUG_ON(offsetof(struct ext4_inode, i_links_count) != FCP_I_LINKS);
	BUILD_BUG_ON(offsetof(struct ext4_inode, i_flags) != FCP_I_FLAGS);
	BUILD_BUG_ON(offsetof(struct ext4_inode, i_block) != FCP_I_BLOCK);
	BUILD_BUG_ON(offsetof(struct ext4_inode, i_extra_isize) != FCP_I_EXTRA_ISIZE);

	fcp_init(&w->rs->rs_parse, &geom, w->tid, fc_crc, sb);
	w->rs->rs_parse.check_fn = fc_check_live;
}

#define FC_RAW(raw, field)	((raw) + offsetof(struct ext4_inode, field))

/* --- replay: one handler per tag, ranges first ----------------------- */

/* A record replay cannot apply: say which, where, and why. */
static __printf(2, 3) void fc_skip(struct fc_walk *w, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	ext4_msg(w->sb, KERN_WARNING,
		 "fast commit replay: %s record at fc block %u byte %u skipped: %pV",
		 fcp_tag_name(w->rec->tag), w->rec->blk, w->rec->off, &vaf);
	va_end(args);
}

/*
 * Inode ino, NULL when there is none to change (free, deleted, or not
 * an inode ext4 accepts), or ERR_PTR(-ENOMEM / -EIO): those are no answer
 * about the inode, and replay must fail (fc_replay_failed()) rather than
 * skip what the records say of it.
 */
/*
 * For ext4fc/014: the Nth inode lookup of the next replay fails with
 * -EIO, as a read error of its inode table block would (Debian's kernel
 * has no fault injection); then the knob goes back to 0.
 */
static int fc_debug_iget_eio;
module_param(fc_debug_iget_eio, int, 0644);
MODULE_PARM_DESC(fc_debug_iget_eio,
		 "testing only: the Nth inode lookup of the next fast-commit replay fails with -EIO");

static struct inode *fc_iget(struct super_block *sb, u32 ino)
{
	struct inode *inode;

	if (unlikely(READ_ONCE(fc_debug_iget_eio) > 0) &&
	    --fc_debug_iget_eio == 0)
		inode = ERR_PTR(-EIO);
	else
		inode = ext4_iget(sb, ino, EXT4_IGET_NORMAL);

	if (!IS_ERR(inode))
		return inode;
	if (PTR_ERR(inode) == -ENOMEM || PTR_ERR(inode) == -EIO)
		return inode;
	ext4_debug("fc replay: no inode %u (%ld)\n", ino, PTR_ERR(inode));
	return NULL;
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

	if (IS_ERR_OR_NULL(inode))
		return inode;
	if (!fc_extent_mapped(inode)) {
		if (!ext4_has_inline_data(inode))
			fc_skip(w, "inode %u has no extent tree", ino);
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

static int fc_apply_extent(struct fc_walk *w, const struct fcp_rec *r)
{
	const struct fcp_extent *ex = &r->v.ext;
	struct inode *inode;
	u32 done;
	int ret = 0;

	inode = fc_range_inode(w, ex->ino);
	if (IS_ERR_OR_NULL(inode))
		return PTR_ERR_OR_ZERO(inode);
	for (done = 0; done < ex->len; done += ret) {
		ret = fc_settle_run(inode, ex->lblk + done, ex->len - done,
				    ex->pblk + done, ex->unwritten);
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

static int fc_apply_hole(struct fc_walk *w, const struct fcp_rec *r)
{
	ext4_lblk_t start = r->v.del.lblk, end = start + r->v.del.len;
	struct ext4_map_blocks map;
	struct inode *inode;
	int ret = 0;

	inode = fc_range_inode(w, r->v.del.ino);
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

/* --- inodes ---------------------------------------------------------- */

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

/*
 * Lay the logged inode (len bytes) over the on-disk one.  An inode that
 * was not in use before (@fresh) starts from zeroes: what the table holds
 * there is a deleted inode's, or never written, and its block map or
 * in-inode xattrs must not come back to life.  i_dtime of an inode in use
 * links the orphan list; the list replay goes by is the one on disk (the
 * superblock's), so the on-disk link stays, and an inode new to the disk
 * is on no list: a logged link (the inode was mid-truncate) would dangle.
 */
static void fc_merge_raw_inode(struct ext4_inode *disk, const u8 *raw,
			       int len, int isize, bool fresh)
{
	const size_t from = offsetof(struct ext4_inode, i_block);
	const size_t to = offsetofend(struct ext4_inode, i_block);
	struct ext4_extent_header *eh = (void *)disk->i_block;
	__le32 dtime = disk->i_dtime;

	if (fresh) {
		memset(disk, 0, isize);
		dtime = 0;
	}
	memcpy(disk, raw, from);
	disk->i_dtime = dtime;
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

/*
 * Was ino in use before this record?  The inode bitmap says; a group or
 * part of the inode table that was never used says no without it.
 */
static int fc_inode_in_use(struct super_block *sb, u32 ino)
{
	u32 per_group = EXT4_INODES_PER_GROUP(sb);
	u32 bit = (ino - 1) % per_group;
	struct ext4_group_desc *gd;
	struct buffer_head *bh;
	int used;

	gd = ext4_get_group_desc(sb, (ino - 1) / per_group, NULL);
	if (!gd)
		return -EFSCORRUPTED;
	if (ext4_has_group_desc_csum(sb) &&
	    (gd->bg_flags & cpu_to_le16(EXT4_BG_INODE_UNINIT) ||
	     bit >= per_group - ext4_itable_unused_count(sb, gd)))
		return 0;
	bh = sb_bread(sb, ext4_inode_bitmap(sb, gd));
	if (!bh)
		return -EIO;
	used = ext4_test_bit(bit, bh->b_data);
	brelse(bh);
	return used;
}

static int fc_apply_inode(struct fc_walk *w, const struct fcp_rec *r)
{
	struct super_block *sb = w->sb;
	u32 ino = r->v.ino.ino;
	const u8 *raw = r->v.ino.raw;
	struct ext4fc_touched *t;
	struct ext4_iloc iloc;
	struct inode *inode;
	int used, err;

	/* An inode logged without links is on its way out: leave it be. */
	if (!get_unaligned_le16(FC_RAW(raw, i_links_count)))
		return 0;
	t = fc_touch(w->rs, ino);
	if (!t)
		return -ENOMEM;
	t->inode_commit = w->rs->rs_commit;

	/* Its blocks are counted afresh when replay settles. */
	inode = fc_iget(sb, ino);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	if (inode) {
		if (fc_extent_mapped(inode))
			ext4_ext_clear_bb(inode);
		iput(inode);
	}
	used = fc_inode_in_use(sb, ino);
	if (used < 0)
		return used;

	err = ext4_get_fc_inode_loc(sb, ino, &iloc);
	if (err)
		return err;
	fc_merge_raw_inode(ext4_raw_inode(&iloc), raw, r->v.ino.len,
			   EXT4_INODE_SIZE(sb), !used);
	err = fc_write_now(iloc.bh);
	if (!err)
		err = fc_mark_used(sb, ino, S_ISDIR(r->v.ino.mode));
	if (err)
		goto out;

	inode = ext4_iget(sb, ino, EXT4_IGET_NORMAL);
	if (IS_ERR(inode)) {
		err = PTR_ERR(inode);
		goto out;
	}
	ext4_inode_csum_set(inode, ext4_raw_inode(&iloc), EXT4_I(inode));
	err = fc_write_now(iloc.bh);
	iput(inode);
out:
	brelse(iloc.bh);
	return err;
}

/* --- directories: names ---------------------------------------------- */

/* A name record, with its inode and directory once they are read. */
struct fc_dentry {
	u32 dir_ino;
	u32 ino;
	struct qstr name;
	struct inode *inode;
	struct inode *dir;
};

/*
 * Decode a name record and get both inodes: 0, -ENOENT when one of them
 * is not there (an inode a later record frees: nothing to do), -ENOTDIR
 * when the directory is no directory (logged), -ENOMEM or -EIO (replay
 * fails).  fc_dentry_skip() tells the first two from the last.
 */
static int fc_dentry_get(struct fc_walk *w, const struct fcp_rec *r,
			 struct fc_dentry *d)
{
	d->dir_ino = r->v.de.dir;
	d->ino = r->v.de.ino;
	d->name.name = r->v.de.name;
	d->name.len = r->v.de.nlen;
	d->inode = fc_iget(w->sb, d->ino);
	if (IS_ERR(d->inode))
		return PTR_ERR(d->inode);
	if (!d->inode)
		return -ENOENT;
	d->dir = fc_iget(w->sb, d->dir_ino);
	if (!IS_ERR_OR_NULL(d->dir) && S_ISDIR(d->dir->i_mode))
		return 0;
	iput(d->inode);
	if (IS_ERR(d->dir))
		return PTR_ERR(d->dir);
	if (!d->dir)
		return -ENOENT;
	fc_skip(w, "inode %u is not a directory", d->dir_ino);
	iput(d->dir);
	return -ENOTDIR;
}

/* fc_dentry_get()'s @err: 0 to go on with the record, 1 to skip it. */
static int fc_dentry_skip(int err)
{
	return err == -ENOENT || err == -ENOTDIR ? 1 : err;
}

static void fc_dentry_put(struct fc_dentry *d)
{
	iput(d->dir);
	iput(d->inode);
}

/*
 * Add the name; 1 if added, 0 if it was there already (for this inode or,
 * the name having been reused since, for another), or an error.
 */
static int fc_add_name(struct inode *dir, struct inode *inode,
		       const struct qstr *name)
{
	struct dentry *parent, *dentry;
	int err;

	err = ext4_fc_name_ino(dir, name);
	if (err)
		return err < 0 ? err : 0;
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

/*
 * A name went into dir, which may have taken a new block.  Replay
 * allocates without quota, so nothing counted it in i_blocks: settling
 * must see the directory too.  Returns 1, or -ENOMEM.
 */
static int fc_dir_grew(struct fc_walk *w, u32 dir_ino)
{
	return fc_touch(w->rs, dir_ino) ? 1 : -ENOMEM;
}

/* Does the fast commit at hand UNLINK ino after the record being replayed? */
static bool fc_unlinked_later(const struct ext4_fc_replay_state *rs, u32 ino)
{
	const struct fcp_state *st = &rs->rs_parse;
	const struct ext4fc_unlink *u;

	for (u = rs->rs_unlinks; u < rs->rs_unlinks + rs->rs_nr_unlinks; u++)
		if (u->ino == ino && u->commit == st->commits &&
		    u->rec > st->recs)
			return true;
	return false;
}

/*
 * A directory moved within its parent (a rename, an exchange) gets its new
 * name before it loses the old one; until then it has a spare name, which
 * the UNLINK takes back without deleting it.  Its ".." must name the
 * parent (a LINK into another directory would need a new ".."), and the
 * same fast commit must UNLINK it later (the scan noted every UNLINK):
 * otherwise the LINK would leave the directory with two names.  Returns 1
 * if the name is the directory's now, 0 if not (logged), or an error.
 */
static int fc_link_dir(struct fc_walk *w, struct fc_dentry *d)
{
	struct ext4fc_touched *t;
	int ret;

	ret = ext4_fc_dotdot_ino(d->inode);
	if (ret < 0)
		return ret;
	if (ret != d->dir_ino) {
		fc_skip(w, "directory %u is in %d, not in %u", d->ino, ret,
			d->dir_ino);
		return 0;
	}
	if (!fc_unlinked_later(w->rs, d->ino)) {
		fc_skip(w, "directory %u would get a second name: this fast commit does not unlink it after",
			d->ino);
		return 0;
	}
	ret = fc_add_name(d->dir, d->inode, &d->name);
	if (!ret)
		ret = ext4_fc_name_ino(d->dir, &d->name) == d->ino;
	if (ret <= 0)
		return ret;
	t = fc_touch(w->rs, d->ino);
	if (!t)
		return -ENOMEM;
	t->spare_names++;
	return 1;
}

static int fc_apply_link(struct fc_walk *w, const struct fcp_rec *r)
{
	struct fc_dentry d;
	int ret;

	ret = fc_dentry_skip(fc_dentry_get(w, r, &d));
	if (ret)
		return min(ret, 0);
	if (S_ISDIR(d.inode->i_mode))
		ret = fc_link_dir(w, &d);
	else
		ret = fc_add_name(d.dir, d.inode, &d.name);
	if (ret > 0)
		ret = fc_dir_grew(w, d.dir_ino);
	fc_dentry_put(&d);
	return ret < 0 ? ret : 0;
}

/* Does lblk of inode map a block?  1, 0, or an error. */
static int fc_has_block(struct inode *inode, ext4_lblk_t lblk)
{
	struct ext4_map_blocks map = { .m_lblk = lblk, .m_len = 1 };
	int ret = ext4_map_blocks(NULL, inode, &map, 0);

	return ret > 0 ? 1 : ret;
}

/*
 * CREAT follows the new inode's INODE record (and its ranges): what is left
 * is the name, and for a directory its first block with "." and "..".
 */
static int fc_apply_create(struct fc_walk *w, const struct fcp_rec *r)
{
	u32 ino = r->v.de.ino;
	struct fc_dentry d;
	unsigned int nlink;
	bool is_dir;
	int ret;

	/*
	 * The inode is in use only if its INODE record set it up: one logged
	 * without links was skipped, and marking it would leak it.
	 */
	ret = fc_dentry_get(w, r, &d);
	if (ret == -ENOENT)
		fc_skip(w, "inode %u or its directory %u unreadable", ino,
			d.dir_ino);
	ret = fc_dentry_skip(ret);
	if (ret)
		return min(ret, 0);
	ret = ext4_mark_inode_used(w->sb, ino);
	if (ret) {
		fc_dentry_put(&d);
		return ret;
	}
	nlink = d.inode->i_nlink;	/* as logged: linking must not add */
	is_dir = S_ISDIR(d.inode->i_mode);
	/*
	 * A directory without a first block gets one with "." and "..".  One
	 * that has it is set up already: by the transaction the full commit
	 * carried (a create made as that commit began is logged again after
	 * it), or by an earlier, interrupted replay; its entries stay.  An
	 * inline directory came with its entries in the INODE record.
	 */
	if (is_dir && !ext4_has_inline_data(d.inode)) {
		ret = fc_has_block(d.inode, 0);
		if (!ret)
			ret = ext4_init_new_dir(NULL, d.dir, d.inode);
		else if (ret > 0)
			ret = 0;
	}
	if (!ret)
		ret = fc_add_name(d.dir, d.inode, &d.name);
	if (ret > 0 && is_dir)
		fc_count_subdir(w, d.dir, 1);
	if (ret > 0)
		ret = fc_dir_grew(w, d.dir_ino);
	if (ret >= 0) {
		set_nlink(d.inode, nlink);
		ret = ext4_mark_inode_dirty(NULL, d.inode);
	}
	fc_dentry_put(&d);
	return ret;
}

static int fc_apply_unlink(struct fc_walk *w, const struct fcp_rec *r)
{
	struct ext4fc_touched *t = NULL;
	struct fc_dentry d;
	bool many;
	int ret;

	ret = fc_dentry_skip(fc_dentry_get(w, r, &d));
	if (ret)
		return min(ret, 0);
	if (S_ISDIR(d.inode->i_mode)) {
		t = fc_touch(w->rs, d.ino);
		if (!t) {
			fc_dentry_put(&d);
			return -ENOMEM;
		}
	}
	/*
	 * A moved directory with more subdirectories than EXT4_LINK_MAX
	 * counts one link (dir_nlink's "many"), which its LINK left at one:
	 * the unlink must not take it to zero, which deletes it.
	 */
	many = t && t->spare_names > 0 && d.inode->i_nlink == 1;
	if (many)
		inc_nlink(d.inode);
	ret = __ext4_unlink(d.dir, &d.name, d.inode, NULL);
	if (many && d.inode->i_nlink != 1) {
		set_nlink(d.inode, 1);	/* the name was gone already */
		ext4_mark_inode_dirty(NULL, d.inode);
	}
	if (t && (!ret || ret == -ENOENT)) {
		if (t->spare_names > 0) {
			/* it moved: the name it got first stays, so does it */
			t->spare_names--;
		} else {
			/*
			 * A directory has one name: without it, it is deleted
			 * (when put below) and its ".." no longer links the
			 * parent.
			 */
			if (!ret)
				fc_count_subdir(w, d.dir, -1);
			clear_nlink(d.inode);
			ext4_mark_inode_dirty(NULL, d.inode);
		}
	}
	fc_dentry_put(&d);
	return ret == -ENOENT ? 0 : ret;
}

/*
 * DOTDOT (fc_dir_moves): the directory's ".." names its new parent, which
 * gains the link the old parent loses.  The LINK and UNLINK that follow
 * move its name.  A ".." that names the new parent already is left be.
 */
static int fc_apply_dotdot(struct fc_walk *w, const struct fcp_rec *r)
{
	struct inode *old_dir;
	struct fc_dentry d;
	int ret;

	ret = fc_dentry_skip(fc_dentry_get(w, r, &d));
	if (ret)
		return min(ret, 0);
	if (!S_ISDIR(d.inode->i_mode))
		fc_skip(w, "inode %u is not a directory", d.ino);
	else
		ret = ext4_fc_set_dotdot(d.inode, d.dir_ino);
	if (ret > 0) {
		old_dir = fc_iget(w->sb, ret);
		ret = PTR_ERR_OR_ZERO(old_dir);
		if (old_dir && !ret) {
			fc_count_subdir(w, old_dir, -1);
			iput(old_dir);
		}
		if (!ret) {
			fc_count_subdir(w, d.dir, 1);
			ret = fc_touch(w->rs, d.ino) ? 0 : -ENOMEM;
		}
	}
	fc_dentry_put(&d);
	return ret;
}

/* --- replay: the handler table, and where a pass stops --------------- */

static int fc_apply_tail(struct fc_walk *w, const struct fcp_rec *r)
{
	w->rs->rs_commit++;
	return 0;
}

/*
 * Per tag, what replaying it does.  PAD and HEAD change nothing; a TAIL
 * moves on to the next fast commit.
 */
static int (*const fc_apply[EXT4_FC_TAG_DOTDOT + 1])(struct fc_walk *w,
						  const struct fcp_rec *r) = {
	[EXT4_FC_TAG_ADD_RANGE] = fc_apply_extent,
	[EXT4_FC_TAG_DEL_RANGE] = fc_apply_hole,
	[EXT4_FC_TAG_CREAT] = fc_apply_create,
	[EXT4_FC_TAG_LINK] = fc_apply_link,
	[EXT4_FC_TAG_UNLINK] = fc_apply_unlink,
	[EXT4_FC_TAG_INODE] = fc_apply_inode,
	[EXT4_FC_TAG_TAIL] = fc_apply_tail,
	[EXT4_FC_TAG_DOTDOT] = fc_apply_dotdot,
};

/*
 * One line on why the walk stops at r.  Where the log simply ends (quiet,
 * and a HEAD or TAIL of another transaction, or nothing written at the
 * start of a block) it says so, calmly; anything else reads as damage.
 */
static void fc_refuse(struct fc_walk *w, bool quiet)
{
	const struct fcp_stop *st = &w->rs->rs_parse.stop;
	const char *name = fcp_tag_name(st->tag);
	struct ext4_fc_replay_state *rs = w->rs;
	char val[24] = "";
	char what[96];

	if (quiet && (st->eol || (!st->off && !st->tag && !st->len))) {
		if (!st->eol)
			strscpy(what, "nothing written there", sizeof(what));
		else if (st->has_bad)
			snprintf(what, sizeof(what), "%s record: %s, tid %llu",
				 name ? name : "unknown", st->why, st->bad);
		else
			snprintf(what, sizeof(what), "%s record: %s",
				 name ? name : "unknown", st->why);
		ext4_msg(w->sb, KERN_INFO,
			 "fast commit %s: the log ends at fc block %u byte %u (%s; tag %u, len %u); tid %u: %d fast commit(s), %d records kept",
			 w->pass == PASS_SCAN ? "scan" : "replay", st->blk,
			 st->off, what, st->tag, st->len, w->tid,
			 rs->rs_commits, rs->rs_tags_valid);
		return;
	}
	if (st->has_bad)
		snprintf(val, sizeof(val), " %llu", st->bad);
	ext4_msg(w->sb, quiet ? KERN_INFO : KERN_WARNING,
		 "fast commit %s stops at fc block %u byte %u, %s record (tag %u, len %u): %s%s; tid %u: %d fast commit(s), %d records kept",
		 w->pass == PASS_SCAN ? "scan" : "replay", st->blk, st->off,
		 name ? name : "unknown", st->tag, st->len, st->why, val,
		 w->tid, rs->rs_commits, rs->rs_tags_valid);
}

/* --- scan ------------------------------------------------------------ */

static void fc_scan_begin(struct fc_walk *w)
{
	fc_state_reset(w->rs);
	w->rs->rs_pass = PASS_SCAN;
	fc_parse_begin(w);
}

static int fc_scan_stop(struct fc_walk *w, int error)
{
	w->rs->rs_error = error;
	w->rs->rs_nr_regions = w->rs->rs_valid_regions;
	w->rs->rs_stopped = true;
	return JBD2_FC_REPLAY_STOP;
}

/* The scan notes every UNLINK, for fc_link_dir(). */
static int fc_note_unlink(struct ext4_fc_replay_state *rs, u32 ino)
{
	int err;

	err = fc_grow((void **)&rs->rs_unlinks, &rs->rs_max_unlinks,
		      rs->rs_nr_unlinks + 1, sizeof(*rs->rs_unlinks));
	if (err)
		return err;
	rs->rs_unlinks[rs->rs_nr_unlinks++] = (struct ext4fc_unlink) {
		.ino = ino, .commit = rs->rs_parse.commits,
		.rec = rs->rs_parse.recs,
	};
	return 0;
}

static int fc_scan_block(struct fc_walk *w, struct fcp_cursor *c)
{
	struct ext4_fc_replay_state *rs = w->rs;
	struct fcp_state *st = &rs->rs_parse;
	struct fcp_rec r;
	int got, err;

	while ((got = fcp_next(st, c, &r)) > 0) {
		if (r.tag == EXT4_FC_TAG_TAIL) {
			rs->rs_tags_valid = st->recs_valid;
			rs->rs_valid_regions = rs->rs_nr_regions;
			rs->rs_commits = st->commits;
			continue;
		}
		if (r.tag == EXT4_FC_TAG_UNLINK)
			err = fc_note_unlink(rs, r.v.de.ino);
		else if (r.tag == EXT4_FC_TAG_ADD_RANGE)
			err = ext4_fc_record_regions(w->sb, r.v.ext.ino,
						     r.v.ext.lblk, r.v.ext.pblk,
						     r.v.ext.len, 0);
		else
			continue;
		if (err)
			return err;
	}
	if (!got)
		return JBD2_FC_REPLAY_CONTINUE;
	fc_refuse(w, st->stop.eol || !st->stop.off);
	return fc_scan_stop(w, st->stop.eol ? -ESTALE : -EFSCORRUPTED);
}

/* --- settling -------------------------------------------------------- */

/*
 * Written blocks past the end of the file: a truncate that a fast commit
 * caught between its two handles (the new size logged, the blocks not yet
 * gone), or one cut short by a journal restart.  Finish it, as orphan
 * recovery finishes it after a full commit.  Unwritten extents there are
 * preallocation (fallocate KEEP_SIZE) and stay; a write into them that
 * zeroes out its neighbours converts only extents below the larger of
 * i_disksize and the write's end, which the size then covers.  A verity
 * file keeps its Merkle tree and descriptor past i_size: left alone.
 */
static int fc_drop_past_eof(struct inode *inode)
{
	ext4_lblk_t lblk = fc_size_blocks(inode);
	struct ext4_map_blocks map;
	int ret;

	if (ext4_test_inode_flag(inode, EXT4_INODE_VERITY))
		return 0;
	while (lblk < EXT_MAX_BLOCKS) {
		map.m_lblk = lblk;
		map.m_len = EXT_MAX_BLOCKS - lblk;
		map.m_flags = 0;
		ret = ext4_map_blocks(NULL, inode, &map, 0);
		if (ret < 0)
			return ret;
		if (!map.m_len)
			break;
		if (ret > 0 && !(map.m_flags & EXT4_MAP_UNWRITTEN)) {
			down_write(&EXT4_I(inode)->i_data_sem);
			ret = ext4_ext_remove_space(inode, lblk, lblk + map.m_len - 1);
			up_write(&EXT4_I(inode)->i_data_sem);
			if (ret)
				return ret;
		}
		lblk += map.m_len;
	}
	return 0;
}

/*
 * Mark every block the extent tree takes in use, data and tree nodes
 * below the root, and count them.  The tree is walked extent by extent in
 * logical order, so each node is met in one stretch: it is counted when
 * the path first leads through it.
 */
static s64 fc_mark_tree(struct inode *inode)
{
	ext4_fsblk_t node[EXT4_MAX_EXTENT_DEPTH] = {};
	struct super_block *sb = inode->i_sb;
	struct ext4_ext_path *path;
	struct ext4_extent *ex;
	ext4_lblk_t lblk = 0, start, next;
	s64 blocks = 0;
	int d, len;

	while (lblk < EXT_MAX_BLOCKS) {
		path = ext4_find_extent(inode, lblk, NULL, 0);
		if (IS_ERR(path))
			return PTR_ERR(path);
		for (d = 0; d < path->p_depth && d < EXT4_MAX_EXTENT_DEPTH; d++) {
			if (path[d].p_block == node[d])
				continue;
			node[d] = path[d].p_block;
			ext4_mb_mark_bb(sb, node[d], 1, 1);
			blocks++;
		}
		ex = path[path->p_depth].p_ext;
		next = EXT_MAX_BLOCKS;
		if (ex) {
			start = le32_to_cpu(ex->ee_block);
			len = ext4_ext_get_actual_len(ex);
			if (start + len > lblk) {
				ext4_mb_mark_bb(sb, ext4_ext_pblock(ex), len, 1);
				blocks += len;
				next = start + len;
			} else {
				next = ext4_ext_next_allocated_block(path);
			}
		}
		ext4_free_ext_path(path);
		if (next <= lblk)
			break;	/* a tree that leads nowhere new */
		lblk = next;
	}
	return blocks;
}

/*
 * A changed inode, now that replay is done with it: finish a truncate it
 * was caught in, merge its extents where they can be, mark what it maps
 * in use and count i_blocks afresh: data, tree nodes and an external
 * xattr block.
 */
static int fc_settle_inode(struct super_block *sb, u32 ino)
{
	struct inode *inode;
	s64 blocks;
	int err;

	inode = fc_iget(sb, ino);
	if (IS_ERR_OR_NULL(inode))
		return PTR_ERR_OR_ZERO(inode);
	err = 0;
	if (!fc_extent_mapped(inode))
		goto out;
	err = fc_drop_past_eof(inode);
	if (err)
		goto out;
	ext4_ext_replay_shrink_inode(inode, fc_size_blocks(inode));
	blocks = fc_mark_tree(inode);
	if (blocks < 0) {
		err = blocks;
		goto out;
	}
	if (EXT4_I(inode)->i_file_acl)
		blocks += EXT4_C2B(EXT4_SB(sb), 1);
	inode->i_blocks = blocks << (sb->s_blocksize_bits - 9);
	err = ext4_mark_inode_dirty(NULL, inode);
out:
	iput(inode);
	return err;
}

/*
 * The last step of replay, once, however it ends.  An inode that cannot
 * be settled keeps blocks it maps unmarked (an INODE record cleared
 * them): no memory or an I/O error fail the recovery, as a record's
 * would; anything else is said and marks the file system with errors.
 */
static int fc_replay_end(struct fc_walk *w)
{
	struct ext4_fc_replay_state *rs = w->rs;
	struct ext4_sb_info *sbi = EXT4_SB(w->sb);
	int i, err;

	rs->rs_stopped = true;
	if (rs->rs_settled)
		return JBD2_FC_REPLAY_STOP;
	rs->rs_settled = true;
	for (i = 0; i < rs->rs_nr_inodes; i++) {
		err = fc_settle_inode(w->sb, rs->rs_inodes[i].ino);
		if (!err)
			continue;
		ext4_msg(w->sb, KERN_ERR,
			 "fast commit replay: inode %u cannot be settled (%d): its blocks and i_blocks may be wrong; %s",
			 rs->rs_inodes[i].ino, err,
			 err == -ENOMEM || err == -EIO ?
			 "the journal is kept for the next mount" :
			 "the file system is marked with errors: run e2fsck");
		if (err == -ENOMEM || err == -EIO)
			return err;
		sbi->s_mount_state |= EXT4_ERROR_FS;
		sbi->s_es->s_state |= cpu_to_le16(EXT4_ERROR_FS);
	}
	ext4_msg(w->sb, KERN_INFO,
		 "fast commit replay: tid %u: %d of %d records applied, %d inode(s) changed",
		 w->tid, rs->rs_tags_done, rs->rs_tags_valid, rs->rs_nr_inodes);
	return JBD2_FC_REPLAY_STOP;
}

/* --- replay ---------------------------------------------------------- */

static u32 fc_rec_ino(const struct fcp_rec *r)
{
	switch (r->tag) {
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
	case EXT4_FC_TAG_DOTDOT:
		return r->v.de.ino;
	case EXT4_FC_TAG_ADD_RANGE:
		return r->v.ext.ino;
	case EXT4_FC_TAG_DEL_RANGE:
		return r->v.del.ino;
	case EXT4_FC_TAG_INODE:
		return r->v.ino.ino;
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
	fc_parse_begin(w);
	if (!rs->rs_tags_valid) {
		rs->rs_stopped = true;
		return JBD2_FC_REPLAY_STOP;
	}
	ext4_msg(w->sb, KERN_INFO,
		 "fast commit replay: tid %u: %d fast commit(s), %d records",
		 w->tid, rs->rs_commits, rs->rs_tags_valid);
	return JBD2_FC_REPLAY_CONTINUE;
}

/*
 * A valid record could not be applied.  Out of memory or an I/O error may
 * not happen next time: fail the mount and keep the journal, so that the
 * next mount replays it all.  Anything else (no space, a state the
 * record can't be laid over) would fail every mount of the file system
 * forever: stop here instead, keep what the records before it did, and
 * mark the file system with errors, so that e2fsck checks it.
 */
static int fc_replay_failed(struct fc_walk *w, const struct fcp_rec *r,
			    int err)
{
	struct ext4_sb_info *sbi = EXT4_SB(w->sb);

	if (err == -ENOMEM || err == -EIO) {
		ext4_msg(w->sb, KERN_ERR,
			 "fast commit replay: %s record for inode %u at fc block %u byte %u failed: %d; the journal is kept for the next mount",
			 fcp_tag_name(r->tag), fc_rec_ino(r), r->blk, r->off,
			 err);
		w->rs->rs_stopped = true;
		return err;
	}
	ext4_msg(w->sb, KERN_ERR,
		 "fast commit replay: %s record for inode %u at fc block %u byte %u cannot be applied (%d): replay stops there, the file system is marked with errors: run e2fsck",
		 fcp_tag_name(r->tag), fc_rec_ino(r), r->blk, r->off, err);
	sbi->s_mount_state |= EXT4_ERROR_FS;
	sbi->s_es->s_state |= cpu_to_le16(EXT4_ERROR_FS);
	return fc_replay_end(w);
}

static int fc_replay_block(struct fc_walk *w, struct fcp_cursor *c)
{
	struct ext4_fc_replay_state *rs = w->rs;
	int max = EXT4_SB(w->sb)->s_fc_debug_max_replay;
	struct fcp_rec r;
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
		got = fcp_next(&rs->rs_parse, c, &r);
		if (!got)
			return JBD2_FC_REPLAY_CONTINUE;
		if (got < 0) {
			/* the scan passed it: the block changed under us */
			fc_refuse(w, false);
			return fc_replay_end(w);
		}
		trace_ext4_fc_replay(w->sb, r.tag, fc_rec_ino(&r), r.blk,
				     r.off);
		w->rec = &r;
		err = fc_apply[r.tag] ? fc_apply[r.tag](w, &r) : 0;
		w->rec = NULL;
		if (err)
			return fc_replay_failed(w, &r, err);
		rs->rs_tags_done++;
	}
}

/* --- both passes, for jbd2 ------------------------------------------- */

/* One block of the fast-commit area, off counting from 0, in either pass. */
static int fc_walk_block(struct fc_walk *w, struct buffer_head *bh, int off)
{
	struct super_block *sb = w->sb;
	struct ext4_fc_replay_state *rs = w->rs;
	enum passtype pass = w->pass;
	struct fcp_cursor c;
	int ret;

	if (!off) {
		if (pass == PASS_SCAN)
			fc_scan_begin(w);
		else if (fc_replay_begin(w) == JBD2_FC_REPLAY_STOP)
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
			return fc_scan_stop(w, -EFSCORRUPTED);
		return fc_replay_end(w);
	}
	rs->rs_next_off++;
	fcp_cursor_init(&c, bh->b_data, bh->b_size, off);
	if (pass == PASS_SCAN) {
		ret = fc_scan_block(w, &c);
		trace_ext4_fc_replay_scan(sb, ret < 0 ? ret : rs->rs_error,
					  off);
		return ret;
	}
	return fc_replay_block(w, &c);
}

/*
 * jbd2's replay callback: each block of the fast-commit area in order,
 * off counting from 0, for PASS_SCAN and then for PASS_REPLAY.
 *
 * A read-only mount that finds the journal needing recovery recovers it
 * all the same (ext4 enables write access for it) but leaves SB_RDONLY
 * set, and a handle refuses to start on a read-only super block: the
 * extent and directory code replay goes through would fail with -EROFS.
 * The flag is lifted while a block is replayed, as ext4's orphan cleanup
 * lifts it on such a mount.
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
	bool lift = pass == PASS_REPLAY && sb_rdonly(sb);
	int ret;

	if (pass != PASS_SCAN && pass != PASS_REPLAY)
		return JBD2_FC_REPLAY_STOP;
	if (lift)
		sb->s_flags &= ~SB_RDONLY;
	ret = fc_walk_block(&w, bh, off);
	if (lift)
		sb->s_flags |= SB_RDONLY;
	return ret;
}
