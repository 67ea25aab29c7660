/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * The ring fuzzer's (ring_fuzz.c) seeded random generator.  Time, the
 * victim process and the ring control words are tools/lib's (vt.h,
 * vt_ring.h), shared with tools/hostile.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>

/* --------------------------------------------------------------- rng -- */

/*
 * splitmix64: small, fast and fully determined by its seed, so that a run
 * is reproducible from the seed it prints (as far as thread timing allows).
 */
struct rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0. */
static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((rng_next(r) >> 32) * n) >> 32);
}

/* True with probability 1/n. */
static inline int rng_one_in(struct rng *r, uint32_t n)
{
	return rng_below(r, n) == 0;
}

#endif /* FUZZ_COMMON_H */
