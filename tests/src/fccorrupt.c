// SPDX-License-Identifier: GPL-2.0
/*
 * fccorrupt - find the fast-commit area of an ext4 image, list its
 * records, and corrupt it in one named, seeded, reproducible way.
 *
 *   fccorrupt list IMAGE
 *   fccorrupt apply [-n] IMAGE MUTATION SEED
 *   fccorrupt mutations
 *
 * The area.  Ext4 superblock -> the journal inode (s_journal_inum) ->
 * its extent tree -> journal block 0, the jbd2 superblock (big-endian):
 * s_maxlen and s_num_fc_blks (0 means 256).  Fast commits use journal
 * blocks [s_maxlen - nfc + 1, s_maxlen), as jbd2fc/fc_journal.c places
 * them.  Every journal block is mapped through the extent tree to an
 * offset in the image, so a record's absolute byte offset is exact.
 *
 * The walk (our oracle, written apart from ext4fc/fc_replay.c on
 * purpose).  Records are little-endian u16 tag, u16 len, then len bytes,
 * never crossing a block.  The area must open with a HEAD; the tid the
 * fast commits carry is the HEAD's (for the images we corrupt, the one
 * after the last full commit).  A crc32c (seed 0, no final xor, as
 * ext4_chksum) runs over every record since the previous tail, and over
 * a TAIL's tag, length and tid; a TAIL is good when its tid and crc
 * match.  The walk stops at the first record that fails a structural or
 * value check (tag, length for the tag, inode numbers, names, extents
 * inside the file system): the fast commits whose tails it passed are
 * what replay must keep.
 *
 * apply: a mutation picks its target (a record, a field, a byte) from
 * SEED with its own PRNG, so the same image, mutation and seed give the
 * same bytes everywhere; it writes the changed blocks back (not with -n)
 * and prints one line of key=value pairs:
 *
 *   mutation=M seed=S commits=N commit=C blk=B byte=O tag=T abs=A
 *   keep=K at=B:O|- stop=B:O skipped=B:O|- what=TEXT
 *
 * N fast commits were valid before, C is the one hit, (B, O) is the
 * target record's fc block and byte, A its byte offset in the image, K
 * how many fast commits replay must keep, "at" where the kernel must say
 * its scan stopped ("-": somewhere, not predicted), "what" the change.
 * A mutation ending in "-recrc" also recomputes the crc of the fast
 * commit it hit, so only the value checks can refuse it.
 *
 * Two mutations are aimed past the parser, at replay: link-dir (a LINK
 * names a directory as its inode) and parent-file (a CREAT or LINK names
 * a regular file as its directory).  Every record stays well formed and
 * the crc is recomputed, so the scan keeps everything (keep=N), and
 * replay must skip that one record and say so: "skipped=B:O" is where,
 * "-" for all other mutations.  The tree then is not the state after any
 * step (one name is missing), and e2fsck has link counts to repair.
 *
 * Exit status: 0 done, 1 the image cannot be read or has no area, 2 bad
 * usage, 3 the mutation has no target in this image (nothing written).
 * Static (gcc -static): runs on the host and in the guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fc_format.h"
#include "util.h"

/*
 * The tags the walk knows; DOTDOT (fc_dir_moves) is not among them: the
 * images we corrupt are made without it, so it stops the walk.
 */
#define TAG_MAX		(EXT4_FC_TAG_HEAD + 1)

static const char *const tag_names[TAG_MAX] = {
	"?", "ADD_RANGE", "DEL_RANGE", "CREAT", "LINK", "UNLINK", "INODE",
	"PAD", "TAIL", "HEAD",
};

#define NAME_LEN	255
#define DENTRY_HDR	((int)sizeof(struct ext4_fc_dentry_info))
#define EXT_MAX_BLOCKS	0xffffffffULL
#define GOOD_OLD_INODE	128
#define FMT_DIR		0x4000	/* file types of i_mode */
#define FMT_REG		0x8000
#define I_LINKS		26	/* i_links_count in the raw inode */
#define MAX_RECS	65536
#define MAX_COMMITS	4096

static const char *prog = "fccorrupt";

/* --- little helpers ---------------------------------------------------- */

static uint16_t le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The file type of an INODE record's value: ino, then the raw inode. */
static uint16_t inode_fmt(const uint8_t *v)
{
	return le16(v + 4) & 0xf000;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint64_t rng_state;

static uint64_t rnd(void)
{
	return xorshift64s(&rng_state);
}

static void rnd_seed(uint64_t seed, const char *salt)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL;

	while (*salt)
		z = (z ^ (uint8_t)*salt++) * 0x100000001b3ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	rng_state = (z ^ (z >> 31)) | 1;
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)((rnd() >> 33) % n) : 0;
}

/* --- the image --------------------------------------------------------- */

struct image {
	const char *path;
	int fd;
	uint32_t bs;			/* file system block size */
	uint32_t inodes_count, first_ino, inode_size, ipg;
	uint64_t blocks_count;
	uint32_t first_data_block, desc_size, groups, bpg;
	int is64;
	uint64_t gdt;			/* first group descriptor block */
	uint32_t jmaxlen, jnfc, jfirst_fc, jfeature_fc;
	int nblk;			/* fc blocks: jnfc - 1 */
	uint64_t *blk_off;		/* image byte offset of fc block i */
	uint8_t *area;			/* nblk * bs bytes */
	uint8_t *orig;			/* as read */
};

static void img_read(struct image *im, uint64_t off, void *buf, size_t n)
{
	ssize_t got = pread(im->fd, buf, n, off);

	if (got < 0)
		die("%s: read at byte %" PRIu64 ": %s", im->path, off,
		    strerror(errno));
	if ((size_t)got != n)
		die("%s: short read at byte %" PRIu64 " (image truncated?)",
		    im->path, off);
}

static void read_block(struct image *im, uint64_t blk, uint8_t *buf)
{
	img_read(im, blk * im->bs, buf, im->bs);
}

/* The group descriptor of group g (its first 64 bytes at most). */
static void group_desc(struct image *im, uint32_t g, uint8_t *gd)
{
	uint64_t off = im->gdt * im->bs + (uint64_t)g * im->desc_size;

	memset(gd, 0, 64);
	img_read(im, off, gd, im->desc_size);
}

static uint64_t gd_field(struct image *im, const uint8_t *gd, int lo, int hi)
{
	uint64_t v = le32(gd + lo);

	if (im->is64 && im->desc_size >= 64)
		v |= (uint64_t)le32(gd + hi) << 32;
	return v;
}

static uint64_t gd_inode_table(struct image *im, uint32_t g)
{
	uint8_t gd[64];

	group_desc(im, g, gd);
	return gd_field(im, gd, 8, 0x28);
}

static void read_inode(struct image *im, uint32_t ino, uint8_t *raw)
{
	uint32_t g = (ino - 1) / im->ipg, i = (ino - 1) % im->ipg;

	img_read(im, gd_inode_table(im, g) * im->bs +
		 (uint64_t)i * im->inode_size, raw, GOOD_OLD_INODE);
}

/* Map a logical block of an extent-mapped inode (i_block in node). */
static int64_t ext_map(struct image *im, const uint8_t *node, uint32_t lblk,
		       int depth_left)
{
	uint16_t n = le16(node + 2), depth = le16(node + 6), i;
	const uint8_t *e;
	uint8_t *buf;
	int64_t r;

	if (le16(node) != 0xf30a)
		die("%s: journal inode: bad extent header magic", im->path);
	if (depth_left < 0)
		die("%s: journal inode: extent tree too deep", im->path);
	if (depth == 0) {
		for (i = 0; i < n; i++) {
			e = node + 12 + 12 * i;
			uint32_t b = le32(e);
			uint16_t len = le16(e + 4);
			uint64_t p = (uint64_t)le16(e + 6) << 32 | le32(e + 8);

			if (len > 32768)
				len -= 32768;
			if (lblk >= b && lblk - b < len)
				return p + (lblk - b);
		}
		return -1;
	}
	for (i = n; i-- > 0;) {
		e = node + 12 + 12 * i;
		if (le32(e) <= lblk) {
			buf = malloc(im->bs);
			if (!buf)
				die("out of memory");
			read_block(im, (uint64_t)le16(e + 8) << 32 | le32(e + 4),
				   buf);
			r = ext_map(im, buf, lblk, depth_left - 1);
			free(buf);
			return r;
		}
	}
	return -1;
}

static void img_open(struct image *im, const char *path, int rw)
{
	uint8_t sb[1024], ji[GOOD_OLD_INODE], *jsb;
	uint32_t inum, log_bs, incompat, jbs;
	int64_t p;
	int i;

	memset(im, 0, sizeof(*im));
	im->path = path;
	im->fd = open(path, rw ? O_RDWR : O_RDONLY);
	if (im->fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	im->bs = 1024;
	img_read(im, 1024, sb, sizeof(sb));
	if (le16(sb + 56) != 0xef53)
		die("%s: no ext4 superblock (magic at byte 1080)", path);
	log_bs = le32(sb + 24);
	if (log_bs > 6)
		die("%s: bad s_log_block_size %u", path, log_bs);
	im->bs = 1024U << log_bs;
	im->inodes_count = le32(sb + 0);
	im->first_data_block = le32(sb + 20);
	im->bpg = le32(sb + 32);
	im->ipg = le32(sb + 40);
	incompat = le32(sb + 96);
	im->is64 = !!(incompat & 0x80);
	im->blocks_count = le32(sb + 4);
	if (im->is64)
		im->blocks_count |= (uint64_t)le32(sb + 0x150) << 32;
	im->first_ino = le32(sb + 76) ? le32(sb + 84) : 11;
	im->inode_size = le32(sb + 76) ? le16(sb + 88) : GOOD_OLD_INODE;
	im->desc_size = im->is64 && le16(sb + 254) >= 32 ? le16(sb + 254) : 32;
	if (!im->bpg || !im->ipg || im->inode_size < GOOD_OLD_INODE)
		die("%s: implausible superblock", path);
	im->groups = (im->blocks_count - im->first_data_block + im->bpg - 1) /
		     im->bpg;
	im->gdt = im->first_data_block + 1;
	if (!(le32(sb + 92) & 0x4))
		die("%s: the file system has no journal (has_journal off)",
		    path);
	inum = le32(sb + 224);
	if (!inum || inum > im->inodes_count)
		die("%s: no journal inode (external journal?)", path);
	read_inode(im, inum, ji);
	if (!(le32(ji + 32) & 0x80000))
		die("%s: journal inode %u is not extent-mapped: not supported",
		    path, inum);

	/* jbd2 superblock: journal block 0 */
	jsb = malloc(im->bs);
	if (!jsb)
		die("out of memory");
	p = ext_map(im, ji + 40, 0, 8);
	if (p < 0)
		die("%s: journal block 0 is not mapped", path);
	read_block(im, p, jsb);
	if (be32(jsb) != 0xc03b3998)
		die("%s: no jbd2 superblock at journal block 0", path);
	jbs = be32(jsb + 12);
	if (jbs != im->bs)
		die("%s: journal block size %u differs from the file system's",
		    path, jbs);
	im->jmaxlen = be32(jsb + 16);
	im->jfeature_fc = !!(be32(jsb + 40) & 0x20);
	im->jnfc = be32(jsb + 84);
	if (!im->jnfc)
		im->jnfc = 256;
	free(jsb);
	if (im->jnfc < 2 || im->jnfc >= im->jmaxlen)
		die("%s: s_num_fc_blks %u does not fit a journal of %u blocks",
		    path, im->jnfc, im->jmaxlen);
	im->jfirst_fc = im->jmaxlen - im->jnfc + 1;
	im->nblk = im->jnfc - 1;
	im->blk_off = calloc(im->nblk, sizeof(*im->blk_off));
	im->area = malloc((size_t)im->nblk * im->bs);
	im->orig = malloc((size_t)im->nblk * im->bs);
	if (!im->blk_off || !im->area || !im->orig)
		die("out of memory");
	for (i = 0; i < im->nblk; i++) {
		p = ext_map(im, ji + 40, im->jfirst_fc + i, 8);
		if (p < 0)
			die("%s: journal block %u (fc block %d) is not mapped",
			    path, im->jfirst_fc + i, i);
		im->blk_off[i] = (uint64_t)p * im->bs;
		img_read(im, im->blk_off[i], im->area + (size_t)i * im->bs,
			 im->bs);
	}
	memcpy(im->orig, im->area, (size_t)im->nblk * im->bs);
}

static void img_write_back(struct image *im)
{
	size_t bs = im->bs;
	int i;

	for (i = 0; i < im->nblk; i++) {
		if (!memcmp(im->area + i * bs, im->orig + i * bs, bs))
			continue;
		if (pwrite(im->fd, im->area + i * bs, bs, im->blk_off[i]) !=
		    (ssize_t)bs)
			die("%s: write of fc block %d failed: %s", im->path,
			    i, strerror(errno));
	}
	if (fsync(im->fd))
		die("%s: fsync: %s", im->path, strerror(errno));
}

/* --- the walk ---------------------------------------------------------- */

struct rec {
	int blk, byte;
	uint16_t tag, len;
	int commit;		/* fast commit it belongs to */
	int good;		/* a good TAIL */
};

struct walk {
	struct rec recs[MAX_RECS];
	int nrecs;
	int commits;		/* good tails */
	int tail_rec[MAX_COMMITS];	/* record index of each good tail */
	int first_rec[MAX_COMMITS];	/* first record of each commit */
	int stop_blk, stop_byte;	/* where it stopped */
	const char *why;
	uint32_t tid;
};

static uint8_t *at(struct image *im, int blk, int byte)
{
	return im->area + (size_t)blk * im->bs + byte;
}

static int ino_ok(struct image *im, uint32_t ino)
{
	return ino >= im->first_ino && ino <= im->inodes_count;
}

/* Value checks; NULL when the record looks sane. */
static const char *check_value(struct image *im, const struct rec *r,
			       const uint8_t *v)
{
	uint32_t ino, lblk, len;
	uint64_t pblk;
	uint16_t mode, extra;
	int nlen, i;

	switch (r->tag) {
	case EXT4_FC_TAG_ADD_RANGE:
		if (!ino_ok(im, le32(v)))
			return "inode number out of range";
		lblk = le32(v + 4);
		len = le16(v + 8);
		if (len > 32768)
			len -= 32768;
		pblk = (uint64_t)le16(v + 10) << 32 | le32(v + 12);
		if (!len)
			return "empty extent";
		if ((uint64_t)lblk + len > EXT_MAX_BLOCKS)
			return "extent past the last logical block";
		if (pblk <= im->first_data_block)
			return "extent in the boot block area";
		if (pblk + len > im->blocks_count)
			return "extent past the file system";
		return NULL;
	case EXT4_FC_TAG_DEL_RANGE:
		if (!ino_ok(im, le32(v)))
			return "inode number out of range";
		if (!le32(v + 8))
			return "empty range";
		if ((uint64_t)le32(v + 4) + le32(v + 8) > EXT_MAX_BLOCKS)
			return "range past the last logical block";
		return NULL;
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
		ino = le32(v);
		if (ino != 2 && !ino_ok(im, ino))
			return "directory inode number out of range";
		if (!ino_ok(im, le32(v + 4)))
			return "inode number out of range";
		nlen = r->len - DENTRY_HDR;
		for (i = 0; i < nlen; i++)
			if (v[DENTRY_HDR + i] == '/' || !v[DENTRY_HDR + i])
				return "name holds '/' or NUL";
		if (v[DENTRY_HDR] == '.' &&
		    (nlen == 1 || (nlen == 2 && v[DENTRY_HDR + 1] == '.')))
			return "name is . or ..";
		return NULL;
	case EXT4_FC_TAG_INODE:
		if (!ino_ok(im, le32(v)))
			return "inode number out of range";
		if (r->len - 4 > (int)im->inode_size)
			return "longer than an on-disk inode";
		mode = inode_fmt(v);
		if (mode != FMT_REG && mode != FMT_DIR && mode != 0xa000 &&
		    mode != 0x2000 && mode != 0x6000 && mode != 0x1000 &&
		    mode != 0xc000)
			return "bad file type";
		if (r->len - 4 >= 130) {
			extra = le16(v + 4 + 128);
			if ((uint32_t)GOOD_OLD_INODE + extra > im->inode_size ||
			    (extra & 3))
				return "bad i_extra_isize";
		}
		return NULL;
	}
	return NULL;
}

static const char *check_len(const struct image *im, const struct rec *r)
{
	int lo = 0, hi = 0;

	switch (r->tag) {
	case EXT4_FC_TAG_ADD_RANGE:
		lo = hi = sizeof(struct ext4_fc_add_range);
		break;
	case EXT4_FC_TAG_DEL_RANGE:
		lo = hi = sizeof(struct ext4_fc_del_range);
		break;
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
		lo = DENTRY_HDR + 1;
		hi = DENTRY_HDR + NAME_LEN;
		break;
	case EXT4_FC_TAG_INODE:
		lo = 4 + GOOD_OLD_INODE;
		break;
	case EXT4_FC_TAG_PAD:
		break;
	case EXT4_FC_TAG_TAIL:
		lo = sizeof(struct ext4_fc_tail);
		break;
	case EXT4_FC_TAG_HEAD:
		lo = hi = sizeof(struct ext4_fc_head);
		break;
	default:
		return "unknown tag";
	}
	(void)im;
	if (r->len < lo || (hi && r->len > hi))
		return "bad value length";
	return NULL;
}

/*
 * Walk the area.  tid: what tails must carry (0 with use_head: the
 * HEAD's).  Stops at record (sblk, sbyte) too, when sblk >= 0: a value
 * the kernel checks in ways we don't (metadata overlap).
 */
static void do_walk(struct image *im, struct walk *w, uint32_t tid,
		    int use_head, int sblk, int sbyte)
{
	uint32_t crc = 0;
	int blk, pos, commit_start = 0;
	struct rec r;
	const uint8_t *p;

	memset(w, 0, sizeof(*w));
	w->tid = tid;
	w->why = "end of the area";
	w->stop_blk = im->nblk;
	for (blk = 0; blk < im->nblk; blk++) {
		for (pos = 0; pos < (int)im->bs; pos += 4 + r.len) {
			memset(&r, 0, sizeof(r));
			r.blk = blk;
			r.byte = pos;
			r.commit = w->commits;
			w->stop_blk = blk;
			w->stop_byte = pos;
			if (im->bs - pos < 4) {
				w->why = "record header crosses the block end";
				return;
			}
			p = at(im, blk, pos);
			r.tag = le16(p);
			r.len = le16(p + 2);
			if (r.len > im->bs - pos - 4) {
				w->why = "value runs past the block end";
				return;
			}
			if (!blk && !pos && r.tag != EXT4_FC_TAG_HEAD) {
				w->why = "area does not start with a head";
				return;
			}
			w->why = check_len(im, &r);
			if (!w->why && r.tag == EXT4_FC_TAG_HEAD) {
				if (blk || pos)
					w->why = "head past the start";
				else if (le32(p + 4))
					w->why = "unsupported features";
				else if (use_head)
					w->tid = le32(p + 8);
				else if (le32(p + 8) != w->tid)
					w->why = "head of another transaction";
			}
			if (!w->why)
				w->why = check_value(im, &r, p + 4);
			if (!w->why && blk == sblk && pos == sbyte)
				w->why = "the target of a value mutation";
			if (!w->why && r.tag == EXT4_FC_TAG_TAIL) {
				if (le32(p + 4) != w->tid)
					w->why = "tail of another transaction";
				else if (crc32c(crc, p, 8) != le32(p + 8))
					w->why = "checksum mismatch";
			}
			if (w->why)
				return;
			if (w->nrecs == MAX_RECS)
				die("%s: more than %d records", im->path,
				    MAX_RECS);
			if (w->nrecs == commit_start)
				w->first_rec[w->commits] = commit_start;
			if (r.tag == EXT4_FC_TAG_TAIL) {
				r.good = 1;
				w->recs[w->nrecs] = r;
				w->tail_rec[w->commits++] = w->nrecs++;
				commit_start = w->nrecs;
				crc = 0;
				if (w->commits == MAX_COMMITS)
					die("%s: too many fast commits",
					    im->path);
				continue;
			}
			crc = crc32c(crc, p, 4 + r.len);
			w->recs[w->nrecs++] = r;
		}
	}
	w->stop_blk = im->nblk;
	w->stop_byte = 0;
	w->why = "end of the area";
}

/* The last byte the crc of commit c covers, as (blk, byte) of its tail. */
static const struct rec *tail_of(const struct walk *w, int c)
{
	return &w->recs[w->tail_rec[c]];
}

/* Recompute the crc of the fast commit whose records start at rec i. */
static void recrc(struct image *im, const struct walk *w, int c)
{
	uint32_t crc = 0;
	int i;
	const struct rec *r;
	uint8_t *p;

	for (i = w->first_rec[c]; i <= w->tail_rec[c]; i++) {
		r = &w->recs[i];
		p = at(im, r->blk, r->byte);
		if (r->tag == EXT4_FC_TAG_TAIL) {
			put32(p + 8, crc32c(crc, p, 8));
			return;
		}
		/* the length may have been changed: sum what is there */
		crc = crc32c(crc, p, 4 + r->len);
	}
}

/* --- list -------------------------------------------------------------- */

static void rec_detail(struct image *im, const struct rec *r, char *buf,
		       size_t n)
{
	const uint8_t *v = at(im, r->blk, r->byte) + 4;
	int nlen;

	buf[0] = 0;
	switch (r->tag) {
	case EXT4_FC_TAG_ADD_RANGE:
		snprintf(buf, n, "ino %u lblk %u len %u pblk %" PRIu64,
			 le32(v), le32(v + 4), le16(v + 8),
			 (uint64_t)le16(v + 10) << 32 | le32(v + 12));
		break;
	case EXT4_FC_TAG_DEL_RANGE:
		snprintf(buf, n, "ino %u lblk %u len %u", le32(v), le32(v + 4),
			 le32(v + 8));
		break;
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
		nlen = r->len - DENTRY_HDR;
		snprintf(buf, n, "dir %u ino %u name '%.*s'", le32(v),
			 le32(v + 4), nlen > 64 ? 64 : nlen,
			 (const char *)v + DENTRY_HDR);
		break;
	case EXT4_FC_TAG_INODE:
		snprintf(buf, n, "ino %u mode %o", le32(v), le16(v + 4));
		break;
	case EXT4_FC_TAG_TAIL:
		snprintf(buf, n, "tid %u crc %08x", le32(v), le32(v + 4));
		break;
	case EXT4_FC_TAG_HEAD:
		snprintf(buf, n, "features %#x tid %u", le32(v), le32(v + 4));
		break;
	}
}

static int cmd_list(const char *path)
{
	static struct walk w;
	struct image im;
	char d[128];
	int i;

	img_open(&im, path, 0);
	do_walk(&im, &w, 0, 1, -1, -1);
	printf("area: journal blocks %u..%u, %d fc blocks of %u bytes at image byte %" PRIu64 "; fast_commit feature %s\n",
	       im.jfirst_fc, im.jmaxlen - 1, im.nblk, im.bs, im.blk_off[0],
	       im.jfeature_fc ? "set" : "not set (nothing to replay)");
	for (i = 0; i < w.nrecs; i++) {
		const struct rec *r = &w.recs[i];

		rec_detail(&im, r, d, sizeof(d));
		printf("commit %d blk %d byte %d abs %" PRIu64 " %s len %u %s\n",
		       r->commit, r->blk, r->byte,
		       im.blk_off[r->blk] + r->byte, tag_names[r->tag],
		       r->len, d);
	}
	printf("tid %u: %d fast commit(s) valid, %d records; the walk stops at fc block %d byte %d: %s\n",
	       w.tid, w.commits, w.commits ? w.tail_rec[w.commits - 1] + 1 : 0,
	       w.stop_blk, w.stop_byte, w.why);
	return 0;
}

/* --- mutations --------------------------------------------------------- */

struct target {
	int rec;		/* record index in the walk, -1: none */
	int blk, byte;		/* target record */
	int exact;		/* the kernel must stop exactly there */
	int value;		/* the walk must be told to stop there */
	int skipped;		/* replay must skip the target record */
	char what[160];
};

typedef int (*mut_fn)(struct image *im, struct walk *w, struct target *t);

/* A random record with tag in mask (bit per tag), -1 when none. */
static int pick_rec(const struct walk *w, unsigned int mask)
{
	int idx[MAX_RECS], n = 0, i;

	for (i = 0; i < w->nrecs; i++)
		if (mask & 1U << w->recs[i].tag)
			idx[n++] = i;
	return n ? idx[below(n)] : -1;
}

#define M(tag)		(1U << (tag))
#define M_NAMES		(M(EXT4_FC_TAG_CREAT) | M(EXT4_FC_TAG_LINK) | \
			 M(EXT4_FC_TAG_UNLINK))
#define M_INO		(M(EXT4_FC_TAG_ADD_RANGE) | M(EXT4_FC_TAG_DEL_RANGE) | \
			 M(EXT4_FC_TAG_INODE) | M_NAMES)
#define M_ALL		(M_INO | M(EXT4_FC_TAG_PAD) | M(EXT4_FC_TAG_TAIL) | \
			 M(EXT4_FC_TAG_HEAD))

static uint8_t *rec_p(struct image *im, const struct walk *w, int i)
{
	return at(im, w->recs[i].blk, w->recs[i].byte);
}

static int set_target(struct walk *w, struct target *t, int i, int exact)
{
	if (i < 0)
		return -1;
	t->rec = i;
	t->blk = w->recs[i].blk;
	t->byte = w->recs[i].byte;
	t->exact = exact;
	return 0;
}

static int m_none(struct image *im, struct walk *w, struct target *t)
{
	(void)im;
	(void)w;
	snprintf(t->what, sizeof(t->what), "nothing changed");
	return 0;
}

static int m_bitflip(struct image *im, struct walk *w, struct target *t)
{
	const struct rec *last = tail_of(w, w->commits - 1);
	uint32_t span = (last->blk + 1) * im->bs, off = below(span);
	int bit = below(8);

	im->area[off] ^= 1U << bit;
	t->blk = off / im->bs;
	t->byte = off % im->bs;
	snprintf(t->what, sizeof(t->what), "bit %d of fc block %u byte %u",
		 bit, off / im->bs, off % im->bs);
	return 0;
}

/* Record lengths. */
static int m_len(struct image *im, struct walk *w, struct target *t,
		 const char *how)
{
	int i = pick_rec(w, M_ALL & ~(strcmp(how, "zero") ? 0 : M(EXT4_FC_TAG_PAD)));
	uint8_t *p;
	uint32_t left, len;

	if (set_target(w, t, i, 1))
		return -1;
	p = rec_p(im, w, i);
	left = im->bs - w->recs[i].byte - 4;
	if (!strcmp(how, "past"))
		len = left + 1 + below(left < 16 ? left + 1 : 16);
	else if (!strcmp(how, "zero"))
		len = 0;
	else
		len = 0xffff - below(4);
	if (len > 0xffff)
		len = 0xffff;
	snprintf(t->what, sizeof(t->what), "%s len %u -> %u",
		 tag_names[w->recs[i].tag], le16(p + 2), len);
	put16(p + 2, len);
	return 0;
}

static int m_len_past(struct image *im, struct walk *w, struct target *t)
{
	return m_len(im, w, t, "past");
}

static int m_len_zero(struct image *im, struct walk *w, struct target *t)
{
	return m_len(im, w, t, "zero");
}

static int m_len_huge(struct image *im, struct walk *w, struct target *t)
{
	return m_len(im, w, t, "huge");
}

/* A fixed-length record one or more bytes off (still inside the block). */
static int m_len_wrong(struct image *im, struct walk *w, struct target *t)
{
	int i = pick_rec(w, M(EXT4_FC_TAG_ADD_RANGE) | M(EXT4_FC_TAG_DEL_RANGE) |
			 M(EXT4_FC_TAG_HEAD));
	uint8_t *p;
	int len;

	if (set_target(w, t, i, 1))
		return -1;
	p = rec_p(im, w, i);
	len = le16(p + 2) + (below(2) ? 1 + (int)below(4) : -1 - (int)below(4));
	put16(p + 2, len);
	snprintf(t->what, sizeof(t->what), "%s len %u -> %d",
		 tag_names[w->recs[i].tag], w->recs[i].len, len);
	return 0;
}

static int m_unknown_tag(struct image *im, struct walk *w, struct target *t)
{
	int i = pick_rec(w, M_ALL);
	static const uint16_t tags[] = { 0, 10, 11, 0x100, 0x7fff, 0xffff };
	uint16_t tag;

	if (set_target(w, t, i, 1))
		return -1;
	tag = below(2) ? tags[below(ARRAY_SIZE(tags))] : 10 + below(0xfff0);
	put16(rec_p(im, w, i), tag);
	snprintf(t->what, sizeof(t->what), "%s tag -> %u",
		 tag_names[w->recs[i].tag], tag);
	return 0;
}

static int m_head_features(struct image *im, struct walk *w, struct target *t)
{
	uint32_t f = 1U << below(32);

	set_target(w, t, 0, 1);
	put32(rec_p(im, w, 0) + 4, le32(rec_p(im, w, 0) + 4) | f);
	snprintf(t->what, sizeof(t->what), "HEAD features |= %#x", f);
	return 0;
}

static int m_head_tid(struct image *im, struct walk *w, struct target *t)
{
	uint32_t tid = w->tid + (below(2) ? 1 + below(3) : -1 - below(3));

	set_target(w, t, 0, 1);
	put32(rec_p(im, w, 0) + 8, tid);
	snprintf(t->what, sizeof(t->what), "HEAD tid %u -> %u", w->tid, tid);
	return 0;
}

static int m_tail_tid(struct image *im, struct walk *w, struct target *t)
{
	int c = below(w->commits), i = w->tail_rec[c];
	uint32_t tid = w->tid + (below(2) ? 1 : -1 - below(2));

	set_target(w, t, i, 1);
	put32(rec_p(im, w, i) + 4, tid);
	snprintf(t->what, sizeof(t->what), "TAIL of commit %d tid %u -> %u",
		 c, w->tid, tid);
	return 0;
}

static int m_crc(struct image *im, struct walk *w, struct target *t)
{
	int c = below(w->commits), i = w->tail_rec[c];
	uint8_t *p;
	uint32_t x = 1U << below(32);

	set_target(w, t, i, 1);
	p = rec_p(im, w, i);
	if (below(2))
		x = (uint32_t)rnd() | 1;
	put32(p + 8, le32(p + 8) ^ x);
	snprintf(t->what, sizeof(t->what), "TAIL of commit %d crc ^= %#x",
		 c, x);
	return 0;
}

/* Byte offset in the value of the inode number field to change. */
static int ino_field(struct walk *w, int i, int *is_dir)
{
	*is_dir = 0;
	switch (w->recs[i].tag) {
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
		*is_dir = below(2);
		return *is_dir ? 0 : 4;
	}
	return 0;
}

static int m_ino(struct image *im, struct walk *w, struct target *t,
		 const char *how)
{
	int i = pick_rec(w, M_INO), dir, f;
	uint8_t *v;
	uint32_t ino;

	if (set_target(w, t, i, 1))
		return -1;
	f = ino_field(w, i, &dir);
	v = rec_p(im, w, i) + 4;
	if (!strcmp(how, "zero")) {
		ino = 0;
	} else if (!strcmp(how, "huge")) {
		ino = below(2) ? 0xffffffff - below(16) :
			im->inodes_count + 1 + below(1000);
	} else {
		/* reserved: below s_first_ino; 2 is the root, a fine parent */
		do
			ino = 1 + below(im->first_ino - 1);
		while (dir && ino == 2);
	}
	snprintf(t->what, sizeof(t->what), "%s %s %u -> %u",
		 tag_names[w->recs[i].tag], dir ? "parent ino" : "ino",
		 le32(v + f), ino);
	put32(v + f, ino);
	return 0;
}

/* Replay: records the parser accepts and replay cannot apply. */

/* Add ino to the set inos[0..n) (at most max), or take it out. */
static void ino_set(uint32_t *inos, int *n, int max, uint32_t ino, int add)
{
	int k;

	for (k = 0; k < *n && inos[k] != ino; k++)
		;
	if (!add && k < *n)
		inos[k] = inos[--*n];
	else if (add && k == *n && *n < max)
		inos[(*n)++] = ino;
}

typedef int (*known_fn)(struct image *im, const struct walk *w, int i,
			uint32_t *inos, int max);

/*
 * Directories there when replay reaches record i: the parents of the
 * name records up to i (the base images' directories all outlive the
 * log).
 */
static int known_dirs(struct image *im, const struct walk *w, int i,
		      uint32_t *inos, int max)
{
	int j, n = 0;
	uint32_t ino;

	for (j = 0; j <= i; j++) {
		if (!(M_NAMES & M(w->recs[j].tag)))
			continue;
		ino = le32(rec_p(im, w, j) + 4);
		if (ino_ok(im, ino))
			ino_set(inos, &n, max, ino, 1);
	}
	return n;
}

/*
 * Regular files there when replay reaches record i: an INODE record with
 * links in an earlier fast commit, and no UNLINK of the inode since.
 */
static int known_files(struct image *im, const struct walk *w, int i,
		       uint32_t *inos, int max)
{
	const uint8_t *v;
	int j, n = 0;

	for (j = 0; j < i; j++) {
		v = rec_p(im, w, j) + 4;
		if (w->recs[j].tag == EXT4_FC_TAG_UNLINK)
			ino_set(inos, &n, max, le32(v + 4), 0);
		else if (w->recs[j].tag == EXT4_FC_TAG_INODE &&
			 w->recs[j].commit < w->recs[i].commit &&
			 inode_fmt(v) == FMT_REG && le16(v + 4 + I_LINKS))
			ino_set(inos, &n, max, le32(v), 1);
	}
	return n;
}

/* Whether the last INODE record of ino before record i is a regular file. */
static int is_file_before(struct image *im, const struct walk *w, int i,
			  uint32_t ino)
{
	const uint8_t *v;
	int j;

	for (j = i - 1; j >= 0; j--) {
		v = rec_p(im, w, j) + 4;
		if (w->recs[j].tag == EXT4_FC_TAG_INODE && le32(v) == ino)
			return inode_fmt(v) == FMT_REG;
	}
	return 0;
}

/*
 * Point field f (0: parent, 4: inode) of a name record of a regular file,
 * picked from mask, at another inode that known() says is there.
 */
static int m_replay_skip(struct image *im, struct walk *w, struct target *t,
			 unsigned int mask, int f, known_fn known,
			 const char *kind)
{
	static uint32_t cand[MAX_RECS];
	static int idx[MAX_RECS];
	uint32_t inos[64], ino;
	int n = 0, i, j, k;
	uint8_t *v;

	for (i = 0; i < w->nrecs; i++) {
		if (!(mask & M(w->recs[i].tag)) || w->recs[i].commit >= w->commits)
			continue;
		v = rec_p(im, w, i) + 4;
		if (!is_file_before(im, w, i, le32(v + 4)))
			continue;
		k = known(im, w, i, inos, ARRAY_SIZE(inos));
		for (j = 0; j < k && inos[j] == le32(v + f); j++)
			;
		if (j < k) {
			cand[n] = inos[j];
			idx[n++] = i;
		}
	}
	if (!n)
		return -1;
	k = below(n);
	i = idx[k];
	ino = cand[k];
	set_target(w, t, i, 0);
	t->skipped = 1;
	v = rec_p(im, w, i) + 4;
	snprintf(t->what, sizeof(t->what), "%s %s %u -> %u (a %s)",
		 tag_names[w->recs[i].tag], f ? "ino" : "parent ino",
		 le32(v + f), ino, kind);
	put32(v + f, ino);
	return 0;
}

static int m_link_dir(struct image *im, struct walk *w, struct target *t)
{
	return m_replay_skip(im, w, t, M(EXT4_FC_TAG_LINK), 4, known_dirs,
			     "directory");
}

static int m_parent_file(struct image *im, struct walk *w, struct target *t)
{
	return m_replay_skip(im, w, t, M(EXT4_FC_TAG_CREAT) | M(EXT4_FC_TAG_LINK), 0,
			     known_files, "regular file");
}

static int m_ino_zero(struct image *im, struct walk *w, struct target *t)
{
	return m_ino(im, w, t, "zero");
}

static int m_ino_huge(struct image *im, struct walk *w, struct target *t)
{
	return m_ino(im, w, t, "huge");
}

static int m_ino_reserved(struct image *im, struct walk *w, struct target *t)
{
	return m_ino(im, w, t, "reserved");
}

static void set_pblk(uint8_t *v, uint64_t pblk)
{
	put16(v + 10, pblk >> 32);
	put32(v + 12, pblk);
}

static int m_extent_beyond(struct image *im, struct walk *w, struct target *t)
{
	int i = pick_rec(w, M(EXT4_FC_TAG_ADD_RANGE));
	uint8_t *v;
	uint32_t len;
	uint64_t pblk;

	if (set_target(w, t, i, 1))
		return -1;
	v = rec_p(im, w, i) + 4;
	len = le16(v + 8);
	if (len > 32768)
		len -= 32768;
	switch (below(3)) {
	case 0:		/* the last block just past the end */
		pblk = im->blocks_count - len + 1 + below(4);
		break;
	case 1:		/* far away */
		pblk = im->blocks_count + below(1 << 20);
		break;
	default:	/* 48 bits */
		pblk = 0xffffffffffffULL - below(1000);
		break;
	}
	snprintf(t->what, sizeof(t->what), "ADD_RANGE pblk -> %" PRIu64
		 " (len %u, fs has %" PRIu64 " blocks)", pblk, len,
		 im->blocks_count);
	set_pblk(v, pblk);
	return 0;
}

static int m_extent_metadata(struct image *im, struct walk *w,
			     struct target *t)
{
	int i = pick_rec(w, M(EXT4_FC_TAG_ADD_RANGE));
	uint8_t *v, gd[64];
	uint64_t pblk;
	const char *where;
	uint32_t g = below(im->groups);

	if (set_target(w, t, i, 1))
		return -1;
	t->value = 1;
	v = rec_p(im, w, i) + 4;
	group_desc(im, g, gd);
	switch (below(6)) {
	case 0:
		pblk = im->first_data_block;
		where = "the superblock";
		break;
	case 1:
		pblk = im->gdt;
		where = "the group descriptors";
		break;
	case 2:
		pblk = gd_field(im, gd, 0, 0x20);
		where = "a block bitmap";
		break;
	case 3:
		pblk = gd_field(im, gd, 4, 0x24);
		where = "an inode bitmap";
		break;
	case 4:
		pblk = gd_field(im, gd, 8, 0x28) + below(4);
		where = "an inode table";
		break;
	default:	/* group 1's backup superblock (sparse_super has it) */
		pblk = im->groups > 1 ? im->first_data_block + im->bpg :
			im->gdt;
		where = im->groups > 1 ? "group 1's backup superblock" :
			"the group descriptors";
		break;
	}
	if (pblk <= im->first_data_block)
		t->value = 0;	/* our walk knows that one */
	snprintf(t->what, sizeof(t->what), "ADD_RANGE pblk -> %" PRIu64
		 " (%s, group %u)", pblk, where, g);
	set_pblk(v, pblk);
	return 0;
}

static int m_extent_zero(struct image *im, struct walk *w, struct target *t)
{
	int i = pick_rec(w, M(EXT4_FC_TAG_ADD_RANGE));

	if (set_target(w, t, i, 1))
		return -1;
	put16(rec_p(im, w, i) + 4 + 8, below(2) ? 0 : 32768);
	snprintf(t->what, sizeof(t->what), "ADD_RANGE len -> 0");
	return 0;
}

static int m_extent_lblk(struct image *im, struct walk *w, struct target *t)
{
	int i = pick_rec(w, M(EXT4_FC_TAG_ADD_RANGE) | M(EXT4_FC_TAG_DEL_RANGE));
	uint8_t *v;

	if (set_target(w, t, i, 1))
		return -1;
	v = rec_p(im, w, i) + 4;
	put32(v + 4, 0xffffffff);
	snprintf(t->what, sizeof(t->what), "%s lblk -> %u",
		 tag_names[w->recs[i].tag], le32(v + 4));
	return 0;
}

static int m_range_zero(struct image *im, struct walk *w, struct target *t)
{
	int i = pick_rec(w, M(EXT4_FC_TAG_DEL_RANGE));

	if (set_target(w, t, i, 1))
		return -1;
	put32(rec_p(im, w, i) + 4 + 8, 0);
	snprintf(t->what, sizeof(t->what), "DEL_RANGE len -> 0");
	return 0;
}

/* Names. */
static int m_name(struct image *im, struct walk *w, struct target *t,
		  const char *how)
{
	int i = pick_rec(w, M_NAMES), nlen, k, tries;
	uint8_t *p;

	/* "." or "..": a name that leaves room for a PAD, or is that long */
	for (tries = 0; i >= 0 && !strcmp(how, "dot") && tries < 64; tries++) {
		nlen = w->recs[i].len - DENTRY_HDR;
		if (nlen >= 6 || nlen <= 2)
			break;
		i = pick_rec(w, M_NAMES);
	}
	if (set_target(w, t, i, 1))
		return -1;
	p = rec_p(im, w, i);
	nlen = w->recs[i].len - DENTRY_HDR;
	k = below(nlen);
	if (!strcmp(how, "empty")) {
		put16(p + 2, DENTRY_HDR);
		snprintf(t->what, sizeof(t->what), "%s name length %d -> 0",
			 tag_names[w->recs[i].tag], nlen);
	} else if (!strcmp(how, "long")) {
		int len = DENTRY_HDR + NAME_LEN + 1 + below(64);
		int left = im->bs - w->recs[i].byte - 4;

		if (len > left)
			len = left;
		if (len <= DENTRY_HDR + NAME_LEN)
			return -1;	/* no room in this block */
		put16(p + 2, len);
		snprintf(t->what, sizeof(t->what), "%s name length %d -> %d",
			 tag_names[w->recs[i].tag], nlen, len - DENTRY_HDR);
	} else if (!strcmp(how, "dot")) {
		k = nlen <= 2 ? nlen - 1 : (int)below(2);
		p[4 + DENTRY_HDR] = '.';
		if (k)
			p[4 + DENTRY_HDR + 1] = '.';
		/* the rest of the old name becomes a PAD when it can */
		if (nlen - 1 - k >= 4) {
			put16(p + 2, DENTRY_HDR + 1 + k);
			put16(p + 4 + DENTRY_HDR + 1 + k, EXT4_FC_TAG_PAD);
			put16(p + 4 + DENTRY_HDR + 1 + k + 2, nlen - 1 - k - 4);
		} else if (nlen != 1 + k) {
			return -1;
		}
		snprintf(t->what, sizeof(t->what), "%s name -> '%s'",
			 tag_names[w->recs[i].tag], k ? ".." : ".");
	} else {
		uint8_t c = !strcmp(how, "slash") ? '/' : 0;

		snprintf(t->what, sizeof(t->what), "%s name byte %d '%c' -> %s",
			 tag_names[w->recs[i].tag], k, p[4 + DENTRY_HDR + k],
			 c ? "'/'" : "NUL");
		p[4 + DENTRY_HDR + k] = c;
	}
	return 0;
}

static int m_name_empty(struct image *im, struct walk *w, struct target *t)
{
	return m_name(im, w, t, "empty");
}

static int m_name_slash(struct image *im, struct walk *w, struct target *t)
{
	return m_name(im, w, t, "slash");
}

static int m_name_nul(struct image *im, struct walk *w, struct target *t)
{
	return m_name(im, w, t, "nul");
}

static int m_name_long(struct image *im, struct walk *w, struct target *t)
{
	return m_name(im, w, t, "long");
}

static int m_name_dot(struct image *im, struct walk *w, struct target *t)
{
	return m_name(im, w, t, "dot");
}

/* INODE record values. */
static int m_inode_mode(struct image *im, struct walk *w, struct target *t)
{
	int i = pick_rec(w, M(EXT4_FC_TAG_INODE));
	static const uint16_t bad[] = { 0x0000, 0x3000, 0x5000, 0x7000,
					0x9000, 0xb000, 0xd000, 0xe000, 0xf000 };
	uint8_t *v;
	uint16_t mode;

	if (set_target(w, t, i, 1))
		return -1;
	v = rec_p(im, w, i) + 4;
	mode = (le16(v + 4) & 0x0fff) | bad[below(ARRAY_SIZE(bad))];
	snprintf(t->what, sizeof(t->what), "INODE i_mode %o -> %o",
		 le16(v + 4), mode);
	put16(v + 4, mode);
	return 0;
}

static int m_inode_extra(struct image *im, struct walk *w, struct target *t)
{
	int i = pick_rec(w, M(EXT4_FC_TAG_INODE));
	uint8_t *v;
	uint16_t x;

	if (i < 0 || w->recs[i].len < 4 + 130 ||
	    set_target(w, t, i, 1))
		return -1;
	v = rec_p(im, w, i) + 4 + 4;
	x = below(2) ? im->inode_size - GOOD_OLD_INODE + 4 * (1 + below(8)) :
		(le16(v + 128) | 1);
	snprintf(t->what, sizeof(t->what), "INODE i_extra_isize %u -> %u",
		 le16(v + 128), x);
	put16(v + 128, x);
	return 0;
}

static int m_inode_long(struct image *im, struct walk *w, struct target *t)
{
	int i = pick_rec(w, M(EXT4_FC_TAG_INODE)), len, left;

	if (set_target(w, t, i, 1))
		return -1;
	left = im->bs - w->recs[i].byte - 4;
	len = 4 + im->inode_size + 1 + below(64);
	if (len > left)
		return -1;
	put16(rec_p(im, w, i) + 2, len);
	snprintf(t->what, sizeof(t->what), "INODE len %u -> %d (inodes are %u bytes)",
		 w->recs[i].len, len, im->inode_size);
	return 0;
}

/* Structure. */

/* The first record of the block after commit c's tail. */
static int next_block_of(struct image *im, struct walk *w, int c, int *blk)
{
	*blk = tail_of(w, c)->blk + 1;
	return *blk < im->nblk ? 0 : -1;
}

static int m_dup_tail(struct image *im, struct walk *w, struct target *t)
{
	int c = below(w->commits), blk;
	const struct rec *tr = tail_of(w, c);
	uint8_t *src = at(im, tr->blk, tr->byte), *dst;

	if (next_block_of(im, w, c, &blk))
		return -1;
	dst = at(im, blk, 0);
	memcpy(dst, src, 12);
	put16(dst + 2, im->bs - 4);
	t->blk = blk;
	t->byte = 0;
	t->exact = 1;
	t->rec = -1;
	snprintf(t->what, sizeof(t->what),
		 "TAIL of commit %d copied to fc block %d byte 0", c, blk);
	return 0;
}

static int m_head_dup(struct image *im, struct walk *w, struct target *t)
{
	int c, blk, tries;

	for (tries = 0; tries < 8; tries++) {
		c = below(w->commits);
		if (!next_block_of(im, w, c, &blk))
			break;
	}
	if (tries == 8)
		return -1;
	memcpy(at(im, blk, 0), at(im, 0, 0), 12);
	t->blk = blk;
	t->byte = 0;
	t->exact = 1;
	t->rec = -1;
	snprintf(t->what, sizeof(t->what), "HEAD copied to fc block %d byte 0",
		 blk);
	return 0;
}

/* Commit c's tail turned into a PAD: it runs into the next fast commit. */
static int m_drop_tail(struct image *im, struct walk *w, struct target *t)
{
	int c = below(w->commits), i = w->tail_rec[c];

	set_target(w, t, i, 0);
	put16(rec_p(im, w, i), EXT4_FC_TAG_PAD);
	snprintf(t->what, sizeof(t->what), "TAIL of commit %d -> PAD", c);
	return 0;
}

/* The blocks of commit c zeroed: the log ends there, cleanly. */
static int m_zero_block(struct image *im, struct walk *w, struct target *t)
{
	int c = below(w->commits), b;
	int first = w->recs[w->first_rec[c]].blk, last = tail_of(w, c)->blk;

	for (b = first; b <= last; b++)
		memset(at(im, b, 0), 0, im->bs);
	t->blk = first;
	t->byte = 0;
	t->exact = 1;
	t->rec = -1;
	snprintf(t->what, sizeof(t->what), "fc blocks %d..%d (commit %d) zeroed",
		 first, last, c);
	return 0;
}

/* The last fast commit appended once more: replay must be idempotent. */
static int m_dup_commit(struct image *im, struct walk *w, struct target *t)
{
	int c = w->commits - 1, first = w->recs[w->first_rec[c]].blk;
	int last = tail_of(w, c)->blk, n = last - first + 1;

	if (c == 0)
		return -1;	/* commit 0 holds the HEAD */
	if (last + 1 + n > im->nblk)
		return -1;
	memcpy(at(im, last + 1, 0), at(im, first, 0), (size_t)n * im->bs);
	t->blk = last + 1;
	t->byte = 0;
	t->rec = -1;
	snprintf(t->what, sizeof(t->what),
		 "fc blocks %d..%d (commit %d) copied to %d..%d", first, last,
		 c, last + 1, last + n);
	return 0;
}

struct mutation {
	const char *name;
	mut_fn fn;
	int recrc;		/* 1: a -recrc variant makes sense; 2: always */
};

static const struct mutation mutations[] = {
	{ "none", m_none, 0 },
	{ "bitflip", m_bitflip, 0 },
	{ "len-past-block", m_len_past, 0 },
	{ "len-zero", m_len_zero, 0 },
	{ "len-huge", m_len_huge, 0 },
	{ "len-wrong", m_len_wrong, 1 },
	{ "unknown-tag", m_unknown_tag, 1 },
	{ "head-features", m_head_features, 1 },
	{ "head-tid", m_head_tid, 1 },
	{ "head-dup", m_head_dup, 0 },
	{ "tail-tid", m_tail_tid, 0 },
	{ "crc", m_crc, 0 },
	{ "drop-tail", m_drop_tail, 0 },
	{ "dup-tail", m_dup_tail, 0 },
	{ "dup-commit", m_dup_commit, 0 },
	{ "zero-block", m_zero_block, 0 },
	{ "ino-zero", m_ino_zero, 1 },
	{ "ino-huge", m_ino_huge, 1 },
	{ "ino-reserved", m_ino_reserved, 1 },
	{ "extent-beyond-fs", m_extent_beyond, 1 },
	{ "extent-on-metadata", m_extent_metadata, 1 },
	{ "extent-zero", m_extent_zero, 1 },
	{ "extent-lblk-huge", m_extent_lblk, 1 },
	{ "range-zero", m_range_zero, 1 },
	{ "name-empty", m_name_empty, 1 },
	{ "name-slash", m_name_slash, 1 },
	{ "name-nul", m_name_nul, 1 },
	{ "name-long", m_name_long, 1 },
	{ "name-dot", m_name_dot, 1 },
	{ "inode-mode", m_inode_mode, 1 },
	{ "inode-extra-isize", m_inode_extra, 1 },
	{ "inode-long", m_inode_long, 1 },
	{ "link-dir", m_link_dir, 2 },
	{ "parent-file", m_parent_file, 2 },
};

static int cmd_mutations(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mutations); i++) {
		printf("%s\n", mutations[i].name);
		if (mutations[i].recrc == 1)
			printf("%s-recrc\n", mutations[i].name);
	}
	return 0;
}

static int cmd_apply(const char *path, const char *name, uint64_t seed,
		     int dry)
{
	static struct walk w, after;
	const struct mutation *m = NULL;
	struct target t = { .rec = -1 };
	struct image im;
	size_t i, n;
	int do_recrc = 0, c, keep;
	char at_s[32], skip_s[32];

	for (i = 0; i < ARRAY_SIZE(mutations); i++) {
		n = strlen(mutations[i].name);
		if (!strcmp(name, mutations[i].name)) {
			m = &mutations[i];
		} else if (mutations[i].recrc == 1 && !strncmp(name, mutations[i].name, n) &&
			   !strcmp(name + n, "-recrc")) {
			m = &mutations[i];
			do_recrc = 1;
		}
		if (m)
			break;
	}
	if (!m)
		die_status(2, "unknown mutation '%s' ('%s mutations' lists them)",
		    name, prog);
	if (m->recrc == 2)
		do_recrc = 1;
	img_open(&im, path, !dry);
	do_walk(&im, &w, 0, 1, -1, -1);
	if (!w.commits) {
		fprintf(stderr, "%s: %s holds no valid fast commit (the walk stops at fc block %d byte %d: %s): make a crashed image with fast commits first\n",
			prog, path, w.stop_blk, w.stop_byte, w.why);
		return 1;
	}
	rnd_seed(seed, name);
	if (m->fn(&im, &w, &t)) {
		printf("mutation=%s seed=%" PRIu64 " commits=%d skip=no-target\n",
		       name, seed, w.commits);
		return 3;
	}
	c = -1;
	if (t.rec >= 0) {
		c = w.recs[t.rec].commit;
		if (do_recrc)
			recrc(&im, &w, c);
	} else if (t.blk >= 0) {
		/* the commit the changed block belongs to, if any */
		for (c = 0; c < w.commits; c++)
			if (tail_of(&w, c)->blk >= t.blk)
				break;
	}
	do_walk(&im, &after, w.tid, 0, t.value ? t.blk : -1,
		t.value ? t.byte : -1);
	keep = after.commits;
	if (!strcmp(m->name, "dup-commit"))
		keep = after.commits;	/* one more: the copy is valid */
	if (t.exact)
		snprintf(at_s, sizeof(at_s), "%d:%d", t.blk, t.byte);
	else
		snprintf(at_s, sizeof(at_s), "-");
	if (t.skipped)
		snprintf(skip_s, sizeof(skip_s), "%d:%d", t.blk, t.byte);
	else
		snprintf(skip_s, sizeof(skip_s), "-");
	for (i = 0; t.what[i]; i++)
		if (t.what[i] == ' ')
			t.what[i] = '_';
	printf("mutation=%s seed=%" PRIu64 " commits=%d commit=%d blk=%d byte=%d tag=%d abs=%" PRIu64 " keep=%d at=%s stop=%d:%d skipped=%s what=%s\n",
	       name, seed, w.commits, c, t.blk, t.byte,
	       t.rec >= 0 ? w.recs[t.rec].tag : -1,
	       t.blk >= 0 && t.blk < im.nblk ? im.blk_off[t.blk] + t.byte : 0,
	       keep, at_s, after.stop_blk, after.stop_byte, skip_s, t.what);
	if (!dry)
		img_write_back(&im);
	return 0;
}

static void usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: %s list IMAGE\n"
		"       %s apply [-n] IMAGE MUTATION SEED\n"
		"       %s mutations\n"
		"list: the fast-commit area of IMAGE (file or block device) and its records.\n"
		"apply: corrupt IMAGE's fast-commit area in place by MUTATION, chosen by\n"
		"SEED; -n: only print what it would do.  Prints what replay must keep.\n",
		prog, prog, prog);
	exit(code);
}

int main(int argc, char **argv)
{
	int dry = 0;
	char *end;
	uint64_t seed;

	if (argc < 2)
		usage(2);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		usage(0);
	if (!strcmp(argv[1], "mutations") && argc == 2)
		return cmd_mutations();
	if (!strcmp(argv[1], "list") && argc == 3)
		return cmd_list(argv[2]);
	if (!strcmp(argv[1], "apply")) {
		argv++;
		argc--;
		if (argc > 1 && !strcmp(argv[1], "-n")) {
			dry = 1;
			argv++;
			argc--;
		}
		if (argc != 4)
			usage(2);
		errno = 0;
		seed = strtoull(argv[3], &end, 0);
		if (errno || *end || end == argv[3])
			die_status(2, "SEED must be a number, not '%s'", argv[3]);
		return cmd_apply(argv[1], argv[2], seed, dry);
	}
	usage(2);
	return 2;
}
