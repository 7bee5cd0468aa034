/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - the small helpers the host tools (tools/), the test helpers
 * (tests/src, tests/fuzz) and the benchmark workloads (bench/src) share,
 * as the kernel's selftests share tools/testing/selftests/kselftest.h.
 * Each of those programs is one C file built alone (most of them static,
 * for the guest too), so everything here is static inline.
 *
 * A program names itself for die() and get_num(): this header declares
 * prog, and the program defines it after the include:
 *
 *	#include "util.h"
 *	static const char *prog = "fcdump";
 */
#ifndef EXT4FC_TOOLS_UTIL_H
#define EXT4FC_TOOLS_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef __noreturn
#define __noreturn	__attribute__((noreturn))
#endif
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* The program's name in messages (a tentative definition: see above). */
static const char *prog;

static inline void __noreturn vdie(int status, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	exit(status);
}

/* "prog: message" on stderr, then exit with @status. */
static inline void __noreturn __printf(2, 3)
die_status(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(status, fmt, ap);
}

/* The same, exit status 1. */
static inline void __noreturn __printf(1, 2) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(1, fmt, ap);
}

/*
 * Option @what's argument @s as a number in [@min, @max] (decimal, or 0x
 * hex, 0 octal, as strtoul() reads them); anything else ends the program
 * with status 2, the usage error.
 */
static inline unsigned long get_num(const char *what, const char *s,
				    unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max)
		die_status(2, "%s: '%s' is not a number from %lu to %lu",
			   what, s, min, max);
	return v;
}

/* xorshift64*: small, fast, and the same sequence everywhere from a seed. */
static inline uint64_t xorshift64s(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/*
 * crc32c as the kernel's ext4_chksum()/jbd2_chksum() compute it:
 * reflected Castagnoli polynomial, the caller's seed as the initial
 * value, no final inversion.
 */
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

#endif /* EXT4FC_TOOLS_UTIL_H */
