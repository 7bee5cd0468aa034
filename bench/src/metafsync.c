// SPDX-License-Identifier: GPL-2.0
/*
 * metafsync - fsyncs with no data to order, only metadata (issue 30's
 * workload for bench/: what selective flushing may commit with a FUA
 * write alone, without a cache flush).
 *
 *   metafsync -d DIR [-n ITERATIONS] [-D]
 *
 * Each iteration i, in DIR (which must exist):
 *
 *   create a.i (O_CREAT | O_EXCL, empty), rename a.i -> b.i, link
 *   b.i -> c.i, unlink b.i, fchmod the open file (0600 or 0640 in
 *   turn: a real change each time), fsync it, close it
 *
 * and with -D also fsync DIR after the file (a directory fsync: the names
 * are the directory's).  No data is ever written: every fsync has only
 * inode and directory changes to commit.  After the loop it checks that
 * the last file has one link, the mode set last and size 0, and that
 * its a. and b. names are gone.
 *
 * The result is one line of key=value pairs: iterations, fsyncs (files
 * and directory), seconds, fsyncs per second (over the whole loop, the
 * namespace operations included), the file fsyncs' p50, p99 and max
 * latency in microseconds and, with -D, the directory fsyncs'.
 *
 * Linked static (gcc -static -O2) into build/bin/metafsync.
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
#include <sys/stat.h>
#include <sys/types.h>

#include "pctl.h"
#include "util.h"

#define MAX_ITER	(1UL << 22)

static const char *prog = "metafsync";

static void name(char *p, size_t len, const char *dir, char c, unsigned long i)
{
	snprintf(p, len, "%s/%c.%lu", dir, c, i);
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "%s: %s %s: %s\n", prog, what, path, strerror(errno));
	return 1;
}

static mode_t mode_of(unsigned long i)
{
	return i & 1 ? 0640 : 0600;
}

/* After the loop: the last file as the loop left it, its old names gone. */
static int check(const char *dir, unsigned long n)
{
	char p[4096];
	struct stat st;
	char c;

	name(p, sizeof(p), dir, 'c', n - 1);
	if (stat(p, &st))
		return fail("stat", p);
	if (st.st_nlink != 1 || (st.st_mode & 07777) != mode_of(n - 1) ||
	    st.st_size) {
		fprintf(stderr, "%s: %s: %lu links, mode %04o, %lld bytes; want 1, %04o, 0\n",
			prog, p, (unsigned long)st.st_nlink,
			(unsigned int)(st.st_mode & 07777),
			(long long)st.st_size, (unsigned int)mode_of(n - 1));
		return 1;
	}
	for (c = 'a'; c <= 'b'; c++) {
		name(p, sizeof(p), dir, c, n - 1);
		if (!stat(p, &st) || errno != ENOENT) {
			fprintf(stderr, "%s: %s is still there\n", prog, p);
			return 1;
		}
	}
	return 0;
}

static void __noreturn usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: %s -d DIR [-n ITERATIONS] [-D]\n"
		"Per iteration: create a.I, rename it b.I, link c.I, unlink b.I,\n"
		"fchmod, fsync the file (-D: then the directory too).  DIR must\n"
		"exist.  Default ITERATIONS 100.\n", prog);
	exit(status);
}

int main(int argc, char **argv)
{
	char a[4096], b[4096], cn[4096];
	uint64_t *lat, *dlat, t0, start;
	unsigned long n = 100, i, nd = 0;
	const char *dir = NULL;
	int c, fd, dfd, dirsync = 0;
	double el;

	while ((c = getopt(argc, argv, "d:n:Dh")) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'n':
			n = get_num("-n", optarg, 1, MAX_ITER);
			break;
		case 'D':
			dirsync = 1;
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (!dir || optind != argc)
		usage(2);
	lat = calloc(n, sizeof(*lat));
	dlat = calloc(n, sizeof(*dlat));
	if (!lat || !dlat) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return fail("open", dir);

	start = now_ns();
	for (i = 0; i < n; i++) {
		name(a, sizeof(a), dir, 'a', i);
		name(b, sizeof(b), dir, 'b', i);
		name(cn, sizeof(cn), dir, 'c', i);
		fd = open(a, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return fail("create", a);
		if (rename(a, b))
			return fail("rename", a);
		if (link(b, cn))
			return fail("link", b);
		if (unlink(b))
			return fail("unlink", b);
		if (fchmod(fd, mode_of(i)))
			return fail("fchmod", cn);
		t0 = now_ns();
		if (fsync(fd))
			return fail("fsync", cn);
		lat[i] = now_ns() - t0;
		if (dirsync) {
			t0 = now_ns();
			if (fsync(dfd))
				return fail("fsync", dir);
			dlat[nd++] = now_ns() - t0;
		}
		if (close(fd))
			return fail("close", cn);
	}
	el = (now_ns() - start) / 1e9;
	close(dfd);
	if (check(dir, n))
		return 1;
	qsort(lat, n, sizeof(*lat), cmp_u64);
	qsort(dlat, nd, sizeof(*dlat), cmp_u64);
	printf("metafsync: iterations=%lu fsyncs=%lu dir_fsyncs=%lu secs=%.3f fsyncs_per_s=%.1f fsync_p50_us=%.0f fsync_p99_us=%.0f fsync_max_us=%.0f",
	       n, n + nd, nd, el, el > 0 ? (n + nd) / el : 0,
	       pct_us(lat, n, 50), pct_us(lat, n, 99), pct_us(lat, n, 100));
	if (dirsync)
		printf(" dirfsync_p50_us=%.0f dirfsync_p99_us=%.0f dirfsync_max_us=%.0f",
		       pct_us(dlat, nd, 50), pct_us(dlat, nd, 99),
		       pct_us(dlat, nd, 100));
	printf("\n");
	return 0;
}
