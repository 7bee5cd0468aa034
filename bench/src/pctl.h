/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pctl.h - latencies and worker threads for the benchmark helpers
 * (bench/README.md's workloads): take the time with now_ns(), sort the
 * samples with cmp_u64, then read pct_us(); run_workers() starts a
 * thread per worker and waits for them all.
 */
#ifndef PCTL_H
#define PCTL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile @p (0-100] of sorted @v[@n], in microseconds. */
static double pct_us(const uint64_t *v, unsigned long n, double p)
{
	unsigned long i;

	if (!n)
		return 0;
	i = (unsigned long)(p / 100.0 * n + 0.999999);
	if (i < 1)
		i = 1;
	if (i > n)
		i = n;
	return v[i - 1] / 1000.0;
}

/*
 * Run @fn on each of @n workers, the array @ws of @size bytes each, a
 * thread per worker, and wait for them all.  Returns 0, or 1 once it has
 * said which thread it could not start (@prog: the program's name).
 */
static inline int run_workers(void *ws, size_t size, unsigned long n,
			      void *(*fn)(void *), const char *prog)
{
	pthread_t *tid = calloc(n + 1, sizeof(*tid));
	unsigned long i;

	if (!tid) {
		perror(prog);
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (pthread_create(&tid[i], NULL, fn, (char *)ws + i * size)) {
			fprintf(stderr, "%s: cannot start thread %lu\n", prog, i);
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	return 0;
}

#endif /* PCTL_H */
