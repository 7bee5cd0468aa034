// SPDX-License-Identifier: GPL-2.0
/*
 * interfere - what one thread's fsyncs cost the threads that never call
 * fsync (issue 14's interference workload, for bench/).
 *
 * Three threads run for SECONDS in DIR:
 *   fsync    appends 4 KiB to DIR/log and fsyncs it, in a loop;
 *   writer   appends 4 KiB to DIR/big with buffered write()s and never
 *            fsyncs (it starts a new file every 64 MiB and unlinks the
 *            one before, so it keeps allocating);
 *   creator  creates DIR/c.N, writes 100 bytes, closes it, in a loop.
 * The result is one line of key=value pairs: the fsyncs and their p50,
 * p99 and max latency, the writer's write() latency p99, p99.9 and max,
 * and the creates, all latencies in microseconds.
 *
 * Linked static (gcc -static -O2 -pthread) into build/bin/interfere.
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

#include "pctl.h"

#define IO		4096
#define BIG_FILE	(64ULL << 20)
#define MAX_SAMPLES	(1UL << 22)

static const char *prog = "interfere";
static const char *dir;
static int stop;			/* read and set with __atomic builtins */

struct samples {
	uint64_t *v;
	unsigned long n;
	int err;			/* errno of the first failure */
	const char *what;		/* what failed */
};

static int stopped(void)
{
	return __atomic_load_n(&stop, __ATOMIC_RELAXED);
}

static void add(struct samples *s, uint64_t ns)
{
	if (s->n < MAX_SAMPLES)
		s->v[s->n++] = ns;
}

static void *fail(struct samples *s, const char *what)
{
	s->err = errno;
	s->what = what;
	return NULL;
}

static void *fsync_main(void *arg)
{
	struct samples *s = arg;
	char path[4096], buf[IO];
	uint64_t t0;
	int fd;

	memset(buf, 'f', sizeof(buf));
	snprintf(path, sizeof(path), "%s/log", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return fail(s, "open log");
	while (!stopped()) {
		if (write(fd, buf, IO) != IO)
			return fail(s, "append to log");
		t0 = now_ns();
		if (fsync(fd))
			return fail(s, "fsync log");
		add(s, now_ns() - t0);
	}
	close(fd);
	return NULL;
}

static void *writer_main(void *arg)
{
	struct samples *s = arg;
	char path[4096], prev[4096], buf[IO];
	uint64_t off = 0, t0;
	unsigned int n = 0;
	int fd = -1;

	memset(buf, 'w', sizeof(buf));
	prev[0] = path[0] = 0;
	while (!stopped()) {
		if (fd < 0 || off >= BIG_FILE) {
			if (fd >= 0)
				close(fd);
			if (prev[0])
				unlink(prev);
			snprintf(prev, sizeof(prev), "%s", path);
			snprintf(path, sizeof(path), "%s/big.%u", dir, n++);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				return fail(s, "open big");
			off = 0;
		}
		t0 = now_ns();
		if (write(fd, buf, IO) != IO)
			return fail(s, "write big");
		add(s, now_ns() - t0);
		off += IO;
	}
	close(fd);
	return NULL;
}

static void *creator_main(void *arg)
{
	struct samples *s = arg;
	char path[4096], buf[100];
	unsigned long n = 0;
	uint64_t t0;
	int fd;

	memset(buf, 'c', sizeof(buf));
	while (!stopped()) {
		snprintf(path, sizeof(path), "%s/c.%lu", dir, n++);
		t0 = now_ns();
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return fail(s, "create");
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			return fail(s, "write a created file");
		if (close(fd))
			return fail(s, "close a created file");
		add(s, now_ns() - t0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	void *(*mains[3])(void *) = { fsync_main, writer_main, creator_main };
	struct samples s[3] = { { 0 } };
	pthread_t t[3];
	unsigned long secs;
	char *end;
	double el;
	uint64_t t0;
	int i, bad = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DIR SECONDS\n", prog);
		return 2;
	}
	dir = argv[1];
	secs = strtoul(argv[2], &end, 10);
	if (*end || !secs || secs > 3600) {
		fprintf(stderr, "%s: SECONDS wants 1..3600, not '%s'\n", prog, argv[2]);
		return 2;
	}
	for (i = 0; i < 3; i++) {
		s[i].v = malloc(MAX_SAMPLES * sizeof(*s[i].v));
		if (!s[i].v) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return 1;
		}
	}
	t0 = now_ns();
	for (i = 0; i < 3; i++) {
		if (pthread_create(&t[i], NULL, mains[i], &s[i])) {
			fprintf(stderr, "%s: cannot start thread %d\n", prog, i);
			return 1;
		}
	}
	sleep(secs);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	el = (now_ns() - t0) / 1e9;
	for (i = 0; i < 3; i++) {
		if (s[i].what) {
			fprintf(stderr, "%s: %s in %s: %s\n", prog, s[i].what,
				dir, strerror(s[i].err));
			bad = 1;
		}
		qsort(s[i].v, s[i].n, sizeof(*s[i].v), cmp_u64);
	}
	if (bad)
		return 1;
	printf("interfere: secs=%.3f fsyncs=%lu fsyncs_per_s=%.1f fsync_p50_us=%.0f fsync_p99_us=%.0f fsync_max_us=%.0f writes=%lu write_p99_us=%.0f write_p999_us=%.0f write_max_us=%.0f creates=%lu\n",
	       el, s[0].n, s[0].n / el, pct_us(s[0].v, s[0].n, 50),
	       pct_us(s[0].v, s[0].n, 99), pct_us(s[0].v, s[0].n, 100),
	       s[1].n, pct_us(s[1].v, s[1].n, 99), pct_us(s[1].v, s[1].n, 99.9),
	       pct_us(s[1].v, s[1].n, 100), s[2].n);
	return 0;
}
