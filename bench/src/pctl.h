/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pctl.h - latencies for the benchmark helpers (bench/README.md's
 * workloads): take the time with now_ns(), sort the samples with
 * cmp_u64, then read pct_us().
 */
#ifndef PCTL_H
#define PCTL_H

#include <stdint.h>
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

#endif /* PCTL_H */
