// SPDX-License-Identifier: GPL-2.0
/*
 * fsynclat - small-append fsync latency probe for the ext4fc benchmarks
 * (bench/).
 *
 * Appends BYTES to FILE and fsyncs it, COUNT times (waiting INTERVAL
 * microseconds between two appends), and reports the latency of each
 * fsync: p50, p99 and max in microseconds, with the appends per second.
 *
 * With -w PREFIX a second thread is a large buffered writer meanwhile:
 * it writes PREFIX.0, PREFIX.1, ... sequentially in 1 MiB write()s,
 * never fsyncs, moves to the next file when one reaches SIZE bytes and
 * unlinks the one before (so it keeps allocating blocks, at most 2 * SIZE
 * on disk).  The probe starts WARMUP milliseconds after the writer, so
 * there is dirty data to get in its way; the writer stops when the probe
 * is done.  The result is one line of key=value pairs.
 *
 * Linked static (gcc -static -O2 -pthread) into build/bin/fsynclat.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>

#include "pctl.h"
#include "util.h"

#define WRITER_IO	(1 << 20)

static const char *prog = "fsynclat";

static const char *wprefix;
static uint64_t wsize = 128ULL << 20;
static int stop;			/* read and set with __atomic builtins */
static uint64_t wbytes;
static int werr;

static void *writer_main(void *arg)
{
	char path[4096], prev[4096];
	unsigned char *buf = malloc(WRITER_IO);
	uint64_t off = 0;
	unsigned int n = 0;
	int fd = -1;

	(void)arg;
	if (!buf) {
		werr = errno;
		return NULL;
	}
	memset(buf, 'w', WRITER_IO);
	prev[0] = '\0';
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		ssize_t w;

		if (fd < 0) {
			snprintf(path, sizeof(path), "%s.%u", wprefix, n++);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0) {
				werr = errno;
				break;
			}
			off = 0;
		}
		w = write(fd, buf, WRITER_IO);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			werr = errno;
			break;
		}
		off += w;
		__atomic_add_fetch(&wbytes, w, __ATOMIC_RELAXED);
		if (off >= wsize) {
			close(fd);
			fd = -1;
			if (prev[0])
				unlink(prev);
			memcpy(prev, path, sizeof(prev));
		}
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static void __noreturn usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: %s -f FILE [-n COUNT] [-b BYTES] [-i INTERVAL_US] [-s MAXSECS]\n"
		"                [-w PREFIX [-W SIZE_MIB] [-u WARMUP_MS]]\n"
		"COUNT appends of BYTES to FILE, each followed by fsync (defaults: 500,\n"
		"4096, interval 0, no time limit); -w adds a buffered writer of files\n"
		"PREFIX.N of SIZE_MIB (default 128) each, started WARMUP_MS (default\n"
		"1000) before the probe.\n", prog);
	exit(status);
}


int main(int argc, char **argv)
{
	unsigned long count = 500, bytes = 4096, interval = 0, warmup = 1000;
	unsigned long max_secs = 0, i, n = 0;
	const char *file = NULL;
	uint64_t *lat, t0, t_end, w0 = 0;
	unsigned char *buf;
	pthread_t wt;
	double secs;
	int c, fd;

	while ((c = getopt(argc, argv, "f:n:b:i:s:w:W:u:h")) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'n':
			count = get_num("-n", optarg, 0, 1UL << 26);
			break;
		case 'b':
			bytes = get_num("-b", optarg, 0, 1UL << 26);
			break;
		case 'i':
			interval = get_num("-i", optarg, 0, 10000000);
			break;
		case 's':
			max_secs = get_num("-s", optarg, 0, 1UL << 20);
			break;
		case 'w':
			wprefix = optarg;
			break;
		case 'W':
			wsize = (uint64_t)get_num("-W", optarg, 0, 1UL << 20) << 20;
			break;
		case 'u':
			warmup = get_num("-u", optarg, 0, 600000);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (!file || optind != argc || !count || !bytes || !wsize)
		usage(2);
	lat = calloc(count, sizeof(*lat));
	buf = malloc(bytes);
	if (!lat || !buf) {
		perror(prog);
		return 1;
	}
	memset(buf, 'a', bytes);
	fd = open(file, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0) {
		fprintf(stderr, "%s: open %s: %s\n", prog, file, strerror(errno));
		return 1;
	}
	if (wprefix) {
		if (pthread_create(&wt, NULL, writer_main, NULL)) {
			fprintf(stderr, "%s: cannot start the writer\n", prog);
			return 1;
		}
		usleep(warmup * 1000);
		w0 = __atomic_load_n(&wbytes, __ATOMIC_RELAXED);
	}

	t0 = now_ns();
	for (i = 0; i < count; i++) {
		uint64_t a;

		if (write(fd, buf, bytes) != (ssize_t)bytes) {
			fprintf(stderr, "%s: append %s: %s\n", prog, file, strerror(errno));
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
			return 1;
		}
		a = now_ns();
		if (fsync(fd)) {
			fprintf(stderr, "%s: fsync %s: %s\n", prog, file, strerror(errno));
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
			return 1;
		}
		lat[n++] = now_ns() - a;
		if (max_secs && now_ns() - t0 > max_secs * 1000000000ULL)
			break;
		if (interval)
			usleep(interval);
	}
	t_end = now_ns();
	secs = (t_end - t0) / 1e9;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	if (wprefix)
		pthread_join(wt, NULL);
	close(fd);
	if (werr) {
		fprintf(stderr, "%s: writer: %s\n", prog, strerror(werr));
		return 1;
	}
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("fsynclat: appends=%lu bytes=%lu secs=%.3f appends_per_s=%.1f p50_us=%.0f p99_us=%.0f max_us=%.0f writer_mib=%.1f writer_mib_per_s=%.1f\n",
	       n, bytes, secs, secs > 0 ? n / secs : 0, pct_us(lat, n, 50),
	       pct_us(lat, n, 99), pct_us(lat, n, 100),
	       (wbytes - w0) / 1048576.0,
	       secs > 0 ? (wbytes - w0) / 1048576.0 / secs : 0);
	return 0;
}
