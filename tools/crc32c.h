/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crc32c for the host tools, as the kernel's ext4_chksum()/jbd2_chksum()
 * compute it: reflected Castagnoli polynomial, the caller's seed as the
 * initial value, no final inversion.
 */
#ifndef EXT4FC_TOOLS_CRC32C_H
#define EXT4FC_TOOLS_CRC32C_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	static uint32_t table[256];
	const uint8_t *p = buf;
	uint32_t c;
	int i, k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0x82f63b78 : c >> 1;
			table[i] = c;
		}
	}
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#endif
