// SPDX-License-Identifier: GPL-2.0
/*
 * randw - random 4 KiB writes into a preallocated file, each batch made
 * durable by fdatasync (issue 29's database-like workload, for bench/;
 * fio's randwrite with fdatasync and fallocate=native is the model).
 *
 *   randw FILE N SECONDS MIB
 *
 * FILE is created and preallocated to MIB MiB with fallocate(2) mode 0
 * (unwritten extents, the size set), then for SECONDS: N pwrite()s of
 * 4 KiB at random 4 KiB-aligned offsets (a fixed seed: every
 * configuration writes the same offsets), then fdatasync.  Each batch
 * splits unwritten extents apart: a fast commit that logs only what
 * changed stays small, one that logs everything between the lowest and
 * the highest block touched does not.  The result is one line of
 * key=value pairs: the batches (fsyncs) and their rate, fdatasync's p50,
 * p99 and max latency in microseconds.
 *
 * Linked static (gcc -static -O2) into build/bin/randw.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pctl.h"
#include "util.h"

#define IO		4096
#define MAX_SAMPLES	(1UL << 20)

static const char *prog = "randw";

/* xorshift64: the same offsets on every run and configuration */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}


int main(int argc, char **argv)
{
	unsigned long n, secs, mib, blocks, i, done = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ULL, t0, start, *lat;
	char buf[IO];
	double el;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: %s FILE N SECONDS MIB\n", prog);
		return 2;
	}
	n = get_num("N", argv[2], 1, 4096);
	secs = get_num("SECONDS", argv[3], 1, 3600);
	mib = get_num("MIB", argv[4], 1, 1UL << 20);
	blocks = mib * (1048576 / IO);
	lat = malloc(MAX_SAMPLES * sizeof(*lat));
	if (!lat) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || fallocate(fd, 0, 0, (off_t)blocks * IO)) {
		fprintf(stderr, "%s: cannot create and preallocate %s (%lu MiB): %s\n",
			prog, argv[1], mib, strerror(errno));
		return 1;
	}
	/* the preallocation is durable before the clock starts */
	if (fsync(fd)) {
		fprintf(stderr, "%s: fsync %s: %s\n", prog, argv[1], strerror(errno));
		return 1;
	}
	memset(buf, 'r', sizeof(buf));
	start = now_ns();
	while (now_ns() - start < secs * 1000000000ULL && done < MAX_SAMPLES) {
		for (i = 0; i < n; i++) {
			off_t off = (off_t)(next_rand(&seed) % blocks) * IO;

			if (pwrite(fd, buf, IO, off) != IO) {
				fprintf(stderr, "%s: pwrite %s at %lld: %s\n", prog,
					argv[1], (long long)off, strerror(errno));
				return 1;
			}
		}
		t0 = now_ns();
		if (fdatasync(fd)) {
			fprintf(stderr, "%s: fdatasync %s: %s\n", prog, argv[1],
				strerror(errno));
			return 1;
		}
		lat[done++] = now_ns() - t0;
	}
	el = (now_ns() - start) / 1e9;
	close(fd);
	qsort(lat, done, sizeof(*lat), cmp_u64);
	printf("randw: n=%lu mib=%lu secs=%.3f fsyncs=%lu fsyncs_per_s=%.1f fsync_p50_us=%.0f fsync_p99_us=%.0f fsync_max_us=%.0f\n",
	       n, mib, el, done, done / el, pct_us(lat, done, 50),
	       pct_us(lat, done, 99), pct_us(lat, done, 100));
	return 0;
}
