/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * Helpers of the ring fuzzer (ring_fuzz.c): the victim process, the ring
 * control words, time and a seeded random generator.
 *
 * The victim and the ring-word accessors follow tools/hostile/hostile_rings.c,
 * which keeps its own static copies (that file is not shared code); a change
 * to how either program finds or checks the victim's MR must be made in both.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <endian.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <linux/virtio_rdma.h>

/* ------------------------------------------------------------- time -- */

static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void sleep_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

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

/* ------------------------------------------------- ring control words -- */

/* ring_ctl words: aligned 32-bit, little-endian, shared with the device. */
static inline uint32_t ring_load(__le32 *p)
{
	return le32toh(atomic_load_explicit((_Atomic(uint32_t) *)p,
					    memory_order_relaxed));
}

static inline void ring_store(__le32 *p, uint32_t v)
{
	atomic_store_explicit((_Atomic(uint32_t) *)p, htole32(v),
			      memory_order_relaxed);
}

/* Entries before a prod are written before it (the spec's ordering). */
static inline void ring_store_release(__le32 *p, uint32_t v)
{
	atomic_store_explicit((_Atomic(uint32_t) *)p, htole32(v),
			      memory_order_release);
}

/* ----------------------------------------------------------- victim -- */

#define VICTIM_LEN	(64 * 1024)

struct victim_info {
	uint32_t lkey;
	uint32_t rkey;
	uint64_t addr;
	uint64_t len;
};

static inline uint8_t victim_pattern(size_t i)
{
	return (uint8_t)(i * 131 + 17);
}

/*
 * The victim registers an MR with every access right in its own PD on
 * @devname, writes its keys to @out_fd, waits for a byte (or EOF: the
 * process that attacks it may have been killed) on @in_fd, then checks the
 * pattern.  It opens its device before the attacker opens any: no verbs
 * state is shared across the fork.  Returns the exit status: 0 intact,
 * 1 changed, 2 could not set up.
 */
static inline int victim_main(const char *devname, int out_fd, int in_fd)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct victim_info vi;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t i, bad = 0;
	char c;
	int n;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < (size_t)n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		return 2;
	pd = ibv_alloc_pd(ctx);
	buf = aligned_alloc(4096, VICTIM_LEN);
	if (!pd || !buf)
		return 2;
	for (i = 0; i < VICTIM_LEN; i++)
		buf[i] = victim_pattern(i);
	mr = ibv_reg_mr(pd, buf, VICTIM_LEN,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		return 2;
	vi.lkey = mr->lkey;
	vi.rkey = mr->rkey;
	vi.addr = (uintptr_t)buf;
	vi.len = VICTIM_LEN;
	if (write(out_fd, &vi, sizeof(vi)) != sizeof(vi))
		return 2;
	if (read(in_fd, &c, 1) < 0)
		return 2;
	for (i = 0; i < VICTIM_LEN; i++) {
		if (buf[i] != victim_pattern(i)) {
			if (!bad)
				printf("FAIL: victim: byte %zu of its MR changed: 0x%02x\n",
				       i, buf[i]);
			bad++;
		}
	}
	if (bad)
		printf("FAIL: victim: %zu bytes of its MR changed\n", bad);
	else
		printf("ok: victim: its %d-byte MR is unchanged\n", VICTIM_LEN);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(buf);
	return bad ? 1 : 0;
}

#endif /* FUZZ_COMMON_H */
