// SPDX-License-Identifier: GPL-2.0
/*
 * ext4fc: validate and decode fast-commit records (see fc_parse.h).
 *
 * Every record is checked before a byte of its value is read, in this
 * order, and the first objection stops the walk:
 *
 *  - the header and the value lie inside the block (records never cross a
 *    block end);
 *  - the area opens with a HEAD at block 0 byte 0, and only there;
 *  - the tag is known and the length suits it (fcp_tags[]);
 *  - the value is plausible for a file system of this geometry: inode
 *    numbers in range, extents inside the file system, names a directory
 *    can hold, an inode of a known type that fits the inode size;
 *  - HEAD: features we support, the expected tid; DOTDOT only after a
 *    HEAD with EXT4_FC_FEATURE_DIR_MOVES;
 *  - TAIL: the expected tid and the crc32c (seed 0) of every byte since
 *    the previous tail up to and including this tail's tid;
 *  - the caller's own check, if any.
 *
 * A HEAD or TAIL of another transaction, and anything at block 0 byte 0
 * that is not a HEAD, read as the ordinary end of the log (stop.eol).
 */

#include "fc_parse.h"
#include "fc_format.h"

#define FCP_TL_LEN	((u16)sizeof(struct ext4_fc_tl))
#define FCP_DENTRY_LEN	((u16)sizeof(struct ext4_fc_dentry_info))

struct fcp_tag {
	const char *name;
	u16 min_len;
	u16 max_len;		/* 0: whatever fits in the block */
	const char *(*check)(struct fcp_state *st, struct fcp_rec *r);
};

/* Record what a check objected to; returns why. */
static const char *fcp_bad(struct fcp_state *st, const char *why, u64 val)
{
	st->stop.bad = val;
	st->stop.has_bad = true;
	return why;
}

static bool fcp_ino_ok(const struct fcp_state *st, u32 ino)
{
	return ino >= st->geom.first_ino && ino <= st->geom.inodes_count;
}

static const char *fcp_check_ino(struct fcp_state *st, u32 ino)
{
	if (fcp_ino_ok(st, ino))
		return NULL;
	return fcp_bad(st, "inode number out of range", ino);
}

/* Logical blocks [lblk, lblk + len) of ino: what both range tags name. */
static const char *fcp_check_lblks(struct fcp_state *st, u32 ino, u32 lblk,
				   u32 len, bool extent)
{
	const char *why = fcp_check_ino(st, ino);

	if (why)
		return why;
	if (!len)
		return extent ? "empty extent" : "empty range";
	if ((u64)lblk + len > FCP_MAX_LBLK)
		return fcp_bad(st, extent ?
			       "extent ends past the last logical block" :
			       "range ends past the last logical block", lblk);
	return NULL;
}

static const char *fcp_check_extent(struct fcp_state *st, struct fcp_rec *r)
{
	struct fcp_extent *e = &r->v.ext;
	const u8 *ex = r->val + sizeof(__le32);	/* struct ext4_extent */
	u16 raw_len = get_unaligned_le16(ex + 4);
	const char *why;

	e->ino = get_unaligned_le32(r->val);
	e->lblk = get_unaligned_le32(ex);
	e->unwritten = raw_len > FCP_INIT_MAX_LEN;
	e->len = e->unwritten ? raw_len - FCP_INIT_MAX_LEN : raw_len;
	e->pblk = (u64)get_unaligned_le16(ex + 6) << 32 |
		  get_unaligned_le32(ex + 8);
	why = fcp_check_lblks(st, e->ino, e->lblk, e->len, true);
	if (why)
		return why;
	if (e->pblk <= st->geom.first_data_block)
		return fcp_bad(st, "extent starts in the boot block area",
			       e->pblk);
	if (e->pblk + e->len > st->geom.blocks_count)
		return fcp_bad(st, "extent ends past the file system", e->pblk);
	return NULL;
}

static const char *fcp_check_hole(struct fcp_state *st, struct fcp_rec *r)
{
	struct fcp_range *d = &r->v.del;

	d->ino = get_unaligned_le32(r->val);
	d->lblk = get_unaligned_le32(r->val + 4);
	d->len = get_unaligned_le32(r->val + 8);
	return fcp_check_lblks(st, d->ino, d->lblk, d->len, false);
}

/* CREAT, LINK, UNLINK, DOTDOT: a directory and an inode, then the name. */
static const char *fcp_check_pair(struct fcp_state *st, struct fcp_rec *r)
{
	struct fcp_dentry *d = &r->v.de;

	d->dir = get_unaligned_le32(r->val);
	d->ino = get_unaligned_le32(r->val + 4);
	d->name = r->val + FCP_DENTRY_LEN;
	d->nlen = r->len - FCP_DENTRY_LEN;
	if (d->dir != FCP_ROOT_INO && !fcp_ino_ok(st, d->dir))
		return fcp_bad(st, "directory inode number out of range",
			       d->dir);
	return fcp_check_ino(st, d->ino);
}

static const char *fcp_check_dotdot(struct fcp_state *st, struct fcp_rec *r)
{
	if (!(st->features & EXT4_FC_FEATURE_DIR_MOVES))
		return "directory move without the head's feature bit";
	return fcp_check_pair(st, r);
}

static const char *fcp_check_dentry(struct fcp_state *st, struct fcp_rec *r)
{
	struct fcp_dentry *d = &r->v.de;
	const char *why;

	why = fcp_check_pair(st, r);
	if (why)
		return why;
	if (memchr(d->name, '/', d->nlen) || memchr(d->name, '\0', d->nlen))
		return "name holds '/' or NUL";
	if (d->name[0] == '.' &&
	    (d->nlen == 1 || (d->nlen == 2 && d->name[1] == '.')))
		return "name is . or ..";
	return NULL;
}

/* File types of i_mode (S_IFMT bits), as on disk. */
static bool fcp_mode_ok(u16 mode)
{
	switch (mode & 0170000) {
	case 0100000:		/* regular */
	case 0040000:		/* directory */
	case 0120000:		/* symlink */
	case 0020000:		/* character device */
	case 0060000:		/* block device */
	case 0010000:		/* fifo */
	case 0140000:		/* socket */
		return true;
	}
	return false;
}

static const char *fcp_check_inode(struct fcp_state *st, struct fcp_rec *r)
{
	struct fcp_inode *in = &r->v.ino;
	const char *why;
	u16 extra;

	in->ino = get_unaligned_le32(r->val);
	in->raw = r->val + sizeof(struct ext4_fc_inode);
	in->len = r->len - sizeof(struct ext4_fc_inode);
	in->mode = get_unaligned_le16(in->raw + FCP_I_MODE);
	why = fcp_check_ino(st, in->ino);
	if (why)
		return why;
	if (in->len > st->geom.inode_size)
		return fcp_bad(st, "longer than an on-disk inode", in->len);
	if (!fcp_mode_ok(in->mode))
		return fcp_bad(st, "bad file type in i_mode", in->mode);
	if (in->len >= FCP_I_EXTRA_ISIZE + sizeof(__le16)) {
		extra = get_unaligned_le16(in->raw + FCP_I_EXTRA_ISIZE);
		if (FCP_OLD_INODE_SIZE + (u32)extra > st->geom.inode_size ||
		    (extra & 3))
			return fcp_bad(st, "bad i_extra_isize", extra);
	}
	return NULL;
}

static const char *fcp_check_tail(struct fcp_state *st, struct fcp_rec *r)
{
	struct fcp_mark *m = &r->v.mark;
	u32 crc;

	m->tid = get_unaligned_le32(r->val);
	m->crc = get_unaligned_le32(r->val + 4);
	m->features = 0;
	if (m->tid != st->tid) {
		st->stop.eol = true;
		return fcp_bad(st, "tail of another transaction", m->tid);
	}
	crc = st->crc_fn(st->ctx, st->crc, r->tl, FCP_TL_LEN + sizeof(__le32));
	if (crc != m->crc)
		return fcp_bad(st, "checksum mismatch, computed", crc);
	return NULL;
}

static const char *fcp_check_head(struct fcp_state *st, struct fcp_rec *r)
{
	struct fcp_mark *m = &r->v.mark;

	m->features = get_unaligned_le32(r->val);
	m->tid = get_unaligned_le32(r->val + 4);
	m->crc = 0;
	if (r->blk || r->off)
		return "head record past the start of the area";
	if (m->features & ~EXT4_FC_SUPPORTED_FEATURES)
		return fcp_bad(st, "unsupported features", m->features);
	st->features = m->features;
	if (m->tid != st->tid) {
		st->stop.eol = true;
		return fcp_bad(st, "head of another transaction", m->tid);
	}
	return NULL;
}

#define FCP_NAME_TAG(name) {						\
	name, FCP_DENTRY_LEN + 1, FCP_DENTRY_LEN + FCP_NAME_LEN,	\
	fcp_check_dentry,						\
}

#define FCP_NR_TAGS	(EXT4_FC_TAG_DOTDOT + 1)

static const struct fcp_tag fcp_tags[FCP_NR_TAGS] = {
	[EXT4_FC_TAG_ADD_RANGE] = { "ADD_RANGE",
		sizeof(struct ext4_fc_add_range),
		sizeof(struct ext4_fc_add_range), fcp_check_extent },
	[EXT4_FC_TAG_DEL_RANGE] = { "DEL_RANGE",
		sizeof(struct ext4_fc_del_range),
		sizeof(struct ext4_fc_del_range), fcp_check_hole },
	[EXT4_FC_TAG_CREAT] = FCP_NAME_TAG("CREAT"),
	[EXT4_FC_TAG_LINK] = FCP_NAME_TAG("LINK"),
	[EXT4_FC_TAG_UNLINK] = FCP_NAME_TAG("UNLINK"),
	[EXT4_FC_TAG_INODE] = { "INODE",
		sizeof(struct ext4_fc_inode) + FCP_OLD_INODE_SIZE, 0,
		fcp_check_inode },
	[EXT4_FC_TAG_PAD] = { "PAD", 0, 0, NULL },
	[EXT4_FC_TAG_TAIL] = { "TAIL", sizeof(struct ext4_fc_tail), 0,
		fcp_check_tail },
	[EXT4_FC_TAG_HEAD] = { "HEAD", sizeof(struct ext4_fc_head),
		sizeof(struct ext4_fc_head), fcp_check_head },
	[EXT4_FC_TAG_DOTDOT] = { "DOTDOT", FCP_DENTRY_LEN, FCP_DENTRY_LEN,
		fcp_check_dotdot },
};

static const struct fcp_tag *fcp_tag_of(u16 tag)
{
	if (tag >= FCP_NR_TAGS || !fcp_tags[tag].name)
		return NULL;
	return &fcp_tags[tag];
}

const char *fcp_tag_name(u16 tag)
{
	const struct fcp_tag *t = fcp_tag_of(tag);

	return t ? t->name : NULL;
}

void fcp_init(struct fcp_state *st, const struct fcp_geom *geom, u32 tid,
	      fcp_crc_fn crc_fn, void *ctx)
{
	memset(st, 0, sizeof(*st));
	st->geom = *geom;
	st->tid = tid;
	st->crc_fn = crc_fn;
	st->ctx = ctx;
}

void fcp_cursor_init(struct fcp_cursor *c, const void *block, u32 size,
		     u32 blk)
{
	c->base = block;
	c->pos = c->base;
	c->end = c->base + size;
	c->blk = blk;
}

/* Everything about a record whose bytes lie inside the block. */
static const char *fcp_check(struct fcp_state *st, struct fcp_rec *r)
{
	const struct fcp_tag *t = fcp_tag_of(r->tag);
	const char *why;

	if (!r->blk && !r->off && r->tag != EXT4_FC_TAG_HEAD) {
		st->stop.eol = true;
		return "area does not start with a head record";
	}
	if (!t)
		return "unknown tag";
	if (r->len < t->min_len || (t->max_len && r->len > t->max_len))
		return fcp_bad(st, "bad value length", r->len);
	why = t->check ? t->check(st, r) : NULL;
	if (!why && st->check_fn)
		why = st->check_fn(st->ctx, r, &st->stop.bad,
				   &st->stop.has_bad);
	return why;
}

/* Read the record at the cursor; NULL, or why it cannot be one. */
static const char *fcp_read(struct fcp_state *st, struct fcp_cursor *c,
			    struct fcp_rec *r)
{
	size_t left = c->end - c->pos;

	if (left < FCP_TL_LEN)
		return fcp_bad(st, "record header crosses the block end", left);
	r->tag = get_unaligned_le16(c->pos);
	r->len = get_unaligned_le16(c->pos + 2);
	if (r->len > left - FCP_TL_LEN)
		return fcp_bad(st, "value runs past the block end", r->len);
	c->pos = r->val + r->len;
	return fcp_check(st, r);
}

/* The record just accepted moves the state on. */
static void fcp_account(struct fcp_state *st, const struct fcp_rec *r)
{
	st->recs++;
	if (r->tag != EXT4_FC_TAG_TAIL) {
		st->crc = st->crc_fn(st->ctx, st->crc, r->tl,
				     FCP_TL_LEN + r->len);
		return;
	}
	st->recs_valid = st->recs;
	st->commits++;
	st->commit_first = st->recs;
	st->tail_blk = r->blk;
	st->tail_off = r->off;
	st->crc = 0;
}

/*
 * The next record of the block: 1 and *r, checked and decoded; 0 at the
 * end of the block; -1 when the walk stops (st->stop says why).
 */
int fcp_next(struct fcp_state *st, struct fcp_cursor *c, struct fcp_rec *r)
{
	const char *why;

	memset(r, 0, sizeof(*r));
	r->blk = c->blk;
	r->off = c->pos - c->base;
	r->tl = c->pos;
	r->val = c->pos + FCP_TL_LEN;
	if (st->stopped)
		return -1;
	if (c->pos >= c->end)
		return 0;
	why = fcp_read(st, c, r);
	if (!why) {
		fcp_account(st, r);
		return 1;
	}
	st->stopped = true;
	st->stop.why = why;
	st->stop.blk = r->blk;
	st->stop.off = r->off;
	st->stop.tag = r->tag;
	st->stop.len = r->len;
	return -1;
}
