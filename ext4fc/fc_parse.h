/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext4fc: the fast-commit record parser, shared by the kernel's replay
 * (fc_replay.c) and the host tools (tools/fcdump.c, the fuzzer).
 *
 * fc_parse.c knows the on-disk format (fc_format.h) and nothing of the
 * live file system: what it needs to know about one (inode count, block
 * count, inode size...) comes in a struct fcp_geom, the crc32c function
 * comes from the caller, and checks that need the file system itself go
 * through an optional hook.  It compiles unchanged in ext4fc.ko and on the
 * host; the few types it uses come from the section below.
 *
 * Use: fcp_init() once per pass over the area, then per block
 * fcp_cursor_init() and fcp_next() until it returns 0 (end of block) or -1
 * (the walk stops: st->stop says where and why; every later call returns
 * -1 too).  A record fcp_next() returns has passed every check and comes
 * decoded in r->v; the state counts records, fast commits and the last
 * good tail, which is where replay ends.
 */
#ifndef __EXT4FC_FC_PARSE_H__
#define __EXT4FC_FC_PARSE_H__

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <asm/unaligned.h>
#else
/* Host build: the kernel's names for the few types and helpers we use. */
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

static inline u16 get_unaligned_le16(const void *p)
{
	const u8 *b = p;

	return b[0] | b[1] << 8;
}

static inline u32 get_unaligned_le32(const void *p)
{
	const u8 *b = p;

	return b[0] | b[1] << 8 | b[2] << 16 | (u32)b[3] << 24;
}
#endif

/* ext4 constants the checks use (fc_replay.c checks they match ext4.h). */
#define FCP_MAX_LBLK		0xffffffffU	/* EXT_MAX_BLOCKS */
#define FCP_INIT_MAX_LEN	32768		/* EXT_INIT_MAX_LEN */
#define FCP_NAME_LEN		255		/* EXT4_NAME_LEN */
#define FCP_ROOT_INO		2		/* EXT4_ROOT_INO */
#define FCP_OLD_INODE_SIZE	128		/* EXT4_GOOD_OLD_INODE_SIZE */

/* Byte offsets in a raw on-disk inode (struct ext4_inode). */
#define FCP_I_MODE		0
#define FCP_I_SIZE_LO		4
#define FCP_I_LINKS		26
#define FCP_I_FLAGS		32
#define FCP_I_BLOCK		40
#define FCP_I_EXTRA_ISIZE	128

/* What the value checks need to know about the file system. */
struct fcp_geom {
	u32 inodes_count;	/* s_inodes_count */
	u32 first_ino;		/* first non-reserved inode */
	u64 blocks_count;
	u32 first_data_block;
	u32 inode_size;		/* on-disk inode size */
};

/* Decoded values, one per tag. */
struct fcp_extent {		/* ADD_RANGE */
	u32 ino;
	u32 lblk;
	u32 len;		/* blocks, the unwritten flag taken out */
	u64 pblk;
	bool unwritten;
};

struct fcp_range {		/* DEL_RANGE */
	u32 ino;
	u32 lblk;
	u32 len;
};

struct fcp_dentry {		/* CREAT, LINK, UNLINK, DOTDOT (no name) */
	u32 dir;
	u32 ino;
	const u8 *name;
	u32 nlen;
};

struct fcp_inode {		/* INODE */
	u32 ino;
	const u8 *raw;
	u32 len;		/* bytes of raw inode */
	u16 mode;
};

struct fcp_mark {		/* HEAD (features, tid), TAIL (tid, crc) */
	u32 tid;
	u32 features;
	u32 crc;
};

/* One record as fcp_next() found it. */
struct fcp_rec {
	u16 tag;
	u16 len;		/* bytes of value */
	const u8 *tl;		/* the record's first byte */
	const u8 *val;		/* its value */
	u32 blk;		/* fc block (0: the first of the area) */
	u32 off;		/* byte offset of the record in the block */
	union {
		struct fcp_extent ext;
		struct fcp_range del;
		struct fcp_dentry de;
		struct fcp_inode ino;
		struct fcp_mark mark;
	} v;
};

/* Where and why the walk stopped. */
struct fcp_stop {
	const char *why;
	u64 bad;		/* the value a check objected to ... */
	bool has_bad;		/* ... if there is one worth printing */
	bool eol;		/* reads as the ordinary end of the log */
	u32 blk;
	u32 off;
	u16 tag;
	u16 len;
};

/* crc32c(crc, buf, len), no inversion: ext4_chksum() in the kernel. */
typedef u32 (*fcp_crc_fn)(void *ctx, u32 crc, const void *buf,
			  unsigned int len);
/* An extra check on a record that passed ours: NULL or what is wrong. */
typedef const char *(*fcp_check_fn)(void *ctx, const struct fcp_rec *r,
				    u64 *bad, bool *has_bad);

struct fcp_state {
	struct fcp_geom geom;
	u32 tid;		/* the transaction HEAD and TAILs must carry */
	u32 features;		/* the HEAD's fc_features */
	fcp_crc_fn crc_fn;
	fcp_check_fn check_fn;	/* optional */
	void *ctx;		/* for both */
	u32 crc;		/* of the fast commit so far */
	u32 recs;		/* records accepted */
	u32 recs_valid;		/* of those, up to the last good tail */
	u32 commits;		/* good tails */
	u32 commit_first;	/* first record of the fast commit at hand */
	u32 tail_blk;		/* the last good tail, if commits */
	u32 tail_off;
	bool stopped;
	struct fcp_stop stop;
};

/* Walks the records of one block. */
struct fcp_cursor {
	const u8 *base;
	const u8 *pos;
	const u8 *end;
	u32 blk;
};

void fcp_init(struct fcp_state *st, const struct fcp_geom *geom, u32 tid,
	      fcp_crc_fn crc_fn, void *ctx);
void fcp_cursor_init(struct fcp_cursor *c, const void *block, u32 size,
		     u32 blk);
int fcp_next(struct fcp_state *st, struct fcp_cursor *c, struct fcp_rec *r);
const char *fcp_tag_name(u16 tag);

#endif /* __EXT4FC_FC_PARSE_H__ */
