// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the fast-commit record parser (ext4fc/fc_parse.c),
 * built with AddressSanitizer by 'make fuzz'.
 *
 * Input: a 32-byte header of eight le32 words (tid, block size, inode
 * count, first inode, block count, first data block, inode size, unused),
 * then the area, block after block; the last block may be short.  fcdump
 * --extract writes such files from real images (tests/fuzz/README).
 *
 * Each block is copied into a heap buffer of exactly its size, so a read
 * past a block's end is a read past a buffer's end for ASan.  The input is
 * parsed twice as the kernel does it: a scan over every block, then a
 * replay pass that stops at the last good tail.  What the parser returns
 * is checked against its contract; a breach aborts (a crash to libFuzzer).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fc_parse.h"
#include "fc_format.h"
#include "util.h"

#define HDR_LEN 32

static u32 fuzz_crc(void *ctx, u32 crc, const void *buf, unsigned int len)
{
	(void)ctx;
	return crc32c(crc, buf, len);
}

static void breach(const char *what, const struct fcp_rec *r)
{
	fprintf(stderr, "fc_parse contract broken: %s (block %u off %u tag %u len %u)\n",
		what, r->blk, r->off, r->tag, r->len);
	abort();
}

/* What a record fcp_next() returned must satisfy. */
static void check_rec(const struct fcp_state *st, const struct fcp_cursor *c,
		      const struct fcp_rec *r)
{
	if (r->tl < c->base || r->val + r->len > c->end || c->pos > c->end)
		breach("record outside its block", r);
	if (!fcp_tag_name(r->tag))
		breach("unknown tag accepted", r);
	switch (r->tag) {
	case EXT4_FC_TAG_ADD_RANGE:
		if (!r->v.ext.len || r->v.ext.pblk + r->v.ext.len >
		    st->geom.blocks_count)
			breach("extent outside the file system", r);
		break;
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
		if (!r->v.de.nlen || r->v.de.nlen > FCP_NAME_LEN ||
		    r->v.de.name + r->v.de.nlen > c->end ||
		    memchr(r->v.de.name, '/', r->v.de.nlen))
			breach("bad name accepted", r);
		break;
	case EXT4_FC_TAG_INODE:
		if (r->v.ino.len > st->geom.inode_size ||
		    r->v.ino.raw + r->v.ino.len > c->end ||
		    r->v.ino.ino < st->geom.first_ino ||
		    r->v.ino.ino > st->geom.inodes_count)
			breach("bad inode accepted", r);
		break;
	case EXT4_FC_TAG_HEAD:
		if (r->blk || r->off || r->v.mark.tid != st->tid)
			breach("bad head accepted", r);
		break;
	case EXT4_FC_TAG_TAIL:
		if (r->v.mark.tid != st->tid)
			breach("tail of another tid accepted", r);
		break;
	}
}

/* One pass; replay stops after max records (the scan's good ones). */
static u32 pass(const struct fcp_geom *g, u32 tid, u8 **blocks, u32 *sizes,
		u32 n, u32 max)
{
	struct fcp_state st;
	struct fcp_cursor c = { 0 };
	struct fcp_rec r = { 0 };
	u32 i;
	int got = 0;

	fcp_init(&st, g, tid, fuzz_crc, NULL);
	for (i = 0; i < n && got >= 0 && st.recs < max; i++) {
		fcp_cursor_init(&c, blocks[i], sizes[i], i);
		while (st.recs < max && (got = fcp_next(&st, &c, &r)) > 0)
			check_rec(&st, &c, &r);
	}
	if (st.recs_valid > st.recs || (st.stopped && !st.stop.why))
		breach("inconsistent state", &r);
	if (st.stopped && fcp_next(&st, &c, &r) != -1)
		breach("walk went on after a stop", &r);
	return st.recs_valid;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fcp_geom g;
	u8 *blocks[64];
	u32 sizes[64], bs, tid, n = 0, valid, again;
	size_t pos;

	if (size < HDR_LEN)
		return 0;
	tid = get_unaligned_le32(data);
	bs = get_unaligned_le32(data + 4);
	bs = bs < 16 ? 16 : bs > 65536 ? 65536 : bs;
	g.inodes_count = get_unaligned_le32(data + 8);
	g.first_ino = get_unaligned_le32(data + 12);
	g.blocks_count = get_unaligned_le32(data + 16);
	g.first_data_block = get_unaligned_le32(data + 20);
	g.inode_size = get_unaligned_le32(data + 24);
	for (pos = HDR_LEN; pos < size && n < 64; pos += bs, n++) {
		sizes[n] = size - pos < bs ? size - pos : bs;
		blocks[n] = malloc(sizes[n]);
		if (!blocks[n])
			abort();
		memcpy(blocks[n], data + pos, sizes[n]);
	}
	valid = pass(&g, tid, blocks, sizes, n, 0xffffffff);
	again = pass(&g, tid, blocks, sizes, n, valid);
	if (again != valid) {
		fprintf(stderr, "replay pass kept %u records, scan %u\n",
			again, valid);
		abort();
	}
	while (n--)
		free(blocks[n]);
	return 0;
}
