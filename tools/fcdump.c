// SPDX-License-Identifier: GPL-2.0
/*
 * fcdump IMAGE: show the fast-commit area of an ext4 image file.
 *
 * Reads the image (no root, mounts nothing): the ext4 superblock, the
 * journal inode and its block map, the jbd2 superblock; walks the log the
 * way jbd2's scan pass does to learn the tid fast commits must carry; then
 * parses the fast-commit area with the parser the kernel's replay uses
 * (ext4fc/fc_parse.c) and prints every record, each fast commit's tid and
 * crc, and where replay would stop and why.  --json prints the same as one
 * JSON document, with each record's byte offset in the image.
 *
 * An area replay would skip as a whole (a clean journal, or fast commits
 * of a tid other than the one the log wants: a full commit came after
 * them) is still shown, parsed with its HEAD's tid and marked stale, with
 * the reason replay skips it.
 *
 * Exit status: 0 the area was parsed (whatever it holds), 1 the image
 * cannot be read or has no usable journal, 2 usage.
 */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fc_parse.h"
#include "fc_format.h"
#include "util.h"

#define EXT4_SB_OFF		1024
#define EXT4_MAGIC		0xef53
#define EXT4_COMPAT_HAS_JOURNAL	0x0004
#define EXT4_COMPAT_FAST_COMMIT	0x0400
#define EXT4_INCOMPAT_RECOVER	0x0004
#define EXT4_INCOMPAT_JDEV	0x0008
#define EXT4_INCOMPAT_64BIT	0x0080
#define EXT4_EXTENTS_FL		0x00080000
#define EXT4_EXT_MAGIC		0xf30a

#define JBD2_MAGIC		0xc03b3998U
#define JBD2_DESCRIPTOR		1
#define JBD2_COMMIT		2
#define JBD2_REVOKE		5
#define JBD2_F_64BIT		0x02
#define JBD2_F_CSUM_V2		0x08
#define JBD2_F_CSUM_V3		0x10
#define JBD2_F_FAST_COMMIT	0x20
#define JBD2_FLAG_SAME_UUID	0x02
#define JBD2_FLAG_LAST_TAG	0x08
#define JBD2_MIN_JOURNAL_BLOCKS	1024
#define JBD2_DEFAULT_FC_BLOCKS	256

struct image {
	const char *path;
	int fd;
	u64 size;
	u32 bs;			/* file system block size */
	struct fcp_geom geom;
	u32 inodes_per_group;
	u32 desc_size;
	u32 compat, incompat;
	u32 journal_ino;
	u8 jinode[256];		/* the journal inode (its first 160 bytes) */
	/* the journal */
	u32 jbs, maxlen, first, sequence, start, jerrno;
	u32 jcompat, jincompat, num_fc;
	u32 log_last;		/* jbd2's j_last */
	u32 fc_first, fc_last;	/* area: [fc_first, fc_last) */
	u32 log_end_tid;	/* jbd2's info->end_transaction */
	u32 log_commits;
};

static const char *prog = "fcdump";

static u32 be32(const u8 *p)
{
	return (u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static u16 be16(const u8 *p)
{
	return p[0] << 8 | p[1];
}

static void read_at(struct image *im, u64 off, void *buf, size_t len,
		    const char *what)
{
	ssize_t n;

	if (off > im->size || len > im->size - off)
		die("%s: %s at byte %llu lies past the end of the image (%llu bytes): truncated image?",
		    im->path, what, (unsigned long long)off,
		    (unsigned long long)im->size);
	n = pread(im->fd, buf, len, off);
	if (n < 0)
		die("%s: reading %s: %s", im->path, what, strerror(errno));
	if ((size_t)n != len)
		die("%s: short read of %s at byte %llu", im->path, what,
		    (unsigned long long)off);
}

static void read_block(struct image *im, u64 blk, void *buf, const char *what)
{
	if (blk >= im->geom.blocks_count)
		die("%s: %s is block %llu, past the file system's %llu blocks: corrupted journal mapping?",
		    im->path, what, (unsigned long long)blk,
		    (unsigned long long)im->geom.blocks_count);
	read_at(im, blk * im->bs, buf, im->bs, what);
}

static void read_super(struct image *im)
{
	u8 sb[1024];
	u32 log_bs;
	u16 rev;

	read_at(im, EXT4_SB_OFF, sb, sizeof(sb), "the ext4 superblock");
	if (get_unaligned_le16(sb + 56) != EXT4_MAGIC)
		die("%s: no ext4 superblock (magic 0x%04x at byte 1080, want 0xef53): not an ext2/3/4 image",
		    im->path, get_unaligned_le16(sb + 56));
	log_bs = get_unaligned_le32(sb + 24);
	if (log_bs > 6)
		die("%s: bad block size (s_log_block_size %u)", im->path,
		    log_bs);
	im->bs = 1024U << log_bs;
	im->compat = get_unaligned_le32(sb + 92);
	im->incompat = get_unaligned_le32(sb + 96);
	im->geom.inodes_count = get_unaligned_le32(sb + 0);
	im->geom.blocks_count = get_unaligned_le32(sb + 4);
	if (im->incompat & EXT4_INCOMPAT_64BIT)
		im->geom.blocks_count |= (u64)get_unaligned_le32(sb + 336) << 32;
	im->geom.first_data_block = get_unaligned_le32(sb + 20);
	im->inodes_per_group = get_unaligned_le32(sb + 40);
	rev = get_unaligned_le32(sb + 76);
	im->geom.first_ino = rev ? get_unaligned_le32(sb + 84) : 11;
	im->geom.inode_size = rev ? get_unaligned_le16(sb + 88) : 128;
	im->desc_size = 32;
	if (im->incompat & EXT4_INCOMPAT_64BIT && get_unaligned_le16(sb + 254))
		im->desc_size = get_unaligned_le16(sb + 254);
	im->journal_ino = get_unaligned_le32(sb + 224);
	if (!im->inodes_per_group || im->geom.inode_size < 128 ||
	    im->geom.inode_size > im->bs || im->desc_size < 32 ||
	    im->desc_size > 1024)
		die("%s: implausible superblock (inodes per group %u, inode size %u, descriptor size %u)",
		    im->path, im->inodes_per_group, im->geom.inode_size,
		    im->desc_size);
	if (!(im->compat & EXT4_COMPAT_HAS_JOURNAL))
		die("%s: the file system has no journal (no has_journal feature): nothing to show",
		    im->path);
	if (im->incompat & EXT4_INCOMPAT_JDEV)
		die("%s: this is an external journal device, not a file system: give fcdump the file system's image",
		    im->path);
	if (!im->journal_ino)
		die("%s: the journal is external (s_journal_inum 0, on device 0x%x): fcdump reads internal journals only",
		    im->path, get_unaligned_le32(sb + 228));
	if (im->journal_ino > im->geom.inodes_count)
		die("%s: s_journal_inum %u is past the inode count %u",
		    im->path, im->journal_ino, im->geom.inodes_count);
}

static void read_inode(struct image *im, u32 ino, u8 *raw)
{
	u32 group = (ino - 1) / im->inodes_per_group;
	u32 index = (ino - 1) % im->inodes_per_group;
	u64 gdt = im->geom.first_data_block + 1;
	u64 off, table;
	u8 gd[64] = { 0 };

	off = gdt * im->bs + (u64)group * im->desc_size;
	read_at(im, off, gd, im->desc_size < 64 ? 32 : 64,
		"a group descriptor");
	table = get_unaligned_le32(gd + 8);
	if (im->desc_size >= 64)
		table |= (u64)get_unaligned_le32(gd + 40) << 32;
	if (!table || table >= im->geom.blocks_count)
		die("%s: group %u's inode table is at block %llu: corrupted group descriptor",
		    im->path, group, (unsigned long long)table);
	off = table * im->bs + (u64)index * im->geom.inode_size;
	read_at(im, off, raw, 160 < im->geom.inode_size ? 160 : 128,
		"the journal inode");
}

/* Journal block lblk to file system block, through an extent tree. */
static u64 bmap_extents(struct image *im, const u8 *node, size_t room,
			u32 lblk, int level)
{
	u16 n, depth, i;
	u32 len;
	const u8 *e;
	u8 *buf;
	u64 pblk;

	if (level > 5 || room < 12 || get_unaligned_le16(node) != EXT4_EXT_MAGIC)
		die("%s: the journal inode's extent tree is corrupted (bad header at level %d)",
		    im->path, level);
	n = get_unaligned_le16(node + 2);
	depth = get_unaligned_le16(node + 6);
	if (12 + (size_t)n * 12 > room)
		die("%s: the journal inode's extent tree is corrupted (%u entries do not fit)",
		    im->path, n);
	for (i = n; i-- > 0;) {
		e = node + 12 + i * 12;
		if (get_unaligned_le32(e) > lblk)
			continue;
		if (depth) {
			pblk = get_unaligned_le32(e + 4) |
			       (u64)get_unaligned_le16(e + 8) << 32;
			buf = malloc(im->bs);
			if (!buf)
				die("out of memory");
			read_block(im, pblk, buf, "a journal extent tree block");
			pblk = bmap_extents(im, buf, im->bs, lblk, level + 1);
			free(buf);
			return pblk;
		}
		len = get_unaligned_le16(e + 4);
		if (len > FCP_INIT_MAX_LEN)
			len -= FCP_INIT_MAX_LEN;
		if (lblk - get_unaligned_le32(e) >= len)
			break;
		pblk = get_unaligned_le32(e + 8) |
		       (u64)get_unaligned_le16(e + 6) << 32;
		return pblk + lblk - get_unaligned_le32(e);
	}
	die("%s: journal block %u is not mapped by the journal inode", im->path,
	    lblk);
}

/* The same through the old block map: direct, indirect, double, triple. */
static u64 bmap_blockmap(struct image *im, u32 lblk)
{
	const u8 *iblock = im->jinode + FCP_I_BLOCK;
	u32 per = im->bs / 4, level, slot, span = 1;
	u64 blk, rest = lblk;
	u8 *buf;

	if (rest < 12)
		return get_unaligned_le32(iblock + rest * 4);
	rest -= 12;
	for (level = 1; level <= 3; level++) {
		span *= per;
		if (rest < span)
			break;
		rest -= span;
	}
	if (level > 3)
		die("%s: journal block %u is beyond a block map's reach",
		    im->path, lblk);
	blk = get_unaligned_le32(iblock + (11 + level) * 4);
	buf = malloc(im->bs);
	if (!buf)
		die("out of memory");
	while (level--) {
		span /= per;
		slot = rest / span;
		rest %= span;
		if (!blk)
			break;
		read_block(im, blk, buf, "a journal indirect block");
		blk = get_unaligned_le32(buf + slot * 4);
	}
	free(buf);
	return blk;
}

static u64 jmap(struct image *im, u32 lblk)
{
	u64 pblk;

	if (get_unaligned_le32(im->jinode + FCP_I_FLAGS) & EXT4_EXTENTS_FL)
		pblk = bmap_extents(im, im->jinode + FCP_I_BLOCK, 60, lblk, 0);
	else
		pblk = bmap_blockmap(im, lblk);
	if (!pblk)
		die("%s: journal block %u is a hole in the journal inode",
		    im->path, lblk);
	return pblk;
}

static void read_jblock(struct image *im, u32 lblk, u8 *buf)
{
	read_block(im, jmap(im, lblk), buf, "a journal block");
}

static void read_journal_super(struct image *im)
{
	u8 *b = malloc(im->bs);

	if (!b)
		die("out of memory");
	read_inode(im, im->journal_ino, im->jinode);
	if ((get_unaligned_le16(im->jinode + FCP_I_MODE) & 0170000) != 0100000)
		die("%s: journal inode %u is not a regular file (i_mode 0%o): corrupted?",
		    im->path, im->journal_ino,
		    get_unaligned_le16(im->jinode + FCP_I_MODE));
	read_jblock(im, 0, b);
	if (be32(b) != JBD2_MAGIC || (be32(b + 4) != 3 && be32(b + 4) != 4))
		die("%s: journal block 0 is no jbd2 superblock (magic 0x%08x type %u)",
		    im->path, be32(b), be32(b + 4));
	im->jbs = be32(b + 12);
	im->maxlen = be32(b + 16);
	im->first = be32(b + 20);
	im->sequence = be32(b + 24);
	im->start = be32(b + 28);
	im->jerrno = be32(b + 32);
	im->jcompat = be32(b + 36);
	im->jincompat = be32(b + 40);
	im->num_fc = be32(b + 84);
	free(b);
	if (im->jbs != im->bs)
		die("%s: journal block size %u differs from the file system's %u",
		    im->path, im->jbs, im->bs);
	if (im->maxlen < 2 || im->first < 1 || im->first >= im->maxlen)
		die("%s: implausible journal superblock (s_maxlen %u, s_first %u)",
		    im->path, im->maxlen, im->first);
	if (!im->num_fc)
		im->num_fc = JBD2_DEFAULT_FC_BLOCKS;
	/*
	 * As jbd2 does it: the fast-commit area is the last num_fc blocks of
	 * the log, [maxlen - num_fc + 1, maxlen); jbd2's recovery asks for
	 * block maxlen too, which lies outside the journal.  Too small a
	 * journal gets no area.
	 */
	im->log_last = im->maxlen;
	im->fc_first = im->maxlen + 1;
	im->fc_last = im->maxlen;
	if (im->num_fc < im->maxlen &&
	    im->maxlen - im->num_fc >= JBD2_MIN_JOURNAL_BLOCKS) {
		im->log_last = im->maxlen - im->num_fc;
		im->fc_first = im->log_last + 1;
	}
}

static u32 tag_bytes(const struct image *im)
{
	u32 sz = 12;

	if (im->jincompat & JBD2_F_CSUM_V3)
		return 16;
	if (im->jincompat & JBD2_F_CSUM_V2)
		sz += 2;
	return im->jincompat & JBD2_F_64BIT ? sz : sz - 4;
}

/* Data blocks a descriptor block announces. */
static u32 descriptor_blocks(const struct image *im, const u8 *b)
{
	u32 tsz = tag_bytes(im), pos = 12, end = im->bs, n = 0, flags;

	if (im->jincompat & (JBD2_F_CSUM_V2 | JBD2_F_CSUM_V3))
		end -= 4;
	while (pos + tsz <= end) {
		flags = im->jincompat & JBD2_F_CSUM_V3 ? be32(b + pos + 4) :
			be16(b + pos + 6);
		n++;
		pos += tsz;
		if (!(flags & JBD2_FLAG_SAME_UUID))
			pos += 16;
		if (flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	return n;
}

/*
 * jbd2's scan pass, without its checksums: from s_start, blocks that carry
 * the magic and the expected sequence; a commit block ends a transaction.
 * Where it stops, the next tid is the one fast commits must carry.
 */
static void walk_log(struct image *im)
{
	u32 blk = im->start, seq = im->sequence, steps;
	u8 *b = malloc(im->bs);

	if (!b)
		die("out of memory");
	for (steps = 0; steps < im->maxlen; steps++) {
		if (blk < im->first || blk >= im->log_last)
			break;
		read_jblock(im, blk, b);
		if (be32(b) != JBD2_MAGIC || be32(b + 8) != seq)
			break;
		switch (be32(b + 4)) {
		case JBD2_DESCRIPTOR:
			blk += descriptor_blocks(im, b);
			break;
		case JBD2_COMMIT:
			seq++;
			im->log_commits++;
			break;
		case JBD2_REVOKE:
			break;
		default:
			steps = im->maxlen;
			continue;
		}
		blk++;
		if (blk >= im->log_last)
			blk -= im->log_last - im->first;
	}
	im->log_end_tid = seq;
	free(b);
}

/* Output. */

struct dump {
	struct image *im;
	bool json;
	u32 tid;
	const char *tid_from;	/* "log", "head" or "option" */
	bool replays;		/* would jbd2 read the area at all */
	bool stale;		/* the area is not of the tid replay wants */
	char stale_why[160];	/* why replay skips it, if stale */
	bool no_area;		/* no fast_commit feature anywhere */
	const char *no_replay;	/* why not */
	u32 nblocks;		/* blocks of the area */
	u8 *area;		/* their bytes */
	int nrec;
	bool first_item;
	struct commit {
		u32 tid, crc, first, last, blk, off;
	} *commits;
	u32 ncommits;
	u32 commit_start;	/* first record of the fast commit at hand */
};

static u64 fc_image_off(const struct dump *d, u32 fcblk, u32 off)
{
	return jmap(d->im, d->im->fc_first + fcblk) * d->im->bs + off;
}

static void put_name(const struct dump *d, const u8 *name, u32 len)
{
	u32 i;

	putchar('"');
	for (i = 0; i < len; i++) {
		if (name[i] == '"' || name[i] == '\\')
			printf("\\%c", name[i]);
		else if (name[i] >= 0x20 && name[i] < 0x7f)
			putchar(name[i]);
		else
			printf(d->json ? "\\u%04x" : "\\x%02x", name[i]);
	}
	putchar('"');
}

static u32 raw32(const struct fcp_inode *in, u32 off)
{
	return off + 4 <= in->len ? get_unaligned_le32(in->raw + off) : 0;
}

static void kv(const char *fmt, const char *sep, const char *k, u64 v)
{
	printf(fmt, k, (unsigned long long)v);
	fputs(sep, stdout);
}

/* The decoded value: text "k v k v", or JSON members. */
static void put_value(const struct dump *d, const struct fcp_rec *r)
{
	const char *f = d->json ? "\"%s\": %llu" : "%s %llu";
	const char *sep = d->json ? ", " : " ";
	const struct fcp_inode *in = &r->v.ino;

#define KV(k, v) kv(f, sep, k, v)
	switch (r->tag) {
	case EXT4_FC_TAG_ADD_RANGE:
		KV("ino", r->v.ext.ino);
		KV("lblk", r->v.ext.lblk);
		KV("len", r->v.ext.len);
		KV("pblk", r->v.ext.pblk);
		printf(d->json ? "\"unwritten\": %s" : "%s",
		       d->json ? (r->v.ext.unwritten ? "true" : "false") :
		       (r->v.ext.unwritten ? "unwritten" : "written"));
		return;
	case EXT4_FC_TAG_DEL_RANGE:
		KV("ino", r->v.del.ino);
		KV("lblk", r->v.del.lblk);
		printf(f, "len", (unsigned long long)r->v.del.len);
		return;
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
		KV("dir", r->v.de.dir);
		KV("ino", r->v.de.ino);
		fputs(d->json ? "\"name\": " : "name ", stdout);
		put_name(d, r->v.de.name, r->v.de.nlen);
		return;
	case EXT4_FC_TAG_DOTDOT:
		KV("ino", r->v.de.ino);
		printf(f, "parent", (unsigned long long)r->v.de.dir);
		return;
	case EXT4_FC_TAG_INODE:
		KV("ino", in->ino);
		printf(d->json ? "\"mode\": %u, " : "mode 0%o ", in->mode);
		KV("links", in->len >= FCP_I_LINKS + 2 ?
		   get_unaligned_le16(in->raw + FCP_I_LINKS) : 0);
		KV("size", raw32(in, FCP_I_SIZE_LO) |
		   (u64)raw32(in, 108) << 32);
		printf(d->json ? "\"flags\": %u, " : "flags 0x%x ",
		       raw32(in, FCP_I_FLAGS));
		printf(f, "raw_len", (unsigned long long)in->len);
		return;
	case EXT4_FC_TAG_TAIL:
		KV("tid", r->v.mark.tid);
		printf(d->json ? "\"crc\": %u" : "crc 0x%08x", r->v.mark.crc);
		return;
	case EXT4_FC_TAG_HEAD:
		printf(d->json ? "\"features\": %u, " : "features 0x%x ",
		       r->v.mark.features);
		printf(f, "tid", (unsigned long long)r->v.mark.tid);
		return;
	}
#undef KV
}

static void put_record(struct dump *d, const struct fcp_state *st,
		       const struct fcp_rec *r)
{
	const char *name = fcp_tag_name(r->tag);
	u64 at = fc_image_off(d, r->blk, r->off);

	if (d->json) {
		printf("%s\n    {\"index\": %d, \"commit\": %u, \"fc_block\": %u, \"journal_block\": %u, \"offset\": %u, \"image_offset\": %llu, \"tag\": %u, \"name\": \"%s\", \"len\": %u, \"value\": {",
		       d->first_item ? "" : ",", d->nrec, st->commits -
		       (r->tag == EXT4_FC_TAG_TAIL), r->blk,
		       d->im->fc_first + r->blk, r->off,
		       (unsigned long long)at, r->tag, name, r->len);
		put_value(d, r);
		printf("}}");
	} else {
		printf("%5u %5u %12llu  %-9s %5u  ", r->blk, r->off,
		       (unsigned long long)at, name, r->len);
		put_value(d, r);
		putchar('\n');
		if (r->tag == EXT4_FC_TAG_TAIL)
			printf("      -- fast commit %u: tid %u, records %u-%u, crc ok%s\n",
			       st->commits - 1, r->v.mark.tid,
			       d->commit_start, st->recs - 1,
			       d->stale ? "; stale: replay skips it" : "");
	}
	d->first_item = false;
	d->nrec++;
	if (r->tag != EXT4_FC_TAG_TAIL)
		return;
	d->commits = realloc(d->commits, (d->ncommits + 1) *
			     sizeof(*d->commits));
	if (!d->commits)
		die("out of memory");
	d->commits[d->ncommits++] = (struct commit){ r->v.mark.tid,
		r->v.mark.crc, d->commit_start, st->recs - 1, r->blk, r->off };
	d->commit_start = st->recs;
}

static void put_json_str(const char *s)
{
	put_name(&(struct dump){ .json = true }, (const u8 *)s, strlen(s));
}

static u32 parser_crc(void *ctx, u32 crc, const void *buf, unsigned int len)
{
	(void)ctx;
	return crc32c(crc, buf, len);
}

static void put_header(const struct dump *d)
{
	const struct image *im = d->im;

	if (d->json) {
		printf("{\n  \"image\": ");
		put_json_str(im->path);
		printf(",\n  \"fs\": {\"block_size\": %u, \"blocks_count\": %llu, \"inodes_count\": %u, \"first_ino\": %u, \"inode_size\": %u, \"first_data_block\": %u, \"fast_commit\": %s, \"needs_recovery\": %s},\n",
		       im->bs, (unsigned long long)im->geom.blocks_count,
		       im->geom.inodes_count, im->geom.first_ino,
		       im->geom.inode_size, im->geom.first_data_block,
		       im->compat & EXT4_COMPAT_FAST_COMMIT ? "true" : "false",
		       im->incompat & EXT4_INCOMPAT_RECOVER ? "true" : "false");
		printf("  \"journal\": {\"inode\": %u, \"maxlen\": %u, \"first\": %u, \"sequence\": %u, \"start\": %u, \"errno\": %d, \"feature_compat\": %u, \"feature_incompat\": %u, \"fast_commit\": %s, \"num_fc_blks\": %u, \"log_commits\": %u, \"log_end_tid\": %u},\n",
		       im->journal_ino, im->maxlen, im->first, im->sequence,
		       im->start, (int)im->jerrno, im->jcompat, im->jincompat,
		       im->jincompat & JBD2_F_FAST_COMMIT ? "true" : "false",
		       im->num_fc, im->log_commits, im->log_end_tid);
		printf("  \"fc_area\": {\"first_journal_block\": %u, \"blocks\": %u, \"block_size\": %u, \"replayed\": %s, \"why_not\": ",
		       im->fc_first, d->nblocks, im->bs,
		       d->replays ? "true" : "false");
		if (d->no_replay)
			put_json_str(d->no_replay);
		else
			printf("null");
		printf(", \"tid\": %u, \"tid_from\": \"%s\", \"stale\": %s, \"stale_why\": ",
		       d->tid, d->tid_from, d->stale ? "true" : "false");
		if (d->stale)
			put_json_str(d->stale_why);
		else
			printf("null");
		printf(", \"image_offsets\": [");
		for (u32 i = 0; i < d->nblocks; i++)
			printf("%s%llu", i ? ", " : "",
			       (unsigned long long)fc_image_off(d, i, 0));
		printf("]},\n  \"records\": [");
		return;
	}
	printf("image %s: block size %u, %llu blocks, %u inodes (first %u, %u bytes), fast_commit %s%s\n",
	       im->path, im->bs, (unsigned long long)im->geom.blocks_count,
	       im->geom.inodes_count, im->geom.first_ino, im->geom.inode_size,
	       im->compat & EXT4_COMPAT_FAST_COMMIT ? "on" : "off",
	       im->incompat & EXT4_INCOMPAT_RECOVER ? ", needs recovery" : "");
	printf("journal: inode %u, %u blocks, log from %u, sequence %u, start %u, errno %d, incompat 0x%x%s\n",
	       im->journal_ino, im->maxlen, im->first, im->sequence, im->start,
	       (int)im->jerrno, im->jincompat,
	       im->jincompat & JBD2_F_FAST_COMMIT ? " (fast commits to replay)" : "");
	printf("log: %u complete transaction(s) from %u; fast commits must carry tid %u (from the %s)\n",
	       im->log_commits, im->sequence,
	       d->stale ? im->log_end_tid : d->tid,
	       d->stale || !strcmp(d->tid_from, "log") ? "log" :
	       !strcmp(d->tid_from, "head") ? "area's HEAD" : "command line");
	if (d->no_area)
		printf("fc area: none: %s; journal blocks %u-%u, where one would be, belong to the log and are shown as they are\n",
		       d->no_replay, im->fc_first, im->fc_last - 1);
	else if (d->stale)
		printf("fc area: journal blocks %u-%u (%u blocks, s_num_fc_blks %u); stale, replay skips it: %s; its fast commits (tid %u) follow, marked stale\n",
		       im->fc_first, im->fc_last - 1, d->nblocks, im->num_fc,
		       d->stale_why, d->tid);
	else
		printf("fc area: journal blocks %u-%u (%u blocks, s_num_fc_blks %u)%s%s\n",
		       im->fc_first, im->fc_last - 1, d->nblocks, im->num_fc,
		       d->replays ? "" : "; replay skips it: ",
		       d->replays ? "" : d->no_replay);
	printf("%5s %5s %12s  %-9s %5s  %s\n", "block", "off", "image-off",
	       "tag", "len", "value");
}

static void put_footer(struct dump *d, const struct fcp_state *st)
{
	const struct fcp_stop *s = &st->stop;
	const char *name = fcp_tag_name(s->tag);
	bool at_end = !st->stopped;
	u64 at = at_end ? 0 : fc_image_off(d, s->blk, s->off);
	bool crc_bad = !at_end && s->tag == EXT4_FC_TAG_TAIL && !s->eol &&
		       !strncmp(s->why, "checksum", 8);
	/* where the log simply ends, as fc_refuse() in fc_replay.c says it */
	bool unwritten = !at_end && !s->off && !s->tag && !s->len;
	bool log_ends = !at_end && (s->eol || unwritten);

	if (d->json) {
		printf("\n  ],\n  \"stop\": ");
		if (at_end) {
			printf("null");
		} else {
			printf("{\"fc_block\": %u, \"offset\": %u, \"image_offset\": %llu, \"tag\": %u, \"name\": \"%s\", \"len\": %u, \"reason\": ",
			       s->blk, s->off, (unsigned long long)at, s->tag,
			       name ? name : "unknown", s->len);
			put_json_str(s->why);
			if (s->has_bad)
				printf(", \"value\": %llu",
				       (unsigned long long)s->bad);
			printf(", \"end_of_log\": %s, \"crc_mismatch\": %s}",
			       log_ends ? "true" : "false",
			       crc_bad ? "true" : "false");
		}
		printf(",\n  \"commits\": [");
		for (u32 i = 0; i < d->ncommits; i++)
			printf("%s\n    {\"index\": %u, \"tid\": %u, \"crc\": %u, \"crc_ok\": true, \"stale\": %s, \"first_record\": %u, \"last_record\": %u, \"tail_fc_block\": %u, \"tail_offset\": %u}",
			       i ? "," : "", i, d->commits[i].tid,
			       d->commits[i].crc, d->stale ? "true" : "false",
			       d->commits[i].first, d->commits[i].last,
			       d->commits[i].blk, d->commits[i].off);
		if (crc_bad)
			printf("%s\n    {\"index\": %u, \"tid\": %u, \"crc\": %u, \"crc_ok\": false, \"stale\": %s, \"computed_crc\": %llu, \"first_record\": %u, \"last_record\": null, \"tail_fc_block\": %u, \"tail_offset\": %u}",
			       d->ncommits ? "," : "", d->ncommits, d->tid,
			       get_unaligned_le32(d->area +
						  (size_t)s->blk * d->im->bs +
						  s->off + 8),
			       d->stale ? "true" : "false",
			       (unsigned long long)s->bad, d->commit_start,
			       s->blk, s->off);
		printf("\n  ],\n  \"last_valid_tail\": ");
		if (st->commits)
			printf("{\"record\": %u, \"fc_block\": %u, \"offset\": %u}",
			       st->recs_valid - 1, st->tail_blk, st->tail_off);
		else
			printf("null");
		/* replay takes nothing from a stale area */
		printf(",\n  \"replay\": {\"commits\": %u, \"records\": %u, \"records_dropped\": %u}\n}\n",
		       d->stale ? 0 : st->commits,
		       d->stale ? 0 : st->recs_valid,
		       d->stale ? 0 : st->recs - st->recs_valid);
		return;
	}
	if (at_end)
		printf("end of the area after fc block %u\n", d->nblocks - 1);
	else if (unwritten)
		printf("the log ends at fc block %u byte %u (image byte %llu): nothing written there (tag 0, len 0)\n",
		       s->blk, s->off, (unsigned long long)at);
	else if (log_ends)
		printf("the log ends at fc block %u byte %u (image byte %llu): %s record (tag %u, len %u): %s",
		       s->blk, s->off, (unsigned long long)at,
		       name ? name : "unknown", s->tag, s->len, s->why);
	else
		printf("stop at fc block %u byte %u (image byte %llu), %s record (tag %u, len %u): %s",
		       s->blk, s->off, (unsigned long long)at,
		       name ? name : "unknown", s->tag, s->len, s->why);
	if (!at_end && !unwritten && s->has_bad)
		printf(log_ends ? ", tid %llu" : " (%llu)",
		       (unsigned long long)s->bad);
	if (!at_end && !unwritten)
		putchar('\n');
	if (crc_bad)
		printf("      -- fast commit %u: tid %u, records %u-, crc 0x%08x on disk, 0x%08llx computed: BAD\n",
		       d->ncommits, d->tid, d->commit_start,
		       get_unaligned_le32(d->area + (size_t)s->blk * d->im->bs +
					  s->off + 8),
		       (unsigned long long)s->bad);
	if (d->stale)
		printf("replay: nothing: the area's %u fast commit(s) of tid %u (%u record(s)) are stale: %s\n",
		       st->commits, d->tid, st->recs_valid, d->stale_why);
	else if (st->commits)
		printf("replay: %u fast commit(s) of tid %u, %u record(s); last valid tail is record %u in fc block %u byte %u; %u record(s) after it dropped\n",
		       st->commits, d->tid, st->recs_valid, st->recs_valid - 1,
		       st->tail_blk, st->tail_off, st->recs - st->recs_valid);
	else
		printf("replay: nothing (no valid fast commit)%s\n",
		       st->recs ? ", records without a valid tail dropped" : "");
}

/*
 * The area's HEAD carries d->tid, not the tid replay wants (or replay
 * does not run): say why replay skips its fast commits.
 */
static void set_stale(struct dump *d)
{
	u32 want = d->im->log_end_tid;
	char *why = d->stale_why;
	size_t room = sizeof(d->stale_why);

	d->stale = true;
	if (!d->replays)
		snprintf(why, room, "%s", d->no_replay);
	else if ((int32_t)(want - d->tid) > 0)
		snprintf(why, room,
			 "they carry tid %u, replay wants %u: transaction %u was committed in full after them, and that commit holds their changes",
			 d->tid, want, d->tid);
	else
		snprintf(why, room,
			 "they carry tid %u, replay wants %u: the log does not reach their transaction",
			 d->tid, want);
}

/* The area's bytes (jbd2 reads them one block at a time, so do we). */
static void read_area(struct dump *d)
{
	struct image *im = d->im;
	u32 i;

	d->nblocks = im->fc_first < im->fc_last ? im->fc_last - im->fc_first : 0;
	d->area = calloc(d->nblocks ? d->nblocks : 1, im->bs);
	if (!d->area)
		die("out of memory");
	for (i = 0; i < d->nblocks; i++)
		read_jblock(im, im->fc_first + i, d->area + (size_t)i * im->bs);
}

static void parse_area(struct dump *d, struct fcp_state *st)
{
	struct fcp_cursor c;
	struct fcp_rec r;
	u32 i;
	int got = 0;

	fcp_init(st, &d->im->geom, d->tid, parser_crc, NULL);
	for (i = 0; i < d->nblocks && got >= 0; i++) {
		fcp_cursor_init(&c, d->area + (size_t)i * d->im->bs,
				d->im->bs, i);
		while ((got = fcp_next(st, &c, &r)) > 0)
			put_record(d, st, &r);
	}
}

/* --extract: a fuzz seed (tests/fuzz/README). */
static void extract(const struct dump *d, const struct fcp_state *st,
		    const char *out)
{
	u32 n = st->stopped ? st->stop.blk + 1 : d->nblocks;
	u8 hdr[32] = { 0 };
	FILE *f;
	int i;
	u32 v[] = { d->tid, d->im->bs, d->im->geom.inodes_count,
		    d->im->geom.first_ino, (u32)d->im->geom.blocks_count,
		    d->im->geom.first_data_block, d->im->geom.inode_size, 0 };

	for (i = 0; i < 8; i++) {
		hdr[i * 4] = v[i];
		hdr[i * 4 + 1] = v[i] >> 8;
		hdr[i * 4 + 2] = v[i] >> 16;
		hdr[i * 4 + 3] = v[i] >> 24;
	}
	f = fopen(out, "wb");
	if (!f || fwrite(hdr, 1, sizeof(hdr), f) != sizeof(hdr) ||
	    fwrite(d->area, d->im->bs, n, f) != n || fclose(f))
		die("cannot write %s: %s", out, strerror(errno));
}

static void print_usage(FILE *to, int status)
{
	fprintf(to,
		"usage: %s [--json] [--tid N] [--extract FILE] IMAGE\n"
		"\n"
		"Shows the fast-commit area of the ext4 file system in IMAGE (a file\n"
		"or block device, read only): every record with its block, offset,\n"
		"tag, length and decoded value, each fast commit's tid and crc, and\n"
		"where replay would stop and why.  An area replay skips as a whole\n"
		"(a clean journal, or fast commits a full commit made stale) is\n"
		"shown too, with its HEAD's tid, marked stale, and why.\n"
		"\n"
		"  --json          one JSON document instead of text; records carry\n"
		"                  their byte offset in IMAGE (image_offset)\n"
		"  --tid N         the tid fast commits must carry (default: from the\n"
		"                  log, as jbd2 finds it; a stale area: its HEAD's)\n"
		"  --extract FILE  also write the area as a fuzzer seed to FILE\n"
		"\n"
		"Exit status: 0 parsed, 1 image problem, 2 usage.\n", prog);
	exit(status);
}

int main(int argc, char **argv)
{
	struct image im = { 0 };
	struct dump d = { .im = &im, .first_item = true };
	const char *extract_to = NULL, *tid_arg = NULL;
	struct fcp_state st;
	char *end;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--json")) {
			d.json = true;
		} else if (!strcmp(argv[i], "--tid") && i + 1 < argc) {
			tid_arg = argv[++i];
		} else if (!strcmp(argv[i], "--extract") && i + 1 < argc) {
			extract_to = argv[++i];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_usage(stdout, 0);
		} else {
			fprintf(stderr, "%s: unknown option or missing argument: %s\n",
				prog, argv[i]);
			print_usage(stderr, 2);
		}
	}
	if (i != argc - 1) {
		fprintf(stderr, "%s: give exactly one IMAGE\n", prog);
		print_usage(stderr, 2);
	}
	im.path = argv[i];
	im.fd = open(im.path, O_RDONLY);
	if (im.fd < 0)
		die("cannot open %s: %s", im.path, strerror(errno));
	im.size = lseek(im.fd, 0, SEEK_END);
	if (im.size == (u64)-1)
		die("cannot seek in %s: %s", im.path, strerror(errno));

	read_super(&im);
	read_journal_super(&im);
	walk_log(&im);
	read_area(&d);

	d.replays = true;
	if (!(im.compat & EXT4_COMPAT_FAST_COMMIT) &&
	    !(im.jincompat & JBD2_F_FAST_COMMIT)) {
		d.replays = false;
		d.no_area = true;
		d.no_replay = "no fast_commit feature in the file system or the journal (tune2fs -O fast_commit adds one)";
	} else if (!im.start) {
		d.replays = false;
		d.no_replay = "the journal is clean (s_start 0): jbd2 recovers nothing";
	} else if (!(im.jincompat & JBD2_F_FAST_COMMIT)) {
		d.replays = false;
		d.no_replay = "the journal superblock lacks the fast-commit feature (0x20)";
	} else if (!d.nblocks) {
		d.replays = false;
		d.no_replay = "the journal is too small for a fast-commit area";
	}
	d.tid = im.log_end_tid;
	d.tid_from = "log";
	if (tid_arg) {
		errno = 0;
		d.tid = strtoul(tid_arg, &end, 0);
		if (errno || *end || !*tid_arg) {
			fprintf(stderr, "%s: --tid wants a number, not '%s'\n",
				prog, tid_arg);
			print_usage(stderr, 2);
		}
		d.tid_from = "option";
	} else if (d.nblocks && get_unaligned_le16(d.area) == EXT4_FC_TAG_HEAD &&
		   (!im.start || get_unaligned_le32(d.area + 8) != d.tid)) {
		d.tid = get_unaligned_le32(d.area + 8);
		d.tid_from = "head";
		if (!d.no_area)
			set_stale(&d);
	}

	put_header(&d);
	parse_area(&d, &st);
	put_footer(&d, &st);
	if (extract_to)
		extract(&d, &st, extract_to);
	free(d.area);
	close(im.fd);
	return 0;
}
