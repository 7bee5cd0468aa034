// SPDX-License-Identifier: GPL-2.0
/*
 * varmail - a mail-server-like fsync mix, after filebench's "varmail"
 * personality, for the ext4fc benchmarks (bench/).
 *
 * One directory holds NFILES numbered files.  "varmail -p" prepares it
 * (80 % of the files exist, of random size around MEAN, then sync()).
 * A run starts THREADS threads; thread t owns the files whose number is
 * t modulo THREADS (so no two threads touch one file) and repeats this
 * loop, one filebench flowop per step:
 *
 *	delete an existing file;
 *	create a missing one, append ~MEAN bytes, fsync, close;
 *	open an existing one, read it whole, append ~APPEND bytes, fsync,
 *	close;
 *	open an existing one, read it whole, close.
 *
 * That is 13 flowops and 2 fsyncs per loop.  The work is fixed (LOOPS
 * loops in all, a pseudo-random sequence that depends only on the seed
 * and the thread), so two file systems do the same operations; -s stops
 * early when a time limit passes.  The result is one line of key=value
 * pairs: loops, fsyncs, seconds, loops and flowops per second, and the
 * fsync latency p50, p99 and max in microseconds.
 *
 * Linked static (gcc -static -O2 -pthread) into build/bin/varmail.
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
#include <sys/stat.h>
#include <sys/types.h>

#include "pctl.h"
#include "util.h"

#define FLOWOPS_PER_LOOP	13
#define FSYNCS_PER_LOOP		2
#define IO_SIZE			(64 * 1024)
#define MAX_THREADS		256

static const char *prog = "varmail";

struct options {
	const char *dir;
	unsigned int nfiles;
	unsigned int threads;
	unsigned long loops;
	unsigned int mean;
	unsigned int append;
	unsigned int seed;
	double max_secs;
};

struct worker {
	unsigned int id;
	const struct options *opt;
	uint64_t rnd;
	unsigned long loops;		/* to do */
	unsigned long done;		/* done */
	unsigned long nlat;
	uint64_t *lat_ns;		/* FSYNCS_PER_LOOP * loops */
	unsigned char *exists;		/* by file number / threads */
	unsigned int nown;
	unsigned char *buf;
	int err;
};

static double t_start;
static int stop;			/* read and set with __atomic builtins */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A size uniform in [1, 2 * mean - 1]: its mean is @mean. */
static unsigned int rnd_size(uint64_t *s, unsigned int mean)
{
	if (mean <= 1)
		return 1;
	return 1 + xorshift64s(s) % (2 * mean - 1);
}

static void file_name(char *out, size_t len, const char *dir, unsigned int n)
{
	snprintf(out, len, "%s/%06u", dir, n);
}

static int write_all(int fd, const unsigned char *buf, size_t len)
{
	while (len) {
		size_t n = len > IO_SIZE ? IO_SIZE : len;
		ssize_t w = write(fd, buf, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		len -= w;
	}
	return 0;
}

static int read_whole(int fd, unsigned char *buf)
{
	ssize_t r;

	do {
		r = read(fd, buf, IO_SIZE);
	} while (r > 0 || (r < 0 && errno == EINTR));
	return r < 0 ? -1 : 0;
}

/* Pick one of the thread's files that exists (@want 1) or not (0). */
static int pick(struct worker *w, int want)
{
	unsigned int i, start;

	if (!w->nown)
		return -1;
	start = xorshift64s(&w->rnd) % w->nown;
	for (i = 0; i < w->nown; i++) {
		unsigned int k = (start + i) % w->nown;

		if (!!w->exists[k] == want)
			return k;
	}
	return -1;
}

static int fail(struct worker *w, const char *op, const char *path)
{
	fprintf(stderr, "%s: thread %u: %s %s: %s\n", prog, w->id, op, path,
		strerror(errno));
	w->err = 1;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	return -1;
}

static int timed_fsync(struct worker *w, int fd, const char *path)
{
	uint64_t t0 = now_ns();

	if (fsync(fd))
		return fail(w, "fsync", path);
	w->lat_ns[w->nlat++] = now_ns() - t0;
	return 0;
}

/* open_pick: open file @k of worker @w (name into @path) with @flags. */
static int open_pick(struct worker *w, int k, int flags, char *path, size_t len)
{
	const struct options *o = w->opt;
	int fd;

	file_name(path, len, o->dir, k * o->threads + w->id);
	fd = open(path, flags, 0644);
	if (fd < 0)
		fail(w, "open", path);
	return fd;
}

/*
 * step: one varmail flowop chain on file @k: open it with @flags, read it
 * whole if @rd, append @wr bytes if @wr, fsync it if @sync, close it.
 */
static int step(struct worker *w, int k, int flags, int rd, size_t wr,
		int sync)
{
	char path[4096];
	int fd;

	fd = open_pick(w, k, flags, path, sizeof(path));
	if (fd < 0)
		return -1;
	if (rd && read_whole(fd, w->buf))
		return fail(w, "read", path);
	if (wr && write_all(fd, w->buf, wr))
		return fail(w, "write", path);
	if (sync && timed_fsync(w, fd, path))
		return -1;
	if (close(fd))
		return fail(w, "close", path);
	return 0;
}

static int one_loop(struct worker *w)
{
	const struct options *o = w->opt;
	char path[4096];
	int k;

	/* deletefile */
	k = pick(w, 1);
	if (k >= 0) {
		file_name(path, sizeof(path), o->dir, k * o->threads + w->id);
		if (unlink(path))
			return fail(w, "unlink", path);
		w->exists[k] = 0;
	}

	/* createfile, appendfilerand, fsync, closefile */
	k = pick(w, 0);
	if (k >= 0) {
		w->exists[k] = 1;
		if (step(w, k, O_WRONLY | O_CREAT | O_EXCL, 0,
			 rnd_size(&w->rnd, o->mean), 1))
			return -1;
	}

	/* openfile, readwholefile, appendfilerand, fsync, closefile */
	k = pick(w, 1);
	if (k >= 0 && step(w, k, O_RDWR | O_APPEND, 1,
			   rnd_size(&w->rnd, o->append), 1))
		return -1;

	/* openfile, readwholefile, closefile */
	k = pick(w, 1);
	if (k >= 0 && step(w, k, O_RDONLY, 1, 0, 0))
		return -1;
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct options *o = w->opt;

	while (w->done < w->loops && !__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (one_loop(w))
			break;
		w->done++;
		if (o->max_secs > 0 && now() - t_start > o->max_secs)
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int prepare(const struct options *o)
{
	uint64_t rnd = 0x9e3779b97f4a7c15ULL ^ o->seed;
	unsigned char *buf = calloc(1, 2 * o->mean + IO_SIZE);
	char path[4096];
	unsigned int n;
	int fd;

	if (!buf) {
		perror(prog);
		return 1;
	}
	memset(buf, 'v', 2 * o->mean + IO_SIZE);
	if (mkdir(o->dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: mkdir %s: %s\n", prog, o->dir, strerror(errno));
		return 1;
	}
	/* filebench's prealloc=80: four files in five exist. */
	for (n = 0; n < o->nfiles; n++) {
		if (n % 5 == 4)
			continue;
		file_name(path, sizeof(path), o->dir, n);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write_all(fd, buf, rnd_size(&rnd, o->mean)) || close(fd)) {
			fprintf(stderr, "%s: creating %s: %s\n", prog, path, strerror(errno));
			return 1;
		}
	}
	sync();
	printf("varmail: prepared dir=%s files=%u of %u mean=%u\n", o->dir,
	       o->nfiles - o->nfiles / 5, o->nfiles, o->mean);
	free(buf);
	return 0;
}

static int run(const struct options *o)
{
	struct worker *ws = calloc(o->threads, sizeof(*ws));
	unsigned long loops = 0, nlat = 0, i, j;
	uint64_t *all;
	double secs;
	int err = 0;

	if (!ws) {
		perror(prog);
		return 1;
	}
	for (i = 0; i < o->threads; i++) {
		struct worker *w = &ws[i];
		struct stat st;
		char path[4096];

		w->id = i;
		w->opt = o;
		w->rnd = 0x9e3779b97f4a7c15ULL * (i + 1) ^ o->seed;
		w->loops = o->loops / o->threads + (i < o->loops % o->threads);
		w->nown = o->nfiles / o->threads + (i < o->nfiles % o->threads);
		w->lat_ns = calloc(FSYNCS_PER_LOOP * w->loops + 1, sizeof(uint64_t));
		w->exists = calloc(w->nown + 1, 1);
		w->buf = malloc(2 * (o->mean > o->append ? o->mean : o->append) + IO_SIZE);
		if (!w->lat_ns || !w->exists || !w->buf) {
			perror(prog);
			return 1;
		}
		memset(w->buf, 'm', 2 * (o->mean > o->append ? o->mean : o->append) + IO_SIZE);
		for (j = 0; j < w->nown; j++) {
			file_name(path, sizeof(path), o->dir, j * o->threads + i);
			w->exists[j] = stat(path, &st) == 0;
		}
	}
	t_start = now();
	if (run_workers(ws, sizeof(*ws), o->threads, worker_main, prog))
		return 1;
	for (i = 0; i < o->threads; i++) {
		loops += ws[i].done;
		nlat += ws[i].nlat;
		err |= ws[i].err;
	}
	secs = now() - t_start;
	all = calloc(nlat + 1, sizeof(uint64_t));
	if (!all) {
		perror(prog);
		return 1;
	}
	for (i = 0, j = 0; i < o->threads; i++) {
		memcpy(all + j, ws[i].lat_ns, ws[i].nlat * sizeof(uint64_t));
		j += ws[i].nlat;
	}
	qsort(all, nlat, sizeof(uint64_t), cmp_u64);
	printf("varmail: threads=%u loops=%lu fsyncs=%lu secs=%.3f loops_per_s=%.1f ops_per_s=%.1f fsync_p50_us=%.0f fsync_p99_us=%.0f fsync_max_us=%.0f\n",
	       o->threads, loops, nlat, secs, secs > 0 ? loops / secs : 0,
	       secs > 0 ? loops * FLOWOPS_PER_LOOP / secs : 0,
	       pct_us(all, nlat, 50), pct_us(all, nlat, 99),
	       pct_us(all, nlat, 100));
	return err;
}

static void __noreturn usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: %s -d DIR -p [-n NFILES] [-m MEAN] [-r SEED]\n"
		"       %s -d DIR [-t THREADS] [-n NFILES] [-l LOOPS] [-m MEAN] [-a APPEND]\n"
		"               [-r SEED] [-s MAXSECS]\n"
		"-p prepares DIR (80%% of NFILES files exist, ~MEAN bytes each, then sync);\n"
		"without it, THREADS threads do LOOPS loops of varmail's flowops in all.\n"
		"Defaults: NFILES 1000, THREADS 1, LOOPS 1000, MEAN 16384, APPEND 16384,\n"
		"SEED 1, no time limit.\n", prog, prog);
	exit(status);
}


int main(int argc, char **argv)
{
	struct options o = {
		.nfiles = 1000, .threads = 1, .loops = 1000,
		.mean = 16384, .append = 16384, .seed = 1,
	};
	int c, prep = 0;

	while ((c = getopt(argc, argv, "d:pn:t:l:m:a:r:s:h")) != -1) {
		switch (c) {
		case 'd':
			o.dir = optarg;
			break;
		case 'p':
			prep = 1;
			break;
		case 'n':
			o.nfiles = get_num("-n", optarg, 0, 1 << 24);
			break;
		case 't':
			o.threads = get_num("-t", optarg, 0, MAX_THREADS);
			break;
		case 'l':
			o.loops = get_num("-l", optarg, 0, 1UL << 30);
			break;
		case 'm':
			o.mean = get_num("-m", optarg, 0, 1 << 26);
			break;
		case 'a':
			o.append = get_num("-a", optarg, 0, 1 << 26);
			break;
		case 'r':
			o.seed = get_num("-r", optarg, 0, 0xffffffffUL);
			break;
		case 's':
			o.max_secs = get_num("-s", optarg, 0, 1 << 20);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (!o.dir || optind != argc || !o.threads || !o.nfiles)
		usage(2);
	return prep ? prepare(&o) : run(&o);
}
