/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext4fc fast commits: the on-disk record format, and nothing else.
 *
 * Shared by the kernel (fc_engine.h includes it for ext4; the parser,
 * fc_parse.c, reads it) and the host programs that read or write a
 * fast-commit area: tools/fcdump.c, tests/fuzz/fc_parse_fuzz.c and
 * tests/src/fccorrupt.c (the way xfs's libxfs/xfs_log_format.h serves the
 * kernel and xfsprogs).  It needs only <linux/types.h>, the kernel's or
 * the host's uapi copy, and holds no state of the engine.
 *
 * The records must stay byte-compatible with the kernel's
 * fs/ext4/fast_commit.h and e2fsprogs' lib/ext2fs/fast_commit.h: a
 * fast-commit area is a sequence of little-endian tag-length-value
 * records, "struct ext4_fc_tl" followed by fc_len bytes of value, and a
 * record never crosses a journal block.
 */
#ifndef __EXT4FC_FC_FORMAT_H__
#define __EXT4FC_FC_FORMAT_H__

#include <linux/types.h>

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
 * Why the next commit has to be a full one.  Not on disk, but read from
 * outside like the format: fc_info prints the counts in this order, with
 * stock ext4's wording (fc_commit.c), and the first ten are stock's
 * numbers.  The names are the interface the rest of ext4 uses
 * (ext4_fc_mark_ineligible()).
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
	EXT4_FC_REASON_ORPHAN_DEL = 11, /* ours: ext4_fc_orphan_del() */
	EXT4_FC_REASON_MAX = 12
};

#endif /* __EXT4FC_FC_FORMAT_H__ */
